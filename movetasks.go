package sqsfake

import (
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Message move tasks (StartMessageMoveTask, ListMessageMoveTasks, CancelMessageMoveTask) are
// the subject of a later change; until then they answer UnsupportedOperation, a typed SQS
// error, so a caller can tell and never sees a panic.

func errMoveTasksUnsupported(op string) *sqsError {
	return newError("UnsupportedOperation", op+" is not supported by sqsfake yet.")
}

func (f *Fake) startMessageMoveTask(*sqs.StartMessageMoveTaskInput) (*sqs.StartMessageMoveTaskOutput, error) {
	return nil, errMoveTasksUnsupported("StartMessageMoveTask")
}

func (f *Fake) listMessageMoveTasks(*sqs.ListMessageMoveTasksInput) (*sqs.ListMessageMoveTasksOutput, error) {
	return nil, errMoveTasksUnsupported("ListMessageMoveTasks")
}

func (f *Fake) cancelMessageMoveTask(*sqs.CancelMessageMoveTaskInput) (*sqs.CancelMessageMoveTaskOutput, error) {
	return nil, errMoveTasksUnsupported("CancelMessageMoveTask")
}
