package sqsfake

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// qlRedrive is a RedrivePolicy naming the queue dlq with maxReceiveCount written as count.
func qlRedrive(dlq, count string) string {
	return `{"deadLetterTargetArn":"` + qlARN(dlq) + `","maxReceiveCount":` + count + `}`
}

func qlRedrivePolicyErr(raw, reason string) qlErr {
	return qlInvalidParameterValue("Value " + raw + " for parameter RedrivePolicy is invalid. Reason: " + reason)
}

func qlRedriveAllowPolicyErr(raw, reason string) qlErr {
	return qlInvalidParameterValue("Value " + raw + " for parameter RedriveAllowPolicy is invalid. Reason: " + reason)
}

// qlSources lists the dead-letter source queues of the queue at url in one call.
func qlSources(t *testing.T, f *Fake, url string) *sqs.ListDeadLetterSourceQueuesOutput {
	t.Helper()
	out, err := f.ListDeadLetterSourceQueues(context.Background(), &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(url)})
	require.NoError(t, err)
	return out
}

// ---- RedrivePolicy ----

func TestRedrivePolicyIsReturnedWithMaxReceiveCountAsANumber(t *testing.T) {
	want := func(n int) string {
		return fmt.Sprintf(`{"deadLetterTargetArn":"%s","maxReceiveCount":%d}`, qlARN("dlq"), n)
	}
	cases := []struct {
		desc, policy, want string
	}{
		{"number", qlRedrive("dlq", "5"), want(5)},
		{"string", qlRedrive("dlq", `"5"`), want(5)},
		{"minimum", qlRedrive("dlq", "1"), want(1)},
		{"maximum", qlRedrive("dlq", "1000"), want(1000)},
		{"maximum as a string", qlRedrive("dlq", `"1000"`), want(1000)},
		{"members in the other order, with white space", "{\n  \"maxReceiveCount\": \"7\",\n  \"deadLetterTargetArn\": \"" + qlARN("dlq") + "\"\n}", want(7)},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			qlCreate(t, f, "dlq", nil)
			created := qlCreate(t, f, "created", map[string]string{"RedrivePolicy": tc.policy})
			set := qlCreate(t, f, "set", nil)
			qlSetAttrs(t, f, set, map[string]string{"RedrivePolicy": tc.policy})
			assert.Equal(t, qlWith(qlFreshStandard("created", qlStart), map[string]string{"RedrivePolicy": tc.want}), qlAttrs(t, f, created))
			assert.Equal(t, qlWith(qlFreshStandard("set", qlStart), map[string]string{"RedrivePolicy": tc.want}), qlAttrs(t, f, set))
		})
	}
}

func TestRedrivePolicyBetweenFIFOQueues(t *testing.T) {
	f := New()
	qlCreateFIFO(t, f, "dlq.fifo", nil)
	u := qlCreateFIFO(t, f, "src.fifo", map[string]string{"RedrivePolicy": qlRedrive("dlq.fifo", "3")})
	assert.Equal(t, map[string]string{"RedrivePolicy": qlRedrive("dlq.fifo", "3")}, qlGetAttrs(t, f, u, types.QueueAttributeNameRedrivePolicy).Attributes)
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: []string{u}}, qlSources(t, f, qlURL("dlq.fifo")))
}

