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
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
	"github.com/lbstatus/lbstatus/conformance"
)

// watchFlags are the flags of watch.
type watchFlags struct {
	checkFlags
	kubeconfig    string
	context       string
	namespace     string
	allNamespaces bool
}

const watchUsage = `Usage: lbstatus watch [flags]

Checks the Services of a live cluster as they change: lists them, then
watches them, and prints each finding as it is made. Each Service's
observations form a trace, as in "lbstatus check". The watch survives
expiry and disconnection (it lists again and goes on). On interrupt
(Ctrl-C, SIGTERM) it prints what is owed at the end of each trace and a
summary. Exit status: 0 no violation seen, 1 at least one, 2 the cluster
cannot be reached or bad usage.

Installed as kubectl-lbstatus on the PATH, it is also "kubectl lbstatus watch".

Flags:
`

// serviceEvent is one observation from a cluster.
type serviceEvent struct {
	svc     *v1.Service
	deleted bool
}

// serviceSource delivers a cluster's Service observations.
type serviceSource interface {
	// describe says what is watched, for people.
	describe() string
	// run calls handle for each observation, one at a time, until ctx
	// ends; it returns when it has stopped calling handle.
	run(ctx context.Context, handle func(serviceEvent))
}

// runWatch is the watch command.
func runWatch(ctx context.Context, args []string, stdout, stderr io.Writer, e env) int {
	var f watchFlags
	fs := pflag.NewFlagSet("watch", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	addCheckerFlags(fs, &f.checkFlags)
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "the kubeconfig context to use (default: the current context)")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "the namespace to watch (default: the context's namespace)")
	fs.BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "watch Services in every namespace")
	fs.Usage = func() {
		fmt.Fprint(stderr, watchUsage)
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lbstatus: watch takes no arguments, got %q\n", fs.Args())
		return exitInput
	}
	if f.output != "text" && f.output != "json" {
		fmt.Fprintf(stderr, "lbstatus: unknown output format %q: use text or json\n", f.output)
		return exitInput
	}
	if f.allNamespaces && f.namespace != "" {
		fmt.Fprintln(stderr, "lbstatus: --namespace and --all-namespaces exclude each other")
		return exitInput
	}
	src, err := e.newSource(&f)
	if err != nil {
		fmt.Fprintf(stderr, "lbstatus: %v\n", err)
		return exitInput
	}

	checker := conformance.NewChecker(f.checkerOptions()...)
	col := conformance.NewCollector(conformance.SummaryOnly(true))
	var mu sync.Mutex
	emit := func(found []conformance.Finding) {
		for _, fd := range found {
			if f.output == "json" {
				b, _ := json.Marshal(fd)
				fmt.Fprintf(stdout, "%s\n", b)
			} else {
				fmt.Fprintln(stdout, findingLine(fd, true))
			}
		}
	}
	fmt.Fprintf(stderr, "lbstatus: watching Services in %s; interrupt to stop\n", src.describe())
	src.run(ctx, func(ev serviceEvent) {
		mu.Lock()
		defer mu.Unlock()
		obj := conformance.Object{Kind: "Service", APIVersion: "v1", Service: ev.svc, Deleted: ev.deleted,
			Ref: conformance.ObjectRef{Kind: "Service", Namespace: ev.svc.Namespace, Name: ev.svc.Name, ResourceVersion: ev.svc.ResourceVersion}}
		found := checker.ObserveObject(obj)
		col.Observe(obj, found)
		emit(found)
	})

	mu.Lock()
	defer mu.Unlock()
	end := checker.Finish()
	col.Findings(end)
	emit(end)
	summary := col.Report().Summary
	summary.Services = checker.Seen()
	if f.output == "json" {
		b, _ := json.Marshal(struct {
			Summary conformance.Summary `json:"summary"`
		}{summary})
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		fmt.Fprintf(stdout, "Watched %s of %s.\n", plural(summary.Observations, "observation"), plural(summary.Services, "Service"))
		printTotals(stdout, &summary)
	}
	if summary.Failed() {
		return exitViolation
	}
	return exitOK
}

// informerSource watches Services through an informer, which lists, then
// watches, and lists again whenever the watch expires or breaks.
type informerSource struct {
	lw   cache.ListerWatcher
	what string
}

func (s *informerSource) describe() string { return s.what }

func (s *informerSource) run(ctx context.Context, handle func(serviceEvent)) {
	emit := func(obj any, deleted bool) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if svc, ok := obj.(*v1.Service); ok {
			handle(serviceEvent{svc: svc, deleted: deleted})
		}
	}
	_, ctrl := cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: s.lw,
		ObjectType:    &v1.Service{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { emit(obj, false) },
			UpdateFunc: func(_, obj any) { emit(obj, false) },
			DeleteFunc: func(obj any) { emit(obj, true) },
		},
	})
	ctrl.RunWithContext(ctx)
}

// plainListWatch is a ListWatch that asks the reflector for plain LIST and
// WATCH requests rather than a streaming list, which older and fake
// servers do not serve.
type plainListWatch struct{ *cache.ListWatch }

// IsWatchListSemanticsUnSupported tells client-go's reflector to list,
// then watch.
func (plainListWatch) IsWatchListSemanticsUnSupported() bool { return true }

// newClusterSource returns the Services of the cluster the kubeconfig
// flags select. It lists once, so that a cluster that cannot be reached is
// an error now rather than retries later.
func newClusterSource(f *watchFlags) (serviceSource, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	overrides := &clientcmd.ConfigOverrides{CurrentContext: f.context}
	if f.namespace != "" {
		overrides.Context.Namespace = f.namespace
	}
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides)
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig: %w", err)
	}
	namespace := ""
	if !f.allNamespaces {
		if namespace, _, err = loader.Namespace(); err != nil {
			return nil, fmt.Errorf("loading kubeconfig: %w", err)
		}
	}
	lw, err := serviceListWatch(cfg, namespace)
	if err != nil {
		return nil, err
	}
	if _, err := lw.ListWithContextFunc(context.Background(), metav1.ListOptions{Limit: 1}); err != nil {
		return nil, fmt.Errorf("listing Services on %s: %w", cfg.Host, err)
	}
	what := "namespace " + namespace
	if namespace == "" {
		what = "all namespaces"
	}
	return &informerSource{lw: plainListWatch{lw}, what: what + " of " + cfg.Host}, nil
}

// serviceListWatch lists and watches Services as this project's v1.Service,
// which keeps spec.requiredLoadBalancerFeatures where a cluster serves it.
func serviceListWatch(cfg *rest.Config, namespace string) (*cache.ListWatch, error) {
	scheme := runtime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	cfg = rest.CopyConfig(cfg)
	cfg.GroupVersion = &v1.SchemeGroupVersion
	cfg.APIPath = "/api"
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	cfg.ContentType = runtime.ContentTypeJSON
	cfg.AcceptContentTypes = runtime.ContentTypeJSON
	if cfg.UserAgent == "" {
		cfg.UserAgent = "lbstatus"
	}
	client, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("building a client for %s: %w", cfg.Host, err)
	}
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			out := &v1.ServiceList{}
			err := client.Get().Namespace(namespace).Resource("services").
				VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(out)
			return out, err
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			return client.Get().Namespace(namespace).Resource("services").
				VersionedParams(&opts, metav1.ParameterCodec).Watch(ctx)
		},
	}, nil
}
