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

package conformance

import (
	_ "embed"
	"sort"
	"strings"
	"sync"
)

// rulesText holds the text of every rule, as data; see rules.md for its
// format.
//
//go:embed rules.md
var rulesText string

// Rule is a rule of the specification as the checker explains it.
type Rule struct {
	// ID is the rule's ID, such as "L6".
	ID RuleID `json:"id"`
	// Title is a short name for the rule.
	Title string `json:"title"`
	// Severities lists what the checker reports for the rule; empty for a
	// rule the checker does not check by itself.
	Severities []Severity `json:"severities,omitempty"`
	// Text is a paragraph saying what the rule requires and how the
	// checker applies it.
	Text string `json:"text"`
}

var (
	rulesOnce sync.Once
	rules     []Rule
	rulesByID map[RuleID]Rule
)

// parseRules reads rulesText. The file is part of the package, so a
// format mistake is caught by the package's tests, not at run time.
func parseRules() {
	rulesByID = map[RuleID]Rule{}
	var cur *Rule
	flush := func() {
		if cur != nil {
			cur.Text = strings.TrimSpace(cur.Text)
			rules = append(rules, *cur)
			rulesByID[cur.ID] = *cur
		}
	}
	for line := range strings.SplitSeq(rulesText, "\n") {
		if rest, ok := strings.CutPrefix(line, "## "); ok {
			flush()
			parts := strings.SplitN(rest, "|", 3)
			for len(parts) < 3 {
				parts = append(parts, "")
			}
			cur = &Rule{ID: RuleID(strings.TrimSpace(parts[0])), Title: strings.TrimSpace(parts[2])}
			for s := range strings.SplitSeq(parts[1], ",") {
				if s = strings.TrimSpace(s); s != "" && s != "-" {
					cur.Severities = append(cur.Severities, Severity(s))
				}
			}
			continue
		}
		if cur == nil {
			continue // the comment block at the top
		}
		if strings.TrimSpace(line) != "" {
			if cur.Text != "" {
				cur.Text += " "
			}
			cur.Text += strings.TrimSpace(line)
		}
	}
	flush()
}

// Rules returns every rule of the specification (C1 to C7, L1 to L9, R1 to
// R5, P1 to P6, T1 to T5, G1 to G6) and RuleInput, sorted by section and
// number. The result is a fresh slice.
func Rules() []Rule {
	rulesOnce.Do(parseRules)
	out := make([]Rule, len(rules))
	copy(out, rules)
	sort.SliceStable(out, func(i, j int) bool { return ruleLess(out[i].ID, out[j].ID) })
	return out
}

// LookupRule returns the rule with the given ID. IDs are matched without
// regard to case ("l6" finds L6); an unknown ID gives false.
func LookupRule(id string) (Rule, bool) {
	rulesOnce.Do(parseRules)
	for rid, r := range rulesByID {
		if strings.EqualFold(string(rid), strings.TrimSpace(id)) {
			return r, true
		}
	}
	return Rule{}, false
}

// sectionOrder is the order of the rule families in the specification.
const sectionOrder = "CLRPTG"

// ruleLess orders rule IDs as the specification does: by family (C, L, R,
// P, T, G), then by number; other IDs come last, by name.
func ruleLess(a, b RuleID) bool {
	ka, na := ruleKey(a)
	kb, nb := ruleKey(b)
	if ka != kb {
		return ka < kb
	}
	if na != nb {
		return na < nb
	}
	return a < b
}

func ruleKey(id RuleID) (family, number int) {
	s := string(id)
	if len(s) < 2 {
		return len(sectionOrder), 0
	}
	f := strings.IndexByte(sectionOrder, s[0])
	if f < 0 {
		return len(sectionOrder), 0
	}
	n := 0
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return len(sectionOrder), 0
		}
		n = n*10 + int(c-'0')
	}
	return f, n
}
