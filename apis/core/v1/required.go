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

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RequiredFeaturesAnnotation carries spec.requiredLoadBalancerFeatures on
// clusters whose apiserver does not have the field (every stock cluster
// today, which prunes it). Its value is a comma-separated list of
// LoadBalancerFeature values, for example "SessionAffinity,Ports"; spaces
// around each value are ignored. A value that names no feature (blank, or
// commas and blanks) requires nothing, as an empty spec field does, so
// R4's rule that only a LoadBalancer Service may carry it does not apply;
// one with empty items is malformed all the same. The spec field, when
// set, wins; conditions.RequiredFeatures reads both, and
// ParseRequiredFeatures reads the annotation's value.
const RequiredFeaturesAnnotation = "lbstatus.github.io/required-load-balancer-features"

// MaxRequiredFeatures is the most values a Service may require (R4):
// spec.requiredLoadBalancerFeatures holds at most this many, as its
// maxItems tag says, and so does RequiredFeaturesAnnotation.
const MaxRequiredFeatures = 16

// ParseRequiredFeatures reads a RequiredFeaturesAnnotation value: its
// items, trimmed, in order, with empty items and repeats left out. A value
// it does not know is returned as written, since a provider must refuse it
// (R2). Each kind of problem is also reported in errs, at fldPath, in one
// error: empty items in a value that is not blank (Invalid, with the whole
// value), values that are not known LoadBalancerFeatures (NotSupported,
// listing the known ones) and repeated values (Duplicate). The last two
// name the items at fault, each once: the item for one, a list for
// several. As for the spec field, more than MaxRequiredFeatures items,
// repeats included, are TooMany, and the values and repeats are then not
// judged. So errs holds at most three errors, and what they say stays in
// proportion to the value, however many items it has.
func ParseRequiredFeatures(value string, fldPath *field.Path) (features []LoadBalancerFeature, errs field.ErrorList) {
	emptyItems, items := false, 0
	// seen indexes features once there are more than a few: an annotation
	// is up to 256 KiB of items, and a scan of the list for each would be
	// quadratic in them. A well-formed value never gets that far.
	var seen map[LoadBalancerFeature]struct{}
	repeated := func(f LoadBalancerFeature) bool {
		if seen == nil {
			if len(features) < 8 {
				return slices.Contains(features, f)
			}
			seen = make(map[LoadBalancerFeature]struct{}, 2*len(features))
			for _, g := range features {
				seen[g] = struct{}{}
			}
		}
		_, ok := seen[f]
		return ok
	}
	// One error per kind of problem: an error per item, each listing the
	// known features, made a long value of short unknown items report
	// many times its own size.
	var unknown, repeats []string
	var reported map[LoadBalancerFeature]bool // the values in repeats
	for item := range strings.SplitSeq(value, ",") {
		f := LoadBalancerFeature(strings.TrimSpace(item))
		if f == "" {
			emptyItems = true
			continue
		}
		items++
		switch {
		case repeated(f):
			if !reported[f] {
				if reported == nil {
					reported = make(map[LoadBalancerFeature]bool)
				}
				reported[f] = true
				repeats = append(repeats, string(f))
			}
			continue
		case !f.IsKnown():
			// A repeat never gets here: each unknown value comes once.
			unknown = append(unknown, string(f))
		}
		features = append(features, f)
		if seen != nil {
			seen[f] = struct{}{}
		}
	}
	if emptyItems && strings.TrimSpace(value) != "" {
		errs = append(errs, field.Invalid(fldPath, value, "must be a comma-separated list of features without empty items"))
	}
	if items > MaxRequiredFeatures {
		return features, append(errs, field.TooMany(fldPath, items, MaxRequiredFeatures))
	}
	if len(unknown) > 0 {
		errs = append(errs, field.NotSupported(fldPath, oneOrAll(unknown), LoadBalancerFeatures()))
	}
	if len(repeats) > 0 {
		errs = append(errs, field.Duplicate(fldPath, oneOrAll(repeats)))
	}
	return features, errs
}

// oneOrAll is the bad value of an error about items: the item when there
// is one, as an error about a single item shows it, else the list.
func oneOrAll(items []string) any {
	if len(items) == 1 {
		return items[0]
	}
	return items
}
