package sqsfake_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsfake/sqsfake"
)

// New panics on an option value it does not allow, as regexp.MustCompile does on a bad
// pattern. A program that builds options from its own configuration checks them first and
// reports the error instead.
func ExampleCheckOptions() {
	region, account := "eu-west-1", "42" // read from a configuration file, say
	err := sqsfake.CheckOptions(sqsfake.WithRegion(region), sqsfake.WithAccountID(account))
	fmt.Println(err)
	var oe *sqsfake.OptionError
	if errors.As(err, &oe) {
		fmt.Println("option:", oe.Option, "value:", oe.Value)
	}
	// Output:
	// sqsfake: WithAccountID("42"): want 12 digits, such as 123456789012
	// option: WithAccountID value: "42"
}

// SQS refuses a second PurgeQueue of a queue within 60 seconds. A suite written against an
// emulator that never enforced it purges the same queue in every test's set-up; with the
// cooldown off it runs unchanged.
func ExampleWithPurgeCooldown() {
	ctx := context.Background()
	setUp := func(f *sqsfake.Fake, queueURL *string) string {
		_, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: queueURL})
		var inProgress *types.PurgeQueueInProgress
		switch {
		case err == nil:
			return "purged"
		case errors.As(err, &inProgress):
			return inProgress.ErrorMessage()
		}
		return err.Error()
	}
	for _, f := range []*sqsfake.Fake{sqsfake.New(), sqsfake.New(sqsfake.WithPurgeCooldown(0))} {
		q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		fmt.Println("test 1:", setUp(f, q.QueueUrl))
		fmt.Println("test 2:", setUp(f, q.QueueUrl))
	}
	// Output:
	// test 1: purged
	// test 2: Only one PurgeQueue operation on jobs is allowed every 60 seconds.
	// test 1: purged
	// test 2: purged
}
