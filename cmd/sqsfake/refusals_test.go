package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every refusal of a flag names the flag, the value and what it wants, on one line, without
// the whole usage after it or the SDK's wrapping of an SQS error.
func TestFlagRefusalsNameTheMistakeAndTheFix(t *testing.T) {
	const help = " (sqsfake -h lists the flags)"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a duration without its unit", []string{"-purge-cooldown", "5"},
			`invalid value "5" for flag -purge-cooldown: a duration needs its unit: 5s for seconds, or 5m for minutes` + help},
		{"not a duration", []string{"-purge-cooldown", "soon"},
			`invalid value "soon" for flag -purge-cooldown: want a duration with its unit, such as 60s, 1m30s or 500ms` + help},
		{"a negative duration", []string{"-purge-cooldown", "-1s"},
			`-purge-cooldown -1s: want 0 (no cooldown) or 1ms or more, such as 60s; SQS's is 60s`},
		{"a duration below the millisecond", []string{"-purge-cooldown", "5ns"},
			`-purge-cooldown 5ns: want 0 (no cooldown) or 1ms or more, such as 60s; SQS's is 60s`},
		{"a port out of range", []string{"-addr", ":99999"},
			`-addr :99999: port 99999 is out of range; want a port from 1 to 65535, or 0 for a free port`},
		{"a port that is not a number", []string{"-addr", "127.0.0.1:http-alt"},
			`-addr 127.0.0.1:http-alt: port "http-alt" is not a number; want a port from 1 to 65535, or 0 for a free port`},
		{"a negative port", []string{"-addr", "127.0.0.1:-1"},
			`-addr 127.0.0.1:-1: port "-1" is not a number; want a port from 1 to 65535, or 0 for a free port`},
		{"no port", []string{"-addr", "localhost"},
			`-addr "localhost": want host:port, such as 127.0.0.1:9324 (port 0 picks a free port)`},
		{"no host", []string{"-addr", ":9324"},
			`-addr :9324 names no host, which listens on every network interface; give a loopback host, such as 127.0.0.1:9324, or pass -allow-remote to serve other hosts (the fake's control endpoints need no credentials, nor, without -credentials, do its queues)`},
		{"not loopback", []string{"-addr", "192.0.2.1:9324"},
			`-addr 192.0.2.1:9324 is not a loopback address; the fake's control endpoints need no credentials (nor, without -credentials, do its queues), so pass -allow-remote to serve other hosts`},
		{"a seed that is not a number", []string{"-seed", "-1"},
			`invalid value "-1" for flag -seed: want a whole number from 0 to 18446744073709551615` + help},
		{"a bool flag given a word", []string{"-v=maybe"},
			`invalid boolean value "maybe" for -v: want true or false; the flag alone means true` + help},
		{"allow-remote given a word", []string{"-allow-remote=yes"},
			`invalid boolean value "yes" for -allow-remote: want true or false; the flag alone means true` + help},
		{"a misspelt flag", []string{"-queue", "jobs"},
			`flag provided but not defined: -queue; did you mean -queues?` + help},
		{"a flag in capitals", []string{"-Region", "eu-west-1"},
			`flag provided but not defined: -Region; did you mean -region?` + help},
		{"an unknown flag", []string{"-banana"},
			`flag provided but not defined: -banana` + help},
		{"a flag without its value", []string{"-queues"},
			`flag needs an argument: -queues` + help},
		{"an argument that is not a flag", []string{"jobs"},
			`unexpected arguments ["jobs"]: sqsfake takes flags only, such as -queues jobs to create a queue (sqsfake -h lists them)`},
		{"a clock it does not have", []string{"-clock", "fake"}, `-clock "fake": want real or virtual`},
		{"a region", []string{"-region", "Europe"}, `-region "Europe": want a region such as us-east-1: lower-case words and a number, joined by hyphens`},
		{"an account", []string{"-account", "12"}, `-account "12": want 12 digits, such as 123456789012`},
		{"an endpoint without a scheme", []string{"-endpoint", "localhost:9324"},
			`-endpoint "localhost:9324": want an http or https URL with a host and no user, query or fragment, such as http://127.0.0.1:9324`},
		{"a credentials file that is not there", []string{"-credentials", "/nonexistent/creds.json"},
			`-credentials open /nonexistent/creds.json: no such file or directory`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			_, err := parseFlags(tc.args, &stderr)
			assert.EqualError(t, err, tc.want)
			assert.Empty(t, stderr.String(), "no usage after the refusal: run prints the one line")
		})
	}
}

