package sqsfake

import (
	"bytes"
	"embed"
	"encoding/base64"
	"encoding/json"
	"github.com/sqsfake/sqsfake/internal/guard"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The console: a page that shows the fake's queues and each message's timeline on the
// clock (docs/console.md). Handler serves it at ConsolePath, and so does the server
// (cmd/sqsfake); its HTML, CSS and script are embedded, and it reads the fake through the
// paged JSON endpoints below, which take the control header as the server's control
// endpoints do. Its actions go through the SQS API (send, purge, move tasks) and the
// control endpoints (advance, reset), so they fail as those do.

//go:embed console
var consoleFiles embed.FS

// consoleAssets are the page's files: the directory console of the module.
var consoleAssets = func() fs.FS {
	sub, err := fs.Sub(consoleFiles, "console")
	if err != nil {
		panic(err)
	}
	return sub
}()

// The console's page sizes: queues and messages a page by default, and at most; the
// characters of a body a message list shows, and of a body a message's view shows.
const (
	consoleQueueLimit    = 200
	consoleQueueMaxLimit = 1000
	consoleMsgLimit      = 50
	consoleMsgMaxLimit   = 500
	consoleListBody      = 200
	consoleViewBody      = 64 << 10
	consoleAttrValue     = 200
)

// consoleHeaders are the headers of every answer of the console. The policy lets the page
// load its own script and style only, connect to its own origin only, and be framed by no
// page; so a body a message carries can neither run as script nor reach another site even if
// it slipped past the page's escaping.
var consoleHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
		"img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"X-Frame-Options":        "DENY",
	"Referrer-Policy":        "no-referrer",
	"Cache-Control":          "no-store",
}

// serveConsole serves a request under ConsolePath: the page, its assets and its JSON
// endpoints. It refuses a request of a page of another site, and one whose Host is not a
// loopback name or address or the host of the fake's endpoint (WithEndpoint) — the host a
// page that reaches the fake by DNS rebinding sends — unless the server has checked the Host
// itself. The JSON endpoints need the control header, which a page of another site cannot
// make a browser send.
func (f *Fake) serveConsole(w http.ResponseWriter, r *http.Request) {
	for k, v := range consoleHeaders {
		w.Header().Set(k, v)
	}
	srv := guard.ServerOf(r)
	if why := guard.CrossSite(r); why != "" {
		consoleError(w, http.StatusForbidden, "console requests from a page of another site are refused (cross-site request: "+why+")")
		return
	}
	if srv == nil && !f.consoleHost(r.Host) {
		consoleError(w, http.StatusForbidden, "Host "+strconv.Quote(r.Host)+" is not this fake's: the console answers loopback names and addresses and the host of its endpoint")
		return
	}
	if r.URL.Path+"/" == ConsolePath {
		if consoleAllow(w, r, http.MethodGet, http.MethodHead) {
			http.Redirect(w, r, ConsolePath, http.StatusMovedPermanently)
		}
		return
	}
	name := strings.TrimPrefix(r.URL.Path, ConsolePath)
	api, isAPI := strings.CutPrefix(name, "api/")
	if !isAPI {
		f.serveConsoleAsset(w, r, name)
		return
	}
	// Signed mode: the endpoints show every account's messages and receipt handles, so they
	// need the secret the control endpoints need (issue 25, attack 8).
	token := ""
	if srv != nil {
		token = srv.Token
	}
	why := ""
	switch guard.Control(r, f.creds != nil, token) {
	case guard.NoHeader:
		why = "console requests need the header " + guard.ControlHeader + ": 1, which a page of another site cannot send"
	case guard.Closed:
		why = "in signed mode the console's endpoints are closed: serve it from cmd/sqsfake started with -control-token, and give the page that token"
	case guard.WrongToken:
		why = "in signed mode console requests need the header " + guard.ControlHeader + ": <the -control-token>; the page asks for it"
	}
	if why != "" {
		consoleError(w, http.StatusForbidden, why)
		return
	}
	q := r.URL.Query()
	for k, vs := range q {
		if len(vs) > 1 {
			consoleError(w, http.StatusBadRequest, "give ?"+k+"= once")
			return
		}
	}
	switch api {
	case "overview":
		if consoleAllow(w, r, http.MethodGet) {
			f.consoleOverview(w, q, srv)
		}
	case "messages":
		if consoleAllow(w, r, http.MethodGet) {
			f.consoleMessages(w, q)
		}
	case "message":
		if consoleAllow(w, r, http.MethodGet) {
			f.consoleMessage(w, q)
		}
	case "advance", "reset":
		if srv != nil {
			consoleError(w, http.StatusNotFound, "the server moves its clock and resets with its control endpoints: POST "+srv.Advance+", POST "+srv.Reset)
			return
		}
		if !consoleAllow(w, r, http.MethodPost) {
			return
		}
		if api == "reset" {
			f.Reset()
		} else if !f.consoleAdvance(w, q) {
			return
		}
		consoleJSON(w, http.StatusOK, map[string]time.Time{"now": f.Now().UTC()})
	default:
		consoleError(w, http.StatusNotFound, "no console endpoint "+strconv.Quote(r.URL.Path))
	}
}

