package sqsfake

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func qlAddPermission(t *testing.T, f *Fake, url, label string, accounts, actions []string) {
	t.Helper()
	out, err := f.AddPermission(context.Background(), &sqs.AddPermissionInput{
		QueueUrl: aws.String(url), Label: aws.String(label), AWSAccountIds: accounts, Actions: actions,
	})
	require.NoError(t, err)
	assert.Equal(t, &sqs.AddPermissionOutput{}, out)
}

func qlRemovePermission(t *testing.T, f *Fake, url, label string) {
	t.Helper()
	out, err := f.RemovePermission(context.Background(), &sqs.RemovePermissionInput{QueueUrl: aws.String(url), Label: aws.String(label)})
	require.NoError(t, err)
	assert.Equal(t, &sqs.RemovePermissionOutput{}, out)
}

// qlPolicy returns the queue's Policy attribute and whether it has one.
func qlPolicy(t *testing.T, f *Fake, url string) (string, bool) {
	t.Helper()
	out := qlGetAttrs(t, f, url, types.QueueAttributeNamePolicy)
	p, ok := out.Attributes["Policy"]
	return p, ok
}

// qlPolicyDoc is the document AddPermission writes for queue q with the given statements.
func qlPolicyDoc(q string, statements ...string) string {
	return `{"Version":"2008-10-17","Id":"` + qlARN(q) + `/SQSDefaultPolicy","Statement":[` + strings.Join(statements, ",") + `]}`
}

func TestAddPermissionWritesAPolicyStatement(t *testing.T) {
	res := qlARN("q")
	cases := []struct {
		desc      string
		accounts  []string
		actions   []string
		statement string
	}{
		{"one account, one action", []string{"111122223333"}, []string{"SendMessage"},
			`{"Sid":"L","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"SQS:SendMessage","Resource":"` + res + `"}`},
		{"several accounts", []string{"111122223333", "444455556666"}, []string{"ReceiveMessage"},
			`{"Sid":"L","Effect":"Allow","Principal":{"AWS":["arn:aws:iam::111122223333:root","arn:aws:iam::444455556666:root"]},"Action":"SQS:ReceiveMessage","Resource":"` + res + `"}`},
		{"several actions", []string{"111122223333"}, []string{"SendMessage", "DeleteMessage", "ChangeMessageVisibility"},
			`{"Sid":"L","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":["SQS:SendMessage","SQS:DeleteMessage","SQS:ChangeMessageVisibility"],"Resource":"` + res + `"}`},
		{"several accounts and actions", []string{"444455556666", "111122223333"}, []string{"GetQueueAttributes", "GetQueueUrl"},
			`{"Sid":"L","Effect":"Allow","Principal":{"AWS":["arn:aws:iam::444455556666:root","arn:aws:iam::111122223333:root"]},"Action":["SQS:GetQueueAttributes","SQS:GetQueueUrl"],"Resource":"` + res + `"}`},
		{"every action", []string{"111122223333"}, []string{"*"},
			`{"Sid":"L","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"SQS:*","Resource":"` + res + `"}`},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			u := qlCreate(t, f, "q", nil)
			qlAddPermission(t, f, u, "L", tc.accounts, tc.actions)
			assert.Equal(t, qlWith(qlFreshStandard("q", qlStart), map[string]string{"Policy": qlPolicyDoc("q", tc.statement)}), qlAttrs(t, f, u))
		})
	}
}

func TestAddPermissionAcceptsEveryShareableActionAndUpToSevenAtOnce(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "q", nil)
	seven := []string{"SendMessage", "ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility", "GetQueueAttributes", "GetQueueUrl", "ListDeadLetterSourceQueues"}
	qlAddPermission(t, f, u, "seven", []string{"111122223333"}, seven)
	qlAddPermission(t, f, u, "more", []string{"111122223333"}, []string{"PurgeQueue", "ListQueueTags"})
	p, ok := qlPolicy(t, f, u)
	require.True(t, ok)
	assert.Equal(t, qlPolicyDoc("q",
		`{"Sid":"seven","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":["SQS:SendMessage","SQS:ReceiveMessage","SQS:DeleteMessage","SQS:ChangeMessageVisibility","SQS:GetQueueAttributes","SQS:GetQueueUrl","SQS:ListDeadLetterSourceQueues"],"Resource":"`+qlARN("q")+`"}`,
		`{"Sid":"more","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":["SQS:PurgeQueue","SQS:ListQueueTags"],"Resource":"`+qlARN("q")+`"}`,
	), p)
}

