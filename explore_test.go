package sqsfake

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recT is the test Explore reports to in these tests: it keeps what Explore says.
type recT struct {
	testing.TB
	name    string
	errs    []string
	logs    []string
	skipped string
}

func newRecT(t testing.TB) *recT { return &recT{TB: t, name: t.Name()} }

func (r *recT) Helper()           {}
func (r *recT) Name() string      { return r.name }
func (r *recT) Error(args ...any) { r.errs = append(r.errs, fmt.Sprint(args...)) }
func (r *recT) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recT) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recT) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recT) Skipf(format string, args ...any) { r.skipped = fmt.Sprintf(format, args...) }

// report is the one report Explore made, or "".
func (r *recT) report(t *testing.T) string {
	t.Helper()
	require.LessOrEqual(t, len(r.errs), 1, "one report at most")
	if len(r.errs) == 0 {
		return ""
	}
	return r.errs[0]
}

var replayLine = regexp.MustCompile(`-sqsfake\.replay='([^']*)'`)

// replayOf returns the replay line's value in a report.
func replayOf(t *testing.T, report string) string {
	t.Helper()
	m := replayLine.FindStringSubmatch(report)
	require.NotNil(t, m, "a replay line in\n%s", report)
	return m[1]
}

// classesOf returns the classes of the disturbances a replay value names.
func classesOf(t *testing.T, replay string) []string {
	t.Helper()
	_, keys, _, err := parseReplay(replay)
	require.NoError(t, err)
	var classes []string
	for _, k := range keys {
		classes = append(classes, distNames[k.class])
	}
	return classes
}

// consumeAndDelete20 is a scenario a correct consumer passes under every disturbance: it
// sends 20 messages, retrying what fails after a pause on the clock, and receives and deletes
// until it has seen each.
func consumeAndDelete20(t testing.TB, f *Fake) {
	ctx := context.Background()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	if err != nil {
		t.Fatal(err)
	}
	pause := func() { f.vclk.Sleep(200 * time.Millisecond) }
	for i := range 20 {
		for {
			if _, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint("job-", i))}); err == nil {
				break
			}
			pause()
		}
	}
	seen := map[string]bool{}
	for len(seen) < 20 {
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 20})
		if err != nil {
			pause()
			continue
		}
		for _, m := range out.Messages {
			seen[*m.Body] = true
			for {
				if _, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle}); err == nil {
					break
				}
				pause()
			}
		}
	}
}

func TestExploreIsSilentOnAConsumerThatPassesEveryRun(t *testing.T) {
	r := newRecT(t)
	Explore(r, consumeAndDelete20, Exploration{Runs: 200})
	assert.Empty(t, r.errs)
	assert.Empty(t, r.skipped)
}

// chargeEachDelivery is a consumer that charges each delivery: a message SQS delivers again
// is charged twice.
func chargeEachDelivery(t testing.TB, f *Fake) {
	ctx := context.Background()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("payments")})
	for i := range 20 {
		for {
			if _, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint("charge-", i))}); err == nil {
				break
			}
			f.vclk.Sleep(time.Second)
		}
	}
	charged := map[string]int{}
	for idle := 0; idle < 3; { // until the queue has been empty for a minute
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 20})
		if err != nil {
			f.vclk.Sleep(time.Second)
			continue
		}
		if idle++; len(out.Messages) > 0 {
			idle = 0
		}
		for _, m := range out.Messages {
			charged[*m.Body]++
			f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle})
		}
	}
	for _, body := range slices.Sorted(maps.Keys(charged)) {
		if n := charged[body]; n != 1 {
			t.Errorf("%s charged %d times", body, n)
		}
	}
}