func TestRedrivePolicyValidationRejectsBadPoliciesAndChangesNothing(t *testing.T) {
	dlqARN := qlARN("dlq")
	withArn := func(arn string) string { return `{"deadLetterTargetArn":"` + arn + `","maxReceiveCount":3}` }
	countReason := func(v string) string {
		return "Invalid value for maxReceiveCount: " + v + ", valid values are from 1 to 1000 both inclusive."
	}
	// The reasons other than the missing members are unverified against AWS (SPEC.md §8.1).
	cases := []struct {
		desc   string
		fifo   bool // the source queue's kind
		policy string
		reason string
	}{
		{"not JSON", false, "nope", "Redrive policy is not a valid JSON map."},
		{"a JSON array", false, "[]", "Redrive policy is not a valid JSON map."},
		{"empty object", false, "{}", "Redrive policy does not contain mandatory attribute: deadLetterTargetArn."},
		{"no deadLetterTargetArn", false, `{"maxReceiveCount":3}`, "Redrive policy does not contain mandatory attribute: deadLetterTargetArn."},
		{"no maxReceiveCount", false, `{"deadLetterTargetArn":"` + dlqARN + `"}`, "Redrive policy does not contain mandatory attribute: maxReceiveCount."},
		{"maxReceiveCount 0", false, qlRedrive("dlq", "0"), countReason("0")},
		{"maxReceiveCount 0 as a string", false, qlRedrive("dlq", `"0"`), countReason("0")},
		{"maxReceiveCount 1001", false, qlRedrive("dlq", "1001"), countReason("1001")},
		{"maxReceiveCount 1001 as a string", false, qlRedrive("dlq", `"1001"`), countReason("1001")},
		{"maxReceiveCount negative", false, qlRedrive("dlq", "-1"), countReason("-1")},
		{"maxReceiveCount fractional", false, qlRedrive("dlq", "1.5"), countReason("1.5")},
		{"maxReceiveCount not a number", false, qlRedrive("dlq", `"abc"`), countReason("abc")},
		{"maxReceiveCount null", false, qlRedrive("dlq", "null"), countReason("null")},
		{"target queue does not exist", false, withArn(qlARN("missing")), "Dead letter target does not exist."},
		{"target in another account", false, withArn("arn:aws:sqs:us-east-1:210987654321:dlq"), "Dead letter target does not exist."},
		{"target in another region", false, withArn("arn:aws:sqs:eu-west-1:123456789012:dlq"), "Dead letter target does not exist."},
		{"target in another partition", false, withArn("arn:aws-cn:sqs:us-east-1:123456789012:dlq"), "Dead letter target does not exist."},
		{"target not an ARN", false, withArn("dlq"), "Dead letter target does not exist."},
		{"target a URL", false, withArn(qlURL("dlq")), "Dead letter target does not exist."},
		{"target not a string", false, `{"deadLetterTargetArn":5,"maxReceiveCount":3}`, "Dead letter target does not exist."},
		{"standard source, FIFO target", false, withArn(qlARN("dlq.fifo")), "Dead-letter queue must be a standard queue for a standard source queue."},
		{"FIFO source, standard target", true, withArn(dlqARN), "Dead-letter queue must be a FIFO queue for a FIFO source queue."},
		{"target denies every source", false, withArn(qlARN("deny")), "Queue " + qlARN("src") + " is not allowed to use " + qlARN("deny") + " as its dead-letter queue by the RedriveAllowPolicy of " + qlARN("deny") + "."},
		{"target admits other sources only", false, withArn(qlARN("others")), "Queue " + qlARN("src") + " is not allowed to use " + qlARN("others") + " as its dead-letter queue by the RedriveAllowPolicy of " + qlARN("others") + "."},
	}
	setup := func(t *testing.T) *Fake {
		f := New()
		qlCreate(t, f, "dlq", nil)
		qlCreateFIFO(t, f, "dlq.fifo", nil)
		qlCreate(t, f, "deny", map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"denyAll"}`})
		qlCreate(t, f, "others", map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"byQueue","sourceQueueArns":["` + qlARN("other") + `"]}`})
		return f
	}
	for _, tc := range cases {
		name := "src"
		if tc.fifo {
			name = "src.fifo"
		}
		reason := strings.ReplaceAll(tc.reason, qlARN("src"), qlARN(name))
		t.Run("CreateQueue/"+tc.desc, func(t *testing.T) {
			f := setup(t)
			attrs := map[string]string{"RedrivePolicy": tc.policy}
			if tc.fifo {
				attrs["FifoQueue"] = "true"
			}
			before := qlState(t, f)
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
			qlRequireError(t, err, "CreateQueue", qlRedrivePolicyErr(tc.policy, reason))
			assert.Equal(t, before, qlState(t, f))
		})
		t.Run("SetQueueAttributes/"+tc.desc, func(t *testing.T) {
			f := setup(t)
			var u string
			if tc.fifo {
				u = qlCreateFIFO(t, f, name, nil)
			} else {
				u = qlCreate(t, f, name, map[string]string{"RedrivePolicy": qlRedrive("dlq", "9")})
			}
			f.Advance(time.Minute)
			before := qlState(t, f)
			_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: map[string]string{"RedrivePolicy": tc.policy}})
			qlRequireError(t, err, "SetQueueAttributes", qlRedrivePolicyErr(tc.policy, reason))
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestRedrivePolicyEmptyStringRemovesIt(t *testing.T) {
	f := New()
	dlq := qlCreate(t, f, "dlq", nil)
	u := qlCreate(t, f, "src", map[string]string{"RedrivePolicy": qlRedrive("dlq", "3")})
	require.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: []string{u}}, qlSources(t, f, dlq))
	qlSetAttrs(t, f, u, map[string]string{"RedrivePolicy": ""})
	assert.Equal(t, qlFreshStandard("src", qlStart), qlAttrs(t, f, u))
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{}, qlSources(t, f, dlq))
	// A queue created with an empty policy has none.
	v := qlCreate(t, f, "src2", map[string]string{"RedrivePolicy": ""})
	assert.Equal(t, qlFreshStandard("src2", qlStart), qlAttrs(t, f, v))
}

