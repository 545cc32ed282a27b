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

// Command models-schema prints the OpenAPI v2 definitions generated in
// generated/openapi as one swagger document. applyconfiguration-gen reads it
// (--openapi-schema) to build the typed schema behind server-side apply and
// the Extract functions.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/lbstatus/lbstatus/generated/openapi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "models-schema: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	// Definitions are keyed by OpenAPI model name (every package sets
	// +k8s:openapi-model-package), which is already REST-friendly.
	ref := func(name string) spec.Ref {
		return spec.MustCreateRef("#/definitions/" + name)
	}
	defs := openapi.GetOpenAPIDefinitions(ref)
	schemas := make(map[string]spec.Schema, len(defs))
	for name, def := range defs {
		schema := def.Schema
		// A definition that embeds a v2-specific variant carries it as an
		// extension; swagger 2.0 wants that variant.
		if v2, ok := def.Schema.Extensions[common.ExtensionV2Schema]; ok {
			if s, ok := v2.(spec.Schema); ok {
				schema = s
			}
		}
		schemas[name] = schema
	}
	doc := spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: "lbstatus", Version: "unversioned"}},
		Paths:       &spec.Paths{Paths: map[string]spec.PathItem{}},
		Definitions: schemas,
	}}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(out, '\n'))
	return err
}
