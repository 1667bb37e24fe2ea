package sqsfake

import (
	"context"
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqsfake/sqsfake/internal/goid"
)

// Explore: deterministic simulation testing of an SQS consumer. A scenario — a body that sets
// up queues, runs the consumer and checks its invariants — runs under many seeds, each on a
// fresh fake whose chaos (chaos.go) comes from the seed: every disturbance SQS permits, and
// only those. The body runs on a goroutine of its own; whenever it waits on the fake's clock,
// the driver moves the clock to the end of the wait and no further. On the first run that
// fails, Explore shrinks the run's disturbances to a 1-minimal list by replaying subsets
// (explore_shrink.go) and reports it in words, with a replay line.

// Exploration configures Explore. Its zero value runs 100 seeds, from seed 0, with every
// class of disturbance at its default rate (DefaultExploreChaos).
type Exploration struct {
	// Runs is how many seeds Explore runs: Seed, Seed+1, …; 0 means 100. The test flag
	// -sqsfake.runs, when given, overrides it.
	Runs int
	// Seed is the first run's seed.
	Seed uint64
	// Replay, when set, makes Explore run one run only: the seed and disturbances of a
	// report's replay line, such as "36:lost.DeleteMessage.7.1.1,dup.3.1", exactly (a bare
	// seed, "36", replays that seed's whole run). The test flag -sqsfake.replay, when
	// given, overrides it.
	Replay string
	// Chaos sets the rate of each class of disturbance; a rate of 0 switches its class off.
	// Its Seed is not used: each run has its own. nil means DefaultExploreChaos.
	Chaos *Chaos
	// Options are New's options for each run's fake (WithRegion, WithInFlightLimit, …).
	// WithChaos is refused: Explore makes the chaos. WithClock is refused too, except
	// WithClock(RealClock{}) for a test inside a testing/synctest bubble, where the bubble
	// moves time: each run gets a new VirtualClock at DefaultStart, which Explore moves.
	Options []Option
	// HangAfter is how long, in real time, a run may go on without returning and without
	// waiting on the fake's clock before Explore reports it as hanging; 0 means 10 s. It is
	// not watched on a RealClock, where a synctest bubble reports a deadlock itself.
	HangAfter time.Duration
}

// DefaultExploreChaos holds the rates Explore uses when Exploration.Chaos is nil: each the
// probability of a disturbance at one place where it can happen. Copy it to change one:
//
//	c := sqsfake.DefaultExploreChaos
//	c.RedeliverRate = 0 // this consumer's invariant does not hold if SQS returns a deleted message
//	sqsfake.Explore(t, body, sqsfake.Exploration{Chaos: &c})
var DefaultExploreChaos = Chaos{
	DuplicateRate:    0.02,
	ReorderRate:      0.05,
	RedeliverRate:    0.01,
	ShortPollRate:    0.1,
	LostResponseRate: 0.01,
	ThrottleRate:     0.01,
	ServerErrorRate:  0.01,
	FailedEntryRate:  0.02,
	LateAnswerRate:   0.01,
}

// Explore runs body under many seeds (Exploration.Runs, 100 by default), each on a fresh
// *Fake whose disturbances — every one SQS permits, and only those (Chaos) — come from the
// seed, and reports the first run that fails. body sets up its queues, runs the consumer
// and checks its invariants through t, as a test does: t.Errorf, t.Fatal, testify's require,
// the fake's AssertX; a panic fails the run too. The same seed gives the same disturbances
// and the same outcome, run after run.
//
// The body runs on a goroutine of its own. Whenever it waits on the fake's clock — a long
// poll that finds nothing, a late answer, a back-off with f.Clock()'s Sleep or After, a
// context from its WithTimeout — Explore moves the clock to the end of that wait and no
// further, so a body never moves the clock by hand to get past a wait (it may still move it
// to let time pass). A body that waits on something else (a channel nobody fills) is
// reported, and so is one that neither returns nor waits within Exploration.HangAfter of
// real time, makes 100,000 calls without the clock moving (a retry loop without a back-off
// on the clock), or goes on waiting once Explore has moved the clock a day through its
// waits (a loop that polls for ever). A consumer that runs goroutines of its own runs inside a
// testing/synctest bubble, on Options WithClock(RealClock{}): the bubble moves time when
// every goroutine waits.
//
// On the first failing run, Explore replays subsets of its disturbances until it has a
// 1-minimal list — the run still fails with only these, and passes without any one of them —
// and fails t with the seed, that list in words ("lost response to DeleteMessage #7 (m-3)"),
// the body's own failure, and one line that replays exactly that run:
//
//	go test -run '^TestConsumer$' -sqsfake.replay='36:lost.DeleteMessage.7.1.1,dup.3.1'
//
// On a consumer that passes every run, Explore says nothing. Pass at most one Exploration.
// docs/explore.md in the repository has each class of disturbance and why SQS permits it,
// how to read the report and replay it, and what Explore cannot see.
func Explore(t testing.TB, body func(t testing.TB, f *Fake), ex ...Exploration) {
	t.Helper()
	e, problem := newExplorer(t, body, ex)
	if problem != "" {
		t.Fatalf("sqsfake.Explore: %s", problem)
		return
	}
	e.explore()
}

