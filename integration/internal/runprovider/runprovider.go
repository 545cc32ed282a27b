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

// Package runprovider runs the reference provider for the length of one
// integration test.
package runprovider

import (
	"context"
	"sync"
	"testing"

	"github.com/lbstatus/lbstatus/provider"
)

// Start runs p until the test ends or stop is called, whichever comes
// first; stop returns once p has stopped, and fails the test when Run
// returned an error.
func Start(t testing.TB, p *provider.Provider) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	stop = sync.OnceFunc(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("provider: %v", err)
		}
	})
	t.Cleanup(stop)
	return stop
}
