package sqsfake_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
)

// On a benbjohnson *clock.Mock the fake follows the mock's own Add: a companion's OnMove
// function is called at the move's start, at each instant it asked for, and at the mock's
// time — the instants Advance would have stepped — with the fake's time pinned at each,
// whichever goroutine runs the step. CatchUp (or any call into the fake) finishes the job.
func ExampleFake_CatchUp() {
	mock := sqsfake.NewMockClock()
	f := sqsfake.New(sqsfake.WithClock(mock))
	start := f.Now()
	f.OnMove(func(now time.Time) time.Time {
		fmt.Printf("step at +%v, the fake reads +%v\n", now.Sub(start), f.Now().Sub(start))
		if next := now.Add(25 * time.Second); next.Before(start.Add(time.Minute)) {
			return next
		}
		return time.Time{}
	})
	mock.Add(time.Minute) // the mock's own move, not f.Advance
	f.CatchUp()
	fmt.Println("after the move the fake reads", f.Now().Sub(start))
	// Output:
	// step at +0s, the fake reads +0s
	// step at +25s, the fake reads +25s
	// step at +50s, the fake reads +50s
	// step at +1m0s, the fake reads +1m0s
	// after the move the fake reads 1m0s
}

// A companion whose OnMove function does its work on a goroutine of its own marks that
// goroutine with JoinStep: on a fake that follows a benbjohnson mock's own moves, its calls
// are then part of the step, whatever their context, and act at the instant stepped.
func ExampleFake_JoinStep() {
	mock := sqsfake.NewMockClock()
	f := sqsfake.New(sqsfake.WithClock(mock))
	out, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("ticks")})
	if err != nil {
		panic(err)
	}
	start := f.Now()
	f.OnMove(func(now time.Time) time.Time {
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer f.JoinStep()()
			if _, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: aws.String("tick")}); err != nil {
				panic(err)
			}
		}()
		<-done
		if next := now.Add(20 * time.Second); !next.After(start.Add(time.Minute)) {
			return next
		}
		return time.Time{}
	})
	mock.Add(time.Minute) // the mock's own move
	q, err := f.Queue("ticks")
	if err != nil {
		panic(err)
	}
	for _, m := range q.Messages {
		fmt.Println("sent at +", m.SentAt.Sub(start))
	}
	// Output:
	// sent at + 0s
	// sent at + 20s
	// sent at + 40s
	// sent at + 1m0s
}
