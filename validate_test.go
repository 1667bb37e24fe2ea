package sqsfake

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// errStopBeforeSerialize ends every call of the reference client at the start of the Serialize
// step, so only the Initialize step (where the SDK validates input) has run.
var errStopBeforeSerialize = errors.New("stop before serialize")

// newReferenceClient is a real *sqs.Client that never serializes, signs or sends anything.
func newReferenceClient() *sqs.Client {
	stop := middleware.SerializeMiddlewareFunc("StopBeforeSerialize",
		func(context.Context, middleware.SerializeInput, middleware.SerializeHandler) (middleware.SerializeOutput, middleware.Metadata, error) {
			return middleware.SerializeOutput{}, middleware.Metadata{}, errStopBeforeSerialize
		})
	return sqs.New(sqs.Options{
		APIOptions: []func(*middleware.Stack) error{
			func(s *middleware.Stack) error { return s.Serialize.Add(stop, middleware.Before) },
		},
	})
}

// sdkValidation calls the reference client's operation for params (found by reflection from the
// input type's name) and returns the SDK's validation error, unwrapped from its
// *smithy.OperationError, or nil when the call got past validation to the stop middleware.
func sdkValidation(t *testing.T, client *sqs.Client, params any) error {
	t.Helper()
	op := strings.TrimSuffix(reflect.TypeOf(params).Elem().Name(), "Input")
	method := reflect.ValueOf(client).MethodByName(op)
	require.True(t, method.IsValid(), "no client method for %T", params)
	results := method.Call([]reflect.Value{reflect.ValueOf(context.Background()), reflect.ValueOf(params)})
	err, _ := results[1].Interface().(error)
	require.Error(t, err, "%s: the stop middleware must end every call", op)
	if errors.Is(err, errStopBeforeSerialize) {
		return nil
	}
	require.ErrorAs(t, err, new(smithy.InvalidParamsError), "%s failed before serializing, but not in validation", op)
	var opErr *smithy.OperationError
	require.ErrorAs(t, err, &opErr)
	require.IsType(t, smithy.InvalidParamsError{}, opErr.Err, "%s: validation error must be the direct cause", op)
	return opErr.Err
}

// requireSameValidation requires validateInput(params) to agree with the real client: nil when
// the SDK lets the call through, otherwise a smithy.InvalidParamsError with byte-identical text
// (or, when unordered, the same header and the same set of lines: the SDK reports several bad
// members of one map in Go's random map order).
func requireSameValidation(t *testing.T, client *sqs.Client, params any, unordered bool) {
	t.Helper()
	want := sdkValidation(t, client, params)
	got := validateInput(params)
	if want == nil {
		require.NoError(t, got, "the SDK accepts %T %+v", params, params)
		return
	}
	require.Error(t, got, "the SDK rejects %T with %q", params, want)
	require.IsType(t, smithy.InvalidParamsError{}, got)
	if unordered {
		require.Equal(t, sortedLines(want.Error()), sortedLines(got.Error()))
		require.Equal(t, got.Error(), validateInput(params).Error(), "our order must be deterministic")
	} else {
		require.Equal(t, want.Error(), got.Error())
	}
	wantErrs, gotErrs := want.(smithy.InvalidParamsError).Errs(), got.(smithy.InvalidParamsError).Errs()
	require.Len(t, gotErrs, len(wantErrs))
	for i := range wantErrs {
		require.IsType(t, wantErrs[i], gotErrs[i])
	}
}

func sortedLines(s string) []string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines[1:])
	return lines
}

// clientOperations lists the input type of every operation method of *sqs.Client, i.e. each
// method shaped func(ctx, *<Op>Input, ...func(*sqs.Options)) (*<Op>Output, error).
func clientOperations() []reflect.Type {
	var inputs []reflect.Type
	ct := reflect.TypeOf(&sqs.Client{})
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		if m.Type.NumIn() == 4 && m.Type.In(2).Kind() == reflect.Pointer && m.Type.In(2).Elem().Name() == m.Name+"Input" {
			inputs = append(inputs, m.Type.In(2))
		}
	}
	return inputs
}

