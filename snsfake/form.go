package snsfake

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
)

// The wire's decoder: awsQuery's flattened parameters into an SNS input. It is linear in the
// request: the parameters are read in one pass into a map of each name's first value, with an
// index of the list and map entries each name gives (<Name>.member.N…, <Name>.entry.N…), so
// that decoding a list or a map looks its entries up rather than scanning every parameter
// for each (a 9,997-entry PublishBatch form took 0.8–3.5 s; issue 29, attack 8;
// BenchmarkDecodePublishBatch). It stops, refusing the request, when the request's context
// ends: a client that went away does not keep the server decoding its form. The strings it
// puts in an input are copies, so that nothing the fake keeps (a topic's attribute, a
// publication's message) holds on to the request's body.

// params are a request's parameters.
type params struct {
	vals    map[string]string   // each name's first value
	indexed map[string]struct{} // the entries named: "<Name>.member.N", "<Name>.entry.N"
	ctx     context.Context
	buf     []byte // count's scratch
}

// maxParamName is the longest parameter name the decoder reads: the longest an SNS input
// has is under 100 bytes (PublishBatchRequestEntries.member.10.MessageAttributes.entry.10.
// Value.StringValue); a longer one names nothing and is ignored.
const maxParamName = 256

// ctxCheckEvery is how often, in parameters or entries, the decoder checks that the client
// is still there.
const ctxCheckEvery = 1024

// errClientGone ends the decoding of a request whose client went away; nobody reads it.
var errClientGone = newError("RequestCanceled", "The client went away before the request was decoded.")

// parseParams reads a request's parameters: a form body's (of a POST), then its query
// string's, a name given twice counting as its first value — a body's over a query
// string's. A broken %-escape is MalformedQueryString, HTTP 404, as AWS's common errors
// have it. A semicolon is part of a name or a value, as the queue fake's query decoder reads
// it (signed mode refuses one in a query string).
func parseParams(ctx context.Context, query string, body []byte, get bool) (*params, *snsError) {
	p := &params{vals: map[string]string{}, indexed: map[string]struct{}{}, ctx: ctx}
	if !get && len(body) > 0 {
		if e := p.add(bytesView(body)); e != nil {
			return nil, e
		}
	}
	if e := p.add(query); e != nil {
		return nil, e
	}
	return p, nil
}

func (p *params) add(form string) *snsError {
	n := 0
	for form != "" {
		var pair string
		pair, form, _ = strings.Cut(form, "&")
		if n++; n%ctxCheckEvery == 0 && p.ctx.Err() != nil {
			return errClientGone
		}
		if pair == "" {
			continue
		}
		key, value, _ := strings.Cut(pair, "=")
		k, ok := unescape(key)
		if !ok {
			return errMalformedQuery()
		}
		v, ok := unescape(value)
		if !ok {
			return errMalformedQuery()
		}
		if len(k) > maxParamName {
			continue
		}
		if _, seen := p.vals[k]; seen {
			continue
		}
		p.vals[k] = v
		p.index(k)
	}
	return nil
}

// index notes the entries a parameter's name gives: for each ".member.N" and ".entry.N" in
// it, the name up to N.
func (p *params) index(k string) {
	for _, tok := range [...]string{".member.", ".entry."} {
		for at := 0; ; {
			i := strings.Index(k[at:], tok)
			if i < 0 {
				break
			}
			start := at + i + len(tok)
			end := start
			for end < len(k) && k[end] >= '0' && k[end] <= '9' {
				end++
			}
			if end > start && k[start] != '0' && (end == len(k) || k[end] == '.') {
				p.indexed[k[:end]] = struct{}{}
			}
			at = start
		}
	}
}

func (p *params) get(name string) string { return p.vals[name] }

func (p *params) has(name string) bool {
	_, ok := p.vals[name]
	return ok
}

// count counts the consecutive entries 1, 2, … under prefix ("<Name>.member.").
func (p *params) count(prefix string) int {
	n := 0
	for {
		p.buf = strconv.AppendInt(append(p.buf[:0], prefix...), int64(n+1), 10)
		if _, ok := p.indexed[string(p.buf)]; !ok {
			return n
		}
		n++
	}
}

func errMalformedQuery() *snsError {
	return &snsError{code: "MalformedQueryString", status: http.StatusNotFound, message: "The query string contains a syntax error."}
}

// decode fills v (a struct of an SNS input) from the parameters under prefix: members by
// their Go names, which are the wire names; lists as <Name>.member.N; string maps as
// <Name>.entry.N.key/value; MessageAttributes as <Name>.entry.N.Name and
// .Value.DataType/.StringValue/.BinaryValue (base64).
func (p *params) decode(prefix string, v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := prefix + f.Name
		fv := v.Field(i)
		switch f.Type.Kind() {
		case reflect.Pointer:
			if f.Type.Elem().Kind() == reflect.String {
				if val, ok := p.vals[name]; ok {
					s := strings.Clone(val)
					fv.Set(reflect.ValueOf(&s))
				}
			}
		case reflect.Bool:
			fv.SetBool(p.get(name) == "true")
		case reflect.Slice:
			if f.Type.Elem().Kind() == reflect.Uint8 {
				if s := p.get(name); s != "" {
					b, err := base64.StdEncoding.DecodeString(s)
					if err != nil {
						return errors.New(echo(name))
					}
					fv.SetBytes(b)
				}
				continue
			}
			n := p.count(name + ".member.")
			if n == 0 && !p.has(name) {
				continue
			}
			list := reflect.MakeSlice(f.Type, n, n)
			for j := range n {
				if j%ctxCheckEvery == ctxCheckEvery-1 && p.ctx.Err() != nil {
					return errClientGone
				}
				key := name + ".member." + strconv.Itoa(j+1)
				el := list.Index(j)
				if el.Kind() == reflect.String {
					el.SetString(strings.Clone(p.get(key)))
					continue
				}
				if err := p.decode(key+".", el); err != nil {
					return err
				}
			}
			fv.Set(list)
		case reflect.Map:
			n := p.count(name + ".entry.")
			if n == 0 {
				continue
			}
			m := reflect.MakeMapWithSize(f.Type, n)
			for j := range n {
				if j%ctxCheckEvery == ctxCheckEvery-1 && p.ctx.Err() != nil {
					return errClientGone
				}
				key := name + ".entry." + strconv.Itoa(j+1)
				if f.Type.Elem().Kind() == reflect.String {
					m.SetMapIndex(reflect.ValueOf(strings.Clone(p.get(key+".key"))), reflect.ValueOf(strings.Clone(p.get(key+".value"))))
					continue
				}
				el := reflect.New(f.Type.Elem()).Elem()
				if err := p.decode(key+".Value.", el); err != nil {
					return err
				}
				m.SetMapIndex(reflect.ValueOf(strings.Clone(p.get(key+".Name"))), el)
			}
			fv.Set(m)
		}
	}
	return nil
}
