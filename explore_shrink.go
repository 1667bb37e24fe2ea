package sqsfake

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Shrinking a failing run, and the replay lines that name its disturbances.

// shrink replays subsets of the failing run r's disturbances, on seed's fake, until it has a
// 1-minimal list: the run fails with only these, and passes without any one of them. It is
// Zeller's delta debugging (ddmin): try halves, then complements, then finer chunks. Two
// things make it cheap: a replay that fails names the disturbances that happened in it,
// which may be fewer than it was given (a subset changes what the body does), and the search
// goes on from those; and no subset is run twice. It returns the last failing run, whose
// disturbances are the list.
func (e *explorer) shrink(seed uint64, r *runResult) *runResult {
	e.replays = 0
	tried := make(map[string]*runResult)
	try := func(keys []distKey) *runResult {
		sig := formatReplay(0, sortedDistKeys(keys))
		if res, ok := tried[sig]; ok {
			return res
		}
		e.replays++
		if keys == nil {
			keys = []distKey{}
		}
		res := e.run(seed, keys)
		tried[sig] = res
		return res
	}
	if none := try(nil); none.failed() {
		return none
	}
	best := r
	if len(r.fired) > 0 {
		again := try(keysOf(r.fired))
		if !again.failed() {
			// The body did not fail again with the same disturbances: it depends on more
			// than the fake's answers.
			r.unreplayable = true
			return r
		}
		best = again
	}
	c := keysOf(best.fired)
	n := 2
	for len(c) >= 2 {
		chunks := split(c, n)
		reduced := false
		for _, ch := range chunks {
			if res := try(ch); res.failed() {
				best, c, n, reduced = res, keysOf(res.fired), 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for i := range chunks {
				if res := try(complementOf(chunks, i)); res.failed() {
					best, c, n, reduced = res, keysOf(res.fired), max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(c) {
				break
			}
			n = min(2*n, len(c))
		}
	}
	return best
}

// keysOf returns the keys of disturbances that happened.
func keysOf(fs []fired) []distKey {
	keys := make([]distKey, len(fs))
	for i, f := range fs {
		keys[i] = f.key
	}
	return keys
}

// split cuts c into n chunks of nearly equal length, in order.
func split(c []distKey, n int) [][]distKey {
	chunks := make([][]distKey, 0, n)
	for i := range n {
		lo, hi := i*len(c)/n, (i+1)*len(c)/n
		if hi > lo {
			chunks = append(chunks, c[lo:hi])
		}
	}
	return chunks
}

// complementOf returns every chunk but the i-th, joined.
func complementOf(chunks [][]distKey, i int) []distKey {
	var c []distKey
	for j, ch := range chunks {
		if j != i {
			c = append(c, ch...)
		}
	}
	return c
}

// sortedDistKeys returns a sorted copy of keys.
func sortedDistKeys(keys []distKey) []distKey {
	s := slices.Clone(keys)
	slices.SortFunc(s, func(a, b distKey) int {
		for _, d := range [...]int{int(a.class) - int(b.class), int(a.op) - int(b.op)} {
			if d != 0 {
				return d
			}
		}
		for _, p := range [...][2]uint32{{a.a, b.a}, {a.b, b.b}, {a.c, b.c}, {a.d, b.d}} {
			if p[0] != p[1] {
				if p[0] < p[1] {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	return s
}

// formatReplay writes a replay line's value: the seed, a colon, and the disturbances.
func formatReplay(seed uint64, keys []distKey) string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(seed, 10))
	b.WriteByte(':')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k.String())
	}
	return b.String()
}

// String writes k as a replay line names it: its class's name, the operation of a call's
// disturbance, and its numbers — dup.3.1 (message m-3's first delivery),
// lost.DeleteMessage.7.1.2 (the second DeleteMessage of m-7's first receive),
// sample.4.0.1 (the first short poll that would have taken m-4 first).
func (k distKey) String() string {
	nums := []uint32{k.a, k.b, k.c, k.d}[:arity[k.class]]
	parts := []string{distNames[k.class]}
	if withOp(k.class) {
		parts = append(parts, operationNames[k.op])
	}
	for _, n := range nums {
		parts = append(parts, strconv.FormatUint(uint64(n), 10))
	}
	return strings.Join(parts, ".")
}

// arity is how many numbers a key of each class has.
var arity = [numDistClasses]int{
	distDuplicate: 2, distReorder: 4, distRedeliver: 2, distShortPoll: 3, distLost: 3,
	distThrottle: 3, distServerError: 3, distFailedEntry: 3, distLate: 3,
}

// withOp reports whether a key of class names an operation in a replay line (a short poll's
// is always ReceiveMessage).
func withOp(class distClass) bool {
	return class >= distLost
}

// parseReplay reads a replay line's value: "seed:key,key…", or a bare seed for that seed's
// whole run (whole).
func parseReplay(s string) (seed uint64, keys []distKey, whole bool, err error) {
	seedText, list, found := strings.Cut(strings.TrimSpace(s), ":")
	seed, err = strconv.ParseUint(seedText, 10, 64)
	if err != nil {
		return 0, nil, false, fmt.Errorf("want a seed, a colon and a comma-separated list of disturbances, such as 36:lost.DeleteMessage.7.1.1,dup.3.1")
	}
	if !found {
		return seed, nil, true, nil
	}
	for _, item := range strings.Split(list, ",") {
		if item == "" {
			continue
		}
		k, err := parseKey(item)
		if err != nil {
			return 0, nil, false, err
		}
		keys = append(keys, k)
	}
	return seed, keys, false, nil
}

// parseKey reads one disturbance of a replay line.
func parseKey(item string) (distKey, error) {
	parts := strings.Split(item, ".")
	var k distKey
	class := slices.Index(distNames[:], parts[0])
	if class < 0 {
		return k, fmt.Errorf("%q: %q is not a class of disturbance; the classes are %s", item, parts[0], strings.Join(distNames[:], ", "))
	}
	k.class = distClass(class)
	parts = parts[1:]
	if withOp(k.class) {
		if len(parts) == 0 || !messageOps[opIndex(parts[0])] {
			return k, fmt.Errorf("%q: %s needs a message operation, such as %s.DeleteMessage.7.1.1", item, distNames[class], distNames[class])
		}
		k.op = opIndex(parts[0])
		parts = parts[1:]
		if k.class == distFailedEntry && !batchOperations[operationNames[k.op]] {
			return k, fmt.Errorf("%q: %s is not a batch operation", item, operationNames[k.op])
		}
	} else if k.class == distShortPoll {
		k.op = opIndex("ReceiveMessage")
	}
	if len(parts) != arity[k.class] {
		return k, fmt.Errorf("%q: %s has %d numbers, not %d", item, distNames[class], arity[k.class], len(parts))
	}
	nums := []*uint32{&k.a, &k.b, &k.c, &k.d}
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return k, fmt.Errorf("%q: %q is not a number", item, p)
		}
		*nums[i] = uint32(n)
	}
	return k, nil
}