const testQueueURL = "https://sqs.us-east-1.amazonaws.com/123456789012/q"

var (
	goodAttr    = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String("v")}
	untypedAttr = types.MessageAttributeValue{StringValue: aws.String("v")}
	goodSys     = types.MessageSystemAttributeValue{DataType: aws.String("String"), StringValue: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793")}
	untypedSys  = types.MessageSystemAttributeValue{StringValue: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793")}
)

func sendEntry(id, body string) types.SendMessageBatchRequestEntry {
	e := types.SendMessageBatchRequestEntry{
		MessageAttributes:       map[string]types.MessageAttributeValue{"a": goodAttr},
		MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": goodSys},
	}
	if id != "" {
		e.Id = aws.String(id)
	}
	if body != "" {
		e.MessageBody = aws.String(body)
	}
	return e
}

func deleteEntry(id, handle string) types.DeleteMessageBatchRequestEntry {
	var e types.DeleteMessageBatchRequestEntry
	if id != "" {
		e.Id = aws.String(id)
	}
	if handle != "" {
		e.ReceiptHandle = aws.String(handle)
	}
	return e
}

func changeEntry(id, handle string) types.ChangeMessageVisibilityBatchRequestEntry {
	e := types.ChangeMessageVisibilityBatchRequestEntry{VisibilityTimeout: 30}
	if id != "" {
		e.Id = aws.String(id)
	}
	if handle != "" {
		e.ReceiptHandle = aws.String(handle)
	}
	return e
}

// validInputs has one input per operation with every member set, all of which pass validation.
func validInputs() []any {
	s := aws.String
	return []any{
		&sqs.AddPermissionInput{QueueUrl: s(testQueueURL), Label: s("l"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage"}},
		&sqs.CancelMessageMoveTaskInput{TaskHandle: s("h")},
		&sqs.ChangeMessageVisibilityInput{QueueUrl: s(testQueueURL), ReceiptHandle: s("rh"), VisibilityTimeout: 10},
		&sqs.ChangeMessageVisibilityBatchInput{QueueUrl: s(testQueueURL), Entries: []types.ChangeMessageVisibilityBatchRequestEntry{changeEntry("0", "rh")}},
		&sqs.CreateQueueInput{QueueName: s("q"), Attributes: map[string]string{"DelaySeconds": "0"}, Tags: map[string]string{"t": "v"}},
		&sqs.DeleteMessageInput{QueueUrl: s(testQueueURL), ReceiptHandle: s("rh")},
		&sqs.DeleteMessageBatchInput{QueueUrl: s(testQueueURL), Entries: []types.DeleteMessageBatchRequestEntry{deleteEntry("0", "rh")}},
		&sqs.DeleteQueueInput{QueueUrl: s(testQueueURL)},
		&sqs.GetQueueAttributesInput{QueueUrl: s(testQueueURL), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}},
		&sqs.GetQueueUrlInput{QueueName: s("q"), QueueOwnerAWSAccountId: s("123456789012")},
		&sqs.ListDeadLetterSourceQueuesInput{QueueUrl: s(testQueueURL), MaxResults: aws.Int32(10), NextToken: s("n")},
		&sqs.ListMessageMoveTasksInput{SourceArn: s("arn:aws:sqs:us-east-1:123456789012:dlq"), MaxResults: aws.Int32(10)},
		&sqs.ListQueueTagsInput{QueueUrl: s(testQueueURL)},
		&sqs.ListQueuesInput{MaxResults: aws.Int32(10), NextToken: s("n"), QueueNamePrefix: s("q")},
		&sqs.PurgeQueueInput{QueueUrl: s(testQueueURL)},
		&sqs.ReceiveMessageInput{
			//lint:ignore SA1019 every member of the input, the deprecated AttributeNames too
			QueueUrl: s(testQueueURL), AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll},
			MaxNumberOfMessages: 10, MessageAttributeNames: []string{"All"},
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
			ReceiveRequestAttemptId:     s("a"), VisibilityTimeout: 30, WaitTimeSeconds: 1,
		},
		&sqs.RemovePermissionInput{QueueUrl: s(testQueueURL), Label: s("l")},
		&sqs.SendMessageInput{
			QueueUrl: s(testQueueURL), MessageBody: s("body"), DelaySeconds: 1,
			MessageAttributes:      map[string]types.MessageAttributeValue{"a": goodAttr},
			MessageDeduplicationId: s("d"), MessageGroupId: s("g"),
			MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": goodSys},
		},
		&sqs.SendMessageBatchInput{QueueUrl: s(testQueueURL), Entries: []types.SendMessageBatchRequestEntry{sendEntry("0", "b")}},
		&sqs.SetQueueAttributesInput{QueueUrl: s(testQueueURL), Attributes: map[string]string{"DelaySeconds": "0"}},
		&sqs.StartMessageMoveTaskInput{SourceArn: s("arn:aws:sqs:us-east-1:123456789012:dlq"), DestinationArn: s("arn:aws:sqs:us-east-1:123456789012:q"), MaxNumberOfMessagesPerSecond: aws.Int32(5)},
		&sqs.TagQueueInput{QueueUrl: s(testQueueURL), Tags: map[string]string{"t": "v"}},
		&sqs.UntagQueueInput{QueueUrl: s(testQueueURL), TagKeys: []string{"t"}},
	}
}

// memberStateVariants derives, from a fully valid input, one input for every combination of its
// top-level nillable members being as given, nil, or empty (a pointer to the zero value, or an
// empty non-nil slice or map). That covers each member missing alone and together, and nil
// versus empty, without the test restating which members are required.
func memberStateVariants(full any) []any {
	base := reflect.ValueOf(full).Elem()
	var fields []int
	for i := range base.NumField() {
		switch base.Type().Field(i).Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			if base.Type().Field(i).IsExported() {
				fields = append(fields, i)
			}
		}
	}
	const states = 3 // as given, nil, empty
	total := 1
	for range fields {
		total *= states
	}
	variants := make([]any, 0, total)
	for n := range total {
		v := reflect.New(base.Type())
		v.Elem().Set(base)
		for _, i := range fields {
			f := v.Elem().Field(i)
			switch n % states {
			case 1:
				f.SetZero()
			case 2:
				switch f.Kind() {
				case reflect.Pointer:
					f.Set(reflect.New(f.Type().Elem()))
				case reflect.Slice:
					f.Set(reflect.MakeSlice(f.Type(), 0, 0))
				case reflect.Map:
					f.Set(reflect.MakeMap(f.Type()))
				}
			}
			n /= states
		}
		variants = append(variants, v.Interface())
	}
	return variants
}

