package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// A small client of the Chrome DevTools Protocol for the browser tests: Chromium started
// with --remote-debugging-pipe reads commands on its fd 3 and writes answers and events on
// its fd 4, each a JSON object ended by a NUL byte. No socket, no websocket, no dependency.

// browser is a headless Chromium and one page of it.
type browser struct {
	cmd     *exec.Cmd
	in      io.WriteCloser // the browser's fd 3
	mu      sync.Mutex     // guards next, waiting and writes to in
	next    int
	waiting map[int]chan cdpAnswer
	session string // the page's session
	done    chan struct{}
	stderr  *syncBuffer
}

type cdpAnswer struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser starts chromium (a path or a name on PATH) headless with a fresh profile,
// opens a page of width×height and returns it; the browser stops when the test ends.
func startBrowser(t *testing.T, chromium string, width, height int) *browser {
	t.Helper()
	cmdIn, toBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromBrowser, cmdOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{in: toBrowser, waiting: map[int]chan cdpAnswer{}, done: make(chan struct{}), stderr: &syncBuffer{}}
	b.cmd = exec.Command(chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
		"--disable-sync", "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir="+t.TempDir(), "about:blank")
	b.cmd.ExtraFiles = []*os.File{cmdIn, cmdOut} // fds 3 and 4
	b.cmd.Stderr = b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", chromium, err)
	}
	cmdIn.Close()
	cmdOut.Close()
	go b.read(fromBrowser)
	t.Cleanup(func() {
		toBrowser.Close() // Chromium exits when its pipe closes
		select {
		case <-b.done:
		case <-time.After(10 * time.Second):
			b.cmd.Process.Kill()
		}
		b.cmd.Wait()
	})

	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.do(t, "Page.enable", nil, nil)
	// Every page the test opens records its script errors and the policy's refusals, which
	// pageErrors reads.
	b.do(t, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": `window.__errors = [];
		addEventListener("error", (e) => __errors.push("error: " + e.message));
		addEventListener("unhandledrejection", (e) => __errors.push("rejection: " + e.reason));
		addEventListener("securitypolicyviolation", (e) => __errors.push("policy: " + e.violatedDirective + " " + e.blockedURI));`}, nil)
	b.do(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	return b
}

// read hands the browser's answers to their callers; events are dropped.
func (b *browser) read(r io.Reader) {
	defer close(b.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var a cdpAnswer
		if json.Unmarshal(msg[:len(msg)-1], &a) != nil || a.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[a.ID]
		delete(b.waiting, a.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- a
		}
	}
}

// call sends a command to the browser (session "") or a page and decodes its result into
// out; it fails the test on an error or after 30 s without an answer.
func (b *browser) call(t *testing.T, session, method string, params any, out any) {
	t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpAnswer, 1)
	b.waiting[id] = ch
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	_, err := b.in.Write(append(data, 0))
	b.mu.Unlock()
	if err != nil {
		t.Fatalf("%s: %v\n%s", method, err, b.stderr.String())
	}
	select {
	case a, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the browser went away\n%s", method, b.stderr.String())
		}
		if a.Error != nil {
			t.Fatalf("%s: %s (%d)", method, a.Error.Message, a.Error.Code)
		}
		if out != nil {
			if err := json.Unmarshal(a.Result, out); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no answer in 30s\n%s", method, b.stderr.String())
	}
}

// do sends a command to the page.
func (b *browser) do(t *testing.T, method string, params any, out any) {
	t.Helper()
	b.call(t, b.session, method, params, out)
}

// eval runs a script in the page, awaits its value if it is a promise, and returns the
// value; a script that throws fails the test with its message.
func (b *browser) eval(t *testing.T, script string) any {
	t.Helper()
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.do(t, "Runtime.evaluate", map[string]any{"expression": script, "awaitPromise": true, "returnByValue": true}, &res)
	if e := res.ExceptionDetails; e != nil {
		t.Fatalf("script failed: %s %s\nscript: %s", e.Text, e.Exception.Description, script)
	}
	return res.Result.Value
}

// text returns the text of the first element a CSS selector picks, waiting for it.
func (b *browser) text(t *testing.T, selector string) string {
	t.Helper()
	v := b.waitFor(t, fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e && e.textContent; })()`, selector))
	s, _ := v.(string)
	return s
}

// waitFor polls a script's value in the page, every animation frame, until it is truthy, and
// returns it; it fails the test after 10 s. The page waits in the browser, on its own
// events, for what the test awaits: nothing in the test sleeps.
func (b *browser) waitFor(t *testing.T, script string) any {
	t.Helper()
	wrapped := fmt.Sprintf(`new Promise((resolve, reject) => {
		const deadline = performance.now() + 10000;
		const poll = () => {
			let v;
			try { v = (%s); } catch (e) { v = undefined; }
			if (v) return resolve(v);
			if (performance.now() > deadline) return reject(new Error("timed out waiting for: " + %q));
			setTimeout(poll, 20);
		};
		poll();
	})`, script, script)
	return b.eval(t, wrapped)
}

// screenshot writes a PNG of the whole page to path, at scale (1 for the page's size).
func (b *browser) screenshot(t *testing.T, path string, scale float64) {
	t.Helper()
	var metrics struct {
		CSSContentSize struct {
			Width  float64 `json:"width"`
			Height float64 `json:"height"`
		} `json:"cssContentSize"`
	}
	b.do(t, "Page.getLayoutMetrics", nil, &metrics)
	var res struct {
		Data string `json:"data"`
	}
	size := metrics.CSSContentSize
	b.do(t, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": size.Width, "height": size.Height, "scale": scale}}, &res)
	png, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

// pageErrors returns the script errors and Content-Security-Policy refusals of the page
// since it was opened.
func (b *browser) pageErrors(t *testing.T) []any {
	t.Helper()
	errs, _ := b.eval(t, `window.__errors`).([]any)
	return errs
}

// navigate opens a URL in the page.
func (b *browser) navigate(t *testing.T, url string) {
	t.Helper()
	var res struct {
		ErrorText string `json:"errorText"`
	}
	b.do(t, "Page.navigate", map[string]any{"url": url}, &res)
	if res.ErrorText != "" {
		t.Fatalf("navigate %s: %s", url, res.ErrorText)
	}
}

var errNoBrowser = errors.New("no browser")

// chromiumPath is the browser the tests drive: $SQSFAKE_BROWSER, a path or "1" for
// chromium on PATH; errNoBrowser when unset.
func chromiumPath() (string, error) {
	v := os.Getenv("SQSFAKE_BROWSER")
	switch v {
	case "":
		return "", errNoBrowser
	case "1", "chromium":
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				return p, nil
			}
		}
		return "", fmt.Errorf("SQSFAKE_BROWSER=%s but no chromium on PATH", v)
	}
	return v, nil
}
