package eventpattern

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// wildcardReference is the obvious matcher, backtracking on its last star: correct, and
// O(pattern × value) at worst, as the fake's was (issue 29, attack 6).
func wildcardReference(p, s string) bool {
	star, mark := -1, 0
	i, j := 0, 0
	for j < len(s) {
		switch {
		case i < len(p) && p[i] == '*':
			star, mark = i, j
			i++
		case i < len(p) && p[i] == s[j]:
			i++
			j++
		case star >= 0:
			i = star + 1
			mark++
			j = mark
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}

func TestWildcardMatchesAsTheReferenceDoes(t *testing.T) {
	for _, c := range []struct{ p, s string }{
		{"", ""}, {"", "a"}, {"*", ""}, {"*", "abc"}, {"a*", "a"}, {"a*", "ba"}, {"*a", "ba"}, {"*a", "ab"},
		{"a*b", "ab"}, {"a*b", "acb"}, {"a*b", "acbx"}, {"a*b*c", "abc"}, {"a*b*c", "aXbYc"}, {"a*b*c", "acb"},
		{"**", "x"}, {"a**b", "ab"}, {"*ab*ab*", "abab"}, {"*ab*ab*", "aba"}, {"*aab", "aaab"}, {"ab*ba", "aba"},
		{"ab*ba", "abba"}, {"*abcabd*", "abcabcabd"}, {"x*y", "xy"}, {"x*y", "x"}, {"xy", "xy"}, {"xy", "x"},
		{"*issi*", "mississippi"}, {"m*i*s*p", "mississippi"}, {"*é*", "café"},
	} {
		w := compileWildcard(c.p)
		assert.Equal(t, wildcardReference(c.p, c.s), w.match(c.s, nil), "%q against %q", c.p, c.s)
	}
}

// adversarial are a pattern and a value of about n bytes each, made to pass the first and
// last runs' checks and to fail late, which cost the reference matcher about n² steps:
// stars between short runs, one long run that almost matches everywhere, a long run between
// fixed ends.
func adversarial(n int) map[string][2]string {
	return map[string][2]string{
		"stars":   {strings.Repeat("*a", n/2) + "*b", strings.Repeat("a", n/2-1) + "b"},
		"segment": {"*" + strings.Repeat("a", n/2) + "b*", strings.Repeat("a", n)},
		"ends":    {"a*" + strings.Repeat("ab", n/4) + "c*a", strings.Repeat("ab", n/2) + "a"},
	}
}

// The matcher's cost is linear in pattern and value: it compares at most a few bytes for each
// byte of either (issue 29, attack 6: a 60,000-character pattern against a 120 KB value took
// 4–7 s a publish).
func TestWildcardCostIsLinear(t *testing.T) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		for name, c := range adversarial(n) {
			w := compileWildcard(c[0])
			steps := 0
			got := w.match(c[1], &steps)
			if n <= 10_000 {
				assert.Equal(t, wildcardReference(c[0], c[1]), got, "%s at %d", name, n)
			}
			assert.LessOrEqual(t, steps, 4*(len(c[0])+len(c[1])), "%s at %d: %d steps", name, n, steps)
		}
	}
}

// BenchmarkWildcard matches adversarial patterns against values of 1k, 10k and 100k bytes:
// its ns/op grows tenfold with each tenfold length (linear), where the reference's grew a
// hundredfold.
func BenchmarkWildcard(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		for _, name := range []string{"stars", "segment", "ends"} {
			c := adversarial(n)[name]
			w := compileWildcard(c[0])
			b.Run(name+"/"+strconv.Itoa(n/1000)+"k", func(b *testing.B) {
				b.SetBytes(int64(len(c[0]) + len(c[1])))
				for b.Loop() {
					w.match(c[1], nil)
				}
			})
		}
	}
}

// FuzzWildcard: the linear matcher answers as the reference does.
func FuzzWildcard(f *testing.F) {
	for _, c := range [][2]string{{"*a*b", "aab"}, {"a*", "ab"}, {"*ab*ab*", "abab"}, {"*aab", "aaab"}, {"ab*ba", "aba"},
		{strings.Repeat("*a", 50) + "*b", strings.Repeat("a", 100)}, {"*" + strings.Repeat("a", 50) + "b*", strings.Repeat("a", 100)}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		if len(p)*len(s) > 1<<20 {
			return // the reference is quadratic
		}
		if got, want := compileWildcard(p).match(s, nil), wildcardReference(p, s); got != want {
			t.Fatalf("%q against %q: %v, the reference %v", p, s, got, want)
		}
	})
}