func TestExploreReportsTheShrunkListTheFailureAndAReplayLine(t *testing.T) {
	r := newRecT(t)
	Explore(r, chargeEachDelivery, Exploration{Runs: 200, Chaos: &Chaos{RedeliverRate: 0.02, ReorderRate: 0.1, ShortPollRate: 0.2}})
	report := r.report(t)
	require.NotEmpty(t, report)
	t.Log(report)
	assert.Regexp(t, `^sqsfake\.Explore: seed \d+ failed \(run \d+ of 200\); its \d+ disturbances shrink to 1 \(\d+ replays\):\n`+
		`  - deleted m-\d+ "charge-\d+" comes back: DeleteMessage #\d+ succeeded, but a copy stayed, visible again when its visibility timeout ends\n`+
		`The body failed:\n    explore_test\.go:\d+: charge-\d+ charged 2 times\n`+
		`Replay it: go test -run '\^TestExploreReportsTheShrunkListTheFailureAndAReplayLine\$' -sqsfake\.replay='\d+:redeliver\.\d+\.\d+'$`, report)
}

// The same seed gives the same disturbances and the same outcome, run after run; so does
// the whole report.
func TestExploreIsDeterministic(t *testing.T) {
	e, problem := newExplorer(t, chargeEachDelivery, nil)
	require.Empty(t, problem)
	for seed := range uint64(20) {
		first, second := e.run(seed, nil), e.run(seed, nil)
		assert.Equal(t, first.fired, second.fired, "seed %d", seed)
		assert.Equal(t, first.errs, second.errs, "seed %d", seed)
	}
	reports := make([]string, 3)
	for i := range reports {
		r := newRecT(t)
		Explore(r, chargeEachDelivery)
		reports[i] = r.report(t)
	}
	assert.NotEmpty(t, reports[0])
	assert.Equal(t, reports[0], reports[1])
	assert.Equal(t, reports[0], reports[2])
}

// The shrunk list is 1-minimal: its replay fails, and the replay of the list without any one
// of its disturbances passes.
func TestExploreShrinksToA1MinimalList(t *testing.T) {
	// A consumer that fails when a delete's answer is lost AND a message comes twice;
	// high rates make each run carry dozens of disturbances.
	body := func(t testing.TB, f *Fake) {
		ctx := context.Background()
		q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		for i := range 20 {
			for _, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint(i))}); err != nil; _, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint(i))}) {
				f.vclk.Sleep(time.Second)
			}
		}
		lostDelete, twice := false, false
		seen := map[string]bool{}
		for range 60 {
			out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
			if err != nil {
				f.vclk.Sleep(time.Second)
				continue
			}
			for _, m := range out.Messages {
				twice = twice || seen[*m.MessageId]
				seen[*m.MessageId] = true
				if _, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle}); err != nil {
					lostDelete = lostDelete || strings.Contains(err.Error(), context.DeadlineExceeded.Error())
				}
			}
			f.vclk.Sleep(time.Second)
		}
		if lostDelete && twice {
			t.Error("a lost delete and a duplicate")
		}
	}
	c := &Chaos{DuplicateRate: 0.1, ReorderRate: 0.3, ShortPollRate: 0.3, LostResponseRate: 0.1, ServerErrorRate: 0.1, LateAnswerRate: 0.1}
	r := newRecT(t)
	Explore(r, body, Exploration{Chaos: c})
	report := r.report(t)
	require.NotEmpty(t, report)
	t.Log(report)
	replay := replayOf(t, report)
	classes := classesOf(t, replay)
	assert.Len(t, classes, 2, "a lost delete, and whatever delivered a message twice")
	assert.Contains(t, classes, "lost")

	e, problem := newExplorer(t, body, []Exploration{{Chaos: c}})
	require.Empty(t, problem)
	seed, keys, _, err := parseReplay(replay)
	require.NoError(t, err)
	assert.True(t, e.run(seed, keys).failed(), "the list fails")
	for i := range keys {
		without := slices.Delete(slices.Clone(keys), i, i+1)
		assert.False(t, e.run(seed, without).failed(), "without %v it passes", keys[i])
	}
}

