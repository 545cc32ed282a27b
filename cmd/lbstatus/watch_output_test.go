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
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// fillingDisk writes to syncBuffer until full is set, then fails as a full
// disk does.
type fillingDisk struct {
	syncBuffer
	full atomic.Bool
}

func (d *fillingDisk) Write(p []byte) (int, error) {
	if d.full.Load() {
		return 0, errors.New("write /dev/stdout: no space left on device")
	}
	return d.syncBuffer.Write(p)
}

// flakyDisk fails its first write, as a disk that was full for a moment
// does, and takes every later one.
type flakyDisk struct {
	syncBuffer
	failed atomic.Bool
}

func (d *flakyDisk) Write(p []byte) (int, error) {
	if d.failed.CompareAndSwap(false, true) {
		return 0, errors.New("write /dev/stdout: no space left on device")
	}
	return d.syncBuffer.Write(p)
}

// Once a finding could not be written, nothing more is: a findings file
// with a hole in it would read as complete. The watch stops with exit
// status 2, and what it would have written after the lost finding (the
// next Service's, the summary) is not written, even to a disk that took
// it again.
func TestWatch_NothingWrittenAfterALostFinding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var stdout flakyDisk
		var stderr syncBuffer
		src := replaySource{{svc: pending("web", "5")}, {svc: pending("api", "6")}}
		done := make(chan int, 1)
		go func() {
			done <- runContext(context.Background(), []string{"watch", "-o", "json"}, strings.NewReader(""), &stdout, &stderr, env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }})
		}()
		if code := <-done; code != exitInput || stdout.String() != "" {
			t.Errorf("exit %d, stdout %q; want 2 and nothing written after the first write failed", code, stdout.String())
		}
	})
}

// A summary that cannot be written, the findings before it written, is a
// report lost as much as a finding is: exit status 2, with one line, in
// either format.
func TestWatch_SummaryThatCannotBeWrittenExits2(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		synctest.Test(t, func(t *testing.T) {
			var stdout fillingDisk
			var stderr syncBuffer
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			src := replaySource{{svc: pending("web", "5")}}
			go func() {
				done <- runContext(ctx, []string{"watch", "-o", format}, strings.NewReader(""), &stdout, &stderr, env{newSource: func(*watchFlags) (serviceSource, error) { return src, nil }})
			}()
			synctest.Wait()
			if !strings.Contains(stdout.String(), "T4") {
				t.Fatalf("-o %s: the finding was not written before the disk filled:\n%s", format, stdout.String())
			}
			stdout.full.Store(true)
			cancel()
			want := "lbstatus: writing the findings: write /dev/stdout: no space left on device\n"
			if code := <-done; code != exitInput || !strings.HasSuffix(stderr.String(), want) {
				t.Errorf("-o %s: exit %d, stderr %q; want 2 and, last, %q", format, code, stderr.String(), want)
			}
		})
	}
}
