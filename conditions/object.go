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

package conditions

import (
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// Object is a Service of either type the package accepts: client-go's
// *k8s.io/api/core/v1.Service, which providers and suites hold, or the
// project's *github.com/lbstatus/lbstatus/apis/core/v1.Service, which has
// the spec.requiredLoadBalancerFeatures field. Required features come from
// that field first, then from the annotation v1.RequiredFeaturesAnnotation;
// client-go's type has only the annotation. Functions over an Object
// return Services of the caller's type.
type Object interface {
	*corev1.Service | *v1.Service
}

// view returns svc as the project's type without copying: metadata, spec
// and status share their maps and slices with svc, so the result is only
// read. A nil svc gives nil.
func view[S Object](svc S) *v1.Service {
	switch s := any(svc).(type) {
	case *v1.Service:
		return s
	case *corev1.Service:
		return v1.FromCoreShallow(s)
	}
	return nil
}

// withNewStatus returns a shallow copy of svc, of the caller's type, with
// another status: metadata and spec are shared with svc. A nil svc gives
// nil.
func withNewStatus[S Object](svc S, status v1.ServiceStatus) S {
	switch s := any(svc).(type) {
	case *v1.Service:
		if s == nil {
			return svc
		}
		out := *s
		out.Status = status
		return any(&out).(S)
	case *corev1.Service:
		if s == nil {
			return svc
		}
		out := *s
		out.Status = corev1.ServiceStatus(status)
		return any(&out).(S)
	}
	return svc
}