// sendAndDrain40 sends 40 messages and drains the queue with short polls, retrying what fails
// after a second; it fails when a SendMessage lost its answer. Its runs carry many
// disturbances, of which that one matters.
func sendAndDrain40(t testing.TB, f *Fake) {
	ctx := context.Background()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	for i := range 40 {
		for {
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint(i))})
			if err == nil {
				break
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("send %d lost its answer", i)
				break
			}
			f.vclk.Sleep(time.Second)
		}
	}
	for range 100 {
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
		if err != nil {
			f.vclk.Sleep(time.Second)
			continue
		}
		for _, m := range out.Messages {
			f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle})
		}
		f.vclk.Sleep(time.Second)
	}
}

// sendAndDrainChaos gives sendAndDrain40's runs 50 disturbances and more.
var sendAndDrainChaos = &Chaos{DuplicateRate: 0.2, ReorderRate: 0.3, ShortPollRate: 0.3, LostResponseRate: 0.02, ServerErrorRate: 0.05, LateAnswerRate: 0.05, ThrottleRate: 0.02}

// The bar: a failing run with 50 disturbances or more, of which one matters, shrinks in
// fewer than 50 replays (BenchmarkExploreShrink reports how many).
func TestExploreShrinksA50DisturbanceRunInUnder50Replays(t *testing.T) {
	e, problem := newExplorer(t, sendAndDrain40, []Exploration{{Chaos: sendAndDrainChaos}})
	require.Empty(t, problem)
	found := 0
	for seed := uint64(0); found < 5 && seed < 500; seed++ {
		r := e.run(seed, nil)
		if !r.failed() || len(r.fired) < 50 {
			continue
		}
		found++
		shrunk := e.shrink(seed, r)
		assert.Len(t, shrunk.fired, 1, "seed %d", seed)
		assert.Equal(t, "lost", distNames[shrunk.fired[0].key.class], "seed %d", seed)
		assert.Less(t, e.replays, 50, "seed %d: %d disturbances shrunk in %d replays", seed, len(r.fired), e.replays)
		t.Logf("seed %d: %d disturbances shrunk to %d in %d replays", seed, len(r.fired), len(shrunk.fired), e.replays)
	}
	require.Equal(t, 5, found, "five failing runs with 50 disturbances or more")
}

func TestExploreReplaysALine(t *testing.T) {
	r := newRecT(t)
	Explore(r, chargeEachDelivery)
	replay := replayOf(t, r.report(t))

	again := newRecT(t)
	Explore(again, chargeEachDelivery, Exploration{Replay: replay})
	report := again.report(t)
	assert.Regexp(t, `^sqsfake\.Explore: replay \d+:\S+ failed:\n  - `, report)
	assert.Equal(t, replay, replayOf(t, report))

	seed, _, _, err := parseReplay(replay)
	require.NoError(t, err)
	none := newRecT(t)
	Explore(none, chargeEachDelivery, Exploration{Replay: fmt.Sprint(seed, ":")})
	assert.Empty(t, none.errs, "with no disturbance it passes")
	assert.Equal(t, []string{fmt.Sprintf("sqsfake.Explore: replay %d: passed", seed)}, none.logs)

	whole := newRecT(t)
	Explore(whole, chargeEachDelivery, Exploration{Replay: fmt.Sprint(seed)})
	assert.Contains(t, whole.report(t), "failed", "a bare seed replays the seed's whole run")
}

