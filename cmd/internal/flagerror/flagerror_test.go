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

package flagerror

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestMessage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--int", "10k"}, `invalid argument "10k" for "--int" flag: want a whole number`},
		{[]string{"--uint=-1"}, `invalid argument "-1" for "--uint" flag: want a whole number`},
		{[]string{"--bool=maybe"}, `invalid argument "maybe" for "--bool" flag: want true or false`},
		{[]string{"--int", "99999999999999999999"}, `invalid argument "99999999999999999999" for "--int" flag: out of range`},
		{[]string{"--uint", "99999999999999999999"}, `invalid argument "99999999999999999999" for "--uint" flag: out of range`},
		// A value that quotes the parser's words is still the user's.
		{[]string{"--int", `strconv.ParseInt: parsing "x": invalid syntax`}, `invalid argument "strconv.ParseInt: parsing \"x\": invalid syntax" for "--int" flag: want a whole number`},
		// Messages without the parser's words are left as they are.
		{[]string{"--nope"}, "unknown flag: --nope"},
		{[]string{"--int"}, "flag needs an argument: --int"},
	} {
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		fs.SetOutput(&strings.Builder{})
		fs.Int("int", 0, "")
		fs.Uint("uint", 0, "")
		fs.Bool("bool", false, "")
		err := fs.Parse(tc.args)
		if err == nil {
			t.Fatalf("%q: no error", tc.args)
		}
		if got := Message(err); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
	if got := Message(errors.New("value out of range")); got != "value out of range" {
		t.Errorf("a message of its own is changed: %q", got)
	}
}
