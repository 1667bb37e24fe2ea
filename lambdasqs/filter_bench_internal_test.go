package lambdasqs

import (
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// BenchmarkFilterMatch matches one record's body against three filters, the last of which
// matches: the per-record cost of FilterCriteria.
func BenchmarkFilterMatch(b *testing.B) {
	ps, err := compileFilters(FilterCriteria{Filters: []Filter{
		{Pattern: `{"body":{"kind":["refund"]}}`},
		{Pattern: `{"body":{"total":[{"numeric":[">",100]}]}}`},
		{Pattern: `{"body":{"kind":[{"prefix":"ord"}],"meta":{"region":["EU"]}}}`},
	}})
	if err != nil {
		b.Fatal(err)
	}
	rec := &events.SQSMessage{Body: `{"kind":"order","id":"ORD-42","total":25,"tags":["a","rush"],"meta":{"region":"EU"}}`}
	b.ReportAllocs()
	for b.Loop() {
		if !matchAny(ps, rec) {
			b.Fatal("no match")
		}
	}
}
