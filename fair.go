package sqsfake

import (
	"cmp"
	"slices"
	"time"
)

// Fair queues (SPEC.md §6.1, docs/fair-queues.md). A standard queue becomes fair with its
// first message that carries a MessageGroupId: each group id is a tenant, and each message
// without one a tenant of its own. While a tenant is noisy, receives hand out quiet tenants'
// messages first; with no noisy tenant a fair queue delivers exactly as any standard queue,
// first sent first. A queue that never saw a group id keeps no tenant state at all.
//
// The fake applies AWS's documented rules exactly where AWS calls them approximate. A
// tenant is noisy, as a receive sees it, when it has a backlog (messages visible or
// delayed), sent a message less than FairQuietAfter ago, and either
//   - has at least FairMinInFlight messages in flight and more than 10 % of the queue's, or
//   - took more than 10 % of the consumer processing time that ended within the last
//     FairProcessingWindow (from each receive to its delete, its visibility timeout's end,
//     or its return to visibility).
//
// A message without a group id never counts as noisy: it has at most one message in flight,
// and once received it has no backlog left to hold back. Its processing time counts toward
// the queue's total.

// The numbers of the fair-queue rules. AWS's developer guide gives the first three ("How
// Amazon SQS fair queues work"); it says only "recent" of processing time, so the window is
// the fake's choice.
const (
	// FairMinInFlight is how many of its messages a tenant must have in flight to be noisy
	// by its concurrency share.
	FairMinInFlight = 30
	// FairQuietAfter is how long a tenant must go without sending for it to stop being noisy.
	FairQuietAfter = 5 * time.Minute
	// FairProcessingWindow is how far back the processing-time share looks: processing that
	// ended longer ago no longer counts.
	FairProcessingWindow = time.Minute
)

// fairShareTenths is the share a tenant must exceed, in tenths: 10 %.
const fairShareTenths = 10

// A tenant is one MessageGroupId of a fair queue, or the shard of messages without one.
type tenant struct {
	id       string
	vis      msgHeap // its visible messages, in send order
	head     uint64  // the send order (seq) of vis's first message, while it has one: ready's key
	msgs     int     // stored messages: visible, delayed and in flight
	inFlight int
	lastSend int64
	proc     int64 // processing time (ns) that ended within the window
	// Positions in fairState's heaps; -1 when absent.
	ridx, fidx, pidx int
	noisy            bool // as the last receive decided
	mark             bool // scratch for evaluate
	since            int64
	reason           NoisyReason
}

// A span is one processing span that has ended: from a receive to when the message left
// flight.
type span struct {
	t        *tenant // nil for a message without a group id
	end, dur int64
}

// fairState is a fair queue's tenants and the order of its visible messages.
type fairState struct {
	tenants map[string]*tenant
	loose   *tenant // the visible messages without a group id; never noisy
	// ready holds every tenant with visible messages, by its first-sent one, so that its top
	// is the first-sent visible message of the queue.
	ready      binHeap[*tenant, readyRole]
	byInFlight binHeap[*tenant, inFlightRole] // tenants with messages in flight, most first
	byProc     binHeap[*tenant, procRole]     // tenants with processing time in the window, most first
	spans      []span                         // in the order they ended
	spanHead   int
	totalProc  int64
	visible    int
	noisy      []*tenant // as the last receive decided, by group id
	scratch    []*tenant
	aside      []*tenant
	periods    []noisyPeriod
}

type noisyPeriod struct {
	tenant   string
	from, to int64
	open     bool // it has not ended: to means nothing yet
	reason   NoisyReason
}

func newTenant(id string) *tenant {
	return &tenant{id: id, vis: newMsgHeap(bySend), ridx: -1, fidx: -1, pidx: -1}
}

// startFair makes q fair, moving its visible messages (none of which has a group id) into
// the shard of messages without one.
func (q *queue) startFair() *fairState {
	fs := &fairState{tenants: make(map[string]*tenant), loose: newTenant("")}
	q.fair = fs
	for q.visible.len() > 0 {
		fs.push(q.visible.pop())
	}
	q.visible.clear()
	return fs
}

// admit counts a message arriving in q (a send, a move into a DLQ, a redrive) to its
// tenant, making q fair if it is the queue's first message with a group id.
func (q *queue) admit(m *message, now int64) {
	if q.fifo != nil || m.ext == nil || m.ext.groupID == "" {
		return
	}
	fs := q.fair
	if fs == nil {
		fs = q.startFair()
	}
	t := fs.tenants[m.ext.groupID]
	if t == nil {
		t = newTenant(m.ext.groupID)
		fs.tenants[t.id] = t
	}
	t.msgs++
	t.lastSend = now
	m.ext.tenant = t
}

