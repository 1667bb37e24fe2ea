package sqsfake

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Message move tasks (SPEC.md §8.3): StartMessageMoveTask moves messages out of a
// dead-letter queue, oldest first, at a rate on the fake's clock — back to the queue each
// message was dead-lettered from, or to an explicit destination. Progress is settled lazily,
// like everything else: at each call, the task has moved floor(elapsed × rate) messages,
// each at the instant it would have moved.

// SystemOptimizedMoveRate is the rate, in messages per second, of a move task started
// without MaxNumberOfMessagesPerSecond. AWS does not publish its "system-optimised" rate; the
// fake uses the largest rate a caller may ask for.
const SystemOptimizedMoveRate = 500

// Move task statuses.
const (
	taskRunning   = "RUNNING"
	taskCompleted = "COMPLETED"
	taskCancelled = "CANCELLED"
	taskFailed    = "FAILED"
)

// moveTask is one message move task.
type moveTask struct {
	id        string
	handle    string
	source    *queue
	sourceArn string
	destArn   string // "" when each message goes back to its source
	rate      int    // messages per second
	rateGiven bool
	started   int64
	base      int64 // the rate counts from here: the start, or the last move that had to wait
	sinceBase int64 // messages moved since base
	notBefore int64 // the source had nothing to move at this instant: no move happens before it
	status    string
	moved     int64
	toMove    int64
	failure   string
}

func errSourceNotFound() *sqsError {
	return newError("ResourceNotFoundException", "The resource that you specified for the SourceArn parameter doesn't exist.")
}

// wellFormedARN reports whether s has an ARN's shape, arn:<partition>:<service>:<region>:<account>:<resource>,
// with a partition, a service and a resource (IAM ARNs have no region, some no account; a
// resource may hold colons).
func wellFormedARN(s string) bool {
	parts := strings.SplitN(s, ":", 6)
	return len(parts) == 6 && parts[0] == "arn" && parts[1] != "" && parts[2] != "" && parts[5] != ""
}

func errARNFormat(param string) *sqsError {
	return errInvalidParameterValue("You must use this format to specify the " + param + ": arn:<partition>:<service>:<region>:<account-id>:<resource-id>")
}

// sourceQueue resolves a move task's source ARN for the caller a, who must be allowed action
// on it (the move-task actions never cross accounts: SPEC-access §3).
func (f *Fake) sourceQueue(a *actor, arn, action string) (*queue, *sqsError) {
	if !wellFormedARN(arn) {
		return nil, errARNFormat("SourceArn")
	}
	q := f.lookupARN(arn)
	if q == nil {
		return nil, errSourceNotFound()
	}
	if err := access(a, q, action); err != nil {
		return nil, err
	}
	return q, nil
}

// isDeadLetterQueue reports whether some queue's RedrivePolicy names q.
func (f *Fake) isDeadLetterQueue(q *queue) bool {
	for _, src := range f.queues {
		if p := src.cfg.redrivePolicy; p != nil && p.deadLetterTargetArn == q.arn {
			return true
		}
	}
	return false
}

