/*
Copyright The lbstatus Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1

// LoadBalancerConditionType is the type of a load-balancer condition in a
// Service's status.conditions.
type LoadBalancerConditionType string

// LoadBalancerConditionReason is the reason of a load-balancer condition.
// Providers may use reasons of their own; the ones below are those this
// library writes and understands (C3).
type LoadBalancerConditionReason string

const (
	// LoadBalancerConditionServing says whether the load balancer handles
	// connections at the addresses in status.loadBalancer. Only True or False
	// (C1); set together with LoadBalancerConditionProvisioning (L1).
	//
	// Possible reasons for this condition to be True are:
	//
	// * "Serving"
	//
	// Possible reasons for this condition to be False are:
	//
	// * "Provisioning" (with Provisioning=True)
	// * "Unsupported" (refused; the message says what)
	// * "Infrastructure" (failed; the message says what)
	//
	// Unknown is not a valid status for this condition.
	LoadBalancerConditionServing LoadBalancerConditionType = "LoadBalancerServing"

	// LoadBalancerConditionProvisioning says whether a time-consuming
	// provisioning step is under way. Only True or False (C1). Its
	// lastTransitionTime also moves, without a status change, when the
	// provider sees a load-balancer-relevant change of the Service (L6).
	//
	// Possible reasons for this condition to be True are:
	//
	// * "Provisioning"
	//
	// Possible reasons for this condition to be False are:
	//
	// * "Complete" (the provider finished trying; Serving says how it went)
	//
	// Unknown is not a valid status for this condition.
	LoadBalancerConditionProvisioning LoadBalancerConditionType = "LoadBalancerProvisioning"

	// LoadBalancerConditionDegraded says that the provider knowingly
	// provisioned less than the Service asks for. Absent means Unknown (C2).
	//
	// Possible reasons for this condition to be True are:
	//
	// * "IPFamiliesNotSupported"
	// * "PortsNotSupported"
	// * "LoadBalancerIPNotSupported"
	// * "SessionAffinityNotSupported"
	// * "ExternalTrafficPolicyNotSupported"
	// * "LoadBalancerSourceRangesNotSupported"
	// * "Multiple" (the message starts with the individual reasons, sorted
	//   and comma-separated, G2)
	//
	// False is discouraged: a provider cannot know that the Service uses no
	// field it has never heard of (C2). Unknown may be set explicitly.
	LoadBalancerConditionDegraded LoadBalancerConditionType = "LoadBalancerDegraded"

	// LoadBalancerConditionPortsError is the condition KEP-1435 defined for
	// ports a load balancer could not serve.
	//
	// Deprecated: use LoadBalancerConditionDegraded with reason
	// LoadBalancerReasonPortsNotSupported. This library never writes it and
	// reads it as that degradation (C4).
	LoadBalancerConditionPortsError LoadBalancerConditionType = "LoadBalancerPortsError"
)

// Reasons of LoadBalancerConditionServing and LoadBalancerConditionProvisioning.
const (
	// LoadBalancerReasonServing is the reason of Serving=True: the load
	// balancer handles connections at the addresses in status.loadBalancer.
	LoadBalancerReasonServing LoadBalancerConditionReason = "Serving"

	// LoadBalancerReasonProvisioning is the reason of Provisioning=True, and
	// of Serving=False while the load balancer is being (re)provisioned.
	LoadBalancerReasonProvisioning LoadBalancerConditionReason = "Provisioning"

	// LoadBalancerReasonUnsupported is the reason of Serving=False when the
	// provider refuses the Service because it asks for something the
	// provider does not support, a required feature included (R1, R2, P2).
	LoadBalancerReasonUnsupported LoadBalancerConditionReason = "Unsupported"

	// LoadBalancerReasonInfrastructure is the reason of Serving=False when
	// provisioning failed in the underlying infrastructure.
	LoadBalancerReasonInfrastructure LoadBalancerConditionReason = "Infrastructure"

	// LoadBalancerReasonComplete is the reason of Provisioning=False: the
	// provider finished trying, successfully or not.
	LoadBalancerReasonComplete LoadBalancerConditionReason = "Complete"
)

// Reasons of LoadBalancerConditionDegraded=True.
const (
	// LoadBalancerReasonIPFamiliesNotSupported: a dual-stack Service is
	// served on one IP family only.
	LoadBalancerReasonIPFamiliesNotSupported LoadBalancerConditionReason = "IPFamiliesNotSupported"

	// LoadBalancerReasonPortsNotSupported: some, not all, of the Service's
	// ports or protocols are served. Replaces KEP-1435's
	// LoadBalancerPortsError condition.
	LoadBalancerReasonPortsNotSupported LoadBalancerConditionReason = "PortsNotSupported"

	// LoadBalancerReasonLoadBalancerIPNotSupported: spec.loadBalancerIP is
	// set but not honored.
	LoadBalancerReasonLoadBalancerIPNotSupported LoadBalancerConditionReason = "LoadBalancerIPNotSupported"

	// LoadBalancerReasonSessionAffinityNotSupported: session affinity is
	// requested but not implemented.
	LoadBalancerReasonSessionAffinityNotSupported LoadBalancerConditionReason = "SessionAffinityNotSupported"

	// LoadBalancerReasonExternalTrafficPolicyNotSupported:
	// externalTrafficPolicy is Local but the client's source IP is not
	// preserved.
	LoadBalancerReasonExternalTrafficPolicyNotSupported LoadBalancerConditionReason = "ExternalTrafficPolicyNotSupported"

	// LoadBalancerReasonLoadBalancerSourceRangesNotSupported:
	// spec.loadBalancerSourceRanges is set but not enforced (gap G1).
	LoadBalancerReasonLoadBalancerSourceRangesNotSupported LoadBalancerConditionReason = "LoadBalancerSourceRangesNotSupported"

	// LoadBalancerReasonMultiple: more than one degradation. The message
	// starts with the individual reasons, sorted and comma-separated,
	// followed by ": " (gap G2).
	LoadBalancerReasonMultiple LoadBalancerConditionReason = "Multiple"
)
