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

package features_test

import (
	"testing"

	"k8s.io/component-base/featuregate"

	"github.com/lbstatus/lbstatus/apis/features"
)

func TestLoadBalancerStatusImprovements_AlphaDefaultOff(t *testing.T) {
	specs := features.VersionedSpecs()[features.LoadBalancerStatusImprovements]
	if len(specs) != 1 || specs[0].PreRelease != featuregate.Alpha || specs[0].Default {
		t.Fatalf("specs = %+v, want one alpha spec, default off", specs)
	}
	gate := features.NewFeatureGate()
	if gate.Enabled(features.LoadBalancerStatusImprovements) || features.Enabled(gate) {
		t.Errorf("enabled by default")
	}
	if err := gate.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): true}); err != nil {
		t.Fatal(err)
	}
	if !features.Enabled(gate) {
		t.Errorf("not enabled after SetFromMap")
	}
}

// TestAddToFeatureGate: a caller's own gate, holding features of its own,
// takes ours beside them.
func TestAddToFeatureGate(t *testing.T) {
	gate := featuregate.NewFeatureGate()
	if err := gate.Add(map[featuregate.Feature]featuregate.FeatureSpec{"Other": {Default: true, PreRelease: featuregate.Beta}}); err != nil {
		t.Fatal(err)
	}
	if err := features.AddToFeatureGate(gate); err != nil {
		t.Fatal(err)
	}
	if err := gate.Set("LoadBalancerStatusImprovements=true"); err != nil {
		t.Fatal(err)
	}
	if !features.Enabled(gate) || !gate.Enabled("Other") {
		t.Errorf("gate lost a feature")
	}
}

// TestEnabled_NilAndUnregistered: neither a nil gate nor one without the
// feature panics; both answer the default.
func TestEnabled_NilAndUnregistered(t *testing.T) {
	if features.Enabled(nil) {
		t.Errorf("nil gate: enabled")
	}
	if features.Enabled(featuregate.NewFeatureGate()) {
		t.Errorf("gate without the feature: enabled")
	}
}