// consoleHost reports whether a Host header names a loopback name or address, or the host
// of the fake's endpoint.
func (f *Fake) consoleHost(hostport string) bool {
	host := guard.HostName(hostport)
	if guard.Loopback(host) {
		return true
	}
	u, err := url.Parse(f.endpoint)
	return err == nil && host != "" && host == guard.HostName(u.Host)
}

// serveConsoleAsset serves one of the page's files; "" is the page.
func (f *Fake) serveConsoleAsset(w http.ResponseWriter, r *http.Request, name string) {
	if !consoleAllow(w, r, http.MethodGet, http.MethodHead) {
		return
	}
	if name == "" {
		name = "index.html"
	}
	b, err := fs.ReadFile(consoleAssets, name)
	if err != nil || strings.Contains(name, "/") {
		consoleError(w, http.StatusNotFound, "no console file "+strconv.Quote(name))
		return
	}
	types := map[string]string{".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
		".css": "text/css; charset=utf-8", ".png": "image/png", ".svg": "image/svg+xml"}
	w.Header().Set("Content-Type", types[path.Ext(name)])
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(b)
	}
}

// consoleAllow answers 405 unless r uses one of methods.
func consoleAllow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	consoleError(w, http.StatusMethodNotAllowed, r.Method+" "+r.URL.Path+": use "+strings.Join(methods, " or "))
	return false
}