// -h prints the usage, and only -h does.
func TestHelpPrintsTheUsage(t *testing.T) {
	var stderr bytes.Buffer
	_, err := parseFlags([]string{"-h"}, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp)
	assert.Contains(t, stderr.String(), "usage: sqsfake [flags]")
	assert.Contains(t, stderr.String(), "-purge-cooldown duration")
	assert.Contains(t, stderr.String(), "(default 1m0s)")
}

// A -queues name SQS refuses is reported with the name and SQS's naming rule, without the
// SDK's "operation error SQS: CreateQueue, https response error StatusCode: 400, …".
func TestQueuesFlagRefusalNamesTheQueueAndTheRule(t *testing.T) {
	for _, tc := range []struct{ queues, want string }{
		{"jobs,bad!name", `-queues: SQS refuses the queue name "bad!name": Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length (a name ending in .fifo creates a FIFO queue)`},
		{"bad!.fifo", `-queues: SQS refuses the queue name "bad!.fifo": The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.`},
		{strings.Repeat("x", 81), `-queues: SQS refuses the queue name "` + strings.Repeat("x", 81) + `": Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length (a name ending in .fifo creates a FIFO queue)`},
	} {
		t.Run(tc.queues, func(t *testing.T) {
			err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-queues", tc.queues}, io.Discard, io.Discard)
			assert.EqualError(t, err, tc.want)
		})
	}
}

// An address in use — most often a server left running by a `go run` that was stopped by its
// own PID — is said in words, with the way out.
func TestAddressInUseSaysWhatToDo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	addr := ln.Addr().String()
	err = run(context.Background(), []string{"-addr", addr}, io.Discard, io.Discard)
	assert.EqualError(t, err, "-addr "+addr+" is in use: another sqsfake may still be running (a `go run` stopped by its own PID leaves its server running); stop that one, or pass another -addr, such as 127.0.0.1:0 for a free port")
	assert.Equal(t, "-addr x: boom", listenError("x", errors.New("boom")).Error())
	assert.Contains(t, listenError("x", syscall.EADDRINUSE).Error(), "is in use")
}