type validationCase struct {
	name      string
	params    any
	unordered bool // several bad members in one map: the SDK's order is random
}

// nestedCases covers batch entries and attribute maps, which the generated state variants only
// set whole.
func nestedCases() []validationCase {
	s := aws.String
	attrs := func(kv ...any) map[string]types.MessageAttributeValue {
		m := map[string]types.MessageAttributeValue{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(types.MessageAttributeValue)
		}
		return m
	}
	sysAttrs := func(v types.MessageSystemAttributeValue) map[string]types.MessageSystemAttributeValue {
		return map[string]types.MessageSystemAttributeValue{"AWSTraceHeader": v}
	}
	withAttrs := func(e types.SendMessageBatchRequestEntry, a map[string]types.MessageAttributeValue, sys map[string]types.MessageSystemAttributeValue) types.SendMessageBatchRequestEntry {
		e.MessageAttributes, e.MessageSystemAttributes = a, sys
		return e
	}
	tenEntries := func() []types.SendMessageBatchRequestEntry {
		var es []types.SendMessageBatchRequestEntry
		for i := range 12 {
			es = append(es, sendEntry(fmt.Sprint(i), "b"))
		}
		return es
	}
	lateBad := tenEntries()
	lateBad[9].Id = nil
	lateBad[11] = types.SendMessageBatchRequestEntry{}

	return []validationCase{
		{"SendMessage/message attribute missing DataType", &sqs.SendMessageInput{QueueUrl: s(testQueueURL), MessageBody: s("b"), MessageAttributes: attrs("a", goodAttr, "k", untypedAttr)}, false},
		{"SendMessage/system attribute missing DataType", &sqs.SendMessageInput{QueueUrl: s(testQueueURL), MessageBody: s("b"), MessageSystemAttributes: sysAttrs(untypedSys)}, false},
		{"SendMessage/everything missing", &sqs.SendMessageInput{MessageAttributes: attrs("k", untypedAttr), MessageSystemAttributes: sysAttrs(untypedSys)}, false},
		{"SendMessage/attribute with only DataType passes", &sqs.SendMessageInput{QueueUrl: s(testQueueURL), MessageBody: s("b"), MessageAttributes: attrs("k", types.MessageAttributeValue{DataType: s("String")})}, false},
		{"SendMessage/zero-value attributes", &sqs.SendMessageInput{QueueUrl: s(testQueueURL), MessageBody: s("b"), MessageAttributes: attrs("", types.MessageAttributeValue{}), MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"x": {}}}, false},
		{"SendMessage/key needing quotes", &sqs.SendMessageInput{QueueUrl: s(testQueueURL), MessageBody: s("b"), MessageAttributes: attrs("we\"ird\tkey\\", untypedAttr)}, false},
		{"SendMessage/non-ASCII key", &sqs.SendMessageInput{QueueUrl: s(testQueueURL), MessageBody: s("b"), MessageAttributes: attrs("ключ\u00a0✓", untypedAttr)}, false},
		{"SendMessage/several bad message attributes", &sqs.SendMessageInput{QueueUrl: s(testQueueURL), MessageAttributes: attrs("c", untypedAttr, "a", untypedAttr, "m", goodAttr, "b", untypedAttr)}, true},

		{"SendMessageBatch/nil entries", &sqs.SendMessageBatchInput{QueueUrl: s(testQueueURL)}, false},
		{"SendMessageBatch/nil entries and queue", &sqs.SendMessageBatchInput{}, false},
		{"SendMessageBatch/empty entries pass", &sqs.SendMessageBatchInput{QueueUrl: s(testQueueURL), Entries: []types.SendMessageBatchRequestEntry{}}, false},
		{"SendMessageBatch/missing Id and MessageBody at several indices", &sqs.SendMessageBatchInput{QueueUrl: s(testQueueURL), Entries: []types.SendMessageBatchRequestEntry{
			sendEntry("0", "b"), sendEntry("", "b"), sendEntry("2", "b"), sendEntry("3", ""), sendEntry("", ""),
		}}, false},
		{"SendMessageBatch/missing queue and bad first entry", &sqs.SendMessageBatchInput{Entries: []types.SendMessageBatchRequestEntry{sendEntry("", ""), sendEntry("1", "b")}}, false},
		{"SendMessageBatch/entry message attribute missing DataType", &sqs.SendMessageBatchInput{QueueUrl: s(testQueueURL), Entries: []types.SendMessageBatchRequestEntry{
			sendEntry("0", "b"), withAttrs(sendEntry("1", "b"), attrs("k", untypedAttr), nil),
		}}, false},
		{"SendMessageBatch/entry system attribute missing DataType", &sqs.SendMessageBatchInput{QueueUrl: s(testQueueURL), Entries: []types.SendMessageBatchRequestEntry{
			withAttrs(sendEntry("0", "b"), nil, sysAttrs(untypedSys)),
		}}, false},
		{"SendMessageBatch/entry with every kind of problem", &sqs.SendMessageBatchInput{Entries: []types.SendMessageBatchRequestEntry{
			sendEntry("0", "b"), sendEntry("1", ""), withAttrs(sendEntry("", ""), attrs("a", goodAttr, "k", untypedAttr), sysAttrs(untypedSys)), sendEntry("", "b"),
		}}, false},
		{"SendMessageBatch/zero-value entries", &sqs.SendMessageBatchInput{QueueUrl: s(testQueueURL), Entries: make([]types.SendMessageBatchRequestEntry, 3)}, false},
		{"SendMessageBatch/two-digit indices", &sqs.SendMessageBatchInput{QueueUrl: s(testQueueURL), Entries: lateBad}, false},
		{"SendMessageBatch/empty entry maps pass", &sqs.SendMessageBatchInput{QueueUrl: s(testQueueURL), Entries: []types.SendMessageBatchRequestEntry{
			withAttrs(sendEntry("0", "b"), attrs(), map[string]types.MessageSystemAttributeValue{}),
		}}, false},
		{"SendMessageBatch/several bad attributes in one entry", &sqs.SendMessageBatchInput{QueueUrl: s(testQueueURL), Entries: []types.SendMessageBatchRequestEntry{
			withAttrs(sendEntry("0", ""), attrs("z", untypedAttr, "y", untypedAttr), sysAttrs(untypedSys)), sendEntry("", "b"),
		}}, true},

		{"DeleteMessageBatch/nil entries", &sqs.DeleteMessageBatchInput{QueueUrl: s(testQueueURL)}, false},
		{"DeleteMessageBatch/empty entries pass", &sqs.DeleteMessageBatchInput{QueueUrl: s(testQueueURL), Entries: []types.DeleteMessageBatchRequestEntry{}}, false},
		{"DeleteMessageBatch/missing Id and ReceiptHandle at several indices", &sqs.DeleteMessageBatchInput{QueueUrl: s(testQueueURL), Entries: []types.DeleteMessageBatchRequestEntry{
			deleteEntry("0", "rh"), deleteEntry("", "rh"), deleteEntry("2", ""), deleteEntry("", ""), deleteEntry("4", "rh"),
		}}, false},
		{"DeleteMessageBatch/missing queue and bad last entry", &sqs.DeleteMessageBatchInput{Entries: []types.DeleteMessageBatchRequestEntry{deleteEntry("0", "rh"), {}}}, false},
		{"DeleteMessageBatch/empty strings are present", &sqs.DeleteMessageBatchInput{QueueUrl: s(""), Entries: []types.DeleteMessageBatchRequestEntry{{Id: s(""), ReceiptHandle: s("")}}}, false},

		{"ChangeMessageVisibilityBatch/nil entries", &sqs.ChangeMessageVisibilityBatchInput{}, false},
		{"ChangeMessageVisibilityBatch/empty entries pass", &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: s(testQueueURL), Entries: []types.ChangeMessageVisibilityBatchRequestEntry{}}, false},
		{"ChangeMessageVisibilityBatch/missing Id and ReceiptHandle at several indices", &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: s(testQueueURL), Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
			changeEntry("", ""), changeEntry("1", "rh"), changeEntry("2", ""), changeEntry("", "rh"),
		}}, false},
		{"ChangeMessageVisibilityBatch/missing queue and bad entry", &sqs.ChangeMessageVisibilityBatchInput{Entries: []types.ChangeMessageVisibilityBatchRequestEntry{changeEntry("0", "")}}, false},
	}
}