// The test flags that override Exploration.Runs and Exploration.Replay.
var exploreRuns, exploreReplay = exploreFlags()

func exploreFlags() (*int, *string) {
	if !testing.Testing() {
		return new(int), new(string)
	}
	return flag.Int("sqsfake.runs", 0, "how many seeds sqsfake.Explore runs (0: each Exploration's Runs, or 100)"),
		flag.String("sqsfake.replay", "", "replay one run of sqsfake.Explore: a report's seed and disturbances, such as 36:lost.DeleteMessage.7.1.1,dup.3.1")
}

// Defaults of an Exploration.
const (
	defaultExploreRuns = 100
	defaultHangAfter   = 10 * time.Second
	// waitLimit is how far Explore moves the clock in one run, through the body's waits,
	// before it reports the body as waiting for ever.
	waitLimit = 24 * time.Hour
)

// spinLimit is how many calls a run may make without the fake's clock moving (a variable for
// the tests of it).
var spinLimit int64 = 100_000

// explorer runs one Explore.
type explorer struct {
	t         testing.TB
	body      func(testing.TB, *Fake)
	runs      int
	seed      uint64
	rates     [numDistClasses]float64
	opts      []Option
	hangAfter time.Duration
	virtual   bool // each run gets a VirtualClock, which the driver moves
	replay    string
	replays   int // runs made while shrinking
}

// newExplorer checks ex and returns the explorer, or what is wrong with ex.
func newExplorer(t testing.TB, body func(testing.TB, *Fake), ex []Exploration) (*explorer, string) {
	if body == nil {
		return nil, "body is nil"
	}
	if len(ex) > 1 {
		return nil, fmt.Sprintf("given %d Explorations; pass at most one", len(ex))
	}
	var x Exploration
	if len(ex) == 1 {
		x = ex[0]
	}
	e := &explorer{t: t, body: body, runs: x.Runs, seed: x.Seed, opts: x.Options, hangAfter: x.HangAfter, replay: x.Replay}
	if *exploreRuns > 0 {
		e.runs = *exploreRuns
	}
	if *exploreReplay != "" {
		e.replay = *exploreReplay
	}
	switch {
	case e.runs < 0:
		return nil, fmt.Sprintf("Runs %d; want 1 or more, or 0 for %d", e.runs, defaultExploreRuns)
	case e.runs == 0:
		e.runs = defaultExploreRuns
	}
	if e.hangAfter < 0 {
		return nil, fmt.Sprintf("HangAfter %v; want 0 (%v) or more", e.hangAfter, defaultHangAfter)
	}
	if e.hangAfter == 0 {
		e.hangAfter = defaultHangAfter
	}
	c := DefaultExploreChaos
	if x.Chaos != nil {
		c = *x.Chaos
	}
	if value := checkChaos(c); value != "" {
		return nil, fmt.Sprintf("Chaos %s: want rates between 0 and 1", strings.TrimPrefix(value, "Chaos"))
	}
	e.rates = c.rates()
	probe, err := configure(e.opts)
	if err != nil {
		return nil, err.Error()
	}
	if probe.chaos != nil {
		return nil, "Options has WithChaos: Explore makes the chaos; set Exploration.Chaos's rates instead"
	}
	switch probe.clk.(type) {
	case nil:
		e.virtual = true
	case RealClock, *RealClock:
	default:
		return nil, fmt.Sprintf("Options has WithClock(%T): each run gets a new VirtualClock, which Explore moves; only WithClock(RealClock{}) is allowed, for a test inside a testing/synctest bubble", probe.clk)
	}
	return e, ""
}

