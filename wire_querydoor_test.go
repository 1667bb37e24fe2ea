package sqsfake

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
)

// queryClientOf returns a stock SDK client whose calls reach f's Handler in the query
// protocol, so that the differential corpus runs through it as through awsJson1_0. The SDK
// speaks only awsJson1_0 since v1.27.0, so an HTTP client between it and the handler
// translates: each request's JSON input becomes the query parameters of the same input, and
// each XML answer the JSON answer the SDK reads — both by the SDK's schemas, member by member.
// The old query-protocol SDKs themselves run in querytest/.
func queryClientOf(f *Fake) *sqs.Client {
	return memoryClientOf(f, func(o *sqs.Options) {
		o.HTTPClient = &queryTranslator{next: f.HTTPClient(), outputs: opOutputSchemas()}
	})
}

// queryTranslator is an sqs.HTTPClient that turns awsJson1_0 requests into query requests
// and their XML answers back into awsJson1_0 answers.
type queryTranslator struct {
	next    sqs.HTTPClient
	outputs map[string]*smithy.Schema
}

func (q *queryTranslator) Do(r *http.Request) (*http.Response, error) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), targetPrefix)
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	form := url.Values{"Action": {op}, "Version": {"2012-11-05"}}
	if err := jsonToForm(form, wireOps[op].input, "", body); err != nil {
		return nil, fmt.Errorf("translating %s to the query protocol: %w", op, err)
	}
	req := r.Clone(r.Context())
	req.Header.Del("X-Amz-Target")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	encoded := form.Encode()
	req.Body, req.ContentLength = io.NopCloser(strings.NewReader(encoded)), int64(len(encoded))
	resp, err := q.next.Do(req)
	if err != nil {
		return nil, err
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/xml" {
		return nil, fmt.Errorf("%s: the query answer has Content-Type %q", op, ct)
	}
	root, err := parseXMLTree(answer)
	if err != nil {
		return nil, fmt.Errorf("%s: %w in %s", op, err, answer)
	}
	var payload []byte
	if resp.StatusCode == http.StatusOK {
		if root.name != op+"Response" {
			return nil, fmt.Errorf("%s: the answer is a <%s>", op, root.name)
		}
		result := root.child(op + "Result")
		if q.outputs[op] == nil && result != nil {
			return nil, fmt.Errorf("%s: the answer has a Result element, which the model does not give it", op)
		}
		v := map[string]any{}
		if result != nil {
			v = xmlToJSON(q.outputs[op], result).(map[string]any)
		}
		payload, _ = json.Marshal(v)
	} else {
		e := root.child("Error")
		if root.name != "ErrorResponse" || e == nil {
			return nil, fmt.Errorf("%s: the error answer is %s", op, answer)
		}
		code, fault := e.text("Code"), e.text("Type")
		shape := code
		if s, ok := shapeByCode[code]; ok {
			shape = s
		}
		payload, _ = json.Marshal(map[string]string{"__type": sqsNamespace + shape, "message": e.text("Message")})
		resp.Header.Set("X-Amzn-Query-Error", code+";"+fault)
		if id := root.text("RequestId"); id != resp.Header.Get("X-Amzn-Requestid") {
			return nil, fmt.Errorf("%s: the error's RequestId %s is not the header's %s", op, id, resp.Header.Get("X-Amzn-Requestid"))
		}
	}
	resp.Header.Set("Content-Type", jsonContentType)
	resp.Header.Set("Content-Length", strconv.Itoa(len(payload)))
	resp.Body, resp.ContentLength = io.NopCloser(bytes.NewReader(payload)), int64(len(payload))
	return resp, nil
}

// jsonToForm adds to form the query parameters of the JSON value body of shape s, as the
// awsquery serializers of the last query-protocol SDKs write them.
func jsonToForm(form url.Values, s *smithy.Schema, param string, body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return valueToForm(form, s, param, v)
}

