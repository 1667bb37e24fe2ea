package snsfake_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
)

// The cases AWS recorded that the fake answered otherwise (issue 29): LocalStack's
// AWS-validated SNS tests (tests/aws/services/sns/*.snapshot.json), each named after its
// test.

// test_publish_batch_exceptions (rec 2023-08): a batch's own checks come before its
// entries', so two entries of one Id without a MessageGroupId on a FIFO topic are
// BatchEntryIdsNotDistinct, not the missing group.
func TestRecordedPublishBatchExceptions(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t.fifo"), Attributes: map[string]string{"FifoTopic": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	sqsPart, _ := json.Marshal(map[string]string{"sqs": "test sqs"})
	for _, c := range []struct {
		name          string
		entries       []types.PublishBatchRequestEntry
		code, message string
	}{
		{"no-group-id", []types.PublishBatchRequestEntry{{Id: aws.String("1"), Message: aws.String("Test message without Group ID")}},
			"InvalidParameter", "Invalid parameter: The MessageGroupId parameter is required for FIFO topics"},
		{"too-many-msg", func() []types.PublishBatchRequestEntry {
			var es []types.PublishBatchRequestEntry
			for i := range 11 {
				es = append(es, types.PublishBatchRequestEntry{Id: aws.String("Id_" + string(rune('a'+i))), Message: aws.String("Too many messages")})
			}
			return es
		}(), "TooManyEntriesInBatchRequest", "The batch request contains more entries than permissible."},
		{"same-msg-id", []types.PublishBatchRequestEntry{{Id: aws.String("1"), Message: aws.String("Messages with the same ID")},
			{Id: aws.String("1"), Message: aws.String("Messages with the same ID")}},
			"BatchEntryIdsNotDistinct", "Two or more batch entries in the request have the same Id."},
		{"no-dedup-id", []types.PublishBatchRequestEntry{{Id: aws.String("1"), Message: aws.String("Test message without MessageDeduplicationId"),
			MessageGroupId: aws.String("msg1")}},
			"InvalidParameter", "Invalid parameter: The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"},
		{"no-default-key-json", []types.PublishBatchRequestEntry{{Id: aws.String("1"), Message: aws.String(string(sqsPart)), MessageStructure: aws.String("json")}},
			"InvalidParameter", "Invalid parameter: Message Structure - No default entry in JSON message body"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: tp.TopicArn, PublishBatchRequestEntries: c.entries})
			requireSNSError(t, err, c.code, c.message)
		})
	}
}
