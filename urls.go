package sqsfake

import (
	"cmp"
	"strings"
)

// partitionOf returns the ARN partition of a region.
func partitionOf(region string) string {
	switch {
	case strings.HasPrefix(region, "cn-"):
		return "aws-cn"
	case strings.HasPrefix(region, "us-gov-"):
		return "aws-us-gov"
	}
	return "aws"
}

// queueURL returns the URL AWS gives a queue of space sp, or, with WithEndpoint, the URL of
// the queue at the fake's own server: <endpoint>/<account>/<name> in the fake's own region,
// <endpoint>/queue/<region>/<account>/<name> in another, so that the URL names the region
// whoever uses it (the path form LocalStack also serves).
func (f *Fake) queueURL(sp *space, name string) string {
	if f.endpoint != "" {
		if sp.region != f.region {
			return f.endpoint + "/queue/" + sp.region + "/" + sp.account + "/" + name
		}
		return f.endpoint + "/" + sp.account + "/" + name
	}
	host := "sqs." + sp.region + ".amazonaws.com"
	if sp.partition == "aws-cn" {
		host += ".cn"
	}
	return "https://" + host + "/" + sp.account + "/" + name
}

// queueARN returns the ARN of a queue of space sp.
func queueARN(sp *space, name string) string {
	return "arn:" + sp.partition + ":sqs:" + sp.region + ":" + sp.account + ":" + name
}

// queueRef is what a QueueUrl names: a queue name, with the account and region when the URL
// gives them ("" when it does not), and the region of an AWS host it was on.
type queueRef struct {
	region, account, name string
	hostRegion            string // sqs.<region>.amazonaws.com[.cn] or <region>.queue.amazonaws.com
}

// parseQueueURL reads what a caller passed as QueueUrl: a queue URL on any host (AWS's, a
// legacy queue.amazonaws.com host, or the fake's own server, whose URLs may name the region
// as …/queue/<region>/<account>/<name>, after any path of its endpoint), a path of the form
// "<account>/<name>", or a bare queue name, all of which AWS accepts. It reports false when
// nothing names a queue. AWS resolves a queue from the account and name in the path, in the
// region of the endpoint the request went to (SPEC.md §3), so the operations ignore
// hostRegion; the inspection methods read it, to find the queue a URL the fake handed out
// names.
func parseQueueURL(u string) (queueRef, bool) {
	var ref queueRef
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			return queueRef{}, false
		}
		ref.hostRegion = regionOfHost(rest[:slash])
		u = rest[slash+1:]
	}
	u = strings.TrimSuffix(u, "/")
	i := strings.LastIndexByte(u, '/')
	if i < 0 {
		ref.name = u
		return ref, u != ""
	}
	ref.name = u[i+1:]
	head := u[:i] // "<account>", "…/<account>" or "…/queue/<region>/<account>"
	j := strings.LastIndexByte(head, '/')
	ref.account = head[j+1:]
	if j >= 0 {
		before := head[:j] // "…/queue/<region>" when the URL names its region
		k := strings.LastIndexByte(before, '/')
		if k >= 0 && (before[:k] == "queue" || strings.HasSuffix(before[:k], "/queue")) && isRegionName(before[k+1:]) {
			ref.region = before[k+1:]
		}
	}
	return ref, ref.account != "" && ref.name != ""
}

// regionOfHost returns the region an AWS queue host names — sqs.<region>.amazonaws.com (.cn),
// <region>.queue.amazonaws.com — or "".
func regionOfHost(host string) string {
	if h, ok := strings.CutPrefix(host, "sqs."); ok {
		if r, ok := strings.CutSuffix(h, ".amazonaws.com"); ok {
			return r
		}
		if r, ok := strings.CutSuffix(h, ".amazonaws.com.cn"); ok {
			return r
		}
	}
	if r, ok := strings.CutSuffix(host, ".queue.amazonaws.com"); ok {
		return r
	}
	return ""
}

// lookupURL returns the queue a QueueUrl names for the caller a, or QueueDoesNotExist. A URL
// without an account names the caller's own account; one without a region the caller's region.
// It does not check that a may act on the queue (see access).
func (f *Fake) lookupURL(a *actor, u string) (*queue, *sqsError) {
	if c := &f.lastLookup; c.q != nil && c.sp == a.sp && c.url == u {
		return c.q, nil // the queue this caller named last, by the same text: most calls
	}
	ref, ok := parseQueueURL(u)
	if !ok {
		return nil, errQueueDoesNotExist()
	}
	if q := f.queueAt(ref, a.sp); q != nil {
		f.lastLookup = lookupCache{url: u, sp: a.sp, q: q}
		return q, nil
	}
	return nil, errQueueDoesNotExist()
}

// lookupCache remembers the last QueueUrl lookupURL resolved, for whom, and to which queue.
// Only DeleteQueue and Reset remove a queue; both clear it.
type lookupCache struct {
	url string
	sp  *space
	q   *queue
}

// queueAt returns the queue ref names, its account and region defaulting to those of sp, or
// nil.
func (f *Fake) queueAt(ref queueRef, sp *space) *queue {
	if ref.account != "" && ref.account != sp.account || ref.region != "" && ref.region != sp.region {
		if sp = f.findSpace(cmp.Or(ref.account, sp.account), cmp.Or(ref.region, sp.region)); sp == nil {
			return nil
		}
	}
	return f.queues[queueKey{sp, ref.name}]
}

// lookupARN returns the queue an ARN names, in whichever account and region it names.
func (f *Fake) lookupARN(arn string) *queue {
	parts := strings.Split(arn, ":")
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "sqs" {
		return nil
	}
	sp := f.findSpace(parts[4], parts[3])
	if sp == nil || parts[1] != sp.partition {
		return nil
	}
	return f.queues[queueKey{sp, parts[5]}]
}

// validQueueName reports whether name is 1–80 characters of [A-Za-z0-9_-], with a ".fifo"
// suffix (counted in the 80) exactly when fifo.
func validQueueName(name string, fifo bool) bool {
	if len(name) == 0 || len(name) > 80 {
		return false
	}
	base := name
	if fifo {
		if !strings.HasSuffix(name, ".fifo") {
			return false
		}
		base = strings.TrimSuffix(name, ".fifo")
		if base == "" {
			return false
		}
	}
	for i := 0; i < len(base); i++ {
		c := base[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// isAccountID reports whether s is an AWS account id: 12 ASCII digits.
func isAccountID(s string) bool { return len(s) == 12 && isDigits(s) }

// isRegionName reports whether s has a region's form: lower-case words and a number joined by
// hyphens, the first word of two letters or more (us-east-1, us-gov-west-1, eusc-de-east-1).
// WithRegion, ActAs and the wire's credential scope all check it.
func isRegionName(s string) bool {
	if len(s) > maxRegionLen {
		return false
	}
	first, rest, ok := strings.Cut(s, "-")
	if !ok || len(first) < 2 || !lowerWord(first) {
		return false
	}
	last := strings.LastIndexByte(rest, '-')
	if last < 0 || !isDigits(rest[last+1:]) {
		return false
	}
	for w := range strings.SplitSeq(rest[:last], "-") {
		if !lowerWord(w) {
			return false
		}
	}
	return true
}

// maxRegionLen is the longest region name the fake takes: AWS's are at most 15 characters
// (us-isob-east-1, eusc-de-east-1); a longer one cannot exist, and is refused before any
// space is made for it (issue 25, attack 6).
const maxRegionLen = 32

// lowerWord reports whether s is one or more lower-case ASCII letters.
func lowerWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return s != ""
}
