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

// Package gomega has gomega matchers that speak KEP-4631 verdicts, for e2e
// suites written with gomega (and ginkgo):
//
//	Eventually(get).Should(lbgomega.BeServing())
//	Eventually(get).Should(And(lbgomega.HaveSeenChange(before), lbgomega.BeServing()))
//	Eventually(get).Should(lbgomega.BeReleased()) // after a change to ClusterIP (L9)
//	Expect(svc).To(lbgomega.HaveVerdict(conditions.ResultSkip))
//	Expect(svc).NotTo(lbgomega.BeDegradedIn(v1.LoadBalancerFeatureSessionAffinity))
//
// Every matcher accepts a *v1.Service or v1.Service of lbstatus, a
// *corev1.Service or corev1.Service of client-go, or a function of no
// arguments returning one of those (as Eventually polls); a nil Service
// is matched as a Service with no status (Pending, T4). Anything else is
// an error, which fails the assertion with a message naming the type.
//
// Failure messages name the rule that gave the verdict (T1 to T4, or the
// rule of the matcher, P3 or P4 for BeDegradedIn), the Service and the
// KEP-4631 conditions seen, so a failed e2e run says what the provider
// wrote without another kubectl call.
//
// The package is a module of its own so that gomega never enters the
// lbstatus module's dependencies.
package gomega