func (f *Fake) startMessageMoveTask(a *actor, in *sqs.StartMessageMoveTaskInput) (*sqs.StartMessageMoveTaskOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	f.progressTasks(now)
	src, err := f.sourceQueue(a, aws.ToString(in.SourceArn), "StartMessageMoveTask")
	if err != nil {
		return nil, err
	}
	if !f.isDeadLetterQueue(src) {
		return nil, errInvalidParameterValue("Source queue must be configured as a Dead Letter Queue.")
	}
	t := &moveTask{source: src, sourceArn: src.arn, rate: SystemOptimizedMoveRate, started: now, base: now, notBefore: now, status: taskRunning}
	if in.DestinationArn != nil {
		dest := aws.ToString(in.DestinationArn)
		if !wellFormedARN(dest) {
			return nil, errARNFormat("DestinationArn")
		}
		dq := f.lookupARN(dest)
		if dq == nil {
			return nil, newError("ResourceNotFoundException", "The resource that you specified for the DestinationArn parameter doesn't exist.")
		}
		// The task sends into the destination for its caller, who needs sqs:SendMessage there
		// (AWS's page on DLQ redrive permissions lists it for the destination queue): a queue of
		// another account takes the messages only if its policy allows the caller to send.
		if err := access(a, dq, "SendMessage"); err != nil {
			return nil, err
		}
		if dq.cfg.fifo != src.cfg.fifo {
			// Unverified text; the documented rule is that both queues are of one kind.
			return nil, errInvalidParameterValue("The source queue and the destination queue must be of the same queue type.")
		}
		t.destArn = dest
	}
	if r := in.MaxNumberOfMessagesPerSecond; r != nil {
		if *r < 1 || *r > 500 {
			// Unverified text; the documented range is 1 to 500.
			return nil, errInvalidValue(strconv.Itoa(int(*r)), "MaxNumberOfMessagesPerSecond", "Must be between 1 and 500.")
		}
		t.rate, t.rateGiven = int(*r), true
	}
	for _, other := range f.tasks[src.id] {
		if other.status == taskRunning {
			return nil, errInvalidParameterValue("There is already a task running. Only one active task is allowed for a source queue arn at a given time.")
		}
	}
	f.nextTaskID++
	t.id = uuidFor(f.seed, streamTaskID, f.nextTaskID)
	handle, _ := json.Marshal(struct {
		TaskID    string `json:"taskId"`
		SourceArn string `json:"sourceArn"`
	}{t.id, src.arn})
	t.handle = base64.StdEncoding.EncodeToString(handle)
	f.settleSource(src, now) // count what the DLQ holds now
	visible, inFlight, _ := src.counts()
	t.toMove = int64(visible + inFlight)
	if f.tasks == nil {
		f.tasks = make(map[uint32][]*moveTask)
	}
	f.tasks[src.id] = append(f.tasks[src.id], t)
	f.runningTasks = append(f.runningTasks, t)
	f.finishIfDone(t)
	// The task's moves are events every parked poll waits for: it may bring messages to any
	// queue that redrives to the source.
	for _, pl := range f.pollers {
		pl.q.kickPollers()
	}
	return &sqs.StartMessageMoveTaskOutput{TaskHandle: aws.String(t.handle)}, nil
}

// nextSlot is the earliest instant at which the task may move its next message: the rate
// allows k messages in the k/rate seconds after its base.
func (t *moveTask) nextSlot() int64 {
	sec, r, k := int64(time.Second), int64(t.rate), t.sinceBase+1
	return t.base + (k/r)*sec + ((k%r)*sec+r-1)/r
}

// progressTasks brings every running task up to now. Moves happen one at a time in the
// order of their instants, whichever task makes them, and a queue is brought up to an
// instant only when a move happens then, so that one long clock move gives what many short
// ones give: a message moves before a retention period that ends after its slot, never
// before it became available, lands in its destination at the instant it moved, and two
// tasks feeding one queue interleave.
func (f *Fake) progressTasks(now int64) {
	if len(f.runningTasks) == 0 {
		return
	}
	for _, t := range f.runningTasks {
		if t.status == taskRunning && f.queuesByID[t.source.id] == t.source {
			f.finishIfDone(t) // emptied by the last call, before any move below reaches it
		}
	}
	for {
		var next *moveTask
		var nextAt int64
		for _, t := range f.runningTasks {
			if at, ok := f.nextMove(t); ok && at <= now && (next == nil || at < nextAt) {
				next, nextAt = t, at
			}
		}
		if next == nil {
			break
		}
		f.moveAt(next, nextAt)
	}
	kept := f.runningTasks[:0]
	for _, t := range f.runningTasks {
		if t.status == taskRunning {
			// A source emptied by other means — purged, drained by a consumer, expired —
			// ends its task too.
			f.settleSource(t.source, now)
			f.finishIfDone(t)
			// Nothing was left to move at now: whatever becomes available later (a call
			// after this one, an event) moves no earlier than now.
			t.notBefore = max(t.notBefore, now)
		}
		if t.status == taskRunning {
			kept = append(kept, t)
		}
	}
	clear(f.runningTasks[len(kept):])
	f.runningTasks = kept
}

// nextMove returns the earliest instant at which t can move its next message, from the
// state its source was last brought to: its rate's next slot, or later, when a message
// became (or becomes) available. It settles nothing. ok is false when t has nothing to wait
// for.
func (f *Fake) nextMove(t *moveTask) (at int64, ok bool) {
	if t.status != taskRunning {
		return 0, false
	}
	src := t.source
	if f.queuesByID[src.id] != src {
		t.fail("AWS.SimpleQueueService.NonExistentQueue")
		return 0, false
	}
	at = max(t.nextSlot(), t.notBefore)
	if m := src.oldestAvailable(); m != nil {
		return max(at, m.at), true // m.at: when it became available
	}
	if due := src.nextAvailable(); due != 0 {
		return max(at, due), true
	}
	return 0, false
}