// ---- RedriveAllowPolicy ----

func TestRedriveAllowPolicyDecidesWhichSourcesMayNameTheDLQ(t *testing.T) {
	byQueue := func(arns ...string) string {
		return `{"redrivePermission":"byQueue","sourceQueueArns":["` + strings.Join(arns, `","`) + `"]}`
	}
	cases := []struct {
		desc    string
		allow   string // the DLQ's RedriveAllowPolicy; "" for none
		allowed bool
	}{
		{"no policy", "", true},
		{"allowAll", `{"redrivePermission":"allowAll"}`, true},
		{"denyAll", `{"redrivePermission":"denyAll"}`, false},
		{"byQueue listing the source", byQueue(qlARN("src")), true},
		{"byQueue listing the source among others", byQueue(qlARN("a"), qlARN("src"), qlARN("b")), true},
		{"byQueue listing other queues", byQueue(qlARN("a"), qlARN("b")), false},
		{"byQueue listing the source's URL instead of its ARN", byQueue(qlURL("src")), false},
		{"byQueue listing a source of that name in another account", byQueue("arn:aws:sqs:us-east-1:210987654321:src"), false},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			ctx := context.Background()
			f := New()
			var dlqAttrs map[string]string
			if tc.allow != "" {
				dlqAttrs = map[string]string{"RedriveAllowPolicy": tc.allow}
			}
			dlq := qlCreate(t, f, "dlq", dlqAttrs)
			policy := qlRedrive("dlq", "3")
			denied := qlRedrivePolicyErr(policy, "Queue "+qlARN("src")+" is not allowed to use "+qlARN("dlq")+" as its dead-letter queue by the RedriveAllowPolicy of "+qlARN("dlq")+".")

			// On CreateQueue of the source.
			before := qlState(t, f)
			_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("src"), Attributes: map[string]string{"RedrivePolicy": policy}})
			if tc.allowed {
				require.NoError(t, err)
				assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: []string{qlURL("src")}}, qlSources(t, f, dlq))
				_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(qlURL("src"))})
				require.NoError(t, err)
				f.Advance(time.Minute)
			} else {
				qlRequireError(t, err, "CreateQueue", denied)
				assert.Equal(t, before, qlState(t, f))
			}

			// On SetQueueAttributes of the source.
			u := qlCreate(t, f, "src", nil)
			before = qlState(t, f)
			_, err = f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: map[string]string{"RedrivePolicy": policy}})
			if tc.allowed {
				require.NoError(t, err)
				assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: []string{u}}, qlSources(t, f, dlq))
			} else {
				qlRequireError(t, err, "SetQueueAttributes", denied)
				assert.Equal(t, before, qlState(t, f))
				assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{}, qlSources(t, f, dlq))
			}
		})
	}
}

