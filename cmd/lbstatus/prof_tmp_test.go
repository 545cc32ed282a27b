package main

import (
	"io"
	"os"
	"runtime/pprof"
	"testing"
	"time"
)

func TestTmpProfile(t *testing.T) {
	path := os.Getenv("PROF_FILE")
	if path == "" {
		t.Skip()
	}
	f, _ := os.Create("/tmp/cli.prof")
	pprof.StartCPUProfile(f)
	start := time.Now()
	code := run([]string{"check", "-o", "json", path}, nil, io.Discard, os.Stderr)
	pprof.StopCPUProfile()
	t.Logf("exit %d in %v", code, time.Since(start))
}
