package sqsfake

import (
	"strconv"
	"strings"
)

// WithEndpoint makes the queue URLs the fake hands out name base — the address its Handler is
// served at — instead of AWS's regional endpoint: base + "/" + account + "/" + name, such as
// http://127.0.0.1:9324/123456789012/jobs. cmd/sqsfake sets it to its own address, so that
// clients which send queue operations to the queue URL reach the server. Whatever the
// option, every door accepts a queue URL on any host, a "<account>/<name>" path or a bare
// name as QueueUrl.
//
// base is an absolute http or https URL with a host, and no user, query or fragment; a path
// is kept (queue URLs are then base + "/" + account + "/" + name, for a Handler mounted under
// that path). "" names AWS's regional endpoints, as without the option.
func WithEndpoint(base string) Option {
	return func(f *Fake) {
		if !validEndpoint(base) {
			f.refuse("WithEndpoint", strconv.Quote(base), endpointRule)
			return
		}
		f.endpoint = strings.TrimRight(base, "/")
	}
}
