-- Argo CD health check for core/v1 Service that reads the KEP-4631
-- conditions (lbstatus). Install it as the argocd-cm key
-- resource.customizations.health.Service, with
-- resource.customizations.useOpenLibs.Service: "true" (see the lbstatus
-- README and below).
--
-- The same mapping as lbstatus's kstatus reader and Flux expressions:
--   Healthy:     Provisioning=False, Serving=True and an ingress entry with
--                an ip or a hostname (T3, L4); or, for a provider that
--                writes neither condition (R3), an ingress with an address,
--                unless the Service requires a feature (through
--                spec.requiredLoadBalancerFeatures or the annotation
--                lbstatus.github.io/required-load-balancer-features): such
--                a provider never saw the requirement
--   Degraded:    Serving=False/Unsupported (T1), LoadBalancerDegraded=True
--                (or the deprecated LoadBalancerPortsError=True) naming a
--                feature the Service requires, which R1 forbids (T1), or
--                Serving=False/Infrastructure with Provisioning=False (T2)
--   Progressing: everything else (T4)
-- Services of other types are Healthy, as Argo CD's own check says. A
-- Service being deleted is Progressing ("Pending deletion"), whatever its
-- type and conditions, as the kstatus reader and the Flux expressions keep
-- it from Current too: Argo CD says so before it runs a health script,
-- except for a resource with its hook finalizer, which reaches this one.
--
-- Reading the required-features annotation and the list of a Multiple
-- degradation needs Lua's string library, which Argo CD gives a health
-- check of argocd-cm only when resource.customizations.useOpenLibs.Service
-- is "true" (the lbstatus README installs both keys). Without it, a
-- Service whose answer depends on one of them is Unknown, with a message
-- that says so; no other Service needs the library.
hs = {}

local str = string -- nil without useOpenLibs

local function needsOpenLibs()
  hs.status = "Unknown"
  hs.message = "reading the annotation lbstatus.github.io/required-load-balancer-features or a Multiple degradation needs Lua's string library: " ..
    "set resource.customizations.useOpenLibs.Service to \"true\" in argocd-cm"
  return hs
end

local function find(conds, t)
  if conds == nil then return nil end
  for _, c in ipairs(conds) do
    if c.type == t then return c end
  end
  return nil
end

local function suffix(message)
  if message == nil or message == "" then return "" end
  return ": " .. message
end

local function hasAddress(status)
  if status == nil or status.loadBalancer == nil or status.loadBalancer.ingress == nil then
    return false
  end
  for _, ing in ipairs(status.loadBalancer.ingress) do
    if (ing.ip ~= nil and ing.ip ~= "") or (ing.hostname ~= nil and ing.hostname ~= "") then
      return true
    end
  end
  return false
end

-- Unicode spaces other than ASCII's, in UTF-8: Go's strings.TrimSpace,
-- which lbstatus trims annotation items with, removes them too.
local unicodeSpaces = {
  "\194\133", "\194\160", "\225\154\128", "\226\128[\128-\138]",
  "\226\128\168", "\226\128\169", "\226\128\175", "\226\129\159", "\227\128\128",
}

-- trim removes leading and trailing white space, ASCII or Unicode.
local function trim(s)
  while true do
    local t = str.gsub(str.gsub(s, "^%s+", ""), "%s+$", "")
    for _, sp in ipairs(unicodeSpaces) do
      t = str.gsub(str.gsub(t, "^" .. sp, ""), sp .. "$", "")
    end
    if t == s then return s end
    s = t
  end
end

-- split returns the items of s between commas, trimmed, empty ones too.
local function split(s)
  local out = {}
  for item in str.gmatch(s .. ",", "([^,]*),") do
    table.insert(out, trim(item))
  end
  return out
end

-- requiredFeatures: spec.requiredLoadBalancerFeatures when it is not
-- empty, else the annotation's items that are not blank, in order; nil
-- when the annotation must be read and the string library is missing.
local function requiredFeatures(o)
  if o.spec ~= nil and o.spec.requiredLoadBalancerFeatures ~= nil and #o.spec.requiredLoadBalancerFeatures > 0 then
    return o.spec.requiredLoadBalancerFeatures
  end
  local out = {}
  if o.metadata == nil or o.metadata.annotations == nil then return out end
  local value = o.metadata.annotations["lbstatus.github.io/required-load-balancer-features"]
  if value == nil or value == "" then return out end
  if str == nil then return nil end
  for _, item in ipairs(split(value)) do
    if item ~= "" then table.insert(out, item) end
  end
  return out
end

