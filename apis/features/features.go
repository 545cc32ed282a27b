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

// Package features defines the LoadBalancerStatusImprovements feature gate
// as a k8s.io/component-base feature, for callers to register in their own
// gate next to their other features.
//
// kube-apiserver consults it for spec.requiredLoadBalancerFeatures (R5); a
// cloud-controller-manager consults it before writing the KEP-4631
// conditions.
package features

import (
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"
)

// LoadBalancerStatusImprovements gates spec.requiredLoadBalancerFeatures and
// the LoadBalancerServing, LoadBalancerProvisioning and LoadBalancerDegraded
// Service conditions (KEP-4631).
//
// owner: @lbstatus
// kep: https://kep.k8s.io/4631
// alpha: v1.37
const LoadBalancerStatusImprovements featuregate.Feature = "LoadBalancerStatusImprovements"

// VersionedSpecs returns the specs of every feature this package defines, for
// featuregate.MutableVersionedFeatureGate.AddVersioned. Each call returns a
// new map.
func VersionedSpecs() map[featuregate.Feature]featuregate.VersionedSpecs {
	return map[featuregate.Feature]featuregate.VersionedSpecs{
		LoadBalancerStatusImprovements: {
			{Version: version.MajorMinor(1, 37), Default: false, PreRelease: featuregate.Alpha},
		},
	}
}

// AddToFeatureGate registers this package's features in gate. It fails, as
// featuregate does, if a feature of the same name with another spec is
// already registered.
func AddToFeatureGate(gate featuregate.MutableVersionedFeatureGate) error {
	return gate.AddVersioned(VersionedSpecs())
}

// NewFeatureGate returns a new gate holding only this package's features, at
// their defaults, for callers that have no gate of their own.
func NewFeatureGate() featuregate.MutableVersionedFeatureGate {
	gate := featuregate.NewFeatureGate()
	if err := AddToFeatureGate(gate); err != nil {
		// A fresh gate cannot already hold the feature.
		panic(err)
	}
	return gate
}

// Enabled reports whether LoadBalancerStatusImprovements is enabled in gate.
// A nil gate answers the feature's default (false). A gate that does not
// know the feature is an error naming it, not an answer: featuregate panics
// on an unregistered feature, and reading that as "off" would hide a caller
// that forgot AddToFeatureGate behind a silently disabled feature.
func Enabled(gate featuregate.FeatureGate) (bool, error) {
	if gate == nil {
		return false, nil
	}
	if !registered(gate) {
		return false, fmt.Errorf("feature gate %s is not registered in the caller's feature gate; register it with features.AddToFeatureGate", LoadBalancerStatusImprovements)
	}
	return gate.Enabled(LoadBalancerStatusImprovements), nil
}

// versionedGate is the part of featuregate's own gate that answers which
// features it knows without formatting their help strings.
type versionedGate interface {
	GetAllVersioned() map[featuregate.Feature]featuregate.VersionedSpecs
}

// lastGate is the last gate found to hold the feature (a knownGate): a
// feature cannot be removed from a gate, and an apiserver asks its one gate on
// every write. Only the last one is kept, so that a caller that makes a gate
// for each use (a checker per input) does not keep them all alive.
var lastGate atomic.Value

type knownGate struct{ gate featuregate.FeatureGate }

// registered reports whether gate knows LoadBalancerStatusImprovements.
func registered(gate featuregate.FeatureGate) bool {
	// Only pointers are remembered: other comparable types may hold
	// interfaces whose comparison panics.
	cacheable := reflect.TypeOf(gate).Kind() == reflect.Pointer
	if last, ok := lastGate.Load().(knownGate); ok && cacheable && last.gate == gate {
		return true
	}
	var found bool
	if vg, ok := gate.(versionedGate); ok {
		_, found = vg.GetAllVersioned()[LoadBalancerStatusImprovements]
	} else {
		prefix := string(LoadBalancerStatusImprovements) + "="
		for _, k := range gate.KnownFeatures() {
			if strings.HasPrefix(k, prefix) {
				found = true
				break
			}
		}
	}
	if found && cacheable {
		lastGate.Store(knownGate{gate})
	}
	return found
}
