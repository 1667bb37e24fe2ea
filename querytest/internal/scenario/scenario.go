// Package scenario runs one corpus of SQS calls, good and bad, through the query-protocol
// SDKs of querytest against cmd/sqsfake, and the same corpus through the server's awsJson1_0
// door with a raw JSON client, and compares the two step by step: the same outputs, the same
// error codes, messages and statuses.
//
// The corpus mirrors the differential corpus of the main module (differential_test.go) as
// far as the old SDKs allow: every operation with an input that succeeds and one that fails.
// Inputs are the JSON of the SDK's input types, which aws-sdk-go v1.47.5, aws-sdk-go-v2
// service/sqs v1.26.0 and the awsJson1_0 wire share, member names included; a later step
// uses an earlier step's output through ${name} placeholders.
package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A Step is one call of the corpus.
type Step struct {
	Name string
	Op   string
	// Input is the JSON of the operation's input; ${name} stands for a value saved earlier.
	Input string
	// Want is "ok", or the error code the call must fail with.
	Want string
	// Client marks an input the SDKs refuse before sending; Want is then what the server
	// answers when it is sent anyway.
	Client bool
	// Advance moves the server's clock before the call.
	Advance time.Duration
	// Parked makes the call a long poll: it is started, the server is asked to wait until
	// it is parked, and the clock moves by Parked, which ends it.
	Parked time.Duration
	// Save names values of the output for later steps: name → path, e.g.
	// "Messages.0.ReceiptHandle".
	Save map[string]string
}

// An Outcome is what a call gave, in a form both SDKs and the raw client produce.
type Outcome struct {
	// Output is the output as JSON, without zero values and ResultMetadata.
	Output any
	// Code, Message and Status describe an error the service answered with.
	Code, Message string
	Status        int
	// NoMessage is set when the SDK keeps no message for the error: aws-sdk-go-v2's query
	// releases decode the modeled errors (QueueDoesNotExist, …) without their message, as
	// against SQS itself. The message is then not compared.
	NoMessage bool
	// Client is set when the SDK refused the input before sending it.
	Client bool
	// Other holds the text of any other error.
	Other string
}

func (o Outcome) String() string {
	switch {
	case o.Client:
		return "refused by the client"
	case o.Other != "":
		return "error: " + o.Other
	case o.Code != "":
		return fmt.Sprintf("%d %s: %s", o.Status, o.Code, o.Message)
	}
	b, _ := json.MarshalIndent(o.Output, "", "  ")
	return string(b)
}

// A Caller makes one call of an operation with an input given as JSON.
type Caller interface {
	Call(ctx context.Context, op string, input []byte) Outcome
}

// Invoke calls a client method by reflection — one taking a context and a pointer to an
// input, the input decoded strictly from JSON — and gives its output or error to outcome.
func Invoke(ctx context.Context, method reflect.Value, input []byte, outcome func(out any, err error) Outcome) Outcome {
	if !method.IsValid() {
		return Outcome{Other: "no such method"}
	}
	in := reflect.New(method.Type().In(1).Elem())
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(in.Interface()); err != nil {
		return Outcome{Other: "input: " + err.Error()}
	}
	res := method.Call([]reflect.Value{reflect.ValueOf(ctx), in})
	err, _ := res[1].Interface().(error)
	return outcome(res[0].Interface(), err)
}

// Normalize turns an output value into comparable JSON: numbers as json.Number, no
// ResultMetadata, and no zero values (nil, "", 0, false, empty lists and maps), which the
// SDKs of different eras hold differently (a *bool or a bool, a nil or an empty slice).
func Normalize(out any) any {
	b, err := json.Marshal(out)
	if err != nil {
		return "unencodable: " + err.Error()
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	dec.Decode(&v)
	return prune(v)
}

func prune(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "ResultMetadata")
		for k, x := range v {
			if x = prune(x); x == nil {
				delete(v, k)
			} else {
				v[k] = x
			}
		}
		if len(v) == 0 {
			return nil
		}
	case []any:
		for i, x := range v {
			v[i] = prune(x)
		}
		if len(v) == 0 {
			return nil
		}
	case string:
		if v == "" {
			return nil
		}
	case json.Number:
		if v == "0" {
			return nil
		}
	case bool:
		if !v {
			return nil
		}
	}
	return v
}

// queryWording undoes the one message SQS words otherwise in the query protocol.
func queryWording(s string) string {
	return strings.ReplaceAll(s, "The specified queue does not exist for this wsdl version.", "The specified queue does not exist.")
}

var placeholder = regexp.MustCompile(`\$\{(\w+)\}`)

