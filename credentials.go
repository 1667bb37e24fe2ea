package sqsfake

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Credential is one access key the fake knows in signed mode (WithCredentials, or the
// -credentials file of cmd/sqsfake). A request signed with AccessKeyID must carry a SigV4
// signature computed with SecretAccessKey; it then acts as PrincipalARN of AccountID.
type Credential struct {
	// AccessKeyID is the key id a client signs with, such as AKIAIOSFODNN7EXAMPLE.
	AccessKeyID string
	// SecretAccessKey is the secret the client signs with.
	SecretAccessKey string
	// AccountID is the 12-digit account the key belongs to. "" derives it: from the account
	// of PrincipalARN when one is given, else from an AccessKeyID of 12 digits (the
	// convention LocalStack users follow), else the fake's default account.
	AccountID string
	// PrincipalARN is the caller's IAM principal, such as arn:aws:iam::111122223333:user/alice
	// or arn:aws:sts::111122223333:assumed-role/worker/i-0123. "" means the account's root,
	// arn:<partition>:iam::<AccountID>:root.
	PrincipalARN string
	// OrgID is the aws:PrincipalOrgID of the principal, such as o-a1b2c3d4e5; "" means the
	// principal belongs to no organization, so a policy condition on aws:PrincipalOrgID
	// never matches it.
	OrgID string
}

// WithCredentials switches the fake's wire door (Handler, HTTPClient, cmd/sqsfake) to
// signed mode: every request must carry a valid AWS Signature Version 4 — in its
// Authorization header or presigned in its query string — made with one of cs's access keys,
// and then acts as that key's account and principal, in the region its credential scope
// names. A request unsigned, signed with an unknown key or a wrong secret, or dated more than
// 15 minutes from the real time (clients sign with their wall clock, whatever the fake's
// clock reads) is refused as SQS refuses it, and reaches no queue (docs/signatures.md lists
// each refusal and its evidence). Without WithCredentials the wire is lenient: any signature
// or none is accepted, and the access key id only names the account when it is 12 digits.
// The in-memory doors (the fake's methods, Client) check no signature: they act as ActAs
// says. cs must be non-empty; each credential's rules are on Credential.
func WithCredentials(cs ...Credential) Option {
	return func(f *Fake) {
		if len(cs) == 0 {
			f.refuse("WithCredentials", "no credentials", credentialsRule)
			return
		}
		f.credList = append([]Credential(nil), cs...)
	}
}

// credentialSet is the access keys of signed mode, by access key id.
type credentialSet struct {
	keys map[string]*knownKey
}

// knownKey is one access key of a credentialSet, with its account and principal resolved.
type knownKey struct {
	accessKey, secret, account, principal, orgID string
	// signer is the SDK's SigV4 signer of the key's set. Its cache of derived signing keys
	// goes by access key id, day, region and service, not by secret, so each set has its own:
	// with one signer for the process, two fakes that give one key id two secrets would check
	// one's requests with the other's derived key.
	signer *v4.Signer
}

// credentialsRule is what WithCredentials allows, as OptionError.Want says it.
const credentialsRule = "credentials with a non-empty, unique AccessKeyID, a non-empty SecretAccessKey, " +
	"an AccountID of 12 digits or \"\", a PrincipalARN such as arn:aws:iam::111122223333:user/alice " +
	"(in the credential's account) or \"\", and an OrgID such as o-a1b2c3d4e5 or \"\""

// newCredentialSet checks cs and returns the set signed mode verifies requests against. An
// empty AccountID is derived as Credential documents, with defaultAccount as the fake's
// default; an empty PrincipalARN becomes the account's root in partition. The error, if
// any, is an *OptionError of WithCredentials naming the first credential at fault.
func newCredentialSet(cs []Credential, defaultAccount, partition string) (*credentialSet, error) {
	set := &credentialSet{keys: make(map[string]*knownKey, len(cs))}
	signer := v4.NewSigner()
	for i, c := range cs {
		k, problem := resolveCredential(c, defaultAccount, partition)
		if problem == "" {
			if _, dup := set.keys[c.AccessKeyID]; dup {
				problem = "AccessKeyID used twice"
			}
		}
		if problem != "" {
			return nil, &OptionError{
				Option: "WithCredentials",
				Value:  "credential " + strconv.Itoa(i) + " (AccessKeyID " + strconv.Quote(c.AccessKeyID) + "): " + problem,
				Want:   credentialsRule,
			}
		}
		k.signer = signer
		set.keys[c.AccessKeyID] = k
	}
	return set, nil
}

// resolveCredential checks one credential and fills in its account and principal, or says
// what is wrong with it.
func resolveCredential(c Credential, defaultAccount, partition string) (*knownKey, string) {
	switch {
	case c.AccessKeyID == "":
		return nil, "empty AccessKeyID"
	case !printableToken(c.AccessKeyID) || strings.ContainsAny(c.AccessKeyID, "/,="):
		// A key id goes into the Credential= part of an Authorization header, whose
		// separators are '/', ',' and '='; with one of them in it no request could name it.
		return nil, "AccessKeyID has a space, a control character or one of / , ="
	case c.SecretAccessKey == "":
		return nil, "empty SecretAccessKey"
	case c.AccountID != "" && !isAccountID(c.AccountID):
		return nil, "AccountID " + strconv.Quote(c.AccountID) + " is not 12 digits"
	case c.OrgID != "" && !orgIDShape(c.OrgID):
		return nil, "OrgID " + strconv.Quote(c.OrgID) + " is not of the form o-<10 to 32 lower-case letters or digits>"
	}
	account := c.AccountID
	if c.PrincipalARN != "" {
		arnAccount, ok := principalARNAccount(c.PrincipalARN)
		if !ok {
			return nil, "PrincipalARN " + strconv.Quote(c.PrincipalARN) + " is not an IAM or STS principal ARN"
		}
		if account == "" {
			account = arnAccount
		} else if arnAccount != account {
			return nil, "PrincipalARN " + strconv.Quote(c.PrincipalARN) + " is in account " + arnAccount + ", not " + account
		}
	}
	if account == "" {
		account = accountOfKey(c.AccessKeyID)
	}
	if account == "" {
		account = defaultAccount
	}
	principal := c.PrincipalARN
	if principal == "" {
		principal = "arn:" + partition + ":iam::" + account + ":root"
	}
	return &knownKey{accessKey: c.AccessKeyID, secret: c.SecretAccessKey, account: account, principal: principal, orgID: c.OrgID}, ""
}

// handleSecret returns the secret that keys the receipt handles of signed mode: the SHA-256
// of every access key id and secret of the set, in key order, so that no caller who knows
// fewer than all of the secrets can compute a handle (ids.go). A nil set has none.
func (s *credentialSet) handleSecret() []byte {
	if s == nil {
		return nil
	}
	h := sha256.New()
	for _, id := range slices.Sorted(maps.Keys(s.keys)) {
		k := s.keys[id]
		fmt.Fprintf(h, "%d:%s%d:%s", len(k.accessKey), k.accessKey, len(k.secret), k.secret)
	}
	return h.Sum(nil)
}

// lookup returns the known key with the id accessKey. A nil set knows none.
func (s *credentialSet) lookup(accessKey string) (*knownKey, bool) {
	if s == nil {
		return nil, false
	}
	k, ok := s.keys[accessKey]
	return k, ok
}

// principalARNAccount returns the account of an IAM or STS principal ARN:
// arn:<partition>:iam::<account>:<root|user/…|role/…|…> or
// arn:<partition>:sts::<account>:<assumed-role/…|federated-user/…>.
func principalARNAccount(arn string) (string, bool) {
	for _, service := range [...]string{"iam", "sts"} {
		if partition, account, resource, ok := splitIAMArn(arn, service); ok {
			return account, partition != "" && isAccountID(account) && printableToken(resource)
		}
	}
	return "", false
}

// accountOfKey returns the account an access key id names by convention: a key id of 12
// digits is that account; any other names none ("").
func accountOfKey(accessKey string) string {
	if isAccountID(accessKey) {
		return accessKey
	}
	return ""
}

// orgIDShape reports whether s has the shape of an AWS Organizations id: o- and 10 to 32
// lower-case letters or digits.
func orgIDShape(s string) bool {
	rest, ok := strings.CutPrefix(s, "o-")
	if !ok || len(rest) < 10 || len(rest) > 32 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// printableToken reports whether s is printable ASCII without spaces.
func printableToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}
