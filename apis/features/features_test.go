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
	"runtime"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/component-base/featuregate"

	"github.com/lbstatus/lbstatus/apis/features"
)

func TestLoadBalancerStatusImprovements_AlphaDefaultOff(t *testing.T) {
	specs := features.VersionedSpecs()[features.LoadBalancerStatusImprovements]
	if len(specs) != 1 || specs[0].PreRelease != featuregate.Alpha || specs[0].Default {
		t.Fatalf("specs = %+v, want one alpha spec, default off", specs)
	}
	// Alpha from v1.37: an emulated version before it has no such feature.
	if v := specs[0].Version; v == nil || !v.EqualTo(version.MajorMinor(1, 37)) {
		t.Errorf("alpha from %v, want v1.37", v)
	}
	gate := features.NewFeatureGate()
	if on, err := features.Enabled(gate); gate.Enabled(features.LoadBalancerStatusImprovements) || on || err != nil {
		t.Errorf("enabled by default (err %v)", err)
	}
	if err := gate.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): true}); err != nil {
		t.Fatal(err)
	}
	if on, err := features.Enabled(gate); !on || err != nil {
		t.Errorf("not enabled after SetFromMap (err %v)", err)
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
	if on, err := features.Enabled(gate); !on || err != nil || !gate.Enabled("Other") {
		t.Errorf("gate lost a feature (err %v)", err)
	}
}

// TestEnabled_NilAndUnregistered: a nil gate answers the default; a gate
// without the feature is an error naming the feature, never a panic and
// never a silent "off".
func TestEnabled_NilAndUnregistered(t *testing.T) {
	if on, err := features.Enabled(nil); on || err != nil {
		t.Errorf("nil gate: enabled=%v, err=%v", on, err)
	}
	on, err := features.Enabled(featuregate.NewFeatureGate())
	if err == nil || on {
		t.Fatalf("gate without the feature: enabled=%v, err=%v; want an error", on, err)
	}
	if !strings.Contains(err.Error(), "LoadBalancerStatusImprovements") || !strings.Contains(err.Error(), "AddToFeatureGate") {
		t.Errorf("error %q does not name the gate and the fix", err)
	}
	// Asked again, the same gate is still without it: a gate is remembered
	// only once it was found to hold the feature.
	gate := featuregate.NewFeatureGate()
	for i := range 2 {
		if on, err := features.Enabled(gate); err == nil || on {
			t.Errorf("gate without the feature, asked %d times: enabled=%v, err=%v; want an error", i+1, on, err)
		}
	}
}

// TestEnabled_OtherGateImplementations: a gate that is not featuregate's
// own is asked through KnownFeatures.
func TestEnabled_OtherGateImplementations(t *testing.T) {
	inner := features.NewFeatureGate()
	if err := inner.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): true}); err != nil {
		t.Fatal(err)
	}
	if on, err := features.Enabled(wrappedGate{inner}); !on || err != nil {
		t.Errorf("wrapped gate: enabled=%v, err=%v", on, err)
	}
	if _, err := features.Enabled(wrappedGate{featuregate.NewFeatureGate()}); err == nil {
		t.Errorf("wrapped gate without the feature: no error")
	}
	// KnownFeatures lists "Name=true|false (...)": a feature whose name
	// only starts or ends with ours is another feature.
	alike := featuregate.NewFeatureGate()
	if err := alike.Add(map[featuregate.Feature]featuregate.FeatureSpec{
		features.LoadBalancerStatusImprovements + "V2": {PreRelease: featuregate.Alpha},
		"X" + features.LoadBalancerStatusImprovements:  {PreRelease: featuregate.Alpha},
	}); err != nil {
		t.Fatal(err)
	}
	if on, err := features.Enabled(wrappedGate{alike}); err == nil || on {
		t.Errorf("wrapped gate with features named alike: enabled=%v, err=%v; want an error", on, err)
	}
}

// wrappedGate hides every method of featuregate's gate but the interface.
type wrappedGate struct{ featuregate.FeatureGate }

// uncomparableGate is a gate whose values cannot be compared: == on two of
// them panics.
type uncomparableGate struct {
	featuregate.FeatureGate
	_ []string
}

// TestEnabled_UncomparableGate: a gate that is not a pointer is asked each
// time, never compared with the last one, which would panic for a type
// that cannot be compared.
func TestEnabled_UncomparableGate(t *testing.T) {
	gate := uncomparableGate{FeatureGate: features.NewFeatureGate()}
	for i := range 2 {
		if on, err := features.Enabled(gate); on || err != nil {
			t.Errorf("asked %d times: enabled=%v, err=%v", i+1, on, err)
		}
	}
}

// TestEnabled_KeepsNoGateAlive: Enabled remembers only the last gate it
// found the feature in, so a caller that makes a gate for each use (the
// conformance checker made one per input) does not keep every one alive.
func TestEnabled_KeepsNoGateAlive(t *testing.T) {
	const gates = 100
	freed := make(chan struct{}, gates)
	for range gates {
		gate := features.NewFeatureGate()
		runtime.SetFinalizer(gate, func(featuregate.FeatureGate) { freed <- struct{}{} })
		if _, err := features.Enabled(gate); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(freed) < gates-1 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(freed); n < gates-1 {
		t.Errorf("%d of %d gates asked once were freed; want all but the last", n, gates)
	}
}
