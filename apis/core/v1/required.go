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

// RequiredFeaturesAnnotation carries spec.requiredLoadBalancerFeatures on
// clusters whose apiserver does not have the field (every stock cluster
// today, which prunes it). Its value is a comma-separated list of
// LoadBalancerFeature values, for example "SessionAffinity,Ports"; spaces
// around each value are ignored. The spec field, when set, wins;
// conditions.RequiredFeatures reads both.
const RequiredFeaturesAnnotation = "lbstatus.github.io/required-load-balancer-features"
