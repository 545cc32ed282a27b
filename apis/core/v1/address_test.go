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

package v1_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// TestHasAddress_L4 pins what L4 counts as an address: an entry with an
// ip, a hostname or both, wherever it sits in the list; an entry with
// neither counts for nothing.
func TestHasAddress_L4(t *testing.T) {
	none := corev1.LoadBalancerIngress{
		IPMode: ptr.To(corev1.LoadBalancerIPModeProxy),
		Ports:  []corev1.PortStatus{{Port: 80, Protocol: corev1.ProtocolTCP}},
	}
	for _, tc := range []struct {
		name    string
		ingress []corev1.LoadBalancerIngress
		want    bool
	}{
		{"nil", nil, false},
		{"empty", []corev1.LoadBalancerIngress{}, false},
		{"an ip", []corev1.LoadBalancerIngress{{IP: "192.0.2.7"}}, true},
		{"a hostname", []corev1.LoadBalancerIngress{{Hostname: "lb.example.com"}}, true},
		{"both", []corev1.LoadBalancerIngress{{IP: "192.0.2.7", Hostname: "lb.example.com"}}, true},
		{"an entry without either", []corev1.LoadBalancerIngress{none}, false},
		{"two entries without either", []corev1.LoadBalancerIngress{none, none}, false},
		{"an ip after an entry without either", []corev1.LoadBalancerIngress{none, {IP: "2001:db8::7"}}, true},
		{"a hostname after an entry without either", []corev1.LoadBalancerIngress{none, {Hostname: "lb.example.com"}}, true},
	} {
		if got := v1.HasAddress(tc.ingress); got != tc.want {
			t.Errorf("%s: HasAddress = %v, want %v", tc.name, got, tc.want)
		}
	}
}
