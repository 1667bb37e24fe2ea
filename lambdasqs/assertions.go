package lambdasqs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqsfake/sqsfake"
)

type tHelper interface{ Helper() }

// AssertOutcomes asserts that the invocations so far had exactly the outcomes want, in order.
// On failure it prints every invocation. msgAndArgs are testify's.
func (t *Trigger) AssertOutcomes(tt sqsfake.TestingT, want []Outcome, msgAndArgs ...any) bool {
	if h, ok := tt.(tHelper); ok {
		h.Helper()
	}
	invs := t.Invocations()
	got := make([]Outcome, len(invs))
	for i, inv := range invs {
		got[i] = inv.Outcome
	}
	if slices.Equal(got, want) {
		return true
	}
	tt.Errorf("lambdasqs: outcomes %v, want %v\n%s%s", got, want, describe(invs), message(msgAndArgs))
	return false
}

// AssertInvoked asserts that the message was handed to the function in exactly times
// invocations. Throttled attempts, which never reached the handler, do not count. On failure it prints every invocation. msgAndArgs are testify's.
func (t *Trigger) AssertInvoked(tt sqsfake.TestingT, messageID string, times int, msgAndArgs ...any) bool {
	if h, ok := tt.(tHelper); ok {
		h.Helper()
	}
	invs := t.Invocations()
	n := 0
	for _, inv := range invs {
		if inv.Outcome != Throttled && slices.Contains(inv.MessageIDs, messageID) {
			n++
		}
	}
	if n == times {
		return true
	}
	tt.Errorf("lambdasqs: message %s was in %d invocations, want %d\n%s%s", messageID, n, times, describe(invs), message(msgAndArgs))
	return false
}

func describe(invs []Invocation) string {
	var b strings.Builder
	b.WriteString("invocations:\n")
	for _, inv := range invs {
		fmt.Fprintf(&b, "  %s %s: %v of %v", inv.At.UTC().Format("15:04:05.000"), inv.RequestID, inv.Outcome, inv.MessageIDs)
		if inv.Err != nil {
			fmt.Fprintf(&b, " (%v)", inv.Err)
		}
		if len(inv.Reported) > 0 {
			fmt.Fprintf(&b, " reported %v", inv.Reported)
		}
		if len(inv.DeleteFailed) > 0 {
			fmt.Fprintf(&b, " delete failed %v", inv.DeleteFailed)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func message(msgAndArgs []any) string {
	switch len(msgAndArgs) {
	case 0:
		return ""
	case 1:
		return fmt.Sprint(msgAndArgs[0])
	}
	if f, ok := msgAndArgs[0].(string); ok {
		return fmt.Sprintf(f, msgAndArgs[1:]...)
	}
	return fmt.Sprint(msgAndArgs...)
}