-- The LoadBalancerDegraded reason of each feature.
local degradedReasonOf = {
  IPFamilies = "IPFamiliesNotSupported",
  Ports = "PortsNotSupported",
  SessionAffinity = "SessionAffinityNotSupported",
  LoadBalancerIP = "LoadBalancerIPNotSupported",
  ExternalTrafficPolicy = "ExternalTrafficPolicyNotSupported",
  LoadBalancerSourceRanges = "LoadBalancerSourceRangesNotSupported",
}

-- degradedReasons: the reasons of degraded if it is True (for Multiple,
-- the list before the first colon of its message), and PortsNotSupported
-- if portsError is True; nil when a Multiple list must be read and the
-- string library is missing.
local function degradedReasons(degraded, portsError)
  local out = {}
  if degraded ~= nil and degraded.status == "True" then
    if degraded.reason == "Multiple" then
      if str == nil then return nil end
      local list = degraded.message or ""
      local colon = str.find(list, ":", 1, true)
      if colon ~= nil then list = str.sub(list, 1, colon - 1) end
      for _, item in ipairs(split(list)) do out[item] = true end
    elseif degraded.reason ~= nil then
      out[degraded.reason] = true
    end
  end
  if portsError ~= nil and portsError.status == "True" then out["PortsNotSupported"] = true end
  return out
end

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.status = "Progressing"
  hs.message = "Pending deletion"
  return hs
end
if obj.spec == nil or obj.spec.type ~= "LoadBalancer" then
  hs.status = "Healthy"
  hs.message = ""
  return hs
end

local conds = nil
if obj.status ~= nil then conds = obj.status.conditions end
local serving = find(conds, "LoadBalancerServing")
local provisioning = find(conds, "LoadBalancerProvisioning")
local provisioningFalse = provisioning ~= nil and provisioning.status == "False"

if serving ~= nil and serving.status == "False" and serving.reason == "Unsupported" then
  hs.status = "Degraded"
  hs.message = "T1: the provider refused the service as unsupported" .. suffix(serving.message)
  return hs
end
-- Degraded in a feature the Service requires (T1 for that feature). The
-- requirement is read only when something is degraded, and a Multiple
-- list only when something is required.
local degraded = find(conds, "LoadBalancerDegraded")
local portsError = find(conds, "LoadBalancerPortsError")
if (degraded ~= nil and degraded.status == "True") or (portsError ~= nil and portsError.status == "True") then
  local required = requiredFeatures(obj)
  if required == nil then return needsOpenLibs() end
  if #required > 0 then
    local reasons = degradedReasons(degraded, portsError)
    if reasons == nil then return needsOpenLibs() end
    for _, f in ipairs(required) do
      local reason = degradedReasonOf[f]
      if reason ~= nil and reasons[reason] then
        hs.status = "Degraded"
        hs.message = "T1: the load balancer is degraded in feature " .. f .. " (" .. reason .. ")"
        return hs
      end
    end
  end
end
if serving ~= nil and serving.status == "False" and serving.reason == "Infrastructure" and provisioningFalse then
  hs.status = "Degraded"
  hs.message = "T2: provisioning failed in the provider's infrastructure" .. suffix(serving.message)
  return hs
end
if serving ~= nil and serving.status == "True" and provisioningFalse then
  if hasAddress(obj.status) then
    hs.status = "Healthy"
    hs.message = "T3: the load balancer serves the latest spec of the service"
  else
    hs.status = "Progressing"
    local ingress = nil
    if obj.status.loadBalancer ~= nil then ingress = obj.status.loadBalancer.ingress end
    if ingress == nil or #ingress == 0 then
      hs.message = "T4: Serving is True but status.loadBalancer.ingress is empty (L4)"
    else
      hs.message = "T4: Serving is True but no entry of status.loadBalancer.ingress has an ip or a hostname (L4)"
    end
  end
  return hs
end
if serving == nil and provisioning == nil and hasAddress(obj.status) then
  local required = requiredFeatures(obj)
  if required == nil then return needsOpenLibs() end
  if #required == 0 then
    hs.status = "Healthy"
    hs.message = "R3: no KEP-4631 conditions; the provider predates the KEP, and the ingress has an address"
    return hs
  end
end
hs.status = "Progressing"
if serving == nil and provisioning == nil then
  hs.message = "T4: no provider has written the LoadBalancerServing and LoadBalancerProvisioning conditions yet"
elseif provisioning ~= nil and provisioning.status == "True" then
  hs.message = "T4: the load balancer is being provisioned"
else
  hs.message = "T4: the conditions do not give a final answer yet"
end
return hs
