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

package timeline

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/lbstatus/lbstatus/conformance"
)

// browserEnv names the browser the browser test runs: a Chromium binary
// (Debian's /usr/bin/chromium). .ci/run installs it and sets the variable;
// without it the test is skipped.
const browserEnv = "LBSTATUS_BROWSER"

// screenshot renders the file at path in a headless browser and returns
// the picture.
func screenshot(t *testing.T, browser, path string, width, height int) image.Image {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "page.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--force-device-scale-factor=1",
		"--user-data-dir="+filepath.Join(dir, "profile"),
		"--screenshot="+out, fmt.Sprintf("--window-size=%d,%d", width, height),
		"file://"+path)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", browser, err, log.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, log.String())
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot does not decode: %v", err)
	}
	if keep := os.Getenv("LBSTATUS_SCREENSHOT"); keep != "" {
		data, _ := os.ReadFile(out)
		_ = os.WriteFile(keep, data, 0o644)
	}
	return img
}

// hex is a pixel as "#rrggbb".
func hex(img image.Image, x, y int) string {
	r, g, b, _ := img.At(x, y).RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// TestBrowser_LanesRender opens the HTML page of the L6 trace in a real
// headless browser and reads the screenshot: every lane of every Service
// is a horizontal band of lane colours at least one slot wide (the legend's
// swatches are narrower), so there are as many bands as lanes; the states
// of the trace show in their colours, and so do the spec-change marks and
// the violation and warning pins.
func TestBrowser_LanesRender(t *testing.T) {
	browser := os.Getenv(browserEnv)
	if browser == "" {
		t.Skip(browserEnv + " is not set: set it to a Chromium binary (.ci/run installs Debian's chromium)")
	}
	tl := build(t, "testdata/l6-miss.json")
	services := tl.Services()
	var page bytes.Buffer
	if err := WriteHTML(&page, Page{Title: "L6 trace", Services: services}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	img := screenshot(t, browser, path, 1000, 2400)

	laneColours := map[string]bool{ColourGood: true, ColourBusy: true, ColourBad: true, ColourSkip: true, ColourUnknown: true, ColourAbsent: true}
	counts := map[string]int{}
	b := img.Bounds()
	var bands []int // the height of each band of lane rows
	inBand := false
	for y := b.Min.Y; y < b.Max.Y; y++ {
		run, longest := 0, 0
		for x := b.Min.X; x < b.Max.X; x++ {
			c := hex(img, x, y)
			counts[c]++
			if laneColours[c] {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
		lane := longest >= slotWidth-4
		switch {
		case lane && !inBand:
			bands = append(bands, 1)
		case lane:
			bands[len(bands)-1]++
		}
		inBand = lane
	}
	if want := len(services) * len(Lanes); len(bands) != want {
		t.Errorf("%d lane bands in the screenshot, want %d (%d Services x %d lanes); heights %v", len(bands), want, len(services), len(Lanes), bands)
	}
	for i, h := range bands {
		if h < laneHeight-2 || h > laneHeight+2 {
			t.Errorf("lane band %d is %d pixels high, want about %d", i, h, laneHeight)
		}
	}
	for _, c := range []struct {
		what, colour string
		least        int
	}{
		{"good states (Serving True, Provisioning False, Ready)", ColourGood, 20 * laneHeight * slotWidth / 2},
		{"provisioning and Pending", ColourBusy, 3 * laneHeight * slotWidth / 2},
		{"web's Serving False", ColourBad, laneHeight * slotWidth / 2},
		{"conditions not set", ColourAbsent, 4 * laneHeight * slotWidth / 2},
		{"spec-change marks", ColourSpec, 3 * 20},
		{"web's L6 violation pin", SeverityColour[conformance.SeverityViolation], 40},
		{"db's L6 warning pin", SeverityColour[conformance.SeverityWarning], 40},
	} {
		if counts[c.colour] < c.least {
			t.Errorf("%s: %d pixels of %s, want at least %d", c.what, counts[c.colour], c.colour, c.least)
		}
	}
	if t.Failed() {
		t.Log("set LBSTATUS_SCREENSHOT to a .png path to keep the screenshot")
	}
}
