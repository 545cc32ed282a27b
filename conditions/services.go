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

package conditions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	sigsjson "sigs.k8s.io/json"

	v1 "github.com/lbstatus/lbstatus/apis/core/v1"
)

// RESTServices gets, lists, watches, creates and updates the Services of
// one namespace, or of all when Namespace is empty, as the project's
// *v1.Service. Client is a REST client of the core API group: client-go's
// kubernetes.Interface.CoreV1().RESTClient(). client-go's typed client
// decodes into *corev1.Service, which has no
// spec.requiredLoadBalancerFeatures, so that where a server serves the
// field (a kube-apiserver with KEP-4631), a provider or a suite reading
// through it sees a Service that requires nothing.
//
// RESTServices asks for JSON, whatever the client prefers, and decodes it
// as kube-apiserver does, field names matched case-sensitively. It makes
// no retries of its own: its callers, an informer or a watch loop, retry.
// A refused request is the error of the server's Status (`services "web"
// not found`, an RBAC refusal naming the user); a 401 is client-go's
// error, which says credentials are wanted. Without a REST client (the
// zero RESTServices, or the nil one of client-go's fake clientset; see
// RESTServicesOf) every call is an error.
type RESTServices struct {
	Client    rest.Interface
	Namespace string
}

var errNoRESTClient = errors.New("RESTServices has no REST client (client-go's fake clientset has none: read Services through its typed client, or use ServiceListWatch)")

// client returns s.Client, or an error when there is none (isNil).
func (s RESTServices) client() (rest.Interface, error) {
	if isNil(s.Client) {
		return nil, errNoRESTClient
	}
	return s.Client, nil
}

// isNil reports whether c is no REST client: nil, or a nil
// *rest.RESTClient, which client-go's fake clientset returns.
func isNil(c rest.Interface) bool {
	rc, ok := c.(*rest.RESTClient)
	return c == nil || ok && rc == nil
}

func (s RESTServices) request(opts runtime.Object) (*rest.Request, error) {
	c, err := s.client()
	if err != nil {
		return nil, err
	}
	r := c.Get().Namespace(s.Namespace).Resource("services").
		SetHeader("Accept", runtime.ContentTypeJSON).MaxRetries(0)
	if opts != nil {
		r = r.VersionedParams(opts, metav1.ParameterCodec)
	}
	return r, nil
}

// Get returns the Service name.
func (s RESTServices) Get(ctx context.Context, name string, opts metav1.GetOptions) (*v1.Service, error) {
	req, err := s.request(&opts)
	if err != nil {
		return nil, err
	}
	return decodeResponse[v1.Service](ctx, req.Name(name), "Service")
}

// List returns the Services opts selects.
func (s RESTServices) List(ctx context.Context, opts metav1.ListOptions) (*v1.ServiceList, error) {
	opts.Watch = false
	req, err := s.request(&opts)
	if err != nil {
		return nil, err
	}
	return decodeResponse[v1.ServiceList](ctx, req, "Service list")
}

// Watch watches the Services opts selects. Its events hold a *v1.Service,
// or for an ERROR event the server's *metav1.Status; an event that does
// not decode ends the watch with an error event that says why.
func (s RESTServices) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.Watch = true
	req, err := s.request(&opts)
	if err != nil {
		return nil, err
	}
	body, err := req.Stream(ctx)
	if err != nil {
		return nil, err
	}
	return watch.NewStreamWatcher(&serviceEvents{body: body, dec: json.NewDecoder(body)},
		apierrors.NewClientErrorReporter(http.StatusInternalServerError, "GET", "ClientWatchDecoding")), nil
}

// Create creates svc, spec.requiredLoadBalancerFeatures included, and
// returns the Service the server made of it: on a server without the
// field, without it. svc is sent as JSON; its kind and apiVersion need not
// be set. A nil svc is an error.
func (s RESTServices) Create(ctx context.Context, svc *v1.Service, opts metav1.CreateOptions) (*v1.Service, error) {
	return s.send(ctx, http.MethodPost, svc, &opts)
}

// Update replaces the Service svc names with svc, as Create sends it, and
// returns what the server made of it. Where the server serves
// spec.requiredLoadBalancerFeatures, an update through client-go's typed
// client, which sends a *corev1.Service, clears the field: read the
// Service with Get, change it, and Update it here. svc's resourceVersion,
// when set, makes the update a conflict if the Service changed since it
// was read. A nil svc, or one without a name, is an error.
func (s RESTServices) Update(ctx context.Context, svc *v1.Service, opts metav1.UpdateOptions) (*v1.Service, error) {
	if svc != nil && svc.Name == "" {
		return nil, errors.New("updating a Service without a name")
	}
	return s.send(ctx, http.MethodPut, svc, &opts)
}

