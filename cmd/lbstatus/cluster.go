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

package main

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/lbstatus/lbstatus/cmd/internal/kubeconfig"
)

// defaultRequestTimeout bounds each request to the cluster unless
// --request-timeout says otherwise, so that a server that accepts the
// connection and never answers is an error rather than a hang.
const defaultRequestTimeout = "30s"

// clusterFlags are the flags that select a cluster, a user and a namespace,
// as kubectl has them (--kubeconfig, --context, -n, --request-timeout,
// --server, --token, ...), plus -A. Commands that talk to a cluster add them
// with addClusterFlags and call connect after parsing.
type clusterFlags struct {
	config        *genericclioptions.ConfigFlags
	allNamespaces bool
	selector      string // see addSelector
}

// addClusterFlags adds the cluster flags to fs and returns where they land;
// -n and -A only for a command that reads Services where they are
// (namespaced), not for one that makes namespaces of its own.
func addClusterFlags(fs *pflag.FlagSet, namespaced bool) *clusterFlags {
	cf := genericclioptions.NewConfigFlags(false)
	*cf.Timeout = defaultRequestTimeout
	if !namespaced {
		cf.Namespace = nil // no -n flag
	}
	cf.AddFlags(fs)
	f := &clusterFlags{config: cf}
	if namespaced {
		fs.BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "use every namespace, not the context's")
	}
	return f
}

// addSelector adds -l, for commands that read the Services there are.
func (f *clusterFlags) addSelector(fs *pflag.FlagSet) {
	fs.StringVarP(&f.selector, "selector", "l", "", "a label selector, as kubectl takes it (app=web, tier in (a,b)): only the Services that match")
}

// validate reports flags that exclude each other, or that do not parse;
// nil when they are fine.
func (f *clusterFlags) validate() error {
	if f.allNamespaces && f.config.Namespace != nil && *f.config.Namespace != "" {
		return errors.New("--namespace and --all-namespaces exclude each other")
	}
	// clientcmd takes a negative timeout and then sets no limit at all:
	// the user asked for a bound and would get none.
	if timeout, err := clientcmd.ParseTimeout(*f.config.Timeout); err != nil || timeout < 0 {
		return fmt.Errorf("--request-timeout %q: want a duration of zero (no limit) or more, such as 30s", *f.config.Timeout)
	}
	sel, err := labels.Parse(f.selector)
	if err != nil {
		return fmt.Errorf("--selector: %w", err)
	}
	f.selector = sel.String() // the same selector, spelled plainly for messages
	return nil
}

// clusterConn is a typed client for the cluster the flags select, and what
// the flags said about how to use it.
type clusterConn struct {
	client kubernetes.Interface
	// host is the server's URL, for messages.
	host string
	// namespace is the namespace to use; empty for every namespace.
	namespace string
	// selector selects the Services by their labels; empty for all.
	selector string
	// requestTimeout bounds a request that should end (a list); zero is no
	// bound. Watches, which are meant to stay open, are bound by it only
	// until the server answers.
	requestTimeout time.Duration
	// files are what the client is made from: the kubeconfig files and
	// those they name (a certificate, a key, a token), which an output
	// must not replace.
	files []string
}

// connect loads the kubeconfig the flags select and builds a client. It
// does not talk to the server: a cluster that cannot be reached shows at
// the first request.
func (f *clusterFlags) connect() (*clusterConn, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	cfg, err := f.config.ToRESTConfig()
	if err != nil {
		return nil, kubeconfig.LoadError(f.config, err)
	}
	if err := kubeconfig.Missing(f.config, cfg.Host); err != nil {
		return nil, err
	}
	namespace := ""
	if !f.allNamespaces {
		if namespace, _, err = f.config.ToRawKubeConfigLoader().Namespace(); err != nil {
			return nil, kubeconfig.LoadError(f.config, err)
		}
	}
	cfg = rest.CopyConfig(cfg)
	timeout := cfg.Timeout
	// The request timeout becomes the HTTP client's, which would also cut
	// every watch after that long; requests that should end get it as a
	// context deadline instead.
	cfg.Timeout = 0
	if cfg.UserAgent == "" {
		cfg.UserAgent = "lbstatus"
	}
	if cfg.QPS == 0 {
		// client-go's default, 5 requests a second, throttled a
		// conformance run of several tests at once, with a log line for
		// each wait.
		cfg.QPS, cfg.Burst = 50, 100
	}
	// The server's URL, shown in messages, without a password.
	host := redactURL(cfg.Host)
	client, err := kubernetes.NewForConfig(cfg)
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		return nil, fmt.Errorf("building a client: %w", parseError(cfg.Host, err))
	} else if err != nil {
		msg := err.Error()
		if host != cfg.Host { // client-go quotes the URL raw
			msg = strings.ReplaceAll(msg, cfg.Host, host)
		}
		return nil, fmt.Errorf("building a client for %s: %s", host, msg)
	}
	files := slices.Concat(f.config.ToRawKubeConfigLoader().ConfigAccess().GetLoadingPrecedence(),
		[]string{cfg.CAFile, cfg.CertFile, cfg.KeyFile, cfg.BearerTokenFile})
	return &clusterConn{client: client, host: host, namespace: namespace, selector: f.selector, requestTimeout: timeout, files: files}, nil
}