func TestValidateInputMatchesSDK(t *testing.T) {
	client := newReferenceClient()

	ops := clientOperations()
	require.Len(t, ops, 23, "sqs v1.53.0 has 23 operations")
	valid := validInputs()
	var covered []reflect.Type
	for _, in := range valid {
		covered = append(covered, reflect.TypeOf(in))
	}
	require.ElementsMatch(t, ops, covered, "validInputs must hold one input per client operation")

	t.Run("per-operation member states", func(t *testing.T) {
		for _, full := range valid {
			op := reflect.TypeOf(full).Elem().Name()
			t.Run(op, func(t *testing.T) {
				requireSameValidation(t, client, full, false)
				requireSameValidation(t, client, reflect.New(reflect.TypeOf(full).Elem()).Interface(), false)
				// A nil input: the client substitutes the zero value before validating.
				requireSameValidation(t, client, reflect.Zero(reflect.TypeOf(full)).Interface(), false)
				for i, variant := range memberStateVariants(full) {
					t.Run(fmt.Sprint(i), func(t *testing.T) { requireSameValidation(t, client, variant, false) })
				}
			})
		}
	})

	t.Run("entries and maps", func(t *testing.T) {
		for _, tc := range nestedCases() {
			t.Run(tc.name, func(t *testing.T) { requireSameValidation(t, client, tc.params, tc.unordered) })
		}
	})

	t.Run("random inputs", func(t *testing.T) {
		r := rand.New(rand.NewSource(1))
		for _, full := range valid {
			typ := reflect.TypeOf(full).Elem()
			t.Run(typ.Name(), func(t *testing.T) {
				for i := range 60 {
					in := reflect.New(typ)
					fillRandom(r, in.Elem())
					t.Run(fmt.Sprint(i), func(t *testing.T) { requireSameValidation(t, client, in.Interface(), false) })
				}
			})
		}
	})
}

