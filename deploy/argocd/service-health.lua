-- Argo CD health check for core/v1 Service that reads the KEP-4631
-- conditions (lbstatus). Install it as the argocd-cm key
-- resource.customizations.health.Service (see the lbstatus README).
--
-- The same mapping as lbstatus's kstatus reader and Flux expressions:
--   Healthy:     Provisioning=False, Serving=True and an ingress entry with
--                an ip or a hostname (T3, L4); or, for a provider that
--                writes neither condition (R3), an ingress with an address
--   Degraded:    Serving=False/Unsupported (T1), or Serving=False/
--                Infrastructure with Provisioning=False (T2)
--   Progressing: everything else (T4)
-- Services of other types are Healthy, as Argo CD's own check says. A
-- Service being deleted never reaches this script: Argo CD reports it
-- Progressing ("Pending deletion") first, as the kstatus reader and the
-- Flux expressions keep it from Current too.
hs = {}

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
  hs.status = "Healthy"
  hs.message = "R3: no KEP-4631 conditions; the provider predates the KEP, and the ingress has an address"
  return hs
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
