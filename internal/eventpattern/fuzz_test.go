package eventpattern

import (
	"testing"
)

// FuzzFilterPolicy: any policy text compiles or is refused, never panics, and a compiled
// policy matches any attributes and body without panicking, the same way twice; in Lambda's
// dialect too, its body matched flattened.
func FuzzFilterPolicy(f *testing.F) {
	for _, seed := range []string{
		`{"a":["b"]}`, `{"a":[{"prefix":"x"}]}`, `{"a":[{"numeric":[">",1,"<=",5]}]}`, `{"a":[{"cidr":"10.0.0.0/8"}]}`,
		`{"a":[{"anything-but":{"prefix":"x"}}]}`, `{"$or":[{"a":["1"]},{"b":[{"exists":false}]}]}`, `{"a":{"b":[{"wildcard":"*x*"}]}}`,
		`{"a":[{"numeric":["=",1,">",2]}]}`, `not json`, `{"a":[[]]}`, `[]`, `{"a.b":[null,true,1e400]}`,
		`{"b":{"c":["x"]}}`, `{"b":{"c":{"d":[{"exists":false}]}}}`,
		// Issue 29: wildcards that cost the old matcher pattern × value; Jackson's faults;
		// a nested policy counted by depth.
		`{"a":[{"wildcard":"*a*a*a*a*a*a*a*a*b"}]}`, `{"a":[{"wildcard":"*aaaaaaaaaaaaaaaaaaaab*"}]}`, `{invalid}`, `invalid-json`,
		`{"a":["b"`, `{"a" 1}`, `{"a":[01]}`, `{"key_a":{"key_b":{"key_c":["1","2","3","4"]}},"key_d":{"key_e":["1","2","3"]},"key_f":["1"]}`,
	} {
		f.Add(seed, `{"a":"10.1.2.3","b":[1,{"c":"x"}]}`, "10.1.2.3")
	}
	f.Fuzz(func(t *testing.T, policy, body, value string) {
		for _, scope := range []bool{false, true} {
			p, err := CompileFilterPolicy(policy, scope)
			if err != nil {
				if p != nil {
					t.Fatalf("a refused policy compiled: %q", policy)
				}
				continue
			}
			attrs := map[string]Attr{"a": {"String", value}, "b": {"Number", value}, "a.b": {"String.Array", value}}
			b, _ := ParseBody(body)
			if scope {
				first := p.MatchBody(b)
				if again := p.MatchBody(b); again != first {
					t.Fatal("body match not deterministic")
				}
			} else {
				first := p.MatchAttributes(attrs)
				if again := p.MatchAttributes(attrs); again != first {
					t.Fatal("attribute match not deterministic")
				}
			}
		}
		if p, err := Compile(policy, lambda); err == nil {
			b, _ := ParseBody(body)
			if first := p.MatchBody(b); p.MatchBody(b) != first {
				t.Fatal("Lambda body match not deterministic")
			}
		}
	})
}
