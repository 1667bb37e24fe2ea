package snsfake

import (
	"context"
	"strconv"
	"strings"

	"github.com/sqsfake/sqsfake/internal/reqlog"
)

// What the server's -v log says of a publish: each delivery a queue refused, so that a
// delivery lost to a queue's policy is seen without reading /_sqsfake/topics. The request's
// context carries the log's note (internal/reqlog) only on the server; elsewhere nothing is
// noted and nothing costs more than a context lookup a publish.

// logDelivery notes a delivery that did not reach its queue in the log of the request whose
// context is ctx, if it keeps one.
func logDelivery(ctx context.Context, topicArn, kind, messageID string, d *Delivery) {
	if d.Outcome != Lost && d.Outcome != DeadLettered || !reqlog.Noting(ctx) {
		return
	}
	var b strings.Builder
	b.WriteString("SNS ")
	b.WriteString(kind)
	b.WriteByte(' ')
	b.WriteString(messageID)
	b.WriteString(" of ")
	b.WriteString(topicArn)
	b.WriteString(" → ")
	b.WriteString(d.Endpoint)
	b.WriteString(": ")
	b.WriteString(d.Outcome.String())
	if d.Outcome == DeadLettered {
		b.WriteString(" into " + d.DeadLetterQueue)
	}
	// SQS's error may quote what a client sent: quoted, it cannot forge a log line.
	b.WriteString(", " + strconv.Quote(d.Reason))
	if strings.HasPrefix(d.Reason, "AccessDenied") {
		b.WriteString(" — the queue's Policy must allow sns.amazonaws.com sqs:SendMessage with aws:SourceArn " + topicArn +
			" (snsfake.SubscribeQueue writes it; docs/wire.md, \"SNS into a queue\", for the CLI and boto3)")
	}
	reqlog.AddLine(ctx, b.String())
}
