package companion

import (
	"net/http"

	"github.com/sqsfake/sqsfake"
)

// SignatureError is the refusal of a request whose SigV4 signature signed mode does not
// accept (VerifyRequest): AWS's error code (SignatureDoesNotMatch, InvalidClientTokenId,
// MissingAuthenticationToken, IncompleteSignature, MalformedQueryString, …), its message
// and the HTTP status AWS answers it with.
type SignatureError struct {
	Code    string
	Message string
	Status  int
}

// Error returns "Code: Message".
func (e *SignatureError) Error() string { return e.Code + ": " + e.Message }

// VerifyRequest is signed mode (sqsfake.WithCredentials) for a companion that serves another
// service's wire beside f's (snsfake's SNS wire on the server's port): it checks the
// request's SigV4 signature for service ("sns"), with every guard the fake's own wire
// applies (docs/signatures.md: the credential scope, the clock skew, a signed Host, one
// reading of the query and body), and returns the sqsfake.Identity the request acts as.
// body is the request's body, already read. A refusal is a *SignatureError. signed is false,
// with no error, when the fake is not in signed mode: the companion then reads the caller as
// lenient mode does.
func VerifyRequest(f *sqsfake.Fake, r *http.Request, body []byte, service string) (id sqsfake.Identity, signed bool, err error) {
	id, signed, serr := eng.VerifyRequest(f, r, body, service)
	if serr != nil {
		return id, signed, (*SignatureError)(serr)
	}
	return id, signed, nil
}
