package sqsfake

import (
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

// queueURL returns the URL AWS gives a queue of this fake, or, with WithEndpoint, the URL of
// the queue at the fake's own server.
func (f *Fake) queueURL(name string) string {
	if f.endpoint != "" {
		return f.endpoint + "/" + f.account + "/" + name
	}
	host := "sqs." + f.region + ".amazonaws.com"
	if f.partition == "aws-cn" {
		host += ".cn"
	}
	return "https://" + host + "/" + f.account + "/" + name
}

// queueARN returns the ARN of a queue of this fake.
func (f *Fake) queueARN(name string) string {
	return "arn:" + f.partition + ":sqs:" + f.region + ":" + f.account + ":" + name
}

// nameFromURL extracts the queue name from what a caller passed as QueueUrl: a queue URL on
// any host (AWS's, a legacy queue.amazonaws.com host, or the fake's own server), a path of
// the form "<account>/<name>", or a bare queue name, all of which AWS accepts. It reports
// false when the URL names another account.
func (f *Fake) nameFromURL(u string) (string, bool) {
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			return "", false
		}
		u = rest[slash+1:]
	}
	u = strings.TrimSuffix(u, "/")
	if i := strings.LastIndexByte(u, '/'); i >= 0 {
		account := u[:i]
		if j := strings.LastIndexByte(account, '/'); j >= 0 {
			account = account[j+1:]
		}
		if account != f.account {
			return "", false
		}
		u = u[i+1:]
	}
	return u, u != ""
}

// lookupURL returns the queue a QueueUrl names, or QueueDoesNotExist.
func (f *Fake) lookupURL(u string) (*queue, *sqsError) {
	name, ok := f.nameFromURL(u)
	if !ok {
		return nil, errQueueDoesNotExist()
	}
	q := f.queues[name]
	if q == nil {
		return nil, errQueueDoesNotExist()
	}
	return q, nil
}

// lookupARN returns the queue an ARN names in this fake's partition, region and account.
func (f *Fake) lookupARN(arn string) *queue {
	parts := strings.Split(arn, ":")
	if len(parts) != 6 || parts[0] != "arn" || parts[1] != f.partition || parts[2] != "sqs" ||
		parts[3] != f.region || parts[4] != f.account {
		return nil
	}
	return f.queues[parts[5]]
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
