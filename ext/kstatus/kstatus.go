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

package kstatus

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/engine"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/event"
	"sigs.k8s.io/cli-utils/pkg/kstatus/polling/statusreaders"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/cli-utils/pkg/object"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conditions"
)

// serviceKind is the GroupKind the StatusReader supports.
var serviceKind = schema.GroupKind{Group: "", Kind: "Service"}

// StatusReader computes the status of Services for the kstatus poller:
// LoadBalancer Services from their KEP-4631 conditions (see the package
// doc), other Services as stock kstatus does. Register it with
// polling.Options.CustomStatusReaders.
type StatusReader struct {
	mapper  meta.RESTMapper
	generic engine.StatusReader
}

var _ engine.StatusReader = (*StatusReader)(nil)

// NewStatusReader returns a StatusReader that resolves Services through
// mapper. With a nil mapper (or a nil cluster reader) ReadStatus reports
// an error in the ResourceStatus it returns; ReadStatusForObject needs
// neither.
func NewStatusReader(mapper meta.RESTMapper) *StatusReader {
	return &StatusReader{mapper: mapper, generic: statusreaders.NewGenericStatusReader(mapper, Compute)}
}

// Supports reports whether gk is core Service.
func (r *StatusReader) Supports(gk schema.GroupKind) bool { return gk == serviceKind }

// ReadStatus fetches the Service id names through reader and computes its
// status. A Service that is not found is NotFound, as kstatus reports it.
func (r *StatusReader) ReadStatus(ctx context.Context, reader engine.ClusterReader, id object.ObjMetadata) (*event.ResourceStatus, error) {
	if r.mapper == nil || reader == nil {
		return &event.ResourceStatus{Identifier: id, Status: status.UnknownStatus,
			Error: errors.New("the lbstatus status reader needs a RESTMapper and a cluster reader to fetch a Service")}, nil
	}
	return r.generic.ReadStatus(ctx, reader, id)
}

// ReadStatusForObject computes the status of a Service already fetched.
// A nil obj is an error (stock kstatus's readers dereference it).
func (r *StatusReader) ReadStatusForObject(ctx context.Context, reader engine.ClusterReader, obj *unstructured.Unstructured) (*event.ResourceStatus, error) {
	if obj == nil {
		return nil, errors.New("read the status of a nil object")
	}
	return r.generic.ReadStatusForObject(ctx, reader, obj)
}

// Compute is kstatus's status.Compute for Services: a LoadBalancer Service
// (not being deleted) is judged by its KEP-4631 conditions; any other
// object goes to status.Compute. A nil object, and an object that does
// not convert to a Service, are errors.
func Compute(u *unstructured.Unstructured) (*status.Result, error) {
	if u == nil {
		return nil, errors.New("compute the status of a nil object")
	}
	if u.GroupVersionKind().GroupKind() != serviceKind || u.GetDeletionTimestamp() != nil {
		return status.Compute(u)
	}
	typ, _, _ := unstructured.NestedString(u.Object, "spec", "type")
	if typ != string(corev1.ServiceTypeLoadBalancer) {
		return status.Compute(u)
	}
	// lbstatus's Service, not client-go's: spec.requiredLoadBalancerFeatures,
	// on an apiserver that keeps it, decides whether the R3 fallback holds.
	var svc v1.Service
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &svc); err != nil {
		return nil, fmt.Errorf("service %s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	st, msg := ServiceStatus(&svc)
	return &status.Result{Status: st, Message: msg}, nil
}

// ServiceStatus maps a LoadBalancer Service's verdict to a kstatus status
// and message, as the package doc describes. It does not look at the
// Service's type. A nil Service is InProgress.
//
// The features the Service requires (conditions.RequiredFeatures: the
// spec field, else the annotation) are features under test: a Service
// degraded in one of them is Failed, with the verdict of the first such
// feature (T1), for the provider served less than the Service requires
// (R1, P6). The R3 fallback (Current on an address alone) needs a Service
// that requires no feature: R3 trusts that a provider honored a
// requirement only if it writes the conditions, so an address without
// them says nothing about what was required.
func ServiceStatus(svc *v1.Service) (status.Status, string) {
	required, _, _ := conditions.RequiredFeatures(svc)
	v := verdict(svc, required)
	msg := v.Rule + ": " + v.Reason
	switch v.Result {
	case conditions.ResultReady: // T3 has an address (L4)
		return status.CurrentStatus, msg
	case conditions.ResultSkip, conditions.ResultFail:
		return status.FailedStatus, msg
	}
	if svc != nil && HasAddress(svc) && len(required) == 0 &&
		conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionServing) == nil &&
		conditions.Get(svc.Status.Conditions, v1.LoadBalancerConditionProvisioning) == nil {
		return status.CurrentStatus, "R3: no KEP-4631 conditions; the provider predates the KEP, and the ingress has an address"
	}
	return status.InProgressStatus, msg
}

// HasAddress reports whether an entry of status.loadBalancer.ingress has
// an ip or a hostname (L4: an entry with neither is no address), as
// conditions.HasAddress does. False for nil.
func HasAddress(svc *v1.Service) bool {
	return svc != nil && conditions.HasAddress(svc.Status.LoadBalancer.Ingress)
}

// verdict is conditions.Evaluate for the first of the features svc
// requires whose verdict is Skip (T1), else for no feature under test.
func verdict(svc *v1.Service, required []v1.LoadBalancerFeature) conditions.Verdict {
	for _, f := range required {
		if v := conditions.Evaluate(svc, f); v.Result == conditions.ResultSkip {
			return v
		}
	}
	return conditions.Evaluate(svc, "")
}
