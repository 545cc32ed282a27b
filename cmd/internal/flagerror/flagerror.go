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

// Package flagerror says a flag value that does not parse in the words of
// what the flag wants, for the lbstatus commands alike.
package flagerror

import "regexp"

// parseNumber is the end of pflag's message for a value that is not an
// integer or a boolean, which names Go's parser: 'invalid argument "10k"
// for "--max-object-bytes" flag: strconv.ParseInt: parsing "10k": invalid
// syntax'.
var parseNumber = regexp.MustCompile(`strconv\.Parse(Int|Uint|Bool): parsing ".*": (invalid syntax|value out of range)$`)

// Message is err's message with the part that names Go's parser said as
// what the flag wants instead: "want a whole number", "want true or false"
// or "out of range". Any other message is returned as it is; err must not
// be nil.
func Message(err error) string {
	return parseNumber.ReplaceAllStringFunc(err.Error(), func(m string) string {
		switch sub := parseNumber.FindStringSubmatch(m); {
		case sub[2] == "value out of range":
			return "out of range"
		case sub[1] == "Bool":
			return "want true or false"
		}
		return "want a whole number"
	})
}