// fillRandom sets v, recursively, to random values in which each pointer, slice and map is often
// nil or empty. At most one member of a map of attribute values lacks a DataType, so the SDK's
// error text does not depend on map iteration order.
func fillRandom(r *rand.Rand, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if r.Intn(3) > 0 {
			p := reflect.New(v.Type().Elem())
			fillRandom(r, p.Elem())
			v.Set(p)
		}
	case reflect.String:
		v.SetString([]string{"", "x", "k"}[r.Intn(3)])
	case reflect.Int32, reflect.Int64, reflect.Int:
		v.SetInt(r.Int63n(20))
	case reflect.Uint8:
		v.SetUint(uint64(r.Intn(256)))
	case reflect.Bool:
		v.SetBool(r.Intn(2) == 0)
	case reflect.Slice:
		if n := r.Intn(5) - 1; n >= 0 {
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				fillRandom(r, s.Index(i))
			}
			v.Set(s)
		}
	case reflect.Map:
		n := r.Intn(5) - 1
		if n < 0 {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), n)
		keys := []string{"a", "b", "k", `q"uo\te`, "ключ"}
		badSeen := false
		for range n {
			val := reflect.New(v.Type().Elem()).Elem()
			fillRandom(r, val)
			if val.Kind() == reflect.Struct {
				if dt := val.FieldByName("DataType"); dt.IsValid() && dt.IsNil() {
					if badSeen {
						dt.Set(reflect.ValueOf(aws.String("String")))
					}
					badSeen = true
				}
			}
			k := keys[r.Intn(len(keys))]
			if m.MapIndex(reflect.ValueOf(k)).IsValid() {
				continue // keep the first value, so the one-bad-member rule holds
			}
			m.SetMapIndex(reflect.ValueOf(k), val)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillRandom(r, v.Field(i))
			}
		}
	}
}

