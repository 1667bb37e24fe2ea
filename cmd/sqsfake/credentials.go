package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sqsfake/sqsfake"
)

// The -credentials file: the access keys the server knows in signed mode, as a JSON array
// of objects, one a key:
//
//	[
//	  {"accessKeyId": "AKIAALICE000EXAMPLE", "secretAccessKey": "alice-secret",
//	   "accountId": "111122223333", "principalArn": "arn:aws:iam::111122223333:user/alice"},
//	  {"accessKeyId": "444455556666", "secretAccessKey": "bob-secret"},
//	  {"accessKeyId": "AKIAWORKER00EXAMPLE", "secretAccessKey": "worker-secret",
//	   "principalArn": "arn:aws:sts::111122223333:assumed-role/worker/i-0123",
//	   "orgId": "o-a1b2c3d4e5"}
//	]
//
// accessKeyId and secretAccessKey are required. accountId, the key's 12-digit account, is
// optional: without it the account is principalArn's, else the key id itself when it is 12
// digits, else the server's -account. principalArn (optional) is the IAM user or role the
// key acts as, in that account; without it the caller is the account's root,
// arn:aws:iam::<account>:root. orgId (optional) is the principal's aws:PrincipalOrgID.
// Any other field is an error, so a misspelt field is not silently ignored.
//
// A request signed with a key of the file must carry a valid SigV4 signature made with its
// secret; any other request is refused as AWS refuses it.

// credentialEntry is one object of the -credentials file.
type credentialEntry struct {
	AccessKeyID     *string `json:"accessKeyId"`
	SecretAccessKey *string `json:"secretAccessKey"`
	AccountID       string  `json:"accountId"`
	PrincipalARN    string  `json:"principalArn"`
	OrgID           string  `json:"orgId"`
}

// readCredentials reads the -credentials file at path. An error names the file and the
// line of the entry or the JSON at fault.
func readCredentials(path string) ([]sqsfake.Credential, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	creds, err := parseCredentials(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return creds, nil
}

// parseCredentials reads the JSON of a -credentials file. An error begins with the line at
// fault: "3: …".
func parseCredentials(data []byte) ([]sqsfake.Credential, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	at := func(offset int64) string {
		return fmt.Sprint(1 + bytes.Count(data[:min(int(offset), len(data))], []byte("\n")))
	}
	fail := func(offset int64, err error) error {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			offset = se.Offset
		case errors.As(err, &te):
			offset = te.Offset
			err = fmt.Errorf("field %s: want a string, not a JSON %s", te.Field, te.Value)
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			offset, err = int64(len(data)), errors.New("unexpected end of the file")
		}
		return fmt.Errorf("%s: %s", at(offset), strings.TrimPrefix(err.Error(), "json: "))
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fail(dec.InputOffset(), err)
	}
	if tok != json.Delim('[') {
		return nil, fail(0, errors.New(`want a JSON array of credentials, [{"accessKeyId": …, "secretAccessKey": …}, …]`))
	}
	var creds []sqsfake.Credential
	for dec.More() {
		start := dec.InputOffset()
		// The entry begins after the comma and spaces that follow the offset.
		for int(start) < len(data) && strings.IndexByte(", \t\r\n", data[start]) >= 0 {
			start++
		}
		var e credentialEntry
		if err := dec.Decode(&e); err != nil {
			return nil, fail(dec.InputOffset(), err)
		}
		switch {
		case e.AccessKeyID == nil || *e.AccessKeyID == "":
			return nil, fail(start, errors.New("credential without an accessKeyId"))
		case e.SecretAccessKey == nil || *e.SecretAccessKey == "":
			return nil, fail(start, fmt.Errorf("credential %q without a secretAccessKey", *e.AccessKeyID))
		}
		creds = append(creds, sqsfake.Credential{AccessKeyID: *e.AccessKeyID, SecretAccessKey: *e.SecretAccessKey,
			AccountID: e.AccountID, PrincipalARN: e.PrincipalARN, OrgID: e.OrgID})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(dec.InputOffset(), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(dec.InputOffset(), errors.New("more after the array of credentials"))
	}
	if len(creds) == 0 {
		return nil, fail(0, errors.New("no credentials: with -credentials every request must be signed with a key of the file"))
	}
	return creds, nil
}
