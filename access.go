package sqsfake

// Who may act on a queue. A call acts as an actor (spaces.go); before an operation touches a
// queue it asks access, which applies SQS's rule (SPEC-access §3): a caller of the queue's
// own account may act unless the queue's Policy explicitly denies it, a caller of another
// account only if the Policy allows it, and some actions never cross accounts. The policy
// language itself is policy.go's.

// queueFor returns the queue a QueueUrl names if the caller a may perform action on it
// (action is the single form: SendMessage for SendMessageBatch).
func (f *Fake) queueFor(a *actor, u, action string) (*queue, *sqsError) {
	q, err := f.lookupURL(a, u)
	if err != nil {
		return nil, err
	}
	if err := access(a, q, action); err != nil {
		return nil, err
	}
	return q, nil
}

// access checks that a may perform action on q. The path nobody asked anything of — a caller
// of the queue's own account, a queue without a Policy — costs two comparisons.
func access(a *actor, q *queue, action string) *sqsError {
	rules := q.cfg.policyRules
	svc := a.service.Service != ""
	if rules == nil && a.sp.account == q.sp.account && !svc {
		return nil
	}
	r := accessRequest{
		account:         a.sp.account,
		principal:       a.principal,
		action:          action,
		resource:        q.arn,
		secureTransport: !a.insecure,
		orgID:           a.orgID,
	}
	if svc {
		// A service principal is no account's principal: only the policy admits it
		// (servicePrincipal), with the resource it acts for in the request context.
		r.account, r.service, r.secureTransport = "", true, true
		r.sourceArn, r.sourceAccount = a.service.SourceArn, a.service.SourceAccount
	}
	d := authorize(rules, q.sp.account, &r)
	if d == allowed {
		return nil
	}
	return errAccessDenied(accessDeniedMessage(&r, d))
}

// errAccessDenied is SQS's refusal of a caller a policy does not admit: HTTP 403, code
// AccessDenied, type com.amazon.coral.service#AccessDeniedException (SPEC-access §1).
func errAccessDenied(message string) *sqsError {
	return newError("AccessDeniedException", message)
}