func TestReplayLinesReadBackAsWritten(t *testing.T) {
	keys := []distKey{
		{class: distDuplicate, a: 3, b: 1},
		{class: distReorder, a: 5, b: 0, c: 4, d: 2},
		{class: distRedeliver, a: 7, b: 2},
		{class: distShortPoll, op: opIndex("ReceiveMessage"), a: 9, c: 1},
		{class: distLost, op: opIndex("DeleteMessage"), a: 7, b: 1, c: 2},
		{class: distThrottle, op: opIndex("SendMessage"), a: 3735928559, c: 1},
		{class: distServerError, op: opIndex("ChangeMessageVisibility"), a: 2, b: 1, c: 1},
		{class: distFailedEntry, op: opIndex("DeleteMessageBatch"), a: 3, b: 2, c: 1},
		{class: distLate, op: opIndex("ReceiveMessage"), c: 12},
	}
	line := formatReplay(36, keys)
	assert.Equal(t, "36:dup.3.1,reorder.5.0.4.2,redeliver.7.2,sample.9.0.1,lost.DeleteMessage.7.1.2,throttle.SendMessage.3735928559.0.1,"+
		"5xx.ChangeMessageVisibility.2.1.1,entry.DeleteMessageBatch.3.2.1,late.ReceiveMessage.0.0.12", line)
	seed, got, whole, err := parseReplay(line)
	require.NoError(t, err)
	assert.Equal(t, uint64(36), seed)
	assert.False(t, whole)
	assert.Equal(t, keys, got)

	for line, want := range map[string]string{
		"x:dup.1.1":                   "want a seed, a colon and a comma-separated list",
		"1:dupe.1.1":                  `"dupe" is not a class of disturbance; the classes are dup, reorder, redeliver, sample, lost, throttle, 5xx, entry, late`,
		"1:lost.CreateQueue.1":        "lost needs a message operation, such as lost.DeleteMessage.7.1.1",
		"1:entry.DeleteMessage.1.1.1": "DeleteMessage is not a batch operation",
		"1:dup.1":                     "dup has 2 numbers, not 1",
		"1:lost.DeleteMessage.7.1.x":  `"x" is not a number`,
	} {
		_, _, _, err := parseReplay(line)
		if assert.Error(t, err, line) {
			assert.Contains(t, err.Error(), want, line)
		}
	}
	r := newRecT(t)
	Explore(r, chargeEachDelivery, Exploration{Replay: "1:dupe.1.1"})
	assert.Contains(t, r.report(t), `sqsfake.Explore: replay "1:dupe.1.1": "dupe.1.1": "dupe" is not a class`)
}

// While the body waits on the fake's clock, Explore moves the clock to the end of the wait,
// never further.
func TestExploreMovesTheClockToTheEndOfEachWait(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		wait func(t testing.TB, f *Fake, url *string) // waits on the clock
		want time.Duration                            // how long the wait is
	}{
		{"an empty long poll", func(t testing.TB, f *Fake, url *string) {
			out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, WaitTimeSeconds: 20})
			require.NoError(t, err)
			require.Empty(t, out.Messages)
		}, 20 * time.Second},
		{"a long poll a delayed message ends", func(t testing.TB, f *Fake, url *string) {
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("later"), DelaySeconds: 7})
			require.NoError(t, err)
			out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: url, WaitTimeSeconds: 20})
			require.NoError(t, err)
			require.Len(t, out.Messages, 1)
		}, 7 * time.Second},
		{"a long poll its context's deadline ends", func(t testing.TB, f *Fake, url *string) {
			cctx, cancel := f.vclk.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := f.ReceiveMessage(cctx, &sqs.ReceiveMessageInput{QueueUrl: url, WaitTimeSeconds: 20})
			require.ErrorIs(t, err, context.DeadlineExceeded)
		}, 5 * time.Second},
		{"a Sleep on the clock", func(t testing.TB, f *Fake, url *string) { f.vclk.Sleep(3 * time.Second) }, 3 * time.Second},
		{"a receive from the clock's After", func(t testing.TB, f *Fake, url *string) { <-f.vclk.After(1500 * time.Millisecond) }, 1500 * time.Millisecond},
		{"a select on a context from the clock's WithTimeout", func(t testing.TB, f *Fake, url *string) {
			cctx, cancel := f.vclk.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			never := make(chan struct{})
			select {
			case <-cctx.Done():
			case <-never:
			}
		}, 2 * time.Second},
		{"an injected latency", func(t testing.TB, f *Fake, url *string) {
			f.InjectFault(Fault{Operation: "SendMessage", Latency: 4 * time.Second, Times: 1})
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("slow")})
			require.NoError(t, err)
		}, 4 * time.Second},
		{"no wait at all", func(t testing.TB, f *Fake, url *string) {}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var waited time.Duration
			r := newRecT(t)
			Explore(r, func(rt testing.TB, f *Fake) {
				q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
				require.NoError(rt, err)
				start := f.Now()
				c.wait(rt, f, q.QueueUrl)
				waited = f.Now().Sub(start)
			}, Exploration{Runs: 1, Chaos: &Chaos{}})
			assert.Empty(t, r.errs)
			assert.Equal(t, c.want, waited)
		})
	}
}