// tenantOf returns the tenant of m in q, or nil for a message without a group id or a
// queue that is not fair.
func (q *queue) tenantOf(m *message) *tenant {
	if q.fair == nil || m.ext == nil {
		return nil
	}
	return m.ext.tenant
}

// forget uncounts a message that left q.
func (q *queue) forget(m *message) {
	t := q.tenantOf(m)
	if t == nil {
		return
	}
	t.msgs--
	m.ext.tenant = nil
	q.fair.dropIfIdle(t)
}

// dropIfIdle forgets a tenant that holds nothing the rules look at.
func (fs *fairState) dropIfIdle(t *tenant) {
	if t.msgs == 0 && t.proc == 0 && !t.noisy && fs.tenants[t.id] == t {
		delete(fs.tenants, t.id)
	}
}

// flightStarted and flightEnded keep a tenant's in-flight count and processing time as a
// message of q enters and leaves flight; at is when it left.
func (q *queue) flightStarted(m *message) {
	t := q.tenantOf(m)
	if t == nil {
		return
	}
	t.inFlight++
	q.fair.byInFlight.fixOrPush(t, t.inFlight == 1)
}

func (q *queue) flightEnded(m *message, at int64) {
	fs := q.fair
	if fs == nil {
		return
	}
	t := q.tenantOf(m)
	if t != nil {
		t.inFlight--
		if t.inFlight == 0 {
			fs.byInFlight.remove(t)
		} else {
			fs.byInFlight.fix(t)
		}
	}
	if d := at - m.recvAt; d > 0 {
		fs.spans = append(fs.spans, span{t: t, end: at, dur: d})
		fs.totalProc += d
		if t != nil {
			t.proc += d
			fs.byProc.fixOrPush(t, t.proc == d)
		}
	}
}

// expire drops the processing spans that ended a window or more before now.
func (fs *fairState) expire(now int64) {
	for fs.spanHead < len(fs.spans) && fs.spans[fs.spanHead].end+int64(FairProcessingWindow) <= now {
		s := fs.spans[fs.spanHead]
		fs.spans[fs.spanHead] = span{}
		fs.spanHead++
		fs.totalProc -= s.dur
		if t := s.t; t != nil {
			t.proc -= s.dur
			if t.proc == 0 {
				fs.byProc.remove(t)
				fs.dropIfIdle(t)
			} else {
				fs.byProc.fix(t)
			}
		}
	}
	if fs.spanHead == len(fs.spans) {
		fs.spans, fs.spanHead = fs.spans[:0], 0
	} else if fs.spanHead > 1024 && fs.spanHead > len(fs.spans)/2 {
		fs.spans = append(fs.spans[:0], fs.spans[fs.spanHead:]...)
		fs.spanHead = 0
	}
}

// evaluate decides which tenants are noisy at now, recording where that changed. Only a
// tenant whose share is over 10 % can be noisy, and fewer than ten can be over 10 % of one
// total, so it looks at the tops of two heaps, never at every tenant.
func (fs *fairState) evaluate(totalInFlight int, now int64) {
	fs.expire(now)
	next := fs.scratch[:0]
	eligible := func(t *tenant) bool {
		return t.msgs > t.inFlight && now-t.lastSend < int64(FairQuietAfter)
	}
	walk(&fs.byInFlight.items, func(t *tenant) bool { return t.inFlight*fairShareTenths > totalInFlight }, func(t *tenant) {
		if t.inFlight >= FairMinInFlight && eligible(t) && !t.mark {
			t.mark = true
			t.reason = NoisyByConcurrency
			next = append(next, t)
		}
	})
	walk(&fs.byProc.items, func(t *tenant) bool { return t.proc*fairShareTenths > fs.totalProc }, func(t *tenant) {
		if !eligible(t) {
			return
		}
		if t.mark {
			t.reason = NoisyByBoth
			return
		}
		t.mark = true
		t.reason = NoisyByProcessingTime
		next = append(next, t)
	})
	for _, t := range fs.noisy {
		if !t.mark {
			t.noisy = false
			fs.closePeriod(t, now)
			fs.dropIfIdle(t)
		}
	}
	slices.SortFunc(next, func(a, b *tenant) int { return cmp.Compare(a.id, b.id) })
	for _, t := range next {
		t.mark = false
		if !t.noisy {
			t.noisy, t.since = true, now
			fs.periods = append(fs.periods, noisyPeriod{tenant: t.id, from: now, open: true, reason: t.reason})
		}
	}
	fs.noisy, fs.scratch = next, fs.noisy[:0]
}

func (fs *fairState) closePeriod(t *tenant, at int64) {
	for i := len(fs.periods) - 1; i >= 0; i-- {
		if p := &fs.periods[i]; p.tenant == t.id && p.open {
			p.to, p.open = at, false
			return
		}
	}
}

