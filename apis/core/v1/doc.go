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

// The generators' package tags, apart from the package comment so that
// go doc does not show them:
//
// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.lbstatus.lbstatus.apis.core.v1
// +k8s:validation-gen=TypesWithField=TypeMeta
// +k8s:validation-gen-scheme-registry=k8s.io/apimachinery/pkg/runtime.Scheme
// +groupName=

// Package v1 holds the KEP-4631 version of the core/v1 Service: a wire
// superset of k8s.io/api/core/v1.Service that adds
// spec.requiredLoadBalancerFeatures and names the three load-balancer
// conditions (LoadBalancerServing, LoadBalancerProvisioning,
// LoadBalancerDegraded) with their reasons.
//
// Any core/v1 Service decodes into this type and encodes back unchanged, so a
// client built on it talks to every cluster. On a cluster that does not know
// the new field, the apiserver prunes it; conditions.RequiredFeatures reads
// the same request from an annotation instead (see
// RequiredFeaturesAnnotation).
//
// The rules these types serve are numbered in the project's specification
// (C1, L6, R4, ...); the comments below cite them.
package v1
