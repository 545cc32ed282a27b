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

package kubeconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

const withCluster = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "http://localhost:8080"}
contexts:
- name: c
  context: {cluster: c}
current-context: c
`

func TestMissing(t *testing.T) {
	dir := t.TempDir()
	missing, empty, named := filepath.Join(dir, "nope"), filepath.Join(dir, "empty"), filepath.Join(dir, "config")
	for path, content := range map[string]string{empty: "", named: withCluster} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KUBECONFIG", missing)
	for _, tc := range []struct {
		name   string
		args   []string
		master string
		want   string // "" for no error
	}{
		{"no kubeconfig", nil, "", "(looked in " + missing + ")"},
		{"an empty one", []string{"--kubeconfig", empty}, "", "(looked in " + empty + ")"},
		{"one that names the default server", []string{"--kubeconfig", named}, "", ""},
		{"--server", []string{"--server", "http://localhost:8080"}, "", ""},
		{"KUBERNETES_MASTER", nil, "http://localhost:8080", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBERNETES_MASTER", tc.master)
			flags := genericclioptions.NewConfigFlags(false)
			fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
			flags.AddFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			cfg, err := flags.ToRESTConfig()
			if err != nil {
				t.Fatal(err)
			}
			err = Missing(flags, cfg.Host)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("server %s: %v", cfg.Host, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("server %s: error %v, want one saying %q", cfg.Host, err, tc.want)
			}
		})
	}
}

// parsed returns the kubeconfig flags as the commands take them, after
// args.
func parsed(t *testing.T, args ...string) *genericclioptions.ConfigFlags {
	t.Helper()
	flags := genericclioptions.NewConfigFlags(false)
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	flags.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return flags
}

// TestMissing_NamesEveryFileLookedIn: with several files on KUBECONFIG
// and none naming a cluster, the error lists each of them.
func TestMissing_NamesEveryFileLookedIn(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	t.Setenv("KUBECONFIG", a+string(os.PathListSeparator)+b)
	t.Setenv("KUBERNETES_MASTER", "")
	err := Missing(parsed(t), "http://localhost:8080")
	// It names the files and says how to give a cluster.
	if want := "(looked in " + a + ", " + b + "); give --kubeconfig PATH, or --server URL"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one saying %q", err, want)
	}
	// Only client-go's default server is explained: any other came from
	// somewhere (in a Pod, the in-cluster config).
	for _, host := range []string{"https://10.96.0.1:443", "http://localhost:8081"} {
		if err := Missing(parsed(t), host); err != nil {
			t.Errorf("server %s: %v", host, err)
		}
	}
}

// TestLoadError: the error names the kubeconfig files that exist among
// those the flags select (--kubeconfig, else KUBECONFIG), none when none
// does, and is left as it is when it names one already; the cause stays
// reachable with errors.Is.
func TestLoadError(t *testing.T) {
	dir := t.TempDir()
	a, b, missing := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "nope")
	for _, path := range []string{a, b} {
		if err := os.WriteFile(path, []byte(withCluster), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	list := func(paths ...string) string { return strings.Join(paths, string(os.PathListSeparator)) }
	cause := errors.New(`context was not found for specified context: "other"`)
	for _, tc := range []struct {
		name       string
		kubeconfig string // KUBECONFIG
		args       []string
		err        error
		want       string
	}{
		{"one file", a, nil, cause, "loading kubeconfig " + a + ": " + cause.Error()},
		{"the files that exist", list(a, missing, b), nil, cause, "loading kubeconfig " + a + ", " + b + ": " + cause.Error()},
		{"none exists", missing, nil, cause, "loading kubeconfig: " + cause.Error()},
		{"--kubeconfig wins over KUBECONFIG", a, []string{"--kubeconfig", b}, cause, "loading kubeconfig " + b + ": " + cause.Error()},
		{"a message naming the file", list(a, b), nil, errors.New("error loading config file \"" + b + "\": bad"), "loading kubeconfig: error loading config file \"" + b + "\": bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.kubeconfig)
			err := LoadError(parsed(t, tc.args...), tc.err)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("error %v does not wrap %v", err, tc.err)
			}
		})
	}
}
