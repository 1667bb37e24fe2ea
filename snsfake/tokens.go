package snsfake

import (
	"crypto/hmac"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"time"
)

// Confirmation tokens (SPEC-sns.md §5.2). A subscription that must be confirmed — an sqs
// subscription of another account's queue, an http, https, email or email-json one — gets a
// token when it is made (issueToken), which the SubscriptionConfirmation carries, both in its
// Token field and in its SubscribeURL. ConfirmSubscription, or a GET of the SubscribeURL,
// with the token confirms the subscription; presented again, within its validity, it answers
// the subscription's ARN again, as AWS's confirmation is idempotent [AWS rec 2023-10].
//
// A token authenticates itself, as the queue fake's receipt handles do: 128 lower-case hex
// digits, the token's number (16) then a tag (112), the first 56 bytes of HMAC-SHA512 of the
// number, its topic's ARN and its subscription's ARN under the fake's token key. The key is
// companion.ServiceKey's: in memory derived from the seed alone, so the same calls give the
// same tokens run after run and whoever knows the seed can compute them (the seed is the
// key, as docs/signatures.md says of handles); in signed mode (sqsfake.WithCredentials) from
// the seed and every secret of the credentials, so that nobody who holds fewer than all of
// them can make a token the fake did not hand out, whatever MessageIds, subscription ARNs and
// tokens of their own they have seen. Each Reset changes the key. A token names the
// subscription it was made for and no other: one whose tag does not check, or whose
// subscription is gone, is "Invalid parameter: Token".
//
// Where it may be presented: ConfirmSubscription, signed in signed mode, with the token's
// own topic (another topic's ARN is "Invalid parameter: Token" [AWS rec 2025-10]); or the
// SubscribeURL, an unsigned GET in either mode, as on AWS, whose TopicArn must be a
// well-formed topic ARN of the request's region ("Invalid parameter: Topic" [AWS rec
// 2023-10]) and of the token's topic's partition and account — AWS confirmed a token
// presented with another topic name of the same region and account [AWS rec 2023-10,
// test_subscribe_external_http_endpoint], so the name alone may differ (another account is
// the fake's choice, INF: "Invalid parameter: Token"). Whoever holds the token can thus confirm
// the subscription, and read its ARN by the link, for the token's 2 days of validity, as on
// AWS; the token reaches only the subscribed endpoint (whoever reads the queue), the fake's
// inspections (SubscriptionInfo.Token) and the server's control endpoints.

// tokenPurpose names the fake's token key among companion.ServiceKey's.
const tokenPurpose = "snsfake confirmation tokens"

// tokenLen is a token's length in hex digits: 8 bytes of number, 56 of tag.
const tokenLen = 2 * (8 + 56)

// tokenValidity is how long a confirmation token is valid: "Tokens are valid for 2 days"
// (the ConfirmSubscription doc, SPEC-sns.md §5.2). An expired token is refused as an
// unknown one, "Invalid parameter: Token" (AWS's text for an expired token: UNVERIFIED); a
// pending subscription stays pending. A confirmed subscription's token expires too: after 2
// days it no longer answers the ARN (INF).
const tokenValidity = 48 * time.Hour

// issueToken gives sub its confirmation token, valid from now. Called with s.mu held.
func (s *Fake) issueToken(sub *subscription) {
	s.nextToken++
	n := s.nextToken
	sub.tokenNum, sub.tokenAt = n, s.sq.Now().UnixNano()
	var b [tokenLen / 2]byte
	binary.BigEndian.PutUint64(b[:8], n)
	copy(b[8:], s.tokenTag(n, sub))
	sub.token = hex.EncodeToString(b[:])
	s.tokens[n] = sub
}

// tokenTag is the tag of token number n of sub.
func (s *Fake) tokenTag(n uint64, sub *subscription) []byte {
	mac := hmac.New(sha512.New, s.tokenKey[:])
	var num [8]byte
	binary.BigEndian.PutUint64(num[:], n)
	mac.Write(num[:])
	mac.Write([]byte(sub.t.arn))
	mac.Write([]byte{0})
	mac.Write([]byte(sub.arn))
	return mac.Sum(nil)[:tokenLen/2-8]
}

// tokenSubscription returns the subscription a token names, if the token is one the fake
// issued for it and is still valid; nil otherwise. Called with s.mu held.
func (s *Fake) tokenSubscription(token string) *subscription {
	if len(token) != tokenLen {
		return nil
	}
	b, err := hex.DecodeString(token)
	if err != nil {
		return nil
	}
	sub := s.tokens[binary.BigEndian.Uint64(b[:8])]
	if sub == nil || !hmac.Equal(b[8:], s.tokenTag(sub.tokenNum, sub)) || s.tokenExpired(sub) {
		return nil
	}
	return sub
}

func (s *Fake) tokenExpired(sub *subscription) bool {
	return s.sq.Now().UnixNano()-sub.tokenAt >= int64(tokenValidity)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !(s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f') {
			return false
		}
	}
	return s != ""
}

// confirm is ConfirmSubscription: the token's own topic; authenticated says the call was
// (ConfirmationWasAuthenticated).
func (s *Fake) confirm(c *call, topicArn, token string, authenticated bool) (string, *snsError) {
	if _, e := s.topicOrNil(c, topicArn, "TopicArn"); e != nil {
		return "", e
	}
	if !isHex(token) {
		return "", newError("InvalidParameter", "Invalid token")
	}
	sub := s.tokenSubscription(token)
	if sub == nil || sub.t.arn != topicArn {
		return "", errInvalidParameter("Token")
	}
	return s.confirmed(sub, authenticated), nil
}

// confirmByLink is the SubscribeURL's confirmation: the token decides, presented with a
// topic ARN (checked for its form and region by the caller) of its topic's partition and
// account. Confirmed this way, ConfirmationWasAuthenticated is false.
func (s *Fake) confirmByLink(topicArn, token string) (string, *snsError) {
	if !isHex(token) {
		return "", newError("InvalidParameter", "Invalid token")
	}
	sub := s.tokenSubscription(token)
	if sub == nil {
		return "", errInvalidParameter("Token")
	}
	own, _ := strings.CutSuffix(sub.t.arn, sub.t.name)
	if !strings.HasPrefix(topicArn, own) {
		return "", errInvalidParameter("Token")
	}
	return s.confirmed(sub, false), nil
}

// confirmed confirms sub if it is pending, and returns its ARN.
func (s *Fake) confirmed(sub *subscription, authenticated bool) string {
	if sub.pending {
		sub.pending, sub.authed = false, authenticated
	}
	return sub.arn
}