func TestValidateInputErrorText(t *testing.T) {
	assert.EqualError(t, validateInput(&sqs.SendMessageInput{}),
		"2 validation error(s) found.\n- missing required field, SendMessageInput.QueueUrl.\n- missing required field, SendMessageInput.MessageBody.\n")

	err := validateInput(&sqs.SendMessageBatchInput{QueueUrl: aws.String(testQueueURL), Entries: []types.SendMessageBatchRequestEntry{
		{MessageBody: aws.String("b")},
		{Id: aws.String("1"), MessageBody: aws.String("b"), MessageAttributes: map[string]types.MessageAttributeValue{"k": untypedAttr}},
	}})
	assert.EqualError(t, err, "2 validation error(s) found.\n"+
		"- missing required field, SendMessageBatchInput.Entries[0].Id.\n"+
		"- missing required field, SendMessageBatchInput.Entries[1].MessageAttributes[\"k\"].DataType.\n")
	var ipe smithy.InvalidParamsError
	require.ErrorAs(t, err, &ipe)
	var fields []string
	for _, e := range ipe.Errs() {
		var pre *smithy.ParamRequiredError
		require.ErrorAs(t, e, &pre)
		fields = append(fields, pre.Field())
	}
	assert.Equal(t, []string{"SendMessageBatchInput.Entries[0].Id", `SendMessageBatchInput.Entries[1].MessageAttributes["k"].DataType`}, fields)

	assert.NoError(t, validateInput(&sqs.ListQueuesInput{}), "ListQueues has no required members")
	assert.NoError(t, validateInput((*sqs.ListQueuesInput)(nil)))
	assert.NoError(t, validateInput(&sqs.SendMessageOutput{}), "unknown types are not validated")
	assert.NoError(t, validateInput(nil))
}