// A late answer is a wait on the clock too: Explore moves the clock to its end.
func TestExploreMovesTheClockThroughLateAnswers(t *testing.T) {
	ctx := context.Background()
	var waits []time.Duration
	body := func(t testing.TB, f *Fake) {
		q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		require.NoError(t, err)
		for range 5 {
			start := f.Now()
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("a")})
			require.NoError(t, err)
			waits = append(waits, f.Now().Sub(start))
		}
	}
	r := newRecT(t)
	Explore(r, body, Exploration{Runs: 1, Chaos: &Chaos{LateAnswerRate: 1}})
	assert.Empty(t, r.errs)
	require.Len(t, waits, 5)
	for _, w := range waits {
		assert.True(t, w >= 500*time.Millisecond && w <= 5*time.Second && w%(100*time.Millisecond) == 0, "late by %v", w)
	}
}

func TestExploreReportsABodyThatWaitsOnSomethingElse(t *testing.T) {
	never := make(chan struct{})
	t.Cleanup(func() { close(never) }) // let the abandoned body end
	r := newRecT(t)
	Explore(r, func(t testing.TB, f *Fake) { <-never }, Exploration{Runs: 1, Chaos: &Chaos{}})
	report := r.report(t)
	assert.Contains(t, report, "The body did not finish: it waits (chan receive) on something outside the fake and its clock, with no timer armed on the clock:\ngoroutine ")
	assert.Contains(t, report, "it fails without any disturbance")
}

func TestExploreReportsABodyThatRetriesAtOnceForever(t *testing.T) {
	defer func(was int64) { spinLimit = was }(spinLimit)
	spinLimit = 1000
	r := newRecT(t)
	Explore(r, func(t testing.TB, f *Fake) {
		ctx := context.Background()
		q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		for { // throttled: retry at once, for ever
			if _, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("a")}); err == nil {
				return
			}
		}
	}, Exploration{Runs: 1, Chaos: &Chaos{ThrottleRate: 1}})
	report := r.report(t)
	assert.Contains(t, report, "The body did not finish: it made 1000 calls to the fake without the fake's clock moving: a loop that retries at once, without waiting on the clock")
	assert.Contains(t, report, "  - queue jobs throttled for ")
	assert.Contains(t, report, " from SendMessage #1: it and every message call to the queue until then failed with RequestThrottled\n")
}

func TestExploreReportsABodyThatNeitherReturnsNorWaits(t *testing.T) {
	var stop atomic.Bool
	t.Cleanup(func() { stop.Store(true) })
	r := newRecT(t)
	Explore(r, func(t testing.TB, f *Fake) {
		for !stop.Load() {
			runtime.Gosched()
		}
	}, Exploration{Runs: 1, Chaos: &Chaos{}, HangAfter: 50 * time.Millisecond})
	assert.Contains(t, r.report(t), "The body did not finish: it neither returned nor waited on the fake's clock within 50ms of real time (")
}