func valueToForm(form url.Values, s *smithy.Schema, param string, v any) error {
	switch s.Type() {
	case smithy.ShapeTypeStructure:
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %T", param, v)
		}
		for name, x := range obj {
			m := s.Member(name)
			if m == nil {
				return fmt.Errorf("%s: no member %s", param, name)
			}
			key := memberElement(m)
			if param != "" {
				key = param + "." + key
			}
			if err := valueToForm(form, m, key, x); err != nil {
				return err
			}
		}
	case smithy.ShapeTypeList:
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: want an array, got %T", param, v)
		}
		if len(items) == 0 {
			form.Set(param, "")
		}
		base := param
		if !flattened(s) {
			base += "." + elementOr(s.ListMember(), "member")
		}
		for i, x := range items {
			if err := valueToForm(form, s.ListMember(), base+"."+strconv.Itoa(i+1), x); err != nil {
				return err
			}
		}
	case smithy.ShapeTypeMap:
		obj, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %T", param, v)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		base := param
		if !flattened(s) {
			base += ".entry"
		}
		for i, k := range keys {
			entry := base + "." + strconv.Itoa(i+1) + "."
			form.Set(entry+elementOr(s.MapKey(), "key"), k)
			if err := valueToForm(form, s.MapValue(), entry+elementOr(s.MapValue(), "value"), obj[k]); err != nil {
				return err
			}
		}
	default:
		switch x := v.(type) {
		case string:
			form.Set(param, x)
		case json.Number:
			form.Set(param, x.String())
		case bool:
			form.Set(param, strconv.FormatBool(x))
		default:
			return fmt.Errorf("%s: unexpected %T", param, v)
		}
	}
	return nil
}

// xmlNode is an element of a parsed answer.
type xmlNode struct {
	name  string
	chars string
	kids  []*xmlNode
}

func (n *xmlNode) child(name string) *xmlNode {
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

func (n *xmlNode) children(name string) []*xmlNode {
	var out []*xmlNode
	for _, k := range n.kids {
		if k.name == name {
			out = append(out, k)
		}
	}
	return out
}

func (n *xmlNode) text(name string) string {
	if c := n.child(name); c != nil {
		return c.chars
	}
	return ""
}

// parseXMLTree parses an answer into its tree of elements, with encoding/xml, which reads
// entities and character references as an XML parser must.
func parseXMLTree(b []byte) (*xmlNode, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &xmlNode{name: tok.Name.Local}
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				top.kids = append(top.kids, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].chars += string(tok)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("no root element")
	}
	return root, nil
}

// xmlToJSON reads element n as a value of shape s, for encoding/json to write as the
// awsJson1_0 answer would have it.
func xmlToJSON(s *smithy.Schema, n *xmlNode) any {
	switch s.Type() {
	case smithy.ShapeTypeStructure:
		obj := map[string]any{}
		for name, m := range s.Members() {
			el := memberElement(m)
			switch {
			case m.Type() == smithy.ShapeTypeList && flattened(m):
				if kids := n.children(el); len(kids) > 0 {
					items := make([]any, len(kids))
					for i, k := range kids {
						items[i] = xmlToJSON(m.ListMember(), k)
					}
					obj[name] = items
				}
			case m.Type() == smithy.ShapeTypeMap && flattened(m):
				if kids := n.children(el); len(kids) > 0 {
					entries := map[string]any{}
					for _, k := range kids {
						key := k.text(elementOr(m.MapKey(), "key"))
						entries[key] = xmlToJSON(m.MapValue(), k.child(elementOr(m.MapValue(), "value")))
					}
					obj[name] = entries
				}
			default:
				if k := n.child(el); k != nil {
					obj[name] = xmlToJSON(m, k)
				}
			}
		}
		return obj
	case smithy.ShapeTypeList:
		var items []any
		for _, k := range n.children(elementOr(s.ListMember(), "member")) {
			items = append(items, xmlToJSON(s.ListMember(), k))
		}
		return items
	case smithy.ShapeTypeInteger, smithy.ShapeTypeLong:
		return json.Number(n.chars)
	case smithy.ShapeTypeBoolean:
		return n.chars == "true"
	}
	return n.chars
}
