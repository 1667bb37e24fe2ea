package sqsfake

// TEMPORARY: replaced by the policy branch.

type accessRequest struct {
	account, principal, action, resource string
	secureTransport                      bool
	sourceArn, sourceAccount             string
	orgID                                string
}

type decision uint8

const (
	implicitDeny decision = iota
	allowed
	explicitDeny
)

type queuePolicy struct{}

func authorize(p *queuePolicy, queueAccount string, r *accessRequest) decision {
	if r.account == queueAccount {
		return allowed
	}
	return implicitDeny
}

func accessDeniedMessage(r *accessRequest, d decision) string { return "denied" }