func TestRedriveAllowPolicyIsEnforcedOnlyWhenASourceSetsItsRedrivePolicy(t *testing.T) {
	ctx := context.Background()
	f := New()
	dlq := qlCreate(t, f, "dlq", nil)
	src := qlCreate(t, f, "src", map[string]string{"RedrivePolicy": qlRedrive("dlq", "3")})
	// Denying later does not detach an existing source…
	qlSetAttrs(t, f, dlq, map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"denyAll"}`})
	assert.Equal(t, map[string]string{"RedrivePolicy": qlRedrive("dlq", "3")}, qlGetAttrs(t, f, src, types.QueueAttributeNameRedrivePolicy).Attributes)
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: []string{src}}, qlSources(t, f, dlq))
	// …and the source may still change other attributes, or drop its policy…
	qlSetAttrs(t, f, src, map[string]string{"VisibilityTimeout": "60"})
	// …but it cannot set the policy again.
	_, err := f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(src), Attributes: map[string]string{"RedrivePolicy": qlRedrive("dlq", "4")}})
	qlRequireError(t, err, "SetQueueAttributes", qlRedrivePolicyErr(qlRedrive("dlq", "4"),
		"Queue "+qlARN("src")+" is not allowed to use "+qlARN("dlq")+" as its dead-letter queue by the RedriveAllowPolicy of "+qlARN("dlq")+"."))
	qlSetAttrs(t, f, src, map[string]string{"RedrivePolicy": ""})
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{}, qlSources(t, f, dlq))
	// Removing the allow policy allows everyone again.
	qlSetAttrs(t, f, dlq, map[string]string{"RedriveAllowPolicy": ""})
	qlSetAttrs(t, f, src, map[string]string{"RedrivePolicy": qlRedrive("dlq", "4")})
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: []string{src}}, qlSources(t, f, dlq))
}

func TestRedriveAllowPolicyIsReturnedAsGiven(t *testing.T) {
	cases := []string{
		`{"redrivePermission":"allowAll"}`,
		`{"redrivePermission":"denyAll"}`,
		`{"redrivePermission":"byQueue","sourceQueueArns":["` + qlARN("a") + `"]}`,
		`{"redrivePermission":"byQueue","sourceQueueArns":["` + strings.Repeat(qlARN("a")+`","`, 9) + qlARN("j") + `"]}`,
		"{ \"redrivePermission\": \"denyAll\" }",
	}
	for _, policy := range cases {
		t.Run(policy, func(t *testing.T) {
			f := New()
			u := qlCreate(t, f, "dlq", map[string]string{"RedriveAllowPolicy": policy})
			assert.Equal(t, map[string]string{"RedriveAllowPolicy": policy}, qlGetAttrs(t, f, u, types.QueueAttributeNameRedriveAllowPolicy).Attributes)
			qlSetAttrs(t, f, u, map[string]string{"RedriveAllowPolicy": ""})
			assert.Equal(t, qlFreshStandard("dlq", qlStart), qlAttrs(t, f, u))
			qlSetAttrs(t, f, u, map[string]string{"RedriveAllowPolicy": policy})
			assert.Equal(t, map[string]string{"RedriveAllowPolicy": policy}, qlGetAttrs(t, f, u, types.QueueAttributeNameRedriveAllowPolicy).Attributes)
		})
	}
}

func TestRedriveAllowPolicyValidationRejectsBadPoliciesAndChangesNothing(t *testing.T) {
	elevenArns := `["` + strings.Repeat(qlARN("a")+`","`, 10) + qlARN("k") + `"]`
	// The reasons are unverified against AWS; they state the documented rules (SPEC.md §8.1).
	cases := []struct {
		desc, policy, reason string
	}{
		{"not JSON", "nope", "Redrive allow policy is not a valid JSON map."},
		{"a JSON array", "[]", "Redrive allow policy is not a valid JSON map."},
		{"no redrivePermission", `{"sourceQueueArns":["` + qlARN("a") + `"]}`, "Redrive allow policy does not contain mandatory attribute: redrivePermission."},
		{"unknown redrivePermission", `{"redrivePermission":"allowSome"}`, "Invalid value for redrivePermission: allowSome, valid values are allowAll, denyAll and byQueue."},
		{"redrivePermission in another case", `{"redrivePermission":"AllowAll"}`, "Invalid value for redrivePermission: AllowAll, valid values are allowAll, denyAll and byQueue."},
		{"byQueue without sourceQueueArns", `{"redrivePermission":"byQueue"}`, "sourceQueueArns must be specified when redrivePermission is byQueue."},
		{"byQueue with no sourceQueueArns", `{"redrivePermission":"byQueue","sourceQueueArns":[]}`, "sourceQueueArns must be specified when redrivePermission is byQueue."},
		{"byQueue with 11 sourceQueueArns", `{"redrivePermission":"byQueue","sourceQueueArns":` + elevenArns + `}`, "Up to 10 sourceQueueArns can be specified."},
		{"allowAll with sourceQueueArns", `{"redrivePermission":"allowAll","sourceQueueArns":["` + qlARN("a") + `"]}`, "sourceQueueArns can be specified only when redrivePermission is byQueue."},
		{"denyAll with sourceQueueArns", `{"redrivePermission":"denyAll","sourceQueueArns":[]}`, "sourceQueueArns can be specified only when redrivePermission is byQueue."},
	}
	for _, tc := range cases {
		t.Run("CreateQueue/"+tc.desc, func(t *testing.T) {
			f := New()
			qlOtherQueue(t, f)
			before := qlState(t, f)
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("dlq"), Attributes: map[string]string{"RedriveAllowPolicy": tc.policy}})
			qlRequireError(t, err, "CreateQueue", qlRedriveAllowPolicyErr(tc.policy, tc.reason))
			assert.Equal(t, before, qlState(t, f))
		})
		t.Run("SetQueueAttributes/"+tc.desc, func(t *testing.T) {
			f := New()
			u := qlCreate(t, f, "dlq", map[string]string{"RedriveAllowPolicy": `{"redrivePermission":"denyAll"}`})
			f.Advance(time.Minute)
			before := qlState(t, f)
			_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: aws.String(u), Attributes: map[string]string{"RedriveAllowPolicy": tc.policy}})
			qlRequireError(t, err, "SetQueueAttributes", qlRedriveAllowPolicyErr(tc.policy, tc.reason))
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

// ---- ListDeadLetterSourceQueues ----

func TestListDeadLetterSourceQueuesListsTheQueuesWhoseRedrivePolicyNamesTheDLQInNameOrder(t *testing.T) {
	ctx := context.Background()
	f := New()
	dlq := qlCreate(t, f, "dlq", nil)
	other := qlCreate(t, f, "other-dlq", nil)
	for _, n := range []string{"src-c", "src-a", "Src-b"} {
		qlCreate(t, f, n, map[string]string{"RedrivePolicy": qlRedrive("dlq", "3")})
	}
	qlCreate(t, f, "src-d", nil)
	qlSetAttrs(t, f, qlURL("src-d"), map[string]string{"RedrivePolicy": qlRedrive("dlq", `"2"`)})
	qlCreate(t, f, "elsewhere", map[string]string{"RedrivePolicy": qlRedrive("other-dlq", "3")})
	qlCreate(t, f, "plain", nil)

	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: qlURLs("Src-b", "src-a", "src-c", "src-d")}, qlSources(t, f, dlq))
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: qlURLs("elsewhere")}, qlSources(t, f, other))
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{}, qlSources(t, f, qlURL("plain")), "no sources: QueueUrls is nil")
	// Any form of the DLQ's URL works.
	assert.Equal(t, qlSources(t, f, dlq), qlSources(t, f, "dlq"))

	// Pointing a source elsewhere, dropping its policy or deleting it takes it off the list.
	qlSetAttrs(t, f, qlURL("src-a"), map[string]string{"RedrivePolicy": qlRedrive("other-dlq", "3")})
	qlSetAttrs(t, f, qlURL("src-c"), map[string]string{"RedrivePolicy": ""})
	_, err := f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(qlURL("Src-b"))})
	require.NoError(t, err)
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: qlURLs("src-d")}, qlSources(t, f, dlq))
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: qlURLs("elsewhere", "src-a")}, qlSources(t, f, other))
}

func TestListDeadLetterSourceQueuesFindsSourcesByARNAfterTheDLQIsRecreated(t *testing.T) {
	ctx := context.Background()
	f := New()
	dlq := qlCreate(t, f, "dlq", nil)
	src := qlCreate(t, f, "src", map[string]string{"RedrivePolicy": qlRedrive("dlq", "3")})
	_, err := f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(dlq)})
	require.NoError(t, err)
	_, err = f.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq)})
	qlRequireError(t, err, "ListDeadLetterSourceQueues", qlQueueDoesNotExist())
	// The source keeps its policy; a queue with the DLQ's name and ARN is its DLQ again.
	assert.Equal(t, map[string]string{"RedrivePolicy": qlRedrive("dlq", "3")}, qlGetAttrs(t, f, src, types.QueueAttributeNameRedrivePolicy).Attributes)
	f.Advance(time.Minute)
	qlCreate(t, f, "dlq", nil)
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: []string{src}}, qlSources(t, f, dlq))
}

func TestListDeadLetterSourceQueuesPagesWithMaxResultsAndNextToken(t *testing.T) {
	ctx := context.Background()
	f := New()
	dlq := qlCreate(t, f, "dlq", nil)
	for _, n := range []string{"e", "c", "a", "d", "b"} {
		qlCreate(t, f, n, map[string]string{"RedrivePolicy": qlRedrive("dlq", "3")})
	}
	qlCreate(t, f, "bb-not-a-source", nil)
	var pages [][]string
	var token *string
	for {
		out, err := f.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq), MaxResults: aws.Int32(2), NextToken: token})
		require.NoError(t, err)
		pages = append(pages, out.QueueUrls)
		if out.NextToken == nil {
			break
		}
		token = out.NextToken
	}
	assert.Equal(t, [][]string{qlURLs("a", "b"), qlURLs("c", "d"), qlURLs("e")}, pages)

	// Exactly MaxResults sources: no token.
	out, err := f.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq), MaxResults: aws.Int32(5)})
	require.NoError(t, err)
	assert.Equal(t, &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: qlURLs("a", "b", "c", "d", "e")}, out)
}

func TestListDeadLetterSourceQueuesPaginatorPagesThrough25SourcesTenAtATime(t *testing.T) {
	ctx := context.Background()
	f := New()
	dlq := qlCreate(t, f, "dlq", nil)
	var names []string
	for i := range 25 {
		names = append(names, fmt.Sprintf("source-%02d", i))
	}
	for _, i := range []int{24, 3, 17, 0, 9, 12, 21, 6, 15, 1, 19, 8, 23, 4, 11, 14, 2, 20, 7, 16, 10, 22, 5, 18, 13} {
		qlCreate(t, f, names[i], map[string]string{"RedrivePolicy": qlRedrive("dlq", "3")})
	}
	qlCreate(t, f, "source-99-unrelated", nil)
	p := sqs.NewListDeadLetterSourceQueuesPaginator(f, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq)},
		func(o *sqs.ListDeadLetterSourceQueuesPaginatorOptions) { o.Limit = 10 })
	var pages [][]string
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		require.NoError(t, err)
		pages = append(pages, page.QueueUrls)
	}
	assert.Equal(t, [][]string{qlURLs(names[:10]...), qlURLs(names[10:20]...), qlURLs(names[20:]...)}, pages)
}

func TestListDeadLetterSourceQueuesRejectsInvalidRequests(t *testing.T) {
	f := New()
	dlq := aws.String(qlCreate(t, f, "dlq", nil))
	qlCreate(t, f, "src", map[string]string{"RedrivePolicy": qlRedrive("dlq", "3")})
	cases := []struct {
		desc string
		in   *sqs.ListDeadLetterSourceQueuesInput
		want qlErr
	}{
		{"unknown queue", &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(qlURL("missing"))}, qlQueueDoesNotExist()},
		{"MaxResults 0", &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: dlq, MaxResults: aws.Int32(0)},
			qlInvalidParameterValue("Value 0 for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and 1000.")},
		{"MaxResults 1001", &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: dlq, MaxResults: aws.Int32(1001)},
			qlInvalidParameterValue("Value 1001 for parameter MaxResults is invalid. Reason: MaxResults must be an integer between 1 and 1000.")},
		{"NextToken not base64", &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: dlq, MaxResults: aws.Int32(1), NextToken: aws.String("%%%")},
			qlInvalidParameterValue("Invalid NextToken value.")},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			before := qlState(t, f)
			_, err := f.ListDeadLetterSourceQueues(context.Background(), tc.in)
			qlRequireError(t, err, "ListDeadLetterSourceQueues", tc.want)
			assert.Equal(t, before, qlState(t, f))
		})
	}
}