// explore runs the seeds, or the replay, and reports.
func (e *explorer) explore() {
	e.t.Helper()
	if e.replay != "" {
		e.replayOne()
		return
	}
	for i := range e.runs {
		seed := e.seed + uint64(i)
		r := e.run(seed, nil)
		if r.failed() {
			e.report(seed, i, r)
			return
		}
		if r.skipped {
			e.t.Skipf("sqsfake.Explore: the body skipped on seed %d:\n%s", seed, indent(strings.Join(r.logs, "")))
			return
		}
	}
}

// replayOne runs the replay's run and reports it if it fails.
func (e *explorer) replayOne() {
	e.t.Helper()
	seed, keys, whole, err := parseReplay(e.replay)
	if err != nil {
		e.t.Fatalf("sqsfake.Explore: replay %q: %v", e.replay, err)
		return
	}
	if whole {
		keys = nil
	}
	r := e.run(seed, keysOrEmpty(keys, whole))
	if !r.failed() && r.skipped {
		e.t.Skipf("sqsfake.Explore: the body skipped on seed %d:\n%s", seed, indent(strings.Join(r.logs, "")))
		return
	}
	if !r.failed() {
		e.t.Logf("sqsfake.Explore: replay %s passed", e.replay)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sqsfake.Explore: replay %s failed", e.replay)
	e.describe(&b, seed, r)
	e.t.Error(b.String())
}

// keysOrEmpty returns keys for a replay of a list, or nil for a seed's whole run.
func keysOrEmpty(keys []distKey, whole bool) []distKey {
	if whole {
		return nil
	}
	if keys == nil {
		return []distKey{}
	}
	return keys
}

// report shrinks the failing run r of seed (the i-th) and fails the test with it.
func (e *explorer) report(seed uint64, i int, r *runResult) {
	e.t.Helper()
	shrunk := e.shrink(seed, r)
	var b strings.Builder
	fmt.Fprintf(&b, "sqsfake.Explore: seed %d failed (run %d of %d)", seed, i+1, e.runs)
	switch {
	case shrunk.unreplayable:
		fmt.Fprintf(&b, ", but a replay of its %s passed: the body depends on more than the fake's answers"+
			" (goroutines racing, map order, real time?), so the replay line may not reproduce it", plural(len(r.fired), "disturbance"))
	case len(shrunk.fired) == 0:
		fmt.Fprintf(&b, "; it fails without any disturbance: the body fails on a fake that behaves ideally (%s)", plural(e.replays, "replay"))
	case len(r.fired) == len(shrunk.fired):
		fmt.Fprintf(&b, "; each of its %s is needed (%s)", plural(len(r.fired), "disturbance"), plural(e.replays, "replay"))
	default:
		fmt.Fprintf(&b, "; its %s shrink to %d (%s)", plural(len(r.fired), "disturbance"), len(shrunk.fired), plural(e.replays, "replay"))
	}
	e.describe(&b, seed, shrunk)
	e.t.Error(b.String())
}

// describe writes r's disturbances, the body's failure and logs, and the replay line.
func (e *explorer) describe(b *strings.Builder, seed uint64, r *runResult) {
	if len(r.fired) > 0 {
		b.WriteString(":\n")
		for _, fd := range r.fired {
			fmt.Fprintf(b, "  - %s\n", fd.words)
		}
	} else {
		b.WriteString(".\n")
	}
	if r.hang != "" {
		fmt.Fprintf(b, "The body did not finish: %s\n", r.hang)
	}
	if msgs := r.messages(); msgs != "" {
		fmt.Fprintf(b, "The body failed:\n%s", indent(msgs))
	}
	if len(r.logs) > 0 {
		fmt.Fprintf(b, "The body logged:\n%s", indent(strings.Join(r.logs, "")))
	}
	keys := make([]distKey, len(r.fired))
	for i, fd := range r.fired {
		keys[i] = fd.key
	}
	fmt.Fprintf(b, "Replay it: go test -run '%s' -sqsfake.replay='%s'", runPattern(e.t.Name()), formatReplay(seed, keys))
}

// runPattern is a -run pattern that selects exactly the test named name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.ReplaceAll(strings.Join(parts, "/"), "'", `'\''`)
}

