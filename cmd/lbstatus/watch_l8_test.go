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

package main

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// replayFor runs "lbstatus watch args" on src in a synctest bubble, lets
// the bubble's clock run for d once src has delivered its events, and
// interrupts it: it returns the output and the exit status.
func replayFor(t *testing.T, src serviceSource, d time.Duration, args ...string) (string, int) {
	t.Helper()
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, append([]string{"watch"}, args...), strings.NewReader(""), &stdout, &stderr, env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }})
	}()
	synctest.Wait()
	time.Sleep(d)
	cancel()
	code := <-done
	return stdout.String(), code
}

// L8 runs from the conversion to LoadBalancer that the watch saw, however
// often the Service is observed after it without conditions: a later
// observation neither restarts the clock nor takes it back to the
// creation, and the notice still names the conversion.
func TestWatch_L8FromConversionObservedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		old := metav1.NewTime(time.Now().Add(-time.Hour))
		svc := func(rv string, mutate func(*v1.Service)) *v1.Service {
			return service("web", rv, func(s *v1.Service) {
				s.CreationTimestamp = old
				if mutate != nil {
					mutate(s)
				}
			})
		}
		clusterIP := svc("10", func(s *v1.Service) { s.Spec.Type = corev1.ServiceTypeClusterIP })
		converted := svc("11", nil)
		relabelled := svc("12", func(s *v1.Service) { s.Labels = map[string]string{"tier": "front"} })
		src := replaySource{{svc: clusterIP}, {svc: converted}}
		out, code := replayFor(t, append(src, serviceEvent{svc: relabelled}), 20*time.Second, "-o", "json")
		if l8 := l8Notices(out); code != exitOK || len(l8) != 0 {
			t.Errorf("20s after the conversion: exit %d, L8 notices %q; want 0 and none", code, l8)
		}
		src = replaySource{{svc: clusterIP}, {svc: converted}}
		out, code = replayFor(t, append(src, serviceEvent{svc: relabelled}), 2*time.Minute, "-o", "json")
		if l8 := l8Notices(out); code != exitOK || len(l8) != 1 || !strings.HasPrefix(l8[0], "web: no KEP-4631 condition 2m after its conversion to type LoadBalancer, past L8's 30s") {
			t.Errorf("2m after the conversion: exit %d, L8 notices %q; want 0 and one from the conversion", code, l8)
		}
	})
}
