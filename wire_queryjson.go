package sqsfake

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// The query protocol's JSON answers. AWS answers a query-protocol request that sends
// Accept: application/json in JSON rather than XML — the legacy query API's content
// negotiation — as five AWS-validated tests of LocalStack's show (the names in
// wire_queryjson_test.go): {"ListQueuesResponse": {"ListQueuesResult": {…},
// "ResponseMetadata": {"RequestId": …}}}, and a refusal as {"Error": {"Code": …, "Message":
// …}} with its status; a queue's URL without an Action is still the bare XML
// <UnknownOperationException/>. The JSON is the XML answer's structure: an element with
// children an object, one without its text; what AWS recorded differently is written as it
// recorded it: ListQueues' queue URLs as "queueUrls" (and its absent members as null), a
// ReceiveMessage's messages as "messages", GetQueueAttributes' attributes as an
// "Attributes" list of {"Name", "Value"} [AWS; the names of lists AWS was not recorded
// answering, UNVERIFIED: the XML element's, a list]. A lost response's dropped connection
// stays dropped.

// wantsJSON reports whether a query request asks for JSON: application/json among its
// Accept header's media types.
func wantsJSON(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "application/json" {
				return true
			}
		}
	}
	return false
}

// jsonAnswer holds a query answer back to write it in JSON.
type jsonAnswer struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (a *jsonAnswer) WriteHeader(status int) { a.status = status }

func (a *jsonAnswer) Write(b []byte) (int, error) { return a.body.Write(b) }

// flush writes the answer held back: in JSON when it is a query answer, as it is otherwise.
func (a *jsonAnswer) flush() {
	header := a.ResponseWriter.Header()
	status := cmpStatus(a.status)
	out, ok := queryXMLToJSON(a.body.Bytes())
	if !ok {
		header.Set("Content-Length", strconv.Itoa(a.body.Len()))
		a.ResponseWriter.WriteHeader(status)
		a.ResponseWriter.Write(a.body.Bytes())
		return
	}
	header.Set("Content-Type", "application/json")
	header.Set("Content-Length", strconv.Itoa(len(out)))
	a.ResponseWriter.WriteHeader(status)
	a.ResponseWriter.Write(out)
}

func cmpStatus(s int) int {
	if s == 0 {
		return http.StatusOK
	}
	return s
}

// xnode is an element of a query answer.
type xnode struct {
	name     string
	text     string
	children []*xnode
}

// queryListElements are the elements of the query answers that are members of a list,
// listed whether one or several come; the key each list is written under in JSON.
var queryListElements = map[string]string{
	"ListQueuesResult/QueueUrl":                                                  "queueUrls",
	"ListDeadLetterSourceQueuesResult/QueueUrl":                                  "queueUrls",
	"ReceiveMessageResult/Message":                                               "messages",
	"GetQueueAttributesResult/Attribute":                                         "Attributes",
	"Message/Attribute":                                                          "Attribute",
	"Message/MessageAttribute":                                                   "MessageAttribute",
	"SendMessageBatchResult/SendMessageBatchResultEntry":                         "SendMessageBatchResultEntry",
	"DeleteMessageBatchResult/DeleteMessageBatchResultEntry":                     "DeleteMessageBatchResultEntry",
	"ChangeMessageVisibilityBatchResult/ChangeMessageVisibilityBatchResultEntry": "ChangeMessageVisibilityBatchResultEntry",
	"SendMessageBatchResult/BatchResultErrorEntry":                               "BatchResultErrorEntry",
	"DeleteMessageBatchResult/BatchResultErrorEntry":                             "BatchResultErrorEntry",
	"ChangeMessageVisibilityBatchResult/BatchResultErrorEntry":                   "BatchResultErrorEntry",
	"ListQueueTagsResult/Tag":                                                    "Tag",
	"ListMessageMoveTasksResult/ListMessageMoveTasksResultEntry":                 "ListMessageMoveTasksResultEntry",
}

// queryXMLToJSON is a query answer in JSON, or false when b is no query answer (a bare
// <UnknownOperationException/>).
func queryXMLToJSON(b []byte) ([]byte, bool) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	var stack []*xnode
	var root *xnode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xnode{name: t.Name.Local}
			if len(stack) > 0 {
				parent := stack[len(stack)-1]
				parent.children = append(parent.children, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(t)
			}
		}
	}
	if root == nil || len(root.children) == 0 {
		return nil, false
	}
	var v any
	if root.name == "ErrorResponse" {
		answer := map[string]any{}
		for _, c := range root.children {
			switch c.name {
			case "Error":
				e := map[string]any{}
				for _, f := range c.children {
					if f.name != "Detail" {
						e[f.name] = f.text
					}
				}
				answer["Error"] = e
			case "RequestId":
				answer["RequestId"] = c.text
			}
		}
		v = answer
	} else {
		v = map[string]any{root.name: element(root)}
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

// element is an element with children as a JSON object.
func element(n *xnode) any {
	if len(n.children) == 0 {
		if n.name == "ListQueuesResult" {
			return map[string]any{"NextExclusiveStartQueueName": nil, "NextToken": nil, "queueUrls": nil}
		}
		if strings.HasSuffix(n.name, "Result") || n.name == "ResponseMetadata" {
			return map[string]any{}
		}
		return n.text
	}
	obj := map[string]any{}
	if n.name == "ListQueuesResult" {
		obj["NextExclusiveStartQueueName"], obj["NextToken"], obj["queueUrls"] = nil, nil, nil
	}
	for _, c := range n.children {
		key, list := queryListElements[n.name+"/"+c.name]
		if !list {
			obj[c.name] = element(c)
			continue
		}
		l, _ := obj[key].([]any)
		obj[key] = append(l, element(c))
	}
	return obj
}