func TestAddPermissionAppendsStatementsAndRemovePermissionRemovesThem(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "q", nil)
	st := func(label, account, action string) string {
		return `{"Sid":"` + label + `","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + account + `:root"},"Action":"SQS:` + action + `","Resource":"` + qlARN("q") + `"}`
	}
	qlAddPermission(t, f, u, "first", []string{"111111111111"}, []string{"SendMessage"})
	qlAddPermission(t, f, u, "second", []string{"222222222222"}, []string{"ReceiveMessage"})
	qlAddPermission(t, f, u, "First", []string{"333333333333"}, []string{"DeleteMessage"}) // labels are case-sensitive

	steps := []struct {
		remove string
		want   []string // remaining statements; none means no Policy attribute
	}{
		{"", []string{st("first", "111111111111", "SendMessage"), st("second", "222222222222", "ReceiveMessage"), st("First", "333333333333", "DeleteMessage")}},
		{"second", []string{st("first", "111111111111", "SendMessage"), st("First", "333333333333", "DeleteMessage")}},
		{"first", []string{st("First", "333333333333", "DeleteMessage")}},
		{"First", nil},
	}
	for _, s := range steps {
		if s.remove != "" {
			qlRemovePermission(t, f, u, s.remove)
		}
		p, ok := qlPolicy(t, f, u)
		if s.want == nil {
			assert.False(t, ok, "removing the last statement removes the Policy attribute, got %s", p)
			assert.Equal(t, qlFreshStandard("q", qlStart), qlAttrs(t, f, u))
			continue
		}
		assert.Equal(t, qlPolicyDoc("q", s.want...), p, "after removing %q", s.remove)
	}

	// A label that was removed can be used again.
	qlAddPermission(t, f, u, "first", []string{"444444444444"}, []string{"SendMessage"})
	p, _ := qlPolicy(t, f, u)
	assert.Equal(t, qlPolicyDoc("q", st("first", "444444444444", "SendMessage")), p)
}

