package scenario

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A Server is cmd/sqsfake, built from this repository and run on a loopback port with a
// virtual clock. The old SDKs cannot share a module with the fake (it requires
// aws-sdk-go-v2 service/sqs v1.53.0, and Go's minimal version selection would give them
// that), so they reach it as any other client does: over HTTP.
type Server struct {
	URL  string
	bin  string
	addr string
	cmd  *exec.Cmd
}

// build compiles cmd/sqsfake into a directory of the test's.
func build(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	binary := filepath.Join(t.TempDir(), "sqsfake")
	cmd := exec.Command("go", "build", "-o", binary, "./cmd/sqsfake")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/sqsfake: %v\n%s", err, out)
	}
	return binary
}

// StartServer builds and starts the server for the test; it stops when the test ends.
// Queue URLs name AWS's endpoint, as the fake's do by default, so that outputs do not depend
// on the port.
func StartServer(t *testing.T) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &Server{URL: "http://" + addr, bin: build(t), addr: addr}
	t.Cleanup(s.stop)
	s.start(t)
	return s
}

// start runs the server's process and waits until it serves.
func (s *Server) start(t *testing.T) {
	cmd := exec.Command(s.bin, "-addr", s.addr, "-clock", "virtual", "-endpoint", "https://sqs.us-east-1.amazonaws.com")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.cmd = cmd
	// The server says it serves once it listens.
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		if strings.Contains(lines.Text(), "serving SQS") {
			go io.Copy(io.Discard, stdout)
			s.control(t, http.MethodGet, "health")
			return
		}
	}
	t.Fatalf("the server at %s stopped before serving: %v", s.URL, lines.Err())
}

// stop ends the server's process.
func (s *Server) stop() {
	if s.cmd != nil {
		s.cmd.Process.Signal(os.Interrupt)
		s.cmd.Wait()
		s.cmd = nil
	}
}

// Restart stops the server and starts a new one on the same address: a fresh fake, as at
// start, whose identifiers — receipt handles too — are those of the first run. (A reset would
// give handles of a new epoch, so that no handle outlives it.)
func (s *Server) Restart(t *testing.T) {
	s.stop()
	s.start(t)
}

func (s *Server) control(t *testing.T, method, path string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+"/_sqsfake/"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Sqsfake-Control", "1") // control requests must carry it (cmd/sqsfake)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s /_sqsfake/%s: %s", method, path, resp.Status)
	}
}

// Advance moves the server's virtual clock.
func (s *Server) Advance(t *testing.T, d time.Duration) {
	s.control(t, http.MethodPost, "advance?d="+d.String())
}

// WaitForPollers waits until n receives are parked in long polls.
func (s *Server) WaitForPollers(t *testing.T, n int) {
	s.control(t, http.MethodGet, "pollers?n="+strconv.Itoa(n)+"&timeout=10s")
}
