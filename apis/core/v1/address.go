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

import corev1 "k8s.io/api/core/v1"

// HasAddress reports whether ingress has an entry with an ip or a
// hostname: what L4 counts as an address. An entry with neither (only
// ports, or an ipMode) gives a client nothing to connect to.
func HasAddress(ingress []corev1.LoadBalancerIngress) bool {
	for i := range ingress {
		if ingress[i].IP != "" || ingress[i].Hostname != "" {
			return true
		}
	}
	return false
}