// indent indents each line of s by four spaces, ending it with a newline.
func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(s, "\n", "\n    ") + "\n"
}

// runResult is what one run did.
type runResult struct {
	errs    []string // the body's failures, decorated
	logs    []string
	skipped bool
	hang    string  // why Explore stopped waiting for the body, or ""
	fired   []fired // the disturbances that happened, in the order they did

	unreplayable bool // replaying its disturbances passed
}

// fired is one disturbance that happened.
type fired struct {
	key   distKey
	words string
}

func (r *runResult) failed() bool { return len(r.errs) > 0 || r.hang != "" }

func (r *runResult) messages() string { return strings.Join(r.errs, "") }

// run runs the body once on seed's fake: with its chaos at the rates when list is nil, else
// with exactly list's disturbances.
func (e *explorer) run(seed uint64, list []distKey) *runResult {
	f := New(e.opts...)
	d := newDisturber(seed, e.rates)
	if list != nil {
		d.replaying(list)
	}
	res := &runResult{}
	seen := make(map[distKey]bool)
	d.record = func(k distKey, words func() string) {
		if !seen[k] { // a body that calls Reset meets the same places again
			seen[k] = true
			res.fired = append(res.fired, fired{key: k, words: words()})
		}
	}
	f.dist = d
	w := &parkWatch{sig: make(chan struct{}, 1)}
	f.watch = w
	if f.vclk != nil {
		f.vclk.watch = w
	}

	rt := newExploreT(e.t)
	done := make(chan struct{})
	var gid atomic.Uint64
	go func() {
		defer close(done)
		defer rt.finish()
		defer func() {
			if p := recover(); p != nil {
				rt.panicked(p)
			}
		}()
		gid.Store(goid.Current())
		e.body(rt, f)
	}()
	hang := e.drive(f, w, done, &gid)

	f.mu.Lock()
	d.record = nil // a goroutine the body left behind no longer adds to the run
	for len(f.pollers) > 0 {
		f.finishPoll(f.pollers[0], emptyReceive())
	}
	f.releaseHeld()
	f.mu.Unlock()
	if w.spun.Load() {
		hang = fmt.Sprintf("it made %d calls to the fake without the fake's clock moving: a loop that retries at once, without waiting on the clock (f.Clock()'s Sleep or After) between tries?", spinLimit)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	res.errs, res.logs, res.skipped, res.hang = rt.errs, rt.logs, rt.skipped, hang
	if hang != "" {
		res.skipped = false
	}
	return res
}

// drive waits for the body to return, moving the clock to the end of each wait on it. It
// returns why it stopped waiting, when the body hangs.
func (e *explorer) drive(f *Fake, w *parkWatch, done <-chan struct{}, gid *atomic.Uint64) (hang string) {
	if !e.virtual {
		<-done // a synctest bubble moves time
		return ""
	}
	const firstLook = 2 * time.Millisecond
	var moved time.Duration // how far the driver moved the clock
	look := firstLook
	since := time.Now() // when the body last waited, in real time
	timer := time.NewTimer(look)
	defer timer.Stop()
	for {
		select {
		case <-done:
			return ""
		case <-w.sig:
			if h := e.moveUntil(f, w.take(), gid, &moved); h != "" {
				return h
			}
			look, since = firstLook, time.Now()
			timer.Reset(look)
			continue
		case <-timer.C:
		}
		// No word from the body for a while: it works, or it waits where the fake does not
		// see it (a select on f.Clock().After, on a context's Done).
		select {
		case <-done:
			return ""
		case <-w.sig:
			if h := e.moveUntil(f, w.take(), gid, &moved); h != "" {
				return h
			}
			look, since = firstLook, time.Now()
			timer.Reset(look)
			continue
		default:
		}
		state, stack := goid.Trace(gid.Load())
		switch {
		case goid.WaitsOnAChannel(state):
			if _, ok := f.vclk.nextTimer(); !ok {
				return "it waits (" + state + ") on something outside the fake and its clock, with no timer armed on the clock:\n" + stack
			}
			e.step(f, &moved)
			if moved > waitLimit {
				return fmt.Sprintf("it kept waiting on the fake's clock: Explore moved the clock %v through its waits, and it went on waiting (a loop that polls for ever?)", waitLimit)
			}
			look, since = firstLook/4, time.Now()
		case time.Since(since) > e.hangAfter:
			return fmt.Sprintf("it neither returned nor waited on the fake's clock within %v of real time (%s):\n%s", e.hangAfter, state, stack)
		default:
			look = min(2*look, 50*time.Millisecond)
		}
		timer.Reset(look)
	}
}

// moveUntil moves the clock from one timer to the next until ready says the body's wait is
// over. ready is nil when the wait was reported already.
func (e *explorer) moveUntil(f *Fake, ready func() bool, gid *atomic.Uint64, moved *time.Duration) string {
	for ready != nil && !ready() {
		if !e.step(f, moved) {
			state, stack := goid.Trace(gid.Load())
			return "it waits (" + state + ") on the fake's clock with no timer armed to end the wait:\n" + stack
		}
	}
	if *moved > waitLimit {
		return fmt.Sprintf("it kept waiting on the fake's clock: Explore moved the clock %v through its waits, and it went on waiting (a loop that polls for ever?)", waitLimit)
	}
	return ""
}

// step moves the fake's clock to its earliest timer, adding how far to moved. It reports
// false when no timer is armed.
func (e *explorer) step(f *Fake, moved *time.Duration) bool {
	next, ok := f.vclk.nextTimer()
	if !ok {
		return false
	}
	d := max(next.Sub(f.vclk.Now()), 0)
	*moved += d
	f.Advance(d)
	return true
}

// parkWatch hears from the fake and its VirtualClock that the body is about to wait on the
// clock — a long poll parks, a late answer is held, a Sleep starts — with a function that
// reports whether the wait is over, so that Explore's driver moves the clock until it is. It
// also counts the calls made since the clock last moved.
type parkWatch struct {
	mu    sync.Mutex
	ready func() bool
	sig   chan struct{} // holds a signal while a wait is reported and not yet taken

	lastNow atomic.Int64
	calls   atomic.Int64
	spun    atomic.Bool
}

// parking reports that the calling goroutine is about to block until ready returns true.
func (w *parkWatch) parking(ready func() bool) {
	w.mu.Lock()
	w.ready = ready
	w.mu.Unlock()
	select {
	case w.sig <- struct{}{}:
	default:
	}
}

// take returns the reported wait's ready function, or nil.
func (w *parkWatch) take() func() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := w.ready
	w.ready = nil
	return r
}

