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

// Package timeline tells the story of a trace: per Service, one lane per
// KEP-4631 condition (Provisioning, Serving, Degraded), one for the
// deprecated LoadBalancerPortsError when the Service held it, and one for
// the section 6 verdict, over the observations of the input, with the
// load-balancer-relevant spec changes (G3) marked and the checker's
// findings pinned to the observation they were made on.
//
// # Model
//
// A Timeline is fed in input order, as a check reads it: ObserveObject (or
// Observe) with each object and the findings Checker.ObserveObject returned
// for it, then Findings with what Checker.Finish returns. Time is the
// Service's own observations, numbered from 1 (steps): a trace in a file
// carries no clock of its own, and the conditions' lastTransitionTimes are
// what the provider claims, which is exactly what L6 checks.
//
// A lane keeps a Point only where it changed: another status, reason or
// message, or a lastTransitionTime that moved. A point whose status stayed
// while lastTransitionTime moved is Bumped: that is how a provider
// acknowledges a spec change (L6), so a provider author looks for a bump
// after each spec change and finds an L6 finding where there is none.
//
// # Memory
//
// Each lane, the spec-change list, the finding list and the deletions and
// gaps of a Service keep at most MaxPoints entries (DefaultMaxPoints, 200);
// older ones are dropped and counted, since the end of a trace is where its
// problem usually is.
// Per Service the Timeline also keeps the previous observation's spec and
// annotations, to compute the next spec change. Memory grows with the
// number of Services, not with the length of the trace. For a source that
// never ends, such as a live watch, MaxEnded bounds the Services kept after
// their deletion, so that memory follows the Services alive, not every
// Service ever seen.
//
// # Renderers
//
// WriteText prints a table per Service whose columns are the lanes and
// whose rows are the observations where something happened, for a
// terminal. WriteHTML writes one self-contained page: per Service an inline
// SVG with the lanes drawn left to right, spec changes as vertical marks,
// findings as pins, and tables with the same facts; no script, style sheet
// or image is loaded from anywhere.
package timeline
