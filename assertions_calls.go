package sqsfake

import (
	"fmt"
	"strings"
	"time"
)

// Assertions on the call record (Calls), in the style of the others: a failure says what was
// expected and lists the calls that explain it, one a line as Call.String renders them.

// AssertCallCount asserts that the call record holds n calls that filter selects —
// CallFilter{} selects every call — as in
//
//	sqsfake.AssertCallCount(t, f, sqsfake.CallFilter{Operation: "ReceiveMessage"}, 0) // a zero timeout makes no call
//
// A failure lists the calls it found. It counts the calls the record keeps: with
// WithCallLimit, the newest ones.
func AssertCallCount(t TestingT, f *Fake, filter CallFilter, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	calls, bad := selectCalls(f, filter)
	if bad != "" {
		return fail(t, "AssertCallCount: "+bad, msgAndArgs)
	}
	if len(calls) == n {
		return true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "expected %s, but there %s %d", filter.count(n), isAre(len(calls)), len(calls))
	b.WriteString(f.listCalls(calls, filter))
	return fail(t, b.String(), msgAndArgs)
}

// AssertNoCallAfter asserts that no call that filter selects began after at on the fake's
// clock, as in "no call once Run has returned":
//
//	stopped := f.Now()
//	f.Advance(time.Hour) // a retry loop that survived Run would call now
//	sqsfake.AssertNoCallAfter(t, f, sqsfake.CallFilter{}, stopped)
//
// A call at at itself is not after it: the fake's clock stands still between moves, so calls
// made at one instant share it. A failure lists the calls after at.
func AssertNoCallAfter(t TestingT, f *Fake, filter CallFilter, at time.Time, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	calls, bad := selectCalls(f, filter)
	if bad != "" {
		return fail(t, "AssertNoCallAfter: "+bad, msgAndArgs)
	}
	var after []Call
	for _, c := range calls {
		if c.Start.After(at) {
			after = append(after, c)
		}
	}
	if len(after) == 0 {
		return true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "expected no %s after %s, but %s began later", filter, formatTime(at), plural(len(after), "call"))
	b.WriteString(f.listCalls(after, CallFilter{}))
	return fail(t, b.String(), msgAndArgs)
}

// AssertLastCallError asserts that the latest call that filter selects failed with an error
// matching target, whatever the door or the side that failed it: an error code such as
// "RequestThrottled" matches the call's ErrorCode, and the other targets match as
// AssertLastError matches them (a pointer with errors.As, a ServiceError by its code, another
// error with errors.Is). Unlike LastError, the record holds every failed call: client-side
// rejections, cancelled calls and requests the wire protocol refused too. A failure lists the
// latest calls the filter selects.
func AssertLastCallError(t TestingT, f *Fake, filter CallFilter, target any, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	calls, bad := selectCalls(f, filter)
	if bad != "" {
		return fail(t, "AssertLastCallError: "+bad, msgAndArgs)
	}
	var last Call
	if len(calls) > 0 {
		last = calls[len(calls)-1]
	}
	want, matched, bad := matchCallError(last, target)
	if bad != "" {
		return fail(t, "AssertLastCallError: "+bad, msgAndArgs)
	}
	if matched {
		return true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "expected the last of the %s to fail with %s, but ", filter, want)
	switch {
	case len(calls) == 0:
		b.WriteString("there is none")
		b.WriteString(f.listCalls(f.Calls(), CallFilter{}))
		return fail(t, b.String(), msgAndArgs)
	case last.End.IsZero():
		fmt.Fprintf(&b, "#%d has not returned", last.Seq)
	case last.Err == nil:
		fmt.Fprintf(&b, "#%d succeeded", last.Seq)
	default:
		fmt.Fprintf(&b, "#%d failed with %s", last.Seq, describeCallError(last))
	}
	b.WriteString(f.listCalls(calls, filter))
	return fail(t, b.String(), msgAndArgs)
}

// matchCallError matches a call's error against an AssertLastCallError target. An error code
// matches the call's ErrorCode, which through the wire protocol is the code the SDK reads
// from the answer.
func matchCallError(c Call, target any) (want string, matched bool, bad string) {
	if code, ok := target.(string); ok && code != "" {
		return "ErrorCode " + code, c.Err != nil && c.ErrorCode == code, ""
	}
	return matchError(c.Err, target)
}

func describeCallError(c Call) string {
	if c.ErrorCode != "" {
		return "ErrorCode " + c.ErrorCode
	}
	return fmt.Sprintf("%q", c.Err.Error())
}

// selectCalls returns the calls a filter selects, or what is wrong with the filter.
func selectCalls(f *Fake, filter CallFilter) ([]Call, string) {
	if err := filter.check(f); err != nil {
		return nil, err.Error()
	}
	return f.Calls(filter), ""
}

// listCalls lists the newest calls for a failure, at most maxListed, noting calls the record
// forgot.
func (f *Fake) listCalls(calls []Call, filter CallFilter) string {
	if len(calls) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s:", filter)
	b.WriteString(f.describeCalls(calls, maxListed))
	if f.callsForgotten() {
		b.WriteString("\n(the record forgot older calls: the fake keeps its WithCallLimit newest calls)")
	}
	return b.String()
}

// callsForgotten reports whether the call record has forgotten calls.
func (f *Fake) callsForgotten() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls.recs.dropped()
}

// RequireCallCount is AssertCallCount, stopping the test when it fails.
func RequireCallCount(t RequireT, f *Fake, filter CallFilter, n int, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertCallCount(t, f, filter, n, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireNoCallAfter is AssertNoCallAfter, stopping the test when it fails.
func RequireNoCallAfter(t RequireT, f *Fake, filter CallFilter, at time.Time, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertNoCallAfter(t, f, filter, at, msgAndArgs...) {
		t.FailNow()
	}
}

// RequireLastCallError is AssertLastCallError, stopping the test when it fails.
func RequireLastCallError(t RequireT, f *Fake, filter CallFilter, target any, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if !AssertLastCallError(t, f, filter, target, msgAndArgs...) {
		t.FailNow()
	}
}
