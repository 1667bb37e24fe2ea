package snsfake

import "testing"

// FuzzDeliveryPolicy: any DeliveryPolicy text is refused or accepted without a panic, and
// what SNS stores of an accepted one reads back as itself (the normalisation is stable) and
// completes into an EffectiveDeliveryPolicy whose retry policy keeps SNS's limits.
func FuzzDeliveryPolicy(f *testing.F) {
	for _, seed := range []string{
		`{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":60,"numRetries":50,"numNoDelayRetries":3,"numMinDelayRetries":2,"numMaxDelayRetries":35,"backoffFunction":"exponential"},"throttlePolicy":{"maxReceivesPerSecond":10}}`,
		`{"requestPolicy":{"headerContentType":"text/csv"},"sicklyRetryPolicy":null,"guaranteed":false}`,
		`{"http":{"defaultHealthyRetryPolicy":{"numRetries":5},"disableSubscriptionOverrides":true,"defaultRequestPolicy":{"headerContentType":"application/json"}}}`,
		`{"http":{"defaultHealthyRetryPolicy":null}}`, `{}`, `[]`, `null`, `{"healthyRetryPolicy":{"numRetries":1e3}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if sp, err := parseSubscriptionPolicy("", v); err == nil {
			stored := sp.String()
			again, err := parseSubscriptionPolicy("", stored)
			if err != nil {
				t.Fatalf("the stored %s is refused: %v", stored, err)
			}
			if again.String() != stored {
				t.Fatalf("the stored %s reads back as %s", stored, again.String())
			}
			checkEffective(t, effectivePolicy(sp, nil).retry)
		}
		if tp, err := parseTopicPolicy("", v); err == nil {
			stored := tp.String()
			again, err := parseTopicPolicy("", stored)
			if err != nil {
				t.Fatalf("the stored %s is refused: %v", stored, err)
			}
			if again.String() != stored {
				t.Fatalf("the stored %s reads back as %s", stored, again.String())
			}
			checkEffective(t, effectivePolicy(nil, tp).retry)
		}
	})
}

func checkEffective(t *testing.T, p RetryPolicy) {
	t.Helper()
	if p.NumRetries < 0 || p.NumRetries > maxPolicyRetries || p.MinDelayTarget < 1 || p.MaxDelayTarget > maxDelayTarget ||
		p.MinDelayTarget > p.MaxDelayTarget || p.TotalRetryTime() > maxRetryTime || len(p.Retries()) != p.NumRetries {
		t.Fatalf("an accepted policy outside SNS's limits: %+v", p)
	}
}