// Run runs the corpus through c against srv, restarted, and returns each step's outcome.
func Run(t *testing.T, srv *Server, c Caller) []Outcome {
	t.Helper()
	ctx := context.Background()
	srv.Restart(t)
	saved := map[string]string{}
	outcomes := make([]Outcome, len(Corpus))
	for i, st := range Corpus {
		input := placeholder.ReplaceAllStringFunc(st.Input, func(m string) string {
			v, ok := saved[m[2:len(m)-1]]
			if !ok {
				t.Fatalf("%s: nothing saved as %s", st.Name, m)
			}
			b, _ := json.Marshal(v)
			return string(b[1 : len(b)-1])
		})
		if st.Advance > 0 {
			srv.Advance(t, st.Advance)
		}
		var o Outcome
		if st.Parked > 0 {
			done := make(chan Outcome, 1)
			go func() { done <- c.Call(ctx, st.Op, []byte(input)) }()
			srv.WaitForPollers(t, 1)
			srv.Advance(t, st.Parked)
			o = <-done
		} else {
			o = c.Call(ctx, st.Op, []byte(input))
		}
		o.Message = queryWording(o.Message)
		outcomes[i] = o
		for name, path := range st.Save {
			v, ok := lookup(o.Output, path)
			if !ok {
				t.Fatalf("%s: the output has no %s:\n%s", st.Name, path, o)
			}
			saved[name] = v
		}
	}
	return outcomes
}

// lookup returns the string at a dotted path of an output.
func lookup(v any, path string) (string, bool) {
	for part := range strings.SplitSeq(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i >= len(x) {
				return "", false
			}
			v = x[i]
		default:
			return "", false
		}
	}
	s, ok := v.(string)
	return s, ok
}

// Compare runs the corpus through the awsJson1_0 door with a raw client and through c, and
// requires the same outcome at every step; for inputs the SDKs refuse, that c refused it and
// the server answers it with the step's code.
func Compare(t *testing.T, srv *Server, c Caller) {
	t.Helper()
	want := Run(t, srv, &RawJSON{Endpoint: srv.URL})
	got := Run(t, srv, c)
	for i, st := range Corpus {
		switch {
		case st.Client:
			if !got[i].Client {
				t.Errorf("%s: the SDK sent an input it should refuse; got %s", st.Name, got[i])
			}
			if want[i].Code != st.Want {
				t.Errorf("%s: the server answers the raw input with %s, want %s", st.Name, want[i], st.Want)
			}
			continue
		case st.Want == "ok" && (want[i].Code != "" || want[i].Other != "" || want[i].Client):
			t.Errorf("%s: the JSON door failed: %s", st.Name, want[i])
		case st.Want != "ok" && want[i].Code != st.Want:
			t.Errorf("%s: the JSON door answered %s, want code %s", st.Name, want[i], st.Want)
		}
		if got[i].NoMessage {
			want[i].Message = ""
		}
		if got[i].String() != want[i].String() {
			t.Errorf("%s (%s): the query protocol and awsJson1_0 differ\nquery:\n%s\njson:\n%s", st.Name, st.Op, got[i], want[i])
		}
	}
}

// RawJSON calls the server's awsJson1_0 door with the step's input as the request body.
type RawJSON struct{ Endpoint string }

// Call implements Caller.
func (r *RawJSON) Call(ctx context.Context, op string, input []byte) Outcome {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.Endpoint+"/", bytes.NewReader(input))
	if err != nil {
		return Outcome{Other: err.Error()}
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "AmazonSQS."+op)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Outcome{Other: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Outcome{Other: err.Error()}
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Message string `json:"message"`
		}
		json.Unmarshal(body, &e)
		code, _, _ := strings.Cut(resp.Header.Get("X-Amzn-Query-Error"), ";")
		return Outcome{Code: code, Message: e.Message, Status: resp.StatusCode}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return Outcome{Other: err.Error()}
	}
	// The one output member whose wire name is not its Go field's (SPEC.md §2).
	if urls, ok := v["queueUrls"]; ok {
		delete(v, "queueUrls")
		v["QueueUrls"] = urls
	}
	return Outcome{Output: Normalize(v)}
}

// Ops lists the 23 operations of SQS.
var Ops = []string{"AddPermission", "CancelMessageMoveTask", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch",
	"CreateQueue", "DeleteMessage", "DeleteMessageBatch", "DeleteQueue", "GetQueueAttributes", "GetQueueUrl",
	"ListDeadLetterSourceQueues", "ListMessageMoveTasks", "ListQueueTags", "ListQueues", "PurgeQueue", "ReceiveMessage",
	"RemovePermission", "SendMessage", "SendMessageBatch", "SetQueueAttributes", "StartMessageMoveTask", "TagQueue", "UntagQueue"}

// CheckCoverage requires every operation to have a step that succeeds and one that fails.
func CheckCoverage(t *testing.T) {
	good, bad := map[string]bool{}, map[string]bool{}
	for _, st := range Corpus {
		if !slices.Contains(Ops, st.Op) {
			t.Errorf("%s: unknown operation %s", st.Name, st.Op)
		}
		if st.Want == "ok" {
			good[st.Op] = true
		} else {
			bad[st.Op] = true
		}
	}
	for _, op := range Ops {
		if !good[op] || !bad[op] {
			t.Errorf("%s: succeeds in the corpus %v, fails %v", op, good[op], bad[op])
		}
	}
}