// nextAvailable is the earliest instant at which q's events may make a message available:
// its next visibility event and, on a FIFO queue, also its next retention expiry, which
// unlocks a group whose in-flight head expires. 0 when there is none.
func (q *queue) nextAvailable() int64 {
	due := q.nextDue()
	if q.fifo != nil {
		if r := q.retention.top(); r != nil {
			if e := r.retainFrom + int64(q.cfg.retentionPeriod)*int64(time.Second); due == 0 || e < due {
				due = e
			}
		}
	}
	return due
}

// sourceGained wakes every parked poll when q, the source of a running move task, gained a
// message to move other than by the clock (a send, a dead-lettered message, a visibility
// change, a FIFO group unlocked by a delete): the polls' wake-ups count on the tasks' moves,
// which may bring messages to any queue.
func (f *Fake) sourceGained(q *queue) {
	if len(f.pollers) == 0 {
		return
	}
	for _, t := range f.runningTasks {
		if t.source == q {
			for _, pl := range f.pollers {
				pl.q.kickPollers()
			}
			return
		}
	}
}

// settleSource brings a task's source queue up to at, handing what became visible to its
// parked polls. It settles the queue alone: move tasks are what is being driven.
func (f *Fake) settleSource(src *queue, at int64) {
	if src.settle(at) && len(src.pollers) > 0 {
		f.servePollers(src, at)
	}
}

// moveAt brings t's source up to at, the instant nextMove found, and moves its oldest
// available message then. When what nextMove counted on is gone by then (retention, a poll
// took it), t looks again from at.
func (f *Fake) moveAt(t *moveTask, at int64) {
	src := t.source
	f.settleSource(src, at)
	if m := src.oldestAvailable(); m == nil || m.at > at {
		t.notBefore = at
		return
	}
	f.moveOne(t, at)
}

// moveOne moves t's oldest available message at the instant at.
func (f *Fake) moveOne(t *moveTask, at int64) {
	src := t.source
	m := src.oldestAvailable()
	if at > t.nextSlot() {
		// Nothing was available at the slot: the message moves when it became available,
		// and the rate counts from that move.
		t.base, t.sinceBase = at, 0
	} else {
		t.sinceBase++
	}
	destArn := t.destArn
	if destArn == "" && m.ext != nil {
		destArn = m.ext.dlqSource
	}
	dest := f.lookupARN(destArn)
	if dest == nil {
		// The destination was deleted (or the message was never dead-lettered from a
		// queue): AWS ends the task FAILED and leaves the rest in the DLQ.
		t.fail("AWS.SimpleQueueService.NonExistentQueue")
		return
	}
	if dest != src {
		dest.settle(at)
		for _, o := range f.runningTasks {
			if o.status == taskRunning && o.source == dest {
				f.finishIfDone(o) // emptied by its events before this move reaches it
			}
		}
	}
	f.redrive(src, m, dest, at)
	src.remove(m, at)
	t.moved++
	f.finishIfDone(t)
}

// finishIfDone completes a task that has moved what it set out to move, or whose source
// holds nothing more to move.
func (f *Fake) finishIfDone(t *moveTask) {
	// A delayed message is still to move: the task waits for it as for one in flight.
	if t.moved >= t.toMove || len(t.source.msgs) == 0 {
		t.status = taskCompleted
	}
}

// fail ends the task as FAILED for reason.
func (t *moveTask) fail(reason string) {
	t.status, t.failure = taskFailed, reason
}

// redrive stores a copy of m in dest as a new message sent at the instant at: a new
// MessageId, a new enqueue time and retention period, no receives yet; body, attributes,
// trace header and group are kept (SPEC.md §8.3).
func (f *Fake) redrive(src *queue, m *message, dest *queue, at int64) {
	f.nextMsgID++
	nm := &message{
		idNum: f.nextMsgID, body: m.body, md5Body: m.md5Body,
		sentAt: at, retainFrom: at,
	}
	if m.ext != nil {
		ext := *m.ext
		ext.dlqSource = ""
		ext.group, ext.prev, ext.next, ext.tenant = nil, nil, nil, nil
		nm.ext = &ext
	}
	if dest.fifo != nil {
		// A FIFO destination numbers the message anew; it keeps its group and its
		// deduplication id (in a FIFO DLQ, its original MessageId).
		f.nextSeqNum++
		nm.ext.seqNo = f.nextSeqNum
	}
	dest.add(nm, at, at+int64(dest.cfg.delaySeconds)*int64(time.Second))
	f.hist.add(event{at: at, idNum: m.idNum, arg: nm.idNum, queue: src.id, to: dest.id, kind: EventRedriven})
	f.hist.add(event{at: at, idNum: nm.idNum, arg: m.idNum, queue: dest.id, kind: EventSent})
	dest.stats.sent++
	if len(dest.pollers) > 0 {
		f.servePollers(dest, at)
	}
}

