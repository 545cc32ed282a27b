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

package input

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with what a terminal would interpret escaped: C0 and C1
// control characters, DEL, invalid UTF-8 and the Unicode format characters
// that reorder or hide text (bidirectional overrides, zero-width joiners)
// become Go escapes (\x1b, \u202e, ...), and a backslash is doubled only
// when something was escaped. Names, messages and file names are read from
// untrusted input and printed; without this an object named "\x1b[2J"
// would clear the screen of whoever runs the check. An empty s gives "".
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r == '\\':
			b.WriteString(`\\`)
		case unsafeRune(r):
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			// Only non-ASCII text pays for the rune loop.
			for _, r := range s[i:] {
				if r == utf8.RuneError || unsafeRune(r) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// unsafeRune reports whether r changes what a terminal shows beyond itself.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}