// called counts a call made at now (in nanoseconds on the fake's clock). A call that makes
// spinLimit calls without the clock moving ends its goroutine: the body spins.
func (w *parkWatch) called(now int64) {
	if w.lastNow.Swap(now) != now {
		w.calls.Store(0)
		return
	}
	if w.calls.Add(1) >= spinLimit {
		w.spun.Store(true)
		runtime.Goexit()
	}
}

// exploreT is the testing.TB a body gets: it keeps the run's failures, logs and cleanups to
// itself, so that Explore reports those of the shrunk run alone. What it does not override
// goes to the test that called Explore (TempDir, Setenv, …).
type exploreT struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	logs     []string
	failed   bool
	skipped  bool
	helpers  map[string]bool
	cleanups []func()
	ctx      context.Context
	cancel   context.CancelFunc
}

func newExploreT(outer testing.TB) *exploreT {
	ctx, cancel := context.WithCancel(context.Background())
	return &exploreT{TB: outer, ctx: ctx, cancel: cancel, helpers: make(map[string]bool)}
}

// Helper marks the calling function as a helper: a failure's file and line are its caller's.
func (t *exploreT) Helper() {
	var pc [1]uintptr
	if runtime.Callers(2, pc[:]) == 1 {
		frame, _ := runtime.CallersFrames(pc[:]).Next()
		t.mu.Lock()
		t.helpers[frame.Function] = true
		t.mu.Unlock()
	}
}

// Name returns the name of the test that called Explore.
func (t *exploreT) Name() string { return t.TB.Name() }

// Log and Logf keep a line for the report of the run, should it fail.
func (t *exploreT) Log(args ...any) { t.log(false, fmt.Sprintln(args...)) }

// Logf is Log with a format.
func (t *exploreT) Logf(format string, args ...any) { t.log(false, fmt.Sprintf(format, args...)) }

