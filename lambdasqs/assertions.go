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
//
// A MessageId the fake never stored fails it, whatever times is, as the queue fake's
// assertions fail on a queue that does not exist: the failure says so and lists the messages
// the trigger's invocations held, so that a typo is never read as "not invoked".
func (t *Trigger) AssertInvoked(tt sqsfake.TestingT, messageID string, times int, msgAndArgs ...any) bool {
	if h, ok := tt.(tHelper); ok {
		h.Helper()
	}
	invs := t.Invocations()
	n, seen := 0, false
	for _, inv := range invs {
		if slices.Contains(inv.MessageIDs, messageID) {
			seen = true
			if inv.Outcome != Throttled {
				n++
			}
		}
	}
	if !seen && !t.knows(messageID) {
		tt.Errorf("lambdasqs: message %s was in %d invocations, want %d, but the fake never stored a message with that MessageId; %s\n%s%s",
			messageID, n, times, heldIDs(invs), describe(invs), message(msgAndArgs))
		return false
	}
	if n == times {
		return true
	}
	tt.Errorf("lambdasqs: message %s was in %d invocations, want %d\n%s%s", messageID, n, times, describe(invs), message(msgAndArgs))
	return false
}

// knows reports whether the fake has, or had, the message: a queue holds it, its timeline
// has events, or the trigger dropped it for its filters.
func (t *Trigger) knows(messageID string) bool {
	if slices.Contains(t.Filtered(), messageID) {
		return true
	}
	if _, _, ok := t.f.FindMessage(messageID); ok {
		return true
	}
	return len(t.f.Timeline(messageID).Events) > 0
}

// maxHeld bounds the MessageIds heldIDs lists.
const maxHeld = 20

// heldIDs lists the distinct MessageIds the invocations held, oldest first.
func heldIDs(invs []Invocation) string {
	var ids []string
	seen := map[string]bool{}
	more := 0
	for _, inv := range invs {
		for _, id := range inv.MessageIDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			if len(ids) < maxHeld {
				ids = append(ids, id)
			} else {
				more++
			}
		}
	}
	if len(ids) == 0 {
		return "the trigger has invoked its function with no message"
	}
	text := "the trigger's invocations held " + strings.Join(ids, ", ")
	if more > 0 {
		text += fmt.Sprintf(", … and %d more", more)
	}
	return text
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