// The body's t is its own: Fatal ends the run, cleanups run after it, its context ends
// before them; logs are reported with the failure; a panic fails the run.
func TestExploreGivesTheBodyATestOfItsOwn(t *testing.T) {
	var order []string
	r := newRecT(t)
	Explore(r, func(t testing.TB, f *Fake) {
		ctx := t.Context()
		t.Cleanup(func() { order = append(order, "first registered") })
		t.Cleanup(func() {
			order = append(order, fmt.Sprint("context ended: ", ctx.Err() != nil))
		})
		t.Log("about to fail")
		require.False(t, t.Failed())
		helper(t)
		order = append(order, "never here")
	}, Exploration{Runs: 3, Chaos: &Chaos{}})
	report := r.report(t)
	assert.Contains(t, report, "The body failed:\n    explore_test.go:")
	assert.Contains(t, report, ": the helper's caller is named\n")
	assert.Contains(t, report, "The body logged:\n    explore_test.go:")
	assert.Contains(t, report, ": about to fail\n")
	assert.Equal(t, []string{"context ended: true", "first registered"}, order[:2], "cleanups, last first, after the context ended")
	assert.NotContains(t, order, "never here")

	p := newRecT(t)
	Explore(p, func(t testing.TB, f *Fake) { panic("boom") }, Exploration{Runs: 1, Chaos: &Chaos{}})
	assert.Contains(t, p.report(t), "The body failed:\n    panic: boom\n")

	s := newRecT(t)
	Explore(s, func(t testing.TB, f *Fake) { t.Skip("not today") }, Exploration{Runs: 1, Chaos: &Chaos{}})
	assert.Empty(t, s.errs)
	assert.Contains(t, s.skipped, "not today")
}

func helper(t testing.TB) {
	t.Helper()
	t.Fatal("the helper's caller is named")
}

func TestExploreRefusesWhatItCannotDo(t *testing.T) {
	for _, c := range []struct {
		ex   Exploration
		want string
	}{
		{Exploration{Options: []Option{WithChaos(Chaos{DuplicateRate: 1})}}, "Options has WithChaos: Explore makes the chaos; set Exploration.Chaos's rates instead"},
		{Exploration{Options: []Option{WithClock(NewVirtualClock(DefaultStart))}}, "Options has WithClock(*sqsfake.VirtualClock): each run gets a new VirtualClock"},
		{Exploration{Options: []Option{WithRegion("nowhere")}}, `WithRegion("nowhere")`},
		{Exploration{Runs: -1}, "Runs -1; want 1 or more, or 0 for 100"},
		{Exploration{Chaos: &Chaos{LostResponseRate: 2}}, "Chaos {LostResponseRate: 2}: want rates between 0 and 1"},
	} {
		r := newRecT(t)
		Explore(r, consumeAndDelete20, c.ex)
		if assert.Len(t, r.errs, 1) {
			assert.Contains(t, r.errs[0], "sqsfake.Explore: ")
			assert.Contains(t, r.errs[0], c.want)
		}
	}
	r := newRecT(t)
	Explore(r, consumeAndDelete20, Exploration{}, Exploration{})
	assert.Equal(t, []string{"sqsfake.Explore: given 2 Explorations; pass at most one"}, r.errs)
}

