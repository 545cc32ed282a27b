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