// Error is Log followed by Fail.
func (t *exploreT) Error(args ...any) { t.log(true, fmt.Sprintln(args...)) }

// Errorf is Logf followed by Fail.
func (t *exploreT) Errorf(format string, args ...any) { t.log(true, fmt.Sprintf(format, args...)) }

// Fatal is Log followed by FailNow.
func (t *exploreT) Fatal(args ...any) { t.log(true, fmt.Sprintln(args...)); t.FailNow() }

// Fatalf is Logf followed by FailNow.
func (t *exploreT) Fatalf(format string, args ...any) {
	t.log(true, fmt.Sprintf(format, args...))
	t.FailNow()
}

// Fail marks the run as failed.
func (t *exploreT) Fail() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
	if len(t.errs) == 0 {
		t.errs = append(t.errs, "(t.Fail, with no message)\n")
	}
}

// FailNow marks the run as failed and ends the body's goroutine.
func (t *exploreT) FailNow() {
	t.Fail()
	runtime.Goexit()
}

// Failed reports whether the run has failed.
func (t *exploreT) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// Skip is Log followed by SkipNow.
func (t *exploreT) Skip(args ...any) { t.log(false, fmt.Sprintln(args...)); t.SkipNow() }

// Skipf is Logf followed by SkipNow.
func (t *exploreT) Skipf(format string, args ...any) {
	t.log(false, fmt.Sprintf(format, args...))
	t.SkipNow()
}

// SkipNow ends the body's goroutine; Explore then skips the test, unless the run failed.
func (t *exploreT) SkipNow() {
	t.mu.Lock()
	t.skipped = true
	t.mu.Unlock()
	runtime.Goexit()
}

// Output returns a writer whose lines the run logs, as Log does.
func (t *exploreT) Output() io.Writer { return exploreOutput{t} }

// exploreOutput is exploreT's Output.
type exploreOutput struct{ t *exploreT }

func (o exploreOutput) Write(p []byte) (int, error) {
	o.t.mu.Lock()
	defer o.t.mu.Unlock()
	o.t.logs = append(o.t.logs, string(p))
	return len(p), nil
}

// Skipped reports whether the body skipped.
func (t *exploreT) Skipped() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.skipped
}

// Cleanup registers f to run when the run's body returns, last registered first.
func (t *exploreT) Cleanup(f func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, f)
}

// Context returns the run's context, cancelled just before its cleanups run.
func (t *exploreT) Context() context.Context { return t.ctx }

// log keeps s, prefixed with the file and line it was logged from, as a failure or a log line.
func (t *exploreT) log(fail bool, s string) {
	line := t.caller() + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
	t.mu.Lock()
	defer t.mu.Unlock()
	if fail {
		t.failed = true
		t.errs = append(t.errs, line)
	} else {
		t.logs = append(t.logs, line)
	}
}

// caller returns "file.go:42: " for the first caller of the exploreT method that is not a
// helper.
func (t *exploreT) caller() string {
	var pcs [32]uintptr
	n := runtime.Callers(4, pcs[:]) // Callers, caller, log, the method
	frames := runtime.CallersFrames(pcs[:n])
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		frame, more := frames.Next()
		if !t.helpers[frame.Function] && !strings.HasPrefix(frame.Function, "github.com/sqsfake/sqsfake.(*exploreT).") {
			file := frame.File
			if i := strings.LastIndexByte(file, '/'); i >= 0 {
				file = file[i+1:]
			}
			return file + ":" + strconv.Itoa(frame.Line) + ": "
		}
		if !more {
			return ""
		}
	}
}

// panicked records a panic of the body.
func (t *exploreT) panicked(p any) {
	buf := make([]byte, 16<<10)
	buf = buf[:runtime.Stack(buf, false)]
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failed = true
	t.errs = append(t.errs, fmt.Sprintf("panic: %v\n%s", p, buf))
}

// finish cancels the run's context and runs its cleanups, last registered first.
func (t *exploreT) finish() {
	t.cancel()
	for {
		t.mu.Lock()
		n := len(t.cleanups)
		if n == 0 {
			t.mu.Unlock()
			return
		}
		f := t.cleanups[n-1]
		t.cleanups = t.cleanups[:n-1]
		t.mu.Unlock()
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.panicked(p)
				}
			}()
			f()
		}()
	}
}
