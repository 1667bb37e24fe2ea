package scenario

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

const (
	jobs    = "https://sqs.us-east-1.amazonaws.com/123456789012/jobs"
	dlq     = "https://sqs.us-east-1.amazonaws.com/123456789012/dlq"
	fifo    = "https://sqs.us-east-1.amazonaws.com/123456789012/orders.fifo"
	missing = "https://sqs.us-east-1.amazonaws.com/123456789012/missing"
	dlqARN  = "arn:aws:sqs:us-east-1:123456789012:dlq"
	jobsARN = "arn:aws:sqs:us-east-1:123456789012:jobs"
)

// q quotes s as a JSON string.
func q(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func entries(n int) string {
	var e []string
	for i := range n {
		e = append(e, fmt.Sprintf(`{"Id":"e%d","MessageBody":"batch %d"}`, i, i))
	}
	return "[" + strings.Join(e, ",") + "]"
}

// Corpus is the scenario every query-protocol SDK runs; it mirrors the sections of the main
// module's differential corpus. Steps share one server and its clock, in order.
var Corpus = []Step{
	// Queues.
	{Name: "create dlq", Op: "CreateQueue", Input: `{"QueueName":"dlq"}`, Want: "ok"},
	{Name: "create jobs with redrive and tags", Op: "CreateQueue", Want: "ok",
		Input: `{"QueueName":"jobs","Attributes":{"VisibilityTimeout":"30","RedrivePolicy":` +
			q(`{"deadLetterTargetArn":"`+dlqARN+`","maxReceiveCount":"2"}`) + `},"Tags":{"team":"a"}}`},
	{Name: "create jobs again, same attributes", Op: "CreateQueue", Input: `{"QueueName":"jobs","Attributes":{"VisibilityTimeout":"30"}}`, Want: "ok"},
	{Name: "create jobs again, other attributes", Op: "CreateQueue", Input: `{"QueueName":"jobs","Attributes":{"VisibilityTimeout":"60"}}`, Want: "QueueAlreadyExists"},
	{Name: "create with a bad name", Op: "CreateQueue", Input: `{"QueueName":"bad name!"}`, Want: "InvalidParameterValue"},
	{Name: "create with an unknown attribute", Op: "CreateQueue", Input: `{"QueueName":"other","Attributes":{"Bogus":"1"}}`, Want: "InvalidAttributeName"},
	{Name: "create with a bad attribute value", Op: "CreateQueue", Input: `{"QueueName":"other","Attributes":{"DelaySeconds":"901"}}`, Want: "InvalidAttributeValue"},
	{Name: "create without a name", Op: "CreateQueue", Input: `{}`, Want: "MissingParameter", Client: true},
	{Name: "create a FIFO queue", Op: "CreateQueue", Input: `{"QueueName":"orders.fifo","Attributes":{"FifoQueue":"true"}}`, Want: "ok"},
	{Name: "get url", Op: "GetQueueUrl", Input: `{"QueueName":"jobs"}`, Want: "ok"},
	{Name: "get url of a missing queue", Op: "GetQueueUrl", Input: `{"QueueName":"missing"}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},
	{Name: "get url of another account", Op: "GetQueueUrl", Input: `{"QueueName":"jobs","QueueOwnerAWSAccountId":"999999999999"}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},
	{Name: "list queues", Op: "ListQueues", Input: `{}`, Want: "ok"},
	{Name: "list queues by prefix", Op: "ListQueues", Input: `{"QueueNamePrefix":"j"}`, Want: "ok"},
	{Name: "list the first page of queues", Op: "ListQueues", Input: `{"MaxResults":1}`, Want: "ok", Save: map[string]string{"next": "NextToken"}},
	{Name: "list the next page of queues", Op: "ListQueues", Input: `{"MaxResults":1,"NextToken":"${next}"}`, Want: "ok"},
	{Name: "list queues with MaxResults 0", Op: "ListQueues", Input: `{"MaxResults":0}`, Want: "InvalidParameterValue"},
	{Name: "list queues with a bad token", Op: "ListQueues", Input: `{"MaxResults":1,"NextToken":"!!!"}`, Want: "InvalidParameterValue"},
	{Name: "get all attributes", Op: "GetQueueAttributes", Input: `{"QueueUrl":"` + jobs + `","AttributeNames":["All"]}`, Want: "ok"},
	{Name: "get some attributes", Op: "GetQueueAttributes", Input: `{"QueueUrl":"` + jobs + `","AttributeNames":["QueueArn","VisibilityTimeout"]}`, Want: "ok"},
	{Name: "get an unknown attribute", Op: "GetQueueAttributes", Input: `{"QueueUrl":"` + jobs + `","AttributeNames":["Bogus"]}`, Want: "InvalidAttributeName"},
	{Name: "get attributes of a missing queue", Op: "GetQueueAttributes", Input: `{"QueueUrl":"` + missing + `"}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},
	{Name: "set an attribute", Op: "SetQueueAttributes", Input: `{"QueueUrl":"jobs","Attributes":{"MaximumMessageSize":"2048"}}`, Want: "ok"},
	{Name: "set a bad attribute value", Op: "SetQueueAttributes", Input: `{"QueueUrl":"` + jobs + `","Attributes":{"VisibilityTimeout":"-1"}}`, Want: "InvalidAttributeValue"},
	{Name: "set an unknown attribute", Op: "SetQueueAttributes", Input: `{"QueueUrl":"` + jobs + `","Attributes":{"Bogus":"1"}}`, Want: "InvalidAttributeName"},
	{Name: "set attributes without attributes", Op: "SetQueueAttributes", Input: `{"QueueUrl":"` + jobs + `"}`, Want: "MissingParameter", Client: true},

	// Tags and permissions.
	{Name: "tag", Op: "TagQueue", Input: `{"QueueUrl":"` + jobs + `","Tags":{"env":"test","owner":"me"}}`, Want: "ok"},
	{Name: "tag a missing queue", Op: "TagQueue", Input: `{"QueueUrl":"` + missing + `","Tags":{"env":"test"}}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},
	{Name: "untag", Op: "UntagQueue", Input: `{"QueueUrl":"` + jobs + `","TagKeys":["owner"]}`, Want: "ok"},
	{Name: "untag an empty list of keys", Op: "UntagQueue", Input: `{"QueueUrl":"` + jobs + `","TagKeys":[]}`, Want: "InvalidParameterValue"},
	{Name: "untag a missing queue", Op: "UntagQueue", Input: `{"QueueUrl":"` + missing + `","TagKeys":["owner"]}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},
	{Name: "list tags", Op: "ListQueueTags", Input: `{"QueueUrl":"` + jobs + `"}`, Want: "ok"},
	{Name: "list tags of a missing queue", Op: "ListQueueTags", Input: `{"QueueUrl":"` + missing + `"}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},
	{Name: "add permission", Op: "AddPermission", Want: "ok",
		Input: `{"QueueUrl":"` + jobs + `","Label":"p1","AWSAccountIds":["111122223333"],"Actions":["SendMessage","ReceiveMessage"]}`},
	{Name: "add permission with the same label", Op: "AddPermission", Want: "InvalidParameterValue",
		Input: `{"QueueUrl":"` + jobs + `","Label":"p1","AWSAccountIds":["111122223333"],"Actions":["SendMessage"]}`},
	{Name: "add permission without actions", Op: "AddPermission", Want: "MissingParameter", Client: true,
		Input: `{"QueueUrl":"` + jobs + `","Label":"p2","AWSAccountIds":["111122223333"]}`},
	{Name: "policy after add", Op: "GetQueueAttributes", Input: `{"QueueUrl":"` + jobs + `","AttributeNames":["Policy"]}`, Want: "ok"},
	{Name: "remove permission", Op: "RemovePermission", Input: `{"QueueUrl":"` + jobs + `","Label":"p1"}`, Want: "ok"},
	{Name: "remove an unknown permission", Op: "RemovePermission", Input: `{"QueueUrl":"` + jobs + `","Label":"nope"}`, Want: "InvalidParameterValue"},

	// Sending.
	{Name: "send with attributes", Op: "SendMessage", Want: "ok",
		Input: `{"QueueUrl":"` + jobs + `","MessageBody":"hello <world> & ünïcödé","MessageAttributes":{` +
			`"s":{"DataType":"String","StringValue":"x"},"n":{"DataType":"Number.int","StringValue":"42"},"b":{"DataType":"Binary","BinaryValue":"AAEC/w=="}},` +
			`"MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String","StringValue":"Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"}}}`},
	{Name: "send with a delay", Op: "SendMessage", Input: `{"QueueUrl":"` + jobs + `","MessageBody":"later","DelaySeconds":5}`, Want: "ok"},
	{Name: "send the characters XML escapes", Op: "SendMessage", Want: "ok",
		Input: `{"QueueUrl":"` + jobs + `","MessageBody":` + q("crlf\r\nlf\ncr\rtab\t<b>&amp;</b> ]]> \"'\U0001F600") + `}`},
	{Name: "send an empty body", Op: "SendMessage", Input: `{"QueueUrl":"` + jobs + `","MessageBody":""}`, Want: "MissingParameter"},
	{Name: "send a forbidden character", Op: "SendMessage", Input: `{"QueueUrl":"` + jobs + `","MessageBody":` + q("bell \a") + `}`, Want: "InvalidMessageContents"},
	{Name: "send a body over MaximumMessageSize", Op: "SendMessage", Input: `{"QueueUrl":"` + jobs + `","MessageBody":"` + strings.Repeat("x", 2049) + `"}`, Want: "InvalidParameterValue"},
	{Name: "send with a delay out of range", Op: "SendMessage", Input: `{"QueueUrl":"` + jobs + `","MessageBody":"x","DelaySeconds":901}`, Want: "InvalidParameterValue"},
	{Name: "send an attribute without DataType", Op: "SendMessage", Want: "MissingParameter", Client: true,
		Input: `{"QueueUrl":"` + jobs + `","MessageBody":"x","MessageAttributes":{"a":{"StringValue":"v"}}}`},
	{Name: "send an empty attribute value", Op: "SendMessage", Want: "InvalidParameterValue",
		Input: `{"QueueUrl":"` + jobs + `","MessageBody":"x","MessageAttributes":{"a":{"DataType":"String","StringValue":""}}}`},
	{Name: "send without a queue", Op: "SendMessage", Input: `{"MessageBody":"x"}`, Want: "MissingParameter", Client: true},
	{Name: "send to a missing queue", Op: "SendMessage", Input: `{"QueueUrl":"` + missing + `","MessageBody":"x"}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},
	{Name: "send a batch with a failing entry", Op: "SendMessageBatch", Want: "ok",
		Input: `{"QueueUrl":"` + jobs + `","Entries":[{"Id":"e0","MessageBody":"batch 0"},{"Id":"e1","MessageBody":"batch 1","DelaySeconds":1000},{"Id":"e2","MessageBody":"batch 2","MessageAttributes":{"k":{"DataType":"String","StringValue":"v"}}}]}`},
	{Name: "send a batch with repeated ids", Op: "SendMessageBatch", Want: "AWS.SimpleQueueService.BatchEntryIdsNotDistinct",
		Input: `{"QueueUrl":"` + jobs + `","Entries":[{"Id":"e0","MessageBody":"a"},{"Id":"e0","MessageBody":"b"}]}`},
	{Name: "send a batch of 11", Op: "SendMessageBatch", Input: `{"QueueUrl":"` + jobs + `","Entries":` + entries(11) + `}`, Want: "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"},
	{Name: "send an empty batch", Op: "SendMessageBatch", Input: `{"QueueUrl":"` + jobs + `","Entries":[]}`, Want: "AWS.SimpleQueueService.EmptyBatchRequest"},
	{Name: "send a batch with a bad entry id", Op: "SendMessageBatch", Input: `{"QueueUrl":"` + jobs + `","Entries":[{"Id":"bad id!","MessageBody":"x"}]}`, Want: "AWS.SimpleQueueService.InvalidBatchEntryId"},

	// Receiving, visibility, deleting.
	{Name: "receive everything with all attributes", Op: "ReceiveMessage", Want: "ok",
		Input: `{"QueueUrl":"` + jobs + `","MaxNumberOfMessages":10,"AttributeNames":["All"],"MessageAttributeNames":["All"]}`,
		Save:  map[string]string{"h0": "Messages.0.ReceiptHandle", "h1": "Messages.1.ReceiptHandle", "h2": "Messages.2.ReceiptHandle"}},
	{Name: "receive the delayed message with some attributes", Op: "ReceiveMessage", Advance: 5 * time.Second, Want: "ok",
		Input: `{"QueueUrl":"` + jobs + `","AttributeNames":["ApproximateReceiveCount","SentTimestamp"],"MessageAttributeNames":["s","n"]}`,
		Save:  map[string]string{"h3": "Messages.0.ReceiptHandle"}},
	{Name: "receive more than 10", Op: "ReceiveMessage", Input: `{"QueueUrl":"` + jobs + `","MaxNumberOfMessages":11}`, Want: "InvalidParameterValue"},
	{Name: "receive waiting 21 seconds", Op: "ReceiveMessage", Input: `{"QueueUrl":"` + jobs + `","WaitTimeSeconds":21}`, Want: "InvalidParameterValue"},
	{Name: "receive with a visibility over 12 hours", Op: "ReceiveMessage", Input: `{"QueueUrl":"` + jobs + `","VisibilityTimeout":43201}`, Want: "InvalidParameterValue"},
	{Name: "receive from a missing queue", Op: "ReceiveMessage", Input: `{"QueueUrl":"` + missing + `"}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},
	{Name: "change visibility", Op: "ChangeMessageVisibility", Input: `{"QueueUrl":"` + jobs + `","ReceiptHandle":"${h0}","VisibilityTimeout":60}`, Want: "ok"},
	{Name: "change visibility with a bad handle", Op: "ChangeMessageVisibility", Input: `{"QueueUrl":"` + jobs + `","ReceiptHandle":"not-a-receipt-handle","VisibilityTimeout":60}`, Want: "ReceiptHandleIsInvalid"},
	{Name: "change visibility in a batch with a failing entry", Op: "ChangeMessageVisibilityBatch", Want: "ok",
		Input: `{"QueueUrl":"` + jobs + `","Entries":[{"Id":"a","ReceiptHandle":"${h1}","VisibilityTimeout":45},{"Id":"b","ReceiptHandle":"not-a-receipt-handle","VisibilityTimeout":45}]}`},
	{Name: "change visibility in an empty batch", Op: "ChangeMessageVisibilityBatch", Input: `{"QueueUrl":"` + jobs + `","Entries":[]}`, Want: "AWS.SimpleQueueService.EmptyBatchRequest"},
	{Name: "delete", Op: "DeleteMessage", Input: `{"QueueUrl":"` + jobs + `","ReceiptHandle":"${h0}"}`, Want: "ok"},
	{Name: "delete with a bad handle", Op: "DeleteMessage", Input: `{"QueueUrl":"` + jobs + `","ReceiptHandle":"not-a-receipt-handle"}`, Want: "ReceiptHandleIsInvalid"},
	{Name: "delete in a batch with a failing entry", Op: "DeleteMessageBatch", Want: "ok",
		Input: `{"QueueUrl":"` + jobs + `","Entries":[{"Id":"a","ReceiptHandle":"${h1}"},{"Id":"b","ReceiptHandle":"not-a-receipt-handle"}]}`},
	{Name: "delete in a batch of 11", Op: "DeleteMessageBatch", Want: "AWS.SimpleQueueService.TooManyEntriesInBatchRequest",
		Input: `{"QueueUrl":"` + jobs + `","Entries":` + strings.ReplaceAll(strings.ReplaceAll(entries(11), "MessageBody", "ReceiptHandle"), "batch ", "h") + `}`},
	{Name: "a long poll that ends empty", Op: "ReceiveMessage", Input: `{"QueueUrl":"` + dlq + `","WaitTimeSeconds":3}`, Want: "ok", Parked: 3 * time.Second},

	// Dead letters: two more receives of what is left move it to the DLQ.
	{Name: "receive a second time", Op: "ReceiveMessage", Advance: 61 * time.Second, Input: `{"QueueUrl":"` + jobs + `","MaxNumberOfMessages":10,"AttributeNames":["ApproximateReceiveCount"]}`, Want: "ok"},
	{Name: "receive a third time: to the DLQ", Op: "ReceiveMessage", Advance: 31 * time.Second, Input: `{"QueueUrl":"` + jobs + `","MaxNumberOfMessages":10}`, Want: "ok"},
	{Name: "receive from the DLQ", Op: "ReceiveMessage", Want: "ok",
		Input: `{"QueueUrl":"` + dlq + `","MaxNumberOfMessages":10,"AttributeNames":["DeadLetterQueueSourceArn","ApproximateReceiveCount"]}`},
	{Name: "list dead-letter source queues", Op: "ListDeadLetterSourceQueues", Input: `{"QueueUrl":"` + dlq + `"}`, Want: "ok"},
	{Name: "list dead-letter source queues of a missing queue", Op: "ListDeadLetterSourceQueues", Input: `{"QueueUrl":"` + missing + `"}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},

	// Purge, move tasks, delete.
	{Name: "purge", Op: "PurgeQueue", Input: `{"QueueUrl":"` + jobs + `"}`, Want: "ok"},
	{Name: "purge again within 60 seconds", Op: "PurgeQueue", Input: `{"QueueUrl":"` + jobs + `"}`, Want: "AWS.SimpleQueueService.PurgeQueueInProgress"},
	{Name: "start a move task at 1 message per second", Op: "StartMessageMoveTask", Advance: 30 * time.Second, Want: "ok",
		Input: `{"SourceArn":"` + dlqARN + `","MaxNumberOfMessagesPerSecond":1}`, Save: map[string]string{"task": "TaskHandle"}},
	{Name: "start a second move task while one runs", Op: "StartMessageMoveTask", Input: `{"SourceArn":"` + dlqARN + `"}`, Want: "InvalidParameterValue"},
	{Name: "start a move task from a queue that is no dead-letter queue", Op: "StartMessageMoveTask", Input: `{"SourceArn":"` + jobsARN + `"}`, Want: "InvalidParameterValue"},
	{Name: "start a move task without a source", Op: "StartMessageMoveTask", Input: `{}`, Want: "MissingParameter", Client: true},
	{Name: "list move tasks", Op: "ListMessageMoveTasks", Advance: 2 * time.Second, Input: `{"SourceArn":"` + dlqARN + `"}`, Want: "ok"},
	{Name: "list move tasks of an unknown source", Op: "ListMessageMoveTasks", Input: `{"SourceArn":"arn:aws:sqs:us-east-1:123456789012:missing"}`, Want: "ResourceNotFoundException"},
	{Name: "list move tasks with MaxResults 11", Op: "ListMessageMoveTasks", Input: `{"SourceArn":"` + dlqARN + `","MaxResults":11}`, Want: "InvalidParameterValue"},
	{Name: "cancel the move task", Op: "CancelMessageMoveTask", Input: `{"TaskHandle":"${task}"}`, Want: "ok"},
	{Name: "cancel the move task again", Op: "CancelMessageMoveTask", Input: `{"TaskHandle":"${task}"}`, Want: "InvalidParameterValue"},
	{Name: "cancel a move task with a handle that is no task's", Op: "CancelMessageMoveTask", Input: `{"TaskHandle":"bm90LWEtdGFzaw=="}`, Want: "InvalidParameterValue"},
	{Name: "list move tasks after the cancel", Op: "ListMessageMoveTasks", Advance: 2 * time.Second, Input: `{"SourceArn":"` + dlqARN + `","MaxResults":10}`, Want: "ok"},

	// FIFO.
	{Name: "send to a FIFO queue", Op: "SendMessage", Want: "ok",
		Input: `{"QueueUrl":"` + fifo + `","MessageBody":"first","MessageGroupId":"g1","MessageDeduplicationId":"d1"}`},
	{Name: "send a duplicate to a FIFO queue", Op: "SendMessage", Want: "ok",
		Input: `{"QueueUrl":"` + fifo + `","MessageBody":"first again","MessageGroupId":"g1","MessageDeduplicationId":"d1"}`},
	{Name: "send to a FIFO queue without a group", Op: "SendMessage", Input: `{"QueueUrl":"` + fifo + `","MessageBody":"x","MessageDeduplicationId":"d2"}`, Want: "MissingParameter"},
	{Name: "send a FIFO batch", Op: "SendMessageBatch", Want: "ok",
		Input: `{"QueueUrl":"` + fifo + `","Entries":[{"Id":"a","MessageBody":"second","MessageGroupId":"g1","MessageDeduplicationId":"d3"},{"Id":"b","MessageBody":"other","MessageGroupId":"g2","MessageDeduplicationId":"d4"}]}`},
	{Name: "receive from a FIFO queue", Op: "ReceiveMessage", Want: "ok",
		Input: `{"QueueUrl":"` + fifo + `","MaxNumberOfMessages":10,"ReceiveRequestAttemptId":"attempt-1","AttributeNames":["MessageGroupId","SequenceNumber","MessageDeduplicationId"]}`},

	{Name: "delete queue", Op: "DeleteQueue", Input: `{"QueueUrl":"` + jobs + `"}`, Want: "ok"},
	{Name: "re-create within 60 seconds", Op: "CreateQueue", Input: `{"QueueName":"jobs"}`, Want: "AWS.SimpleQueueService.QueueDeletedRecently"},
	{Name: "re-create after 60 seconds", Op: "CreateQueue", Advance: 60 * time.Second, Input: `{"QueueName":"jobs"}`, Want: "ok"},
	{Name: "delete a missing queue", Op: "DeleteQueue", Input: `{"QueueUrl":"` + missing + `"}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},
	{Name: "purge a missing queue", Op: "PurgeQueue", Input: `{"QueueUrl":"` + missing + `"}`, Want: "AWS.SimpleQueueService.NonExistentQueue"},
}