func TestValidateInputReportsMapMembersInSortedKeyOrder(t *testing.T) {
	in := &sqs.SendMessageInput{
		QueueUrl: aws.String(testQueueURL), MessageBody: aws.String("b"),
		MessageAttributes:       map[string]types.MessageAttributeValue{"c": untypedAttr, "a": untypedAttr, "ok": goodAttr, "b": untypedAttr},
		MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{"Z": untypedSys, "Y": untypedSys},
	}
	want := "5 validation error(s) found.\n" +
		"- missing required field, SendMessageInput.MessageAttributes[\"a\"].DataType.\n" +
		"- missing required field, SendMessageInput.MessageAttributes[\"b\"].DataType.\n" +
		"- missing required field, SendMessageInput.MessageAttributes[\"c\"].DataType.\n" +
		"- missing required field, SendMessageInput.MessageSystemAttributes[\"Y\"].DataType.\n" +
		"- missing required field, SendMessageInput.MessageSystemAttributes[\"Z\"].DataType.\n"
	for range 20 {
		require.EqualError(t, validateInput(in), want)
	}
}

func TestValidateInputValidPathDoesNotAllocate(t *testing.T) {
	inputs := validInputs()
	batch := &sqs.SendMessageBatchInput{QueueUrl: aws.String(testQueueURL)}
	for i := range 10 {
		batch.Entries = append(batch.Entries, sendEntry(fmt.Sprint(i), "b"))
	}
	deletes := &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(testQueueURL)}
	changes := &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(testQueueURL)}
	for i := range 10 {
		deletes.Entries = append(deletes.Entries, deleteEntry(fmt.Sprint(i), "rh"))
		changes.Entries = append(changes.Entries, changeEntry(fmt.Sprint(i), "rh"))
	}
	inputs = append(inputs, batch, deletes, changes,
		&sqs.SendMessageInput{QueueUrl: aws.String(testQueueURL), MessageBody: aws.String("b")},
		&sqs.SendMessageInput{QueueUrl: aws.String(testQueueURL), MessageBody: aws.String("b"),
			MessageAttributes: map[string]types.MessageAttributeValue{"a": goodAttr, "b": goodAttr, "c": goodAttr}},
		&sqs.ReceiveMessageInput{QueueUrl: aws.String(testQueueURL)},
	)
	for _, in := range inputs {
		require.NoError(t, validateInput(in))
	}
	allocs := testing.AllocsPerRun(200, func() {
		for _, in := range inputs {
			if validateInput(in) != nil {
				panic("valid input rejected")
			}
		}
	})
	assert.Zero(t, allocs, "allocations per pass over %d valid inputs", len(inputs))
}
