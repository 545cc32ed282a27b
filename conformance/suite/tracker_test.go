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

package suite

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// A state the provider writes and takes back at once is still judged: a
// hold on ForeignClass's Service sees the ingress the next write removed
// (P1), whenever the wait wakes.
func TestTracker_HoldSeesEveryObservation(t *testing.T) {
	tr := newTracker()
	foreign := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "t", Name: "foreign", UID: "u", ResourceVersion: "1"}}
	foreign.Spec.Type = corev1.ServiceTypeLoadBalancer
	tr.observe(foreign, false)

	written := foreign.DeepCopy()
	written.ResourceVersion = "2"
	written.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}
	undone := foreign.DeepCopy()
	undone.ResourceVersion = "3"

	started := make(chan struct{})
	var once sync.Once
	done := make(chan *v1.Service, 1)
	go func() {
		bad, err := tr.hold(context.Background(), "foreign", 10*time.Second, func(s *v1.Service) bool {
			once.Do(func() { close(started) })
			return len(s.Status.LoadBalancer.Ingress) > 0
		})
		if err != nil {
			t.Error(err)
		}
		done <- bad
	}()
	<-started // judging the state before the writes
	tr.observe(written, false)
	tr.observe(undone, false)
	if bad := <-done; bad == nil || bad.ResourceVersion != "2" {
		t.Fatalf("hold returned %v, want the write of resourceVersion 2", bad)
	}
}