// A consumer that runs goroutines of its own runs inside a testing/synctest bubble, on
// RealClock: the bubble moves time when every goroutine waits.
func TestExploreInsideASynctestBubble(t *testing.T) {
	pool := func(t testing.TB, f *Fake, charge func(string) int) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("payments")})
		for i := range 10 {
			f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint("charge-", i))})
		}
		done := make(chan struct{}, 10)
		var workers sync.WaitGroup
		defer workers.Wait()
		defer cancel()
		for range 3 { // three workers
			workers.Add(1)
			go func() {
				defer workers.Done()
				for ctx.Err() == nil {
					out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
					if err != nil {
						time.Sleep(time.Second) // the bubble's time
						continue
					}
					for _, m := range out.Messages {
						time.Sleep(5 * time.Second) // the work takes a while
						if charge(*m.Body) == 1 {
							done <- struct{}{}
						}
						f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle})
					}
				}
			}()
		}
		for range 10 {
			<-done
		}
		time.Sleep(time.Minute) // let a late duplicate arrive
	}
	run := func(idempotent bool) string {
		var report string
		synctest.Test(t, func(t *testing.T) {
			r := newRecT(t)
			Explore(r, func(t testing.TB, f *Fake) {
				var mu = make(chan struct{}, 1)
				charged := map[string]int{}
				pool(t, f, func(body string) int {
					mu <- struct{}{}
					defer func() { <-mu }()
					if !idempotent || charged[body] == 0 {
						charged[body]++
					}
					if charged[body] > 1 {
						t.Errorf("%s charged %d times", body, charged[body])
					}
					return charged[body]
				})
			}, Exploration{Runs: 50, Chaos: &Chaos{DuplicateRate: 0.1}, Options: []Option{WithClock(RealClock{})}})
			report = strings.Join(r.errs, "")
		})
		return report
	}
	assert.Empty(t, run(true))
	report := run(false)
	assert.Contains(t, report, "  - duplicate delivery of m-")
	assert.Contains(t, report, " charged 2 times")
}

// The call record names what chaos did in an Explore run, as with WithChaos.
func TestExploreRunsAreRecordedAsChaos(t *testing.T) {
	r := newRecT(t)
	var chaosCalls int
	Explore(r, func(t testing.TB, f *Fake) {
		ctx := context.Background()
		q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		_, err := f.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("a"), MessageBody: aws.String("a")}, {Id: aws.String("b"), MessageBody: aws.String("b")}}})
		require.NoError(t, err)
		for _, c := range f.Calls() {
			if c.Chaos {
				chaosCalls++
			}
		}
	}, Exploration{Runs: 1, Chaos: &Chaos{FailedEntryRate: 1}})
	assert.Empty(t, r.errs)
	assert.Equal(t, 1, chaosCalls)
}

// The flags -sqsfake.runs and -sqsfake.replay, when given, override the Exploration's.
func TestExploreFlagsOverrideTheExploration(t *testing.T) {
	runs := 0
	count := func(t testing.TB, f *Fake) { runs++ }
	require.NoError(t, flag.Set("sqsfake.runs", "7"))
	defer flag.Set("sqsfake.runs", "0")
	Explore(t, count, Exploration{Runs: 2})
	assert.Equal(t, 7, runs)

	r := newRecT(t)
	require.NoError(t, flag.Set("sqsfake.replay", "5:"))
	defer flag.Set("sqsfake.replay", "")
	runs = 0
	Explore(r, count, Exploration{Runs: 2})
	assert.Equal(t, 1, runs, "a replay is one run")
	assert.Equal(t, []string{"sqsfake.Explore: replay 5: passed"}, r.logs)
}

// A body that depends on more than the fake's answers — here a count it keeps across runs —
// fails a run that a replay of the same disturbances does not fail again; the report says so.
func TestExploreSaysWhenAReplayDoesNotFailAgain(t *testing.T) {
	runs := 0
	body := func(t testing.TB, f *Fake) {
		runs++
		ctx := context.Background()
		q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("a")})
		for range 3 {
			f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, VisibilityTimeout: 1})
		}
		if runs == 1 {
			t.Error("the first run fails")
		}
	}
	r := newRecT(t)
	Explore(r, body, Exploration{Chaos: &Chaos{ShortPollRate: 1}})
	report := r.report(t)
	assert.Contains(t, report, "sqsfake.Explore: seed 0 failed (run 1 of 100), but a replay of its 3 disturbances passed: "+
		"the body depends on more than the fake's answers (goroutines racing, map order, real time?), so the replay line may not reproduce it:\n"+
		"  - short poll ReceiveMessage #1 sampled: it returned no message while some were visible\n")
	assert.Contains(t, report, "explore_test.go:")
	assert.Contains(t, report, ": the first run fails\n")
}
