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

// Package kubeconfig holds what the lbstatus commands share about the
// kubeconfig flags they take from cli-runtime.
package kubeconfig

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/tools/clientcmd"
)

// Missing explains a server that is client-go's default,
// http://localhost:8080, because no kubeconfig names a cluster: nothing has
// listened there since Kubernetes 1.20, and "connection refused" would not
// say what is missing. It returns nil when a kubeconfig names a cluster or
// the server was asked for (--server, KUBERNETES_MASTER); in a Pod the
// server is the in-cluster one.
func Missing(flags *genericclioptions.ConfigFlags, host string) error {
	if host != "http://localhost:8080" || *flags.APIServer != "" || os.Getenv("KUBERNETES_MASTER") != "" {
		return nil
	}
	raw, err := flags.ToRawKubeConfigLoader().RawConfig()
	if err != nil || len(raw.Clusters) > 0 {
		return nil
	}
	read := clientcmd.NewDefaultClientConfigLoadingRules().GetLoadingPrecedence()
	if *flags.KubeConfig != "" {
		read = []string{*flags.KubeConfig}
	}
	return fmt.Errorf("no cluster to talk to: no kubeconfig names one (looked in %s); give --kubeconfig PATH, or --server URL", strings.Join(read, ", "))
}

// LoadError is err, an error from loading the kubeconfig the flags select,
// as one line that names the files read: clientcmd's own message for a
// context, cluster or user that is not there names none, and with several
// files on KUBECONFIG the user cannot tell which one was meant. A message
// that names the file already is kept as it is.
func LoadError(flags *genericclioptions.ConfigFlags, err error) error {
	read := clientcmd.NewDefaultClientConfigLoadingRules().GetLoadingPrecedence()
	if *flags.KubeConfig != "" {
		read = []string{*flags.KubeConfig}
	}
	var files []string
	for _, path := range read {
		if strings.Contains(err.Error(), path) {
			return fmt.Errorf("loading kubeconfig: %w", err)
		}
		if _, serr := os.Stat(path); serr == nil {
			files = append(files, path)
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	return fmt.Errorf("loading kubeconfig %s: %w", strings.Join(files, ", "), err)
}
