package sqsfake

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewCredentialSetResolvesAccountAndPrincipal(t *testing.T) {
	tests := []struct {
		name string
		cred Credential
		want knownKey
	}{
		{
			name: "given account and principal",
			cred: Credential{AccessKeyID: "AKIDA", SecretAccessKey: "s", AccountID: "111122223333",
				PrincipalARN: "arn:aws:iam::111122223333:user/alice", OrgID: "o-a1b2c3d4e5"},
			want: knownKey{accessKey: "AKIDA", secret: "s", account: "111122223333",
				principal: "arn:aws:iam::111122223333:user/alice", orgID: "o-a1b2c3d4e5"},
		},
		{
			name: "account from the principal ARN, an STS session",
			cred: Credential{AccessKeyID: "ASIAB", SecretAccessKey: "s", PrincipalARN: "arn:aws:sts::444455556666:assumed-role/worker/i-0123"},
			want: knownKey{accessKey: "ASIAB", secret: "s", account: "444455556666",
				principal: "arn:aws:sts::444455556666:assumed-role/worker/i-0123"},
		},
		{
			name: "account from a 12-digit key, principal its root",
			cred: Credential{AccessKeyID: "777788889999", SecretAccessKey: "s"},
			want: knownKey{accessKey: "777788889999", secret: "s", account: "777788889999", principal: "arn:aws-cn:iam::777788889999:root"},
		},
		{
			name: "given account over a 12-digit key",
			cred: Credential{AccessKeyID: "777788889999", SecretAccessKey: "s", AccountID: "111122223333"},
			want: knownKey{accessKey: "777788889999", secret: "s", account: "111122223333", principal: "arn:aws-cn:iam::111122223333:root"},
		},
		{
			name: "the default account",
			cred: Credential{AccessKeyID: "test", SecretAccessKey: "test"},
			want: knownKey{accessKey: "test", secret: "test", account: "123456789012", principal: "arn:aws-cn:iam::123456789012:root"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := newCredentialSet([]Credential{tt.cred}, "123456789012", "aws-cn")
			require.NoError(t, err)
			got, ok := set.lookup(tt.cred.AccessKeyID)
			require.True(t, ok)
			assert.NotNil(t, got.signer)
			g := *got
			g.signer = nil
			assert.Equal(t, tt.want, g)
			_, ok = set.lookup("unknown")
			assert.False(t, ok)
		})
	}
}

func TestNewCredentialSetRefusesBadCredentials(t *testing.T) {
	ok := Credential{AccessKeyID: "AKIDOK", SecretAccessKey: "s"}
	tests := []struct {
		name  string
		creds []Credential
		value string
	}{
		{"empty key id", []Credential{ok, {SecretAccessKey: "s"}}, `credential 1 (AccessKeyID ""): empty AccessKeyID`},
		{"key id with a slash", []Credential{{AccessKeyID: "a/b", SecretAccessKey: "s"}},
			`credential 0 (AccessKeyID "a/b"): AccessKeyID has a space, a control character or one of / , =`},
		{"key id with a space", []Credential{{AccessKeyID: "a b", SecretAccessKey: "s"}},
			`credential 0 (AccessKeyID "a b"): AccessKeyID has a space, a control character or one of / , =`},
		{"key id twice", []Credential{ok, ok}, `credential 1 (AccessKeyID "AKIDOK"): AccessKeyID used twice`},
		{"empty secret", []Credential{{AccessKeyID: "k"}}, `credential 0 (AccessKeyID "k"): empty SecretAccessKey`},
		{"account not 12 digits", []Credential{{AccessKeyID: "k", SecretAccessKey: "s", AccountID: "12345"}},
			`credential 0 (AccessKeyID "k"): AccountID "12345" is not 12 digits`},
		{"principal not an ARN", []Credential{{AccessKeyID: "k", SecretAccessKey: "s", PrincipalARN: "alice"}},
			`credential 0 (AccessKeyID "k"): PrincipalARN "alice" is not an IAM or STS principal ARN`},
		{"principal of another service", []Credential{{AccessKeyID: "k", SecretAccessKey: "s", PrincipalARN: "arn:aws:sqs:us-east-1:111122223333:q"}},
			`credential 0 (AccessKeyID "k"): PrincipalARN "arn:aws:sqs:us-east-1:111122223333:q" is not an IAM or STS principal ARN`},
		{"principal without a resource", []Credential{{AccessKeyID: "k", SecretAccessKey: "s", PrincipalARN: "arn:aws:iam::111122223333:"}},
			`credential 0 (AccessKeyID "k"): PrincipalARN "arn:aws:iam::111122223333:" is not an IAM or STS principal ARN`},
		{"principal in another account", []Credential{{AccessKeyID: "k", SecretAccessKey: "s", AccountID: "111122223333", PrincipalARN: "arn:aws:iam::444455556666:user/bob"}},
			`credential 0 (AccessKeyID "k"): PrincipalARN "arn:aws:iam::444455556666:user/bob" is in account 444455556666, not 111122223333`},
		{"bad org id", []Credential{{AccessKeyID: "k", SecretAccessKey: "s", OrgID: "org-1"}},
			`credential 0 (AccessKeyID "k"): OrgID "org-1" is not of the form o-<10 to 32 lower-case letters or digits>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, err := newCredentialSet(tt.creds, DefaultAccountID, "aws")
			assert.Nil(t, set)
			assert.Equal(t, &OptionError{Option: "WithCredentials", Value: tt.value, Want: credentialsRule}, err)
		})
	}
}
