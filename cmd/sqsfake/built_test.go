package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The server as a script starts it: the binary go build makes, run as a process of its own,
// stopped with a signal. The tests here check what a user sees from outside: exit statuses,
// and the docs' recipes run as written.

var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// builtServer returns the path of the server built with go build, once per test binary; it
// skips the test where the go command is not on PATH.
func builtServer(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH: cannot build the server")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "sqsfake-built-")
		if buildErr != nil {
			return
		}
		buildPath = filepath.Join(buildDir, "sqsfake")
		out, err := exec.Command(goCmd, "build", "-o", buildPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return buildPath
}

// process is a running built server.
type process struct {
	endpoint string
	cmd      *exec.Cmd
	stderr   *syncBuffer
	exited   chan struct{}
	err      error // Wait's, once exited is closed
}

// startBuilt runs the built server with args on a free loopback port and waits for its
// banner. Cleanup kills it if a test has not stopped it.
func startBuilt(t *testing.T, args ...string) *process {
	t.Helper()
	cmd := exec.Command(builtServer(t), append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p := &process{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	require.NoError(t, cmd.Start())
	banner := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case banner <- m[1]:
				default:
				}
			}
		}
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			cmd.Process.Kill()
			<-p.exited
		}
	})
	select {
	case p.endpoint = <-banner:
	case <-p.exited:
		t.Fatalf("the server exited before its banner: %v\n%s", p.err, p.stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("no banner from the server in 30 s\n%s", p.stderr.String())
	}
	return p
}

// signal sends sig to the server and returns its exit status once it has exited.
func (p *process) signal(t *testing.T, sig os.Signal) int {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(sig))
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not exit 30 s after %v\n%s", sig, p.stderr.String())
	}
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		return exit.ExitCode()
	}
	require.NoError(t, p.err)
	return 0
}

// cliPath is the AWS CLI on PATH; it skips the test when the CLI is not installed.
func cliPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("the AWS CLI (aws) is not installed")
	}
	return p
}

// TestSIGTERMAnswersAParkedCLIReceiveEmptyAndExitsZero is issue 32's trap 7: a receive-message
// --wait-time-seconds 20 parked when the server gets SIGTERM gets an empty answer and the CLI
// exits 0 (it got 503, retried and exited 255 with "Could not connect"); then the server
// exits 0.
func TestSIGTERMAnswersAParkedCLIReceiveEmptyAndExitsZero(t *testing.T) {
	t.Parallel()
	awsPath := cliPath(t)
	p := startBuilt(t, "-clock", "virtual", "-queues", "jobs")
	cli := exec.Command(awsPath, "sqs", "receive-message", "--endpoint-url", p.endpoint,
		"--queue-url", p.endpoint+"/123456789012/jobs", "--wait-time-seconds", "20")
	cli.Env = awsEnv(t)
	var stdout, stderr syncBuffer
	cli.Stdout, cli.Stderr = &stdout, &stderr
	require.NoError(t, cli.Start())
	cliDone := make(chan error, 1)
	go func() { cliDone <- cli.Wait() }()

	s := &testServer{endpoint: p.endpoint}
	code, body := s.control(t, "GET", "pollers?n=1&timeout=30s")
	require.Equal(t, 200, code, "the CLI's poll parked: %v\n%s", body, stderr.String())

	require.Equal(t, 0, p.signal(t, syscall.SIGTERM), "the server's exit status after SIGTERM\n%s", p.stderr.String())
	select {
	case err := <-cliDone:
		require.NoError(t, err, "the CLI's exit status: stdout %q, stderr %q", stdout.String(), stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the CLI did not exit")
	}
	require.Empty(t, strings.TrimSpace(stdout.String()), "an empty receive prints nothing")
	require.Empty(t, stderr.String())
}