// walk visits, from the top of a max-heap, every element that over admits, and calls visit
// on each: an element that over refuses has no descendant it admits.
func walk(items *[]*tenant, over func(*tenant) bool, visit func(*tenant)) {
	var rec func(i int)
	rec = func(i int) {
		if i >= len(*items) || !over((*items)[i]) {
			return
		}
		visit((*items)[i])
		rec(2*i + 1)
		rec(2*i + 2)
	}
	rec(0)
}

// shard returns the tenant whose visible messages m belongs with.
func (fs *fairState) shard(m *message) *tenant {
	if m.ext != nil && m.ext.tenant != nil {
		return m.ext.tenant
	}
	return fs.loose
}

func (fs *fairState) push(m *message) {
	t := fs.shard(m)
	was := t.vis.len()
	t.vis.push(m)
	fs.visible++
	switch {
	case was == 0:
		t.head = m.seq
		fs.ready.push(t)
	case m.seq < t.head:
		t.head = m.seq
		fs.ready.fix(t)
	}
}

func (fs *fairState) remove(m *message) {
	t := fs.shard(m)
	t.vis.remove(m)
	fs.visible--
	if t.vis.len() == 0 {
		fs.ready.remove(t)
	} else if m.seq == t.head {
		t.head = t.vis.top().seq
		fs.ready.fix(t)
	}
}

func (fs *fairState) top() *message {
	t, ok := fs.ready.top()
	if !ok {
		return nil
	}
	return t.vis.top()
}

// take removes and returns the message a receive hands out next: the first sent of the
// quiet tenants' messages, or when there are none, the first sent of the noisy tenant with
// the fewest messages in flight.
func (fs *fairState) take(totalInFlight int, now int64, evaluated bool) *message {
	if !evaluated {
		fs.evaluate(totalInFlight, now)
	}
	if len(fs.noisy) == 0 {
		m := fs.top()
		fs.remove(m)
		return m
	}
	aside := fs.aside[:0]
	for {
		t, ok := fs.ready.top()
		if !ok || !t.noisy {
			break
		}
		aside = append(aside, fs.ready.pop())
	}
	pick, ok := fs.ready.top()
	if !ok {
		pick = aside[0]
		for _, t := range aside[1:] {
			if t.inFlight < pick.inFlight || t.inFlight == pick.inFlight && t.head < pick.head {
				pick = t
			}
		}
	}
	for _, t := range aside {
		fs.ready.push(t)
	}
	fs.aside = aside[:0]
	m := pick.vis.top()
	fs.remove(m)
	return m
}

// purge forgets every message; noisy periods end at now.
func (fs *fairState) purge(now int64) {
	for _, t := range fs.noisy {
		fs.closePeriod(t, now)
	}
	*fs = fairState{tenants: make(map[string]*tenant), loose: newTenant(""), periods: fs.periods}
}

// The visible messages of a standard queue: its visible heap, or on a fair queue its
// tenants' shards. FIFO queues keep theirs in groups (fifo.go).

func (q *queue) visPush(m *message) {
	if q.fair == nil {
		q.visible.push(m)
		return
	}
	q.fair.push(m)
}

func (q *queue) visRemove(m *message) {
	if q.fair == nil {
		q.visible.remove(m)
		return
	}
	q.fair.remove(m)
}

func (q *queue) visTop() *message {
	if q.fair == nil {
		return q.visible.top()
	}
	return q.fair.top()
}

func (q *queue) visLen() int {
	if q.fair == nil {
		return q.visible.len()
	}
	return q.fair.visible
}

// visTake removes and returns the visible message a receive at now hands out next; first
// says the receive has just decided who is noisy (its first message), so that a fair queue
// need not decide again.
func (q *queue) visTake(now int64, first bool) *message {
	if q.fair == nil {
		return q.visible.pop()
	}
	return q.fair.take(q.inFlight, now, first)
}

// readyRole orders tenants by their first-sent visible message.
//
//lint:ignore U1000 used as the role of a binHeap
type readyRole struct{}

func (readyRole) less(a, b *tenant) bool  { return a.head < b.head }
func (readyRole) setPos(t *tenant, i int) { t.ridx = i }
func (readyRole) pos(t *tenant) int       { return t.ridx }

// inFlightRole orders tenants by messages in flight, most first; ties by group id.
//
//lint:ignore U1000 used as the role of a binHeap
type inFlightRole struct{}

func (inFlightRole) less(a, b *tenant) bool {
	if a.inFlight != b.inFlight {
		return a.inFlight > b.inFlight
	}
	return a.id < b.id
}
func (inFlightRole) setPos(t *tenant, i int) { t.fidx = i }
func (inFlightRole) pos(t *tenant) int       { return t.fidx }

// procRole orders tenants by processing time in the window, most first; ties by group id.
//
//lint:ignore U1000 used as the role of a binHeap
type procRole struct{}