func TestAddPermissionRejectsInvalidRequestsAndChangesNothing(t *testing.T) {
	acct := []string{"111122223333"}
	cases := []struct {
		desc     string
		label    string
		accounts []string
		actions  []string
		want     qlErr
	}{
		{"label already used", "existing", acct, []string{"SendMessage"},
			qlInvalidParameterValue("Value existing for parameter Label is invalid. Reason: Already exists.")},
		{"label already used, with other accounts and actions", "existing", []string{"444455556666"}, []string{"ReceiveMessage"},
			qlInvalidParameterValue("Value existing for parameter Label is invalid. Reason: Already exists.")},
		{"more than 7 actions", "L", acct, []string{"SendMessage", "ReceiveMessage", "DeleteMessage", "ChangeMessageVisibility", "GetQueueAttributes", "GetQueueUrl", "PurgeQueue", "ListQueueTags"},
			qlOverLimit("8 Actions were found, maximum allowed is 7.")},
		{"label with a space", "bad label", acct, []string{"SendMessage"},
			qlInvalidParameterValue("Value bad label for parameter Label is invalid. Reason: Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length.")},
		{"empty label", "", acct, []string{"SendMessage"},
			qlInvalidParameterValue("Value  for parameter Label is invalid. Reason: Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length.")},
		{"label of 81 characters", strings.Repeat("l", 81), acct, []string{"SendMessage"},
			qlInvalidParameterValue("Value " + strings.Repeat("l", 81) + " for parameter Label is invalid. Reason: Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length.")},
		{"unknown action", "L", acct, []string{"SendMessage", "Fly"},
			qlInvalidParameterValue("Value SQS:Fly for parameter ActionName is invalid. Reason: Please refer to the appropriate WSDL for a list of valid actions.")},
		{"action with the SQS: prefix", "L", acct, []string{"SQS:SendMessage"},
			qlInvalidParameterValue("Value SQS:SQS:SendMessage for parameter ActionName is invalid. Reason: Please refer to the appropriate WSDL for a list of valid actions.")},
		{"account id too short", "L", []string{"123"}, []string{"SendMessage"},
			qlInvalidParameterValue("Value 123 for parameter AWSAccountIds is invalid. Reason: Invalid account id.")},
		{"account id not digits", "L", []string{"11112222333a"}, []string{"SendMessage"},
			qlInvalidParameterValue("Value 11112222333a for parameter AWSAccountIds is invalid. Reason: Invalid account id.")},
		{"no accounts", "L", []string{}, []string{"SendMessage"}, qlMissingParameter("AWSAccountIds")},
		{"no actions", "L", acct, []string{}, qlMissingParameter("Actions")},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			u := qlCreate(t, f, "q", nil)
			qlAddPermission(t, f, u, "existing", acct, []string{"SendMessage"})
			before := qlState(t, f)
			_, err := f.AddPermission(context.Background(), &sqs.AddPermissionInput{
				QueueUrl: aws.String(u), Label: aws.String(tc.label), AWSAccountIds: tc.accounts, Actions: tc.actions,
			})
			qlRequireError(t, err, "AddPermission", tc.want)
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestRemovePermissionWithAnUnknownLabelFailsAndChangesNothing(t *testing.T) {
	cases := []struct {
		desc   string
		policy func(t *testing.T, f *Fake, u string)
		label  string
	}{
		{"queue without a policy", func(*testing.T, *Fake, string) {}, "L"},
		{"label not in the policy", func(t *testing.T, f *Fake, u string) {
			qlAddPermission(t, f, u, "L", []string{"111122223333"}, []string{"SendMessage"})
		}, "M"},
		{"label in another case", func(t *testing.T, f *Fake, u string) {
			qlAddPermission(t, f, u, "L", []string{"111122223333"}, []string{"SendMessage"})
		}, "l"},
		{"empty label against a statement without a Sid", func(t *testing.T, f *Fake, u string) {
			qlSetAttrs(t, f, u, map[string]string{"Policy": `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"*"}]}`})
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			u := qlCreate(t, f, "q", nil)
			tc.policy(t, f, u)
			before := qlState(t, f)
			_, err := f.RemovePermission(context.Background(), &sqs.RemovePermissionInput{QueueUrl: aws.String(u), Label: aws.String(tc.label)})
			qlRequireError(t, err, "RemovePermission", qlInvalidParameterValue("Value "+tc.label+" for parameter Label is invalid. Reason: can't find label."))
			assert.Equal(t, before, qlState(t, f))
		})
	}
}

func TestAddPermissionKeepsTheStatementsOfAPolicySetWithSetQueueAttributes(t *testing.T) {
	custom := `{"Sid":"Custom","Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"*"}`
	added := `{"Sid":"L","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::111122223333:root"},"Action":"SQS:SendMessage","Resource":"` + qlARN("q") + `"}`
	cases := []struct {
		desc, policy, want string
	}{
		{"statement list", `{"Version":"2012-10-17","Id":"mine","Statement":[` + custom + `]}`,
			`{"Version":"2012-10-17","Id":"mine","Statement":[` + custom + `,` + added + `]}`},
		{"single statement object", `{"Version":"2012-10-17","Id":"mine","Statement":` + custom + `}`,
			`{"Version":"2012-10-17","Id":"mine","Statement":[` + custom + `,` + added + `]}`},
		{"indented document", "{\n  \"Version\": \"2012-10-17\",\n  \"Id\": \"mine\",\n  \"Statement\": [\n    " + custom + "\n  ]\n}",
			`{"Version":"2012-10-17","Id":"mine","Statement":[` + custom + `,` + added + `]}`},
		// Without an Id the default one is used.
		{"document without Id", `{"Version":"2012-10-17","Statement":[` + custom + `]}`,
			`{"Version":"2012-10-17","Id":"` + qlARN("q") + `/SQSDefaultPolicy","Statement":[` + custom + `,` + added + `]}`},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			f := New()
			u := qlCreate(t, f, "q", map[string]string{"Policy": tc.policy})
			qlAddPermission(t, f, u, "L", []string{"111122223333"}, []string{"SendMessage"})
			p, _ := qlPolicy(t, f, u)
			assert.Equal(t, tc.want, p)

			// The label of a statement someone else wrote is a label too.
			_, err := f.AddPermission(context.Background(), &sqs.AddPermissionInput{
				QueueUrl: aws.String(u), Label: aws.String("Custom"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage"},
			})
			qlRequireError(t, err, "AddPermission", qlInvalidParameterValue("Value Custom for parameter Label is invalid. Reason: Already exists."))
			qlRemovePermission(t, f, u, "L")
			qlRemovePermission(t, f, u, "Custom")
			_, ok := qlPolicy(t, f, u)
			assert.False(t, ok)
		})
	}
}

func TestSetQueueAttributesPolicyEmptyRemovesPermissions(t *testing.T) {
	f := New()
	u := qlCreate(t, f, "q", nil)
	qlAddPermission(t, f, u, "L", []string{"111122223333"}, []string{"SendMessage"})
	qlSetAttrs(t, f, u, map[string]string{"Policy": ""})
	_, ok := qlPolicy(t, f, u)
	assert.False(t, ok)
	_, err := f.RemovePermission(context.Background(), &sqs.RemovePermissionInput{QueueUrl: aws.String(u), Label: aws.String("L")})
	qlRequireError(t, err, "RemovePermission", qlInvalidParameterValue("Value L for parameter Label is invalid. Reason: can't find label."))
	// The label is free again, in a new default document.
	qlAddPermission(t, f, u, "L", []string{"444455556666"}, []string{"ReceiveMessage"})
	p, _ := qlPolicy(t, f, u)
	assert.Equal(t, qlPolicyDoc("q", `{"Sid":"L","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::444455556666:root"},"Action":"SQS:ReceiveMessage","Resource":"`+qlARN("q")+`"}`), p)
}

func TestAddPermissionNamesThePartitionOfTheFakesRegion(t *testing.T) {
	f := New(WithRegion("cn-north-1"), WithAccountID("210987654321"))
	u := qlCreate(t, f, "q", nil)
	qlAddPermission(t, f, u, "L", []string{"111122223333"}, []string{"SendMessage"})
	p, _ := qlPolicy(t, f, u)
	arn := "arn:aws-cn:sqs:cn-north-1:210987654321:q"
	assert.Equal(t, `{"Version":"2008-10-17","Id":"`+arn+`/SQSDefaultPolicy","Statement":[{"Sid":"L","Effect":"Allow","Principal":{"AWS":"arn:aws-cn:iam::111122223333:root"},"Action":"SQS:SendMessage","Resource":"`+arn+`"}]}`, p)
}

func TestPermissionOperationsOnAnUnknownQueueFailWithQueueDoesNotExist(t *testing.T) {
	ctx := context.Background()
	f := New()
	u := aws.String(qlURL("missing"))
	_, err := f.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: u, Label: aws.String("L"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"SendMessage"}})
	qlRequireError(t, err, "AddPermission", qlQueueDoesNotExist())
	// The queue is looked up before anything else is checked.
	_, err = f.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: u, Label: aws.String("bad label"), AWSAccountIds: []string{}, Actions: []string{}})
	qlRequireError(t, err, "AddPermission", qlQueueDoesNotExist())
	_, err = f.RemovePermission(ctx, &sqs.RemovePermissionInput{QueueUrl: u, Label: aws.String("L")})
	qlRequireError(t, err, "RemovePermission", qlQueueDoesNotExist())
}
