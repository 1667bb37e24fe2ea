package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
)

func TestReadCredentials(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    []sqsfake.Credential
		wantErr string // after "<path>:"
	}{
		{
			name: "every field",
			file: `[
  {"accessKeyId": "AKIAALICE000EXAMPLE", "secretAccessKey": "alice-secret",
   "accountId": "111122223333", "principalArn": "arn:aws:iam::111122223333:user/alice", "orgId": "o-a1b2c3d4e5"},
  {"accessKeyId": "444455556666", "secretAccessKey": "bob-secret"}
]`,
			want: []sqsfake.Credential{
				{AccessKeyID: "AKIAALICE000EXAMPLE", SecretAccessKey: "alice-secret", AccountID: "111122223333",
					PrincipalARN: "arn:aws:iam::111122223333:user/alice", OrgID: "o-a1b2c3d4e5"},
				{AccessKeyID: "444455556666", SecretAccessKey: "bob-secret"},
			},
		},
		{
			name:    "a misspelt field",
			file:    "[\n  {\"accessKeyId\": \"a\", \"secretAccessKey\": \"s\"},\n  {\"accessKeyId\": \"b\", \"secretKey\": \"s\"}\n]",
			wantErr: `3: unknown field "secretKey"`,
		},
		{
			name:    "no secret",
			file:    "[\n  {\"accessKeyId\": \"a\", \"secretAccessKey\": \"s\"},\n\n  {\"accessKeyId\": \"b\"}\n]",
			wantErr: `4: credential "b" without a secretAccessKey`,
		},
		{
			name:    "no key id",
			file:    `[{"secretAccessKey": "s"}]`,
			wantErr: `1: credential without an accessKeyId`,
		},
		{
			name:    "a number for a string",
			file:    "[\n {\"accessKeyId\": \"a\", \"secretAccessKey\": \"s\", \"accountId\": 111122223333}]",
			wantErr: `2: field accountId: want a string, not a JSON number`,
		},
		{
			name:    "not JSON",
			file:    "[\n {\"accessKeyId\": \"a\",,}]",
			wantErr: `2: invalid character ',' looking for beginning of object key string`,
		},
		{
			name:    "cut short",
			file:    "[\n {\"accessKeyId\": \"a\", \"secretAccessKey\": \"s\"}",
			wantErr: `2: unexpected end of the file`,
		},
		{
			name:    "an object, not an array",
			file:    `{"accessKeyId": "a", "secretAccessKey": "s"}`,
			wantErr: `1: want a JSON array of credentials, [{"accessKeyId": …, "secretAccessKey": …}, …]`,
		},
		{
			name:    "more after the array",
			file:    "[{\"accessKeyId\": \"a\", \"secretAccessKey\": \"s\"}]\n[]",
			wantErr: `2: more after the array of credentials`,
		},
		{
			name:    "an empty array",
			file:    "[]",
			wantErr: `1: no credentials: with -credentials every request must be signed with a key of the file`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "creds.json")
			require.NoError(t, os.WriteFile(path, []byte(tt.file), 0o600))
			got, err := readCredentials(path)
			if tt.wantErr != "" {
				require.EqualError(t, err, path+":"+tt.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestReadCredentialsMissingFile(t *testing.T) {
	_, err := readCredentials(filepath.Join(t.TempDir(), "none.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