// consoleJSON writes v as JSON without HTML escaping, as the control endpoints do: the page
// shows every text as text, and a message that names <the -control-token> should read so.
func consoleJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"could not encode the answer"}` + "\n")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

func consoleError(w http.ResponseWriter, status int, msg string) {
	consoleJSON(w, status, map[string]string{"error": msg})
}

// consoleInt reads the integer parameter k of q, def when absent; it answers 400 and returns
// false when it is not an integer from 0 to most.
func consoleInt(w http.ResponseWriter, q url.Values, k string, def, most uint64) (uint64, bool) {
	if !q.Has(k) {
		return def, true
	}
	n, err := strconv.ParseUint(q.Get(k), 10, 64)
	if err != nil || n > most {
		consoleError(w, http.StatusBadRequest, "want ?"+k+"=<an integer from 0 to "+strconv.FormatUint(most, 10)+">")
		return 0, false
	}
	return n, true
}

// consoleClock describes the fake's clock to the page: whether time stands still until it is
// moved, and where the page moves it ("" when it cannot).
func (f *Fake) consoleClock(srv *guard.Server) (kind, advance, reset string) {
	if srv != nil {
		if srv.Clock == "virtual" {
			advance = srv.Advance
		}
		return srv.Clock, advance, srv.Reset
	}
	kind = "real"
	if f.canAdvance() {
		kind, advance = "virtual", ConsolePath+"api/advance"
	}
	return kind, advance, ConsolePath + "api/reset"
}

// canAdvance reports whether Advance moves the fake's clock rather than sleeping.
func (f *Fake) canAdvance() bool {
	switch c := f.clk.(type) {
	case ClockFuncs:
		return c.AddFunc != nil
	case adder:
		return true
	}
	return false
}

// consoleAdvance moves the clock by ?d=; on a bad duration, or a clock that cannot be moved,
// it answers the error and returns false.
func (f *Fake) consoleAdvance(w http.ResponseWriter, q url.Values) bool {
	if !f.canAdvance() {
		consoleError(w, http.StatusConflict, "the fake runs on a clock that Advance cannot move: time passes by itself")
		return false
	}
	d, err := time.ParseDuration(q.Get("d"))
	if err != nil || d < 0 {
		consoleError(w, http.StatusBadRequest, "want ?d=<duration>, a non-negative Go duration such as 30s or 1h")
		return false
	}
	if f.Now().Add(d).After(latestTime) {
		consoleError(w, http.StatusBadRequest, "the clock cannot move past "+latestTime.Format(time.RFC3339))
		return false
	}
	f.Advance(d)
	return true
}

// consoleSpace is an account and region of the overview, with how many queues it holds.
type consoleSpace struct {
	Account string `json:"account"`
	Region  string `json:"region"`
	Queues  int    `json:"queues"`
}

// consoleQueue is a queue of the overview: its counts, its kind and its redrive wiring.
type consoleQueue struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Arn      string `json:"arn"`
	Account  string `json:"account"`
	Region   string `json:"region"`
	FIFO     bool   `json:"fifo"`
	Visible  int    `json:"visible"`
	InFlight int    `json:"inFlight"`
	Delayed  int    `json:"delayed"`
	// DeadLetterTarget and MaxReceiveCount are the queue's RedrivePolicy;
	// DeadLetterSources the queues whose RedrivePolicy names it.
	DeadLetterTarget  string   `json:"deadLetterTarget,omitempty"`
	MaxReceiveCount   int      `json:"maxReceiveCount,omitempty"`
	DeadLetterSources []string `json:"deadLetterSources,omitempty"`
}

// consoleOverview answers api/overview: the clock, the accounts and regions, and one page
// of the queues (?after= queues skipped, ?limit= at most) in name order.
func (f *Fake) consoleOverview(w http.ResponseWriter, q url.Values, srv *guard.Server) {
	after, ok := consoleInt(w, q, "after", 0, 1<<31)
	if !ok {
		return
	}
	limit, ok := consoleInt(w, q, "limit", consoleQueueLimit, consoleQueueMaxLimit)
	if !ok {
		return
	}
	type overview struct {
		Now     time.Time `json:"now"`
		Clock   string    `json:"clock"`
		Advance string    `json:"advance,omitempty"`
		Reset   string    `json:"reset"`
		Topics  string    `json:"topics,omitempty"` // the server's SNS topics endpoint, when it serves SNS
		// Publications is the server's endpoint of a topic's publications, when it serves SNS.
		Publications string         `json:"publications,omitempty"`
		Account      string         `json:"account"`
		Region       string         `json:"region"`
		Spaces       []consoleSpace `json:"spaces"`
		Total        int            `json:"total"`
		Queues       []consoleQueue `json:"queues"`
		Truncated    bool           `json:"truncated"`
		Next         uint64         `json:"next,omitempty"`
	}
	out := overview{Account: f.account, Region: f.region, Queues: []consoleQueue{}}
	out.Clock, out.Advance, out.Reset = f.consoleClock(srv)
	if srv != nil {
		out.Topics, out.Publications = srv.Topics, srv.Publications
	}

	f.mu.Lock()
	now := f.settleAll()
	qs := f.sortedQueues()
	spaces := map[space]int{{account: f.account, region: f.region}: 0}
	sources := map[string][]string{}
	for _, qu := range qs {
		spaces[space{account: qu.sp.account, region: qu.sp.region}]++
		if p := qu.cfg.redrivePolicy; p != nil {
			sources[p.deadLetterTargetArn] = append(sources[p.deadLetterTargetArn], qu.arn)
		}
	}
	out.Total = len(qs)
	for i := after; i < uint64(len(qs)) && i < after+limit; i++ {
		qu := qs[i]
		c := consoleQueue{Name: qu.name, URL: qu.url, Arn: qu.arn, Account: qu.sp.account, Region: qu.sp.region,
			FIFO: qu.fifo != nil, DeadLetterSources: sources[qu.arn]}
		c.Visible, c.InFlight, c.Delayed = qu.counts()
		if p := qu.cfg.redrivePolicy; p != nil {
			c.DeadLetterTarget, c.MaxReceiveCount = p.deadLetterTargetArn, p.maxReceiveCount
		}
		out.Queues = append(out.Queues, c)
	}
	f.mu.Unlock()

	out.Now = time.Unix(0, now).UTC()
	if end := after + limit; end < uint64(len(qs)) {
		out.Truncated, out.Next = true, end
	}
	for sp, n := range spaces {
		out.Spaces = append(out.Spaces, consoleSpace{Account: sp.account, Region: sp.region, Queues: n})
	}
	sort.Slice(out.Spaces, func(i, j int) bool {
		a, b := out.Spaces[i], out.Spaces[j]
		return a.Account < b.Account || a.Account == b.Account && a.Region < b.Region
	})
	consoleJSON(w, http.StatusOK, out)
}

// consoleMessage is a message as the console shows it: its body cut to a length, with the
// length it has.
type consoleMessage struct {
	MessageID           string               `json:"messageId"`
	State               string               `json:"state"`
	ReceiveCount        int                  `json:"receiveCount"`
	SentAt              time.Time            `json:"sentAt"`
	VisibleAt           *time.Time           `json:"visibleAt,omitempty"`
	Body                string               `json:"body"`
	BodyBytes           int                  `json:"bodyBytes"`
	BodyTruncated       bool                 `json:"bodyTruncated,omitempty"`
	Attributes          []consoleMessageAttr `json:"attributes,omitempty"`
	GroupID             string               `json:"groupId,omitempty"`
	DeduplicationID     string               `json:"deduplicationId,omitempty"`
	SequenceNumber      string               `json:"sequenceNumber,omitempty"`
	DeadLetterSourceArn string               `json:"deadLetterSourceArn,omitempty"`
}

// consoleMessageAttr is a message attribute, its value in text (binary in base64), cut to
// a length.
type consoleMessageAttr struct {
	Name      string `json:"name"`
	DataType  string `json:"dataType"`
	Value     string `json:"value"`
	Truncated bool   `json:"truncated,omitempty"`
}

// toConsole cuts a message for the console: its body to at most bodyMax bytes, on a
// character boundary.
func toConsole(m MessageInfo, bodyMax int) consoleMessage {
	c := consoleMessage{MessageID: m.MessageID, State: m.State.String(), ReceiveCount: m.ReceiveCount, SentAt: m.SentAt,
		BodyBytes: len(m.Body), GroupID: m.GroupID, DeduplicationID: m.DeduplicationID,
		SequenceNumber: m.SequenceNumber, DeadLetterSourceArn: m.DeadLetterSourceArn}
	if m.State != StateVisible {
		at := m.VisibleAt
		c.VisibleAt = &at
	}
	c.Body, c.BodyTruncated = truncate(m.Body, bodyMax)
	names := make([]string, 0, len(m.Attributes))
	for n := range m.Attributes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := m.Attributes[n]
		a := consoleMessageAttr{Name: n}
		if v.DataType != nil {
			a.DataType = *v.DataType
		}
		switch {
		case v.StringValue != nil:
			a.Value, a.Truncated = truncate(*v.StringValue, consoleAttrValue)
		case v.BinaryValue != nil:
			a.Value, a.Truncated = truncate(base64.StdEncoding.EncodeToString(v.BinaryValue), consoleAttrValue)
		}
		c.Attributes = append(c.Attributes, a)
	}
	return c
}

// consoleMessages answers api/messages: one queue (?queue=, its ARN, URL or name) with one
// page of its messages in arrival order, bodies cut short: ?limit= of them (50 by default)
// after the arrival number ?after=, the cursor "next" of the previous page.
func (f *Fake) consoleMessages(w http.ResponseWriter, q url.Values) {
	after, ok := consoleInt(w, q, "after", 0, 1<<63)
	if !ok {
		return
	}
	limit, ok := consoleInt(w, q, "limit", consoleMsgLimit, consoleMsgMaxLimit)
	if !ok {
		return
	}
	page, err := f.pageOf(q.Get("queue"), after, int(limit))
	if err != nil {
		consoleError(w, http.StatusNotFound, "no queue "+strconv.Quote(q.Get("queue")))
		return
	}
	type answer struct {
		Now        time.Time         `json:"now"`
		Queue      string            `json:"queue"`
		Arn        string            `json:"arn"`
		URL        string            `json:"url"`
		Visible    int               `json:"visible"`
		InFlight   int               `json:"inFlight"`
		Delayed    int               `json:"delayed"`
		Attributes map[string]string `json:"attributes"`
		Tags       map[string]string `json:"tags,omitempty"`
		Stats      QueueStats        `json:"stats"`
		Messages   []consoleMessage  `json:"messages"`
		Truncated  bool              `json:"truncated"`
		Next       uint64            `json:"next,omitempty"`
	}
	out := answer{Now: f.Now().UTC(), Queue: page.Name, Arn: page.Arn, URL: page.URL, Visible: page.Visible,
		InFlight: page.InFlight, Delayed: page.Delayed, Attributes: page.Attributes, Tags: page.Tags, Stats: page.Stats,
		Messages: make([]consoleMessage, 0, len(page.Messages)), Truncated: page.Truncated, Next: page.Next}
	for _, m := range page.Messages {
		out.Messages = append(out.Messages, toConsole(m, consoleListBody))
	}
	consoleJSON(w, http.StatusOK, out)
}

// consoleEvent is an event of a message's timeline as the page draws it.
type consoleEvent struct {
	Kind          string     `json:"kind"`
	At            time.Time  `json:"at"`
	Queue         string     `json:"queue"`
	ReceiveCount  int        `json:"receiveCount,omitempty"`
	VisibleAt     *time.Time `json:"visibleAt,omitempty"`
	ToQueue       string     `json:"toQueue,omitempty"`
	NewMessageID  string     `json:"newMessageId,omitempty"`
	FromMessageID string     `json:"fromMessageId,omitempty"`
	Operation     string     `json:"operation,omitempty"`
	ErrorCode     string     `json:"errorCode,omitempty"`
	Fault         bool       `json:"fault,omitempty"`
	By            string     `json:"by,omitempty"`
	Text          string     `json:"text"`
}

// consoleKinds names the event kinds for the page's script.
var consoleKinds = [...]string{
	EventSent: "sent", EventReceived: "received", EventVisibilityChanged: "visibilityChanged",
	EventVisibleAgain: "visibleAgain", EventDeleted: "deleted", EventMovedToDLQ: "movedToDLQ",
	EventRedriven: "redriven", EventPurged: "purged", EventExpired: "expired", EventQueueDeleted: "queueDeleted",
	EventDeleteMissed: "deleteMissed", EventCallFailed: "callFailed", EventCallIgnored: "callIgnored",
}

// consoleMessage answers api/message: the message ?id= — where it is now, if a queue still
// holds it (?queue= first), its body up to 64 KiB — and its timeline in every queue it has
// been in, which outlives the message.
func (f *Fake) consoleMessage(w http.ResponseWriter, q url.Values) {
	id := q.Get("id")
	if id == "" {
		consoleError(w, http.StatusBadRequest, "want ?id=<MessageId>")
		return
	}
	type answer struct {
		Now     time.Time       `json:"now"`
		Queue   string          `json:"queue,omitempty"`
		Message *consoleMessage `json:"message,omitempty"`
		consoleTimeline
	}
	out := answer{Now: f.Now().UTC()}
	if info, err := f.Message(q.Get("queue"), id); err == nil {
		m := toConsole(info, consoleViewBody)
		out.Message, out.Queue = &m, q.Get("queue")
	} else if info, name, ok := f.FindMessage(id); ok {
		m := toConsole(info, consoleViewBody)
		out.Message, out.Queue = &m, name
	}
	t := f.Timeline(id)
	out.Forgotten = t.forgotten
	out.Events = make([]consoleEvent, 0, len(t.Events))
	for _, e := range t.Events {
		c := consoleEvent{At: e.At, Queue: e.Queue, ReceiveCount: e.ReceiveCount, ToQueue: e.ToQueue,
			NewMessageID: e.NewMessageID, FromMessageID: e.FromMessageID, Operation: e.Operation,
			ErrorCode: e.ErrorCode, Fault: e.Fault, By: e.By, Text: e.String()}
		if int(e.Kind) < len(consoleKinds) {
			c.Kind = consoleKinds[e.Kind]
		}
		if !e.VisibleAt.IsZero() {
			at := e.VisibleAt
			c.VisibleAt = &at
		}
		out.Events = append(out.Events, c)
	}
	if out.Message == nil && len(out.Events) == 0 && !out.Forgotten {
		consoleError(w, http.StatusNotFound, "no message "+strconv.Quote(id))
		return
	}
	consoleJSON(w, http.StatusOK, out)
}

// consoleTimeline is a message's timeline in the console's answers.
type consoleTimeline struct {
	Events []consoleEvent `json:"events"`
	// Forgotten reports that the fake has dropped its oldest events (WithHistoryLimit).
	Forgotten bool `json:"forgotten,omitempty"`
}
