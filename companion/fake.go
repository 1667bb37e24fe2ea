package companion

import "github.com/sqsfake/sqsfake"

// OnReset registers fn to run at the end of every f.Reset, after the fake's own state is
// cleared and outside its locks (fn may call the fake), so that a companion keeping state
// beside the fake (snsfake's topics) is reset with it. Hooks run in the order registered;
// remove unregisters fn.
func OnReset(f *sqsfake.Fake, fn func()) (remove func()) { return eng.OnReset(f, fn) }

// Epoch returns how many times f has been reset (f.Reset), plus the n of WithEpoch. Receipt
// handles of one epoch never name a message of another, and f.CallCount starts again from 0
// in each: a companion that remembers what it read of the fake's state by CallCount keys it
// on the epoch too, so that a Reset followed by as many calls does not pass for no change.
// Like NextVisible it does not catch up (OnMove): a companion calls it inside its steps.
func Epoch(f *sqsfake.Fake) uint64 { return eng.Epoch(f) }

// WithEpoch is an option of sqsfake.New that starts the fake as if Reset had run n times: it
// issues the receipt handles of its n-th reset, so that no handle of an earlier epoch names
// one of its messages. A program that replaces a fake by a new one rather than reset it —
// cmd/sqsfake does on POST /_sqsfake/reset, for a fresh clock — passes the number of
// replacements so far.
func WithEpoch(n uint64) sqsfake.Option { return eng.WithEpoch(n) }

// Seed is the seed f derives its identifiers from (sqsfake.WithSeed, or the default seed
// every fake shares), for a companion that makes identifiers of its own on the same footing
// (snsfake's MessageIds, subscription ARNs and tokens are the same run after run).
func Seed(f *sqsfake.Fake) uint64 { return eng.Seed(f) }

// ServiceKey returns a 32-byte key for the authenticated identifiers a companion issues
// (snsfake's confirmation tokens), one per purpose, derived as f's receipt handles' key is: in
// memory from the seed and the reset epoch alone — the same seed gives the same key, and
// whoever knows the seed can compute it, as docs/signatures.md says of handles — and in
// signed mode (sqsfake.WithCredentials) from them and every secret of the credentials, so
// that a caller who knows the seed and its own secret cannot. It changes with every Reset.
func ServiceKey(f *sqsfake.Fake, purpose string) [32]byte { return eng.ServiceKey(f, purpose) }

// Partition is the partition of f's region ("aws", "aws-cn", "aws-us-gov", …), as ARNs name
// it. AccountID and Region give the rest of an ARN.
func Partition(f *sqsfake.Fake) string { return eng.Partition(f) }

// AccountID returns the account f's queue URLs and ARNs name: sqsfake.DefaultAccountID, or
// what sqsfake.WithAccountID set. A companion names its own resources in it (snsfake's topic
// ARNs); a test author knows it already, having chosen it.
func AccountID(f *sqsfake.Fake) string { return eng.AccountID(f) }

// Region returns the region f's queue URLs and ARNs name: sqsfake.DefaultRegion, or what
// sqsfake.WithRegion set.
func Region(f *sqsfake.Fake) string { return eng.Region(f) }

// Endpoint returns the base of the queue URLs f hands out, set with sqsfake.WithEndpoint, or
// "" when it names AWS's regional endpoint: a companion that writes a queue's URL (SNS's
// subscription confirmations, an event naming its queue) writes it as the fake does.
func Endpoint(f *sqsfake.Fake) string { return eng.Endpoint(f) }
