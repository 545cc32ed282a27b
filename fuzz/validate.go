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

package fuzz

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/apis/features"
	"github.com/lbstatus/lbstatus/validation"
)

// gate is one setting of the feature gate under test.
type gate struct {
	name string
	opts validation.Options
	on   bool
}

// gates are the settings every validation property is checked under: the
// gate on, off, and absent (nil, which means off).
var gates = []gate{
	{"gate on", validation.Options{FeatureGate: newGate(true)}, true},
	{"gate off", validation.Options{FeatureGate: newGate(false)}, false},
	{"nil gate", validation.Options{}, false},
}

func newGate(enabled bool) featuregate.FeatureGate {
	g := features.NewFeatureGate()
	if err := g.SetFromMap(map[string]bool{string(features.LoadBalancerStatusImprovements): enabled}); err != nil {
		// The feature is registered by NewFeatureGate; this runs once, at
		// start-up, on no input.
		panic(err)
	}
	return g
}

// result is what one validation entry point returned.
type result struct {
	call string
	errs field.ErrorList
}

// validateAll calls every validation entry point on svc, and the update
// ones from old to svc, the way an apiserver does: DropDisabledFields
// before a create or an update, and DropTypeDependentFields before an
// update. Neither input is modified.
func validateAll(svc, old *v1.Service, opts validation.Options) []result {
	created := svc.DeepCopy()
	validation.DropDisabledFields(created, nil, opts)
	updated := svc.DeepCopy()
	validation.DropDisabledFields(updated, old, opts)
	validation.DropTypeDependentFields(updated, old)
	return []result{
		{"ValidateService", validation.ValidateService(svc, opts)},
		{"ValidateService after DropDisabledFields", validation.ValidateService(created, opts)},
		{"ValidateServiceUpdate", validation.ValidateServiceUpdate(svc, old, opts)},
		{"ValidateServiceUpdate after the drops", validation.ValidateServiceUpdate(updated, old, opts)},
		{"ValidateServiceStatusUpdate", validation.ValidateServiceStatusUpdate(svc, old, opts)},
		{"ValidateServiceUpdate(x, x)", validation.ValidateServiceUpdate(svc, svc.DeepCopy(), opts)},
		{"ValidateServiceStatusUpdate(x, x)", validation.ValidateServiceStatusUpdate(svc, svc.DeepCopy(), opts)},
	}
}

// conventionErrors lists what in errs breaks the conventions every error
// of package validation follows: an internal error, a path outside
// metadata, spec and status, a detail that is not a lower-case fragment,
// or a CoveredByDeclarative mark (validation's status errors are not
// covered by the generated code, which treats conditions as opaque).
func conventionErrors(errs field.ErrorList) []string {
	var bad []string
	for _, err := range errs {
		if err == nil {
			bad = append(bad, "nil error in the list")
			continue
		}
		if err.Type == field.ErrorTypeInternal {
			bad = append(bad, fmt.Sprintf("internal error: %v", err))
		}
		if !underRoot(err.Field) {
			bad = append(bad, fmt.Sprintf("path %q is not under metadata, spec or status: %v", err.Field, err))
		}
		if d := err.Detail; d != "" && (d[0] >= 'A' && d[0] <= 'Z' || d[len(d)-1] == '.') {
			bad = append(bad, fmt.Sprintf("detail %q is not a lower-case fragment", d))
		}
		if err.CoveredByDeclarative {
			bad = append(bad, fmt.Sprintf("marked as covered by declarative validation: %v", err))
		}
	}
	return bad
}

// underRoot reports whether path is metadata, spec or status, or below one.
func underRoot(path string) bool {
	return under(path, "metadata") || under(path, "spec") || under(path, "status")
}

// under reports whether path is root or below it.
func under(path, root string) bool {
	rest, ok := strings.CutPrefix(path, root)
	return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}

// errorKeys returns the type and path of each error, sorted: what two
// lists are compared by, never their wording or count alone.
func errorKeys(errs field.ErrorList) []string {
	keys := make([]string, 0, len(errs))
	for _, err := range errs {
		keys = append(keys, string(err.Type)+" "+err.Field)
	}
	sort.Strings(keys)
	return keys
}

// onlyUnder returns the errors of errs under root.
func onlyUnder(errs field.ErrorList, root string) field.ErrorList {
	var out field.ErrorList
	for _, err := range errs {
		if under(err.Field, root) {
			out = append(out, err)
		}
	}
	return out
}

// missing returns the keys of want that got lacks, counting repeats.
func missing(want, got []string) []string {
	have := map[string]int{}
	for _, k := range got {
		have[k]++
	}
	var out []string
	for _, k := range want {
		if have[k] > 0 {
			have[k]--
			continue
		}
		out = append(out, k)
	}
	return out
}