// nextTaskEvent is the earliest time after now at which a running task moves a message; 0
// when none will.
func (f *Fake) nextTaskEvent(now int64) int64 {
	next := int64(0)
	for _, t := range f.runningTasks {
		at := t.nextSlot()
		if !t.source.receivable() {
			due := t.source.nextAvailable()
			if due == 0 {
				continue
			}
			at = max(at, due)
		}
		if at > now && (next == 0 || at < next) {
			next = at
		}
	}
	return next
}

func (f *Fake) listMessageMoveTasks(a *actor, in *sqs.ListMessageMoveTasksInput) (*sqs.ListMessageMoveTasksOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.progressTasks(f.now())
	src, err := f.sourceQueue(a, aws.ToString(in.SourceArn), "ListMessageMoveTasks")
	if err != nil {
		return nil, err
	}
	limit := 1
	if in.MaxResults != nil {
		if *in.MaxResults < 1 || *in.MaxResults > 10 {
			// Unverified text; the documented range is 1 to 10.
			return nil, errInvalidValue(strconv.Itoa(int(*in.MaxResults)), "MaxResults", "You must enter a number that's between 1 and 10.")
		}
		limit = int(*in.MaxResults)
	}
	tasks := f.tasks[src.id]
	out := &sqs.ListMessageMoveTasksOutput{}
	for i := len(tasks) - 1; i >= 0 && len(out.Results) < limit; i-- {
		t := tasks[i]
		e := types.ListMessageMoveTasksResultEntry{
			Status:                            aws.String(t.status),
			SourceArn:                         aws.String(t.sourceArn),
			ApproximateNumberOfMessagesMoved:  t.moved,
			ApproximateNumberOfMessagesToMove: aws.Int64(t.toMove),
			StartedTimestamp:                  t.started / int64(time.Millisecond),
		}
		if t.destArn != "" {
			e.DestinationArn = aws.String(t.destArn)
		}
		if t.rateGiven {
			e.MaxNumberOfMessagesPerSecond = aws.Int32(int32(t.rate))
		}
		if t.status == taskRunning {
			e.TaskHandle = aws.String(t.handle)
		}
		if t.status == taskFailed {
			e.FailureReason = aws.String(t.failure)
		}
		out.Results = append(out.Results, e)
	}
	return out, nil
}

func (f *Fake) cancelMessageMoveTask(a *actor, in *sqs.CancelMessageMoveTaskInput) (*sqs.CancelMessageMoveTaskOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.progressTasks(f.now())
	handle := aws.ToString(in.TaskHandle)
	var ref struct {
		TaskID    string `json:"taskId"`
		SourceArn string `json:"sourceArn"`
	}
	raw, derr := base64.StdEncoding.DecodeString(handle)
	if derr != nil || json.Unmarshal(raw, &ref) != nil || ref.TaskID == "" || ref.SourceArn == "" {
		return nil, errInvalidParameterValue("Value for parameter TaskHandle is invalid.")
	}
	src := f.lookupARN(ref.SourceArn)
	if src == nil {
		return nil, errSourceNotFound()
	}
	if err := access(a, src, "CancelMessageMoveTask"); err != nil {
		return nil, err
	}
	for _, t := range f.tasks[src.id] {
		if t.id != ref.TaskID {
			continue
		}
		if t.status != taskRunning {
			// Only running tasks can be cancelled (documented); the error text is unverified.
			return nil, errInvalidValue(handle, "TaskHandle", "Only tasks with status RUNNING can be cancelled.")
		}
		// A fake stops at once: the CANCELLING phase in which AWS may move a few more
		// messages is not modelled.
		t.status = taskCancelled
		f.progressTasks(f.now()) // drops it from the running list
		return &sqs.CancelMessageMoveTaskOutput{ApproximateNumberOfMessagesMoved: t.moved}, nil
	}
	return nil, newError("ResourceNotFoundException", "Task does not exist.")
}