// send creates (POST) or updates (PUT) svc, with opts as parameters.
func (s RESTServices) send(ctx context.Context, verb string, svc *v1.Service, opts runtime.Object) (*v1.Service, error) {
	if svc == nil {
		return nil, errNilService
	}
	c, err := s.client()
	if err != nil {
		return nil, err
	}
	out := *svc
	out.APIVersion, out.Kind = "v1", "Service"
	body, err := json.Marshal(&out)
	if err != nil {
		return nil, fmt.Errorf("encoding the Service: %w", err)
	}
	req := c.Verb(verb).Namespace(s.Namespace).Resource("services").VersionedParams(opts, metav1.ParameterCodec).
		SetHeader("Accept", runtime.ContentTypeJSON).SetHeader("Content-Type", runtime.ContentTypeJSON).Body(body).MaxRetries(0)
	what := "created Service"
	if verb == http.MethodPut {
		req, what = req.Name(svc.Name), "updated Service"
	}
	return decodeResponse[v1.Service](ctx, req, what)
}

// decodeResponse does req and decodes the body as a T.
func decodeResponse[T any](ctx context.Context, req *rest.Request, what string) (*T, error) {
	res := req.Do(ctx)
	raw, err := res.Raw()
	if err != nil {
		// The Status the server sent says more than the body's
		// generic error; but for 401, where it says only
		// "Unauthorized".
		if status := res.Error(); !apierrors.IsUnauthorized(status) {
			return nil, status
		}
		return nil, err
	}
	out := new(T)
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, out); err != nil {
		return nil, fmt.Errorf("decoding the %s: %w", what, err)
	}
	return out, nil
}

// serviceEvents decodes a JSON watch stream of Services.
type serviceEvents struct {
	body io.ReadCloser
	dec  *json.Decoder
}

func (d *serviceEvents) Decode() (watch.EventType, runtime.Object, error) {
	var ev struct {
		Type   watch.EventType `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := d.dec.Decode(&ev); err != nil {
		return "", nil, err
	}
	var obj runtime.Object
	switch ev.Type {
	case watch.Error:
		obj = &metav1.Status{}
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark:
		obj = &v1.Service{}
	default:
		return "", nil, fmt.Errorf("a watch event of unknown type %q", ev.Type)
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(ev.Object, obj); err != nil {
		return "", nil, fmt.Errorf("decoding a %s watch event: %w", ev.Type, err)
	}
	return ev.Type, obj, nil
}

func (d *serviceEvents) Close() { d.body.Close() }

// RESTServicesOf returns the RESTServices of namespace through core's REST
// client, and false when core has none, as client-go's fake clientset,
// whose RESTClient is a nil pointer.
func RESTServicesOf(core corev1client.CoreV1Interface, namespace string) (RESTServices, bool) {
	rc, ok := core.RESTClient().(*rest.RESTClient)
	if !ok || isNil(rc) {
		return RESTServices{}, false
	}
	return RESTServices{Client: rc, Namespace: namespace}, true
}

// ServiceListWatch is an informer's source of the Services of one namespace,
// or of all when namespace is empty, as the project's *v1.Service: through
// core's REST client (RESTServices), so that where a server serves
// spec.requiredLoadBalancerFeatures an informer keeps it; through the typed
// client, which sees the required-features annotation alone, when core has
// no REST client, as client-go's fake clientset has none. Create the
// informer with &v1.Service{} as its object type, and pass the source
// through cache.ToListWatcherWithWatchListSemantics with the clientset, as
// client-go's own informers do: a fake clientset serves no watch-list
// stream, and says so.
func ServiceListWatch(core corev1client.CoreV1Interface, namespace string) *cache.ListWatch {
	if services, ok := RESTServicesOf(core, namespace); ok {
		return &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				return services.List(ctx, opts)
			},
			WatchFuncWithContext: services.Watch,
		}
	}
	typed := core.Services(namespace)
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			list, err := typed.List(ctx, opts)
			if err != nil {
				return nil, err
			}
			out := &v1.ServiceList{ListMeta: list.ListMeta, Items: make([]v1.Service, len(list.Items))}
			for i := range list.Items {
				out.Items[i] = *v1.FromCoreShallow(&list.Items[i])
			}
			return out, nil
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := typed.Watch(ctx, opts)
			if err != nil {
				return nil, err
			}
			return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
				if svc, ok := e.Object.(*corev1.Service); ok {
					e.Object = v1.FromCoreShallow(svc)
				}
				return e, true
			}), nil
		},
	}
}