func (procRole) less(a, b *tenant) bool {
	if a.proc != b.proc {
		return a.proc > b.proc
	}
	return a.id < b.id
}
func (procRole) setPos(t *tenant, i int) { t.pidx = i }
func (procRole) pos(t *tenant) int       { return t.pidx }

// NoisyReason says which of the fair-queue rules made a tenant noisy.
type NoisyReason int

// The reasons a tenant is noisy.
const (
	// NoisyByConcurrency: at least FairMinInFlight messages in flight, more than 10 % of the
	// queue's.
	NoisyByConcurrency NoisyReason = iota + 1
	// NoisyByProcessingTime: more than 10 % of the processing time that ended within
	// FairProcessingWindow.
	NoisyByProcessingTime
	// NoisyByBoth: both at once, when it became noisy.
	NoisyByBoth
)

// String returns the reason in words.
func (r NoisyReason) String() string {
	switch r {
	case NoisyByConcurrency:
		return "concurrency share"
	case NoisyByProcessingTime:
		return "processing time share"
	case NoisyByBoth:
		return "concurrency and processing time share"
	}
	return "unknown"
}

// MarshalText renders the reason in words, as in JSON snapshots.
func (r NoisyReason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// TenantInfo is a snapshot of one tenant (MessageGroupId) of a fair queue.
type TenantInfo struct {
	GroupID  string `json:"groupId"`
	Visible  int    `json:"visible"`
	Delayed  int    `json:"delayed"`
	InFlight int    `json:"inFlight"`
	// LastSent is when the tenant's latest message arrived.
	LastSent time.Time `json:"lastSent"`
	// ProcessingTime is the tenant's processing time that ended within FairProcessingWindow
	// of the snapshot, and ProcessingShare its share of the queue's (0 to 1).
	ProcessingTime  time.Duration `json:"processingTime"`
	ProcessingShare float64       `json:"processingShare"`
	// Noisy is whether the latest receive found the tenant noisy, since NoisySince, and why.
	Noisy       bool        `json:"noisy"`
	NoisySince  time.Time   `json:"noisySince"`
	NoisyReason NoisyReason `json:"noisyReason,omitempty"`
}

// NoisyPeriod is a span of time during which a fair queue's receives held a tenant back.
type NoisyPeriod struct {
	GroupID string `json:"groupId"`
	// From is the receive that first found it noisy; To the receive that first found it
	// quiet again (or the purge that emptied the queue), zero while it lasts.
	From   time.Time   `json:"from"`
	To     time.Time   `json:"to"`
	Reason NoisyReason `json:"reason"`
}

// Tenants returns the tenants of the standard queue named by ref (name, URL or ARN) that
// hold messages or recent processing time, by group id: none on a queue that never saw a
// MessageGroupId. When there is no such queue it returns an error that wraps ErrNoQueue.
func (f *Fake) Tenants(ref string) ([]TenantInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.settleAll()
	q, err := f.lookupInspected(ref)
	if err != nil {
		return nil, err
	}
	fs := q.fair
	if fs == nil {
		return nil, nil
	}
	fs.expire(now)
	out := make([]TenantInfo, 0, len(fs.tenants))
	for _, t := range fs.tenants {
		ti := TenantInfo{
			GroupID: t.id, Visible: t.vis.len(), InFlight: t.inFlight, Delayed: t.msgs - t.inFlight - t.vis.len(),
			LastSent: time.Unix(0, t.lastSend).UTC(), ProcessingTime: time.Duration(t.proc), Noisy: t.noisy,
		}
		if fs.totalProc > 0 {
			ti.ProcessingShare = float64(t.proc) / float64(fs.totalProc)
		}
		if t.noisy {
			ti.NoisySince, ti.NoisyReason = time.Unix(0, t.since).UTC(), t.reason
		}
		out = append(out, ti)
	}
	slices.SortFunc(out, func(a, b TenantInfo) int { return cmp.Compare(a.GroupID, b.GroupID) })
	return out, nil
}

// NoisyPeriods returns every period during which receives of the queue named by ref held a
// tenant back as noisy, in the order they began (ties by group id). When there is no such
// queue it returns an error that wraps ErrNoQueue.
func (f *Fake) NoisyPeriods(ref string) ([]NoisyPeriod, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settleAll()
	q, err := f.lookupInspected(ref)
	if err != nil {
		return nil, err
	}
	if q.fair == nil {
		return nil, nil
	}
	out := make([]NoisyPeriod, len(q.fair.periods))
	for i, p := range q.fair.periods {
		out[i] = NoisyPeriod{GroupID: p.tenant, From: time.Unix(0, p.from).UTC(), Reason: p.reason}
		if !p.open {
			out[i].To = time.Unix(0, p.to).UTC()
		}
	}
	return out, nil
}
