package heartbeat

// WithHaltHook makes the Keeper call hook each time Stop, Delete, Release or the end of Run
// starts to halt a delivery: after the heartbeat has been told to stop, and before halt waits
// for its goroutine, which is still busy with an extension call in flight. Tests use it to
// know that a settle has begun, without sleeping.
func WithHaltHook(hook func()) Option { return func(k *Keeper) { k.onHalt = hook } }