// Every refusal of a control endpoint names the parameter, the value and what it wants, in
// JSON that writes < and > as themselves.
func TestControlRefusalsNameTheMistakeAndTheFix(t *testing.T) {
	s := newTestServer(t, "-clock", "virtual", "-queues", "jobs,jobs-dlq")
	real := newTestServer(t, "-queues", "jobs")
	const host = "127.0.0.1:9324"
	for _, tc := range []struct {
		name, method, path string
		real               bool // on the server with the real clock
		code               int
		want               string
	}{
		{"advance without d", "POST", "/_sqsfake/advance", false, 400, "advance needs ?d=<duration>, how far to move the clock, such as ?d=30s"},
		{"advance without a unit", "POST", "/_sqsfake/advance?d=5", false, 400, "?d=5: a duration needs its unit: 5s for seconds, or 5m for minutes"},
		{"advance by no duration", "POST", "/_sqsfake/advance?d=soon", false, 400, "?d=soon: want a duration with its unit, such as 30s, 1m30s or 500ms"},
		{"advance backwards", "POST", "/_sqsfake/advance?d=-1s", false, 400, "?d=-1s: the clock cannot go back; want 0 or more"},
		{"advance past the end of time", "POST", "/_sqsfake/advance?d=2100000h", false, 400, "the clock cannot move past 2262-04-11T23:47:16Z"},
		{"advance on the real clock", "POST", "/_sqsfake/advance?d=1s", true, 409, "the server runs on the real clock; start it with -clock virtual to move time"},
		{"advance by GET", "GET", "/_sqsfake/advance?d=1s", false, 405, "GET /_sqsfake/advance: use POST"},
		{"pollers of no count", "GET", "/_sqsfake/pollers?n=one", false, 400, "?n=one: want how many long polls to wait for, a whole number of 0 or more, such as ?n=1"},
		{"pollers with a timeout without its unit", "GET", "/_sqsfake/pollers?n=0&timeout=10", false, 400, "?timeout=10: a duration needs its unit: 10s for seconds, or 10m for minutes"},
		{"idle of no count", "GET", "/_sqsfake/idle?calls=-1", false, 400, "?calls=-1: want how many calls must have begun, a whole number of 0 or more: the calls of an earlier answer plus those you started since"},
		{"idle with a negative timeout", "GET", "/_sqsfake/idle?timeout=-5s", false, 400, "?timeout=-5s: want 0 or more"},
		{"state of a queue that does not exist", "GET", "/_sqsfake/state?queue=jobz", false, 404, "?queue=queue jobz does not exist; the fake has jobs, jobs-dlq"},
		{"state with too big a limit", "GET", "/_sqsfake/state?limit=20000", false, 400, "?limit=20000: want how many messages to list a queue, from 0 to 10000"},
		{"state with a cursor that is not one", "GET", "/_sqsfake/state?queue=jobs&after=x", false, 400, `?after=x: want the "next" cursor of an earlier answer, a whole number`},
		{"state with a cursor but no queue", "GET", "/_sqsfake/state?after=3", false, 400, `?after= pages through one queue: give ?queue=<name>&after=<the queue's "next">`},
		{"state of two queues", "GET", "/_sqsfake/state?queue=a&queue=b", false, 400, "?queue= is given 2 times; give it once"},
		{"state by POST", "POST", "/_sqsfake/state", false, 405, "POST /_sqsfake/state: use GET"},
		{"reset by GET", "GET", "/_sqsfake/reset", false, 405, "GET /_sqsfake/reset: use POST"},
		{"an endpoint there is not", "GET", "/_sqsfake/clock", false, 404, `no control endpoint "/_sqsfake/clock"; there are /_sqsfake/{health,state,advance,pollers,idle,reset} (go doc github.com/sqsfake/sqsfake/cmd/sqsfake)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := s
			if tc.real {
				srv = real
			}
			w := serve(srv, tc.method, tc.path, host, "X-Sqsfake-Control", "1")
			assert.Equal(t, tc.code, w.Code)
			assert.Equal(t, "{\n  \"error\": "+jsonString(tc.want)+"\n}\n", w.Body.String(), "the whole answer, < and > unescaped")
			assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
			if tc.code == http.StatusMethodNotAllowed {
				assert.NotEmpty(t, w.Header().Get("Allow"))
			}
		})
	}
}

// jsonString is s as a JSON string, written as the control endpoints write it: only " and \
// escaped (the messages hold no control characters).
func jsonString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// The state's messages show their bodies as sent: "<order>" is not "\u003corder\u003e".
func TestStateWritesMarkupInBodiesAsItIs(t *testing.T) {
	s := newTestServer(t, "-clock", "virtual", "-queues", "jobs")
	f := s.cur.Load().fake
	info, err := f.Queue("jobs")
	require.NoError(t, err)
	_, err = f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(info.URL), MessageBody: aws.String(`<order id="1">&</order>`)})
	require.NoError(t, err)
	w := serve(s, "GET", "/_sqsfake/state?queue=jobs", "127.0.0.1:9324", "X-Sqsfake-Control", "1")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), `"body": "<order id=\"1\">&</order>"`)
	assert.NotContains(t, w.Body.String(), `\u003c`)
}
