package snsfake

import (
	"context"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// batchForm is a PublishBatch form of n entries, each with a message attribute.
func batchForm(n int) string {
	var b strings.Builder
	b.WriteString("Action=PublishBatch&Version=2010-03-31&TopicArn=" + url.QueryEscape("arn:aws:sns:us-east-1:123456789012:t"))
	for i := 1; i <= n; i++ {
		p := "&PublishBatchRequestEntries.member." + strconv.Itoa(i)
		b.WriteString(p + ".Id=e" + strconv.Itoa(i) + p + ".Message=m%C3%A9" + p + ".MessageAttributes.entry.1.Name=a" +
			p + ".MessageAttributes.entry.1.Value.DataType=String" + p + ".MessageAttributes.entry.1.Value.StringValue=v")
	}
	return b.String()
}

func decodeForm(t testing.TB, form string) *sns.PublishBatchInput {
	p, e := parseParams(context.Background(), "", []byte(form), false)
	require.Nil(t, e)
	in := new(sns.PublishBatchInput)
	require.NoError(t, p.decode("", reflect.ValueOf(in).Elem()))
	return in
}

func TestTheDecoderReadsEveryEntry(t *testing.T) {
	in := decodeForm(t, batchForm(3)+"&PublishBatchRequestEntries.member.5.Id=gap&PublishBatchRequestEntries.member.01.Id=zero")
	require.Len(t, in.PublishBatchRequestEntries, 3, "entries 1 to 3; 5 follows a gap, 01 is no index")
	for i, e := range in.PublishBatchRequestEntries {
		assert.Equal(t, "e"+strconv.Itoa(i+1), *e.Id)
		assert.Equal(t, "mé", *e.Message)
		assert.Equal(t, "v", *e.MessageAttributes["a"].StringValue)
	}
	p, e := parseParams(context.Background(), "Name=query&Other=q", []byte("Name=body&Name=second"), false)
	require.Nil(t, e)
	assert.Equal(t, []string{"body", "q"}, []string{p.get("Name"), p.get("Other")}, "a body's first value wins")
	_, e = parseParams(context.Background(), "", []byte("Name=%zz"), false)
	assert.Equal(t, "MalformedQueryString", e.code)
}

// BenchmarkDecodePublishBatch decodes PublishBatch forms of 10, 1,000 and 10,000 entries: its
// cost a byte is the same at each size (linear), where the rescanning decoder's grew with
// the entries (a 9,997-entry form took 0.8–3.5 s).
func BenchmarkDecodePublishBatch(b *testing.B) {
	for _, n := range []int{10, 1_000, 10_000} {
		form := batchForm(n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(form)))
			b.ReportAllocs()
			for b.Loop() {
				decodeForm(b, form)
			}
		})
	}
}
