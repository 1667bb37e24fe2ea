package sqsfake

import (
	"cmp"
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"
)

// Accounts and regions. SQS queues live per account and region: one name in two regions is
// two queues (SPEC-access §6), a queue URL names its account, and a caller acts in the region
// of the endpoint it signs for. The fake keeps one space per (account, region) a caller has
// acted in; every call acts as an identity — the fake's own account and region unless the
// call says otherwise (ActAs, a client's Region, or on the wire the
// request's signature) — in that identity's space.

// space is one account in one region: the queues created there share its name space.
type space struct {
	account, region, partition string
}

// queueKey names a queue: its name within its space.
type queueKey struct {
	sp   *space
	name string
}

// identity is who a call says it acts as, before the fake resolves it to an actor. The zero
// value is the fake's own account and region.
type identity struct {
	account   string           // "" = the fake's account
	region    string           // "" = the fake's region
	principal string           // "" = the account's root
	orgID     string           // aws:PrincipalOrgID; "" = none configured
	insecure  bool             // the request came over plain HTTP (aws:SecureTransport false)
	service   servicePrincipal // asService: an AWS service acting on a resource's behalf; zero otherwise
	bad       *OptionError     // an ActAs Identity the fake refuses: calls made as it fail
}

// actor is a resolved identity: the space it acts in and the principal it acts as. Actors
// are interned per identity, so the default path allocates nothing.
type actor struct {
	num       uint32 // 0 for the fake's own root user, else 1 + its index in Fake.actorList
	own       bool   // the fake's own root user, in its own region (over plain HTTP, say)
	sp        *space
	principal string
	orgID     string
	insecure  bool
	service   servicePrincipal // a service principal (asService); zero for an account's principal
}

// Identity says who a call acts as: an AWS account, a region and a principal of that account.
// Zero fields take the fake's own values (WithAccountID, WithRegion) and the account's root
// user (arn:aws:iam::<account>:root); an empty AccountID with a PrincipalARN is the
// principal's account. A call made as an Identity the fake cannot be — an account that is not
// 12 digits, a Region without a region's form, a principal of another account than
// AccountID — fails with an *OptionError of ActAs.
type Identity struct {
	// AccountID is the caller's 12-digit account: queues it creates belong to it, and a
	// queue of another account admits it only if that queue's Policy allows.
	AccountID string
	// Region is the region the caller's endpoint serves: CreateQueue, GetQueueUrl and
	// ListQueues act there, and a queue URL without a region names a queue there.
	Region string
	// PrincipalARN is the IAM user or role acting, e.g. arn:aws:iam::111122223333:user/alice,
	// as a queue Policy's Principal names it.
	PrincipalARN string
	// OrgID is the AWS Organizations id the condition key aws:PrincipalOrgID compares; ""
	// leaves the key absent, so conditions on it do not match.
	OrgID string
}

// identityCredentials is the credentials provider ActAs installs: it carries the whole
// identity to the fake, and gives an SDK that signs (door 3 through HTTPClient) the account
// as its access key id, as 12-digit access keys name accounts on the wire.
type identityCredentials struct{ id Identity }

// Retrieve returns static credentials whose access key id is the account.
func (c identityCredentials) Retrieve(context.Context) (aws.Credentials, error) {
	key := c.id.AccountID
	if key == "" {
		key = "sqsfake"
	}
	return aws.Credentials{AccessKeyID: key, SecretAccessKey: "sqsfake", Source: "sqsfake.ActAs"}, nil
}

// identityKey is the context key under which ActAs's middleware passes an Identity to door 2.
type identityKey struct{}

// identityMiddleware puts an Identity in a call's context, for a per-call ActAs through a
// client from Client.
type identityMiddleware struct{ id Identity }

// ID names the middleware in the SDK's stack.
func (identityMiddleware) ID() string { return "SQSFakeActAs" }

// HandleInitialize passes the identity on in the context.
func (m identityMiddleware) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (
	middleware.InitializeOutput, middleware.Metadata, error) {
	return next.HandleInitialize(context.WithValue(ctx, identityKey{}, m.id), in)
}

// ActAs returns an option that makes calls act as id: give it to Client for a client of
// another account or region, or to one call of the fake's methods or of such a client.
//
//	consumer := f.Client(sqsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"}))
//	f.SendMessage(ctx, in, sqsfake.ActAs(sqsfake.Identity{Region: "eu-west-1"}))
//
// It sets the client's Region and Credentials (static, with the account as access key id) as
// an SDK configured for that account would have them. A client from Client given only
// another Region acts in that region; over the wire (Handler, HTTPClient, the server) the
// access key a request is signed with names the account when it is 12 digits.
func ActAs(id Identity) func(*sqs.Options) {
	return func(o *sqs.Options) {
		if id.Region != "" {
			o.Region = id.Region
		}
		o.Credentials = identityCredentials{id}
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(identityMiddleware{id}, middleware.After)
		})
	}
}

// identityOf returns the identity an SDK option set gives a call in memory: its Region, and
// the identity ActAs's credentials carry. Other credential providers are not consulted (they
// may reach a network); the wire reads the access key a request was signed with instead.
func identityOf(region, defaultRegion string, creds aws.CredentialsProvider) identity {
	var id identity
	if region != defaultRegion {
		id.region = region
	}
	switch c := creds.(type) {
	case serviceCredentials:
		return identity{region: id.region, service: c.p}
	case identityCredentials:
		id = identityFromPublic(c.id)
		if c.id.Region == "" && region != defaultRegion {
			id.region = region
		}
	}
	return id
}

// identityRule is what ActAs allows, as the OptionError of a call made as another Identity says.
const identityRule = "an Identity whose AccountID is 12 digits or \"\", whose Region has a region's form " +
	"(us-east-1) or is \"\", whose PrincipalARN is an IAM or STS principal ARN of that account " +
	"(arn:aws:iam::111122223333:user/alice) or \"\", and whose OrgID is o- and 10 to 32 lower-case letters or digits, or \"\""

// identityFromPublic converts an Identity. One the fake cannot act as — an account that is
// not 12 digits, a principal of another account than AccountID — is kept with the error a
// call made as it fails with, rather than acting as someone else. An empty AccountID is the
// account of PrincipalARN when one is given.
func identityFromPublic(p Identity) identity {
	id := identity{account: p.AccountID, region: p.Region, principal: p.PrincipalARN, orgID: p.OrgID}
	ok := (p.AccountID == "" || isAccountID(p.AccountID)) &&
		(p.Region == "" || isRegionName(p.Region)) &&
		(p.OrgID == "" || orgIDShape(p.OrgID))
	if ok && p.PrincipalARN != "" {
		arnAccount, valid := principalARNAccount(p.PrincipalARN)
		switch {
		case !valid, p.AccountID != "" && arnAccount != p.AccountID:
			ok = false
		case p.AccountID == "":
			id.account = arnAccount
		}
	}
	if !ok {
		id.bad = &OptionError{Option: "ActAs", Value: fmt.Sprintf("%#v", p), Want: identityRule}
	}
	return id
}

// spaceOf returns the space of an account in a region, made on first use. Called with f.mu held.
func (f *Fake) spaceOf(account, region string) *space {
	if account == f.home.account && region == f.home.region {
		return f.home
	}
	k := [2]string{account, region}
	sp := f.spaces[k]
	if sp == nil {
		sp = &space{account: account, region: region, partition: partitionOf(region)}
		if f.spaces == nil {
			f.spaces = make(map[[2]string]*space)
		}
		f.spaces[k] = sp
	}
	return sp
}

// findSpace returns the space of an account in a region, or nil if nobody acted there: it
// has no queue. Called with f.mu held.
func (f *Fake) findSpace(account, region string) *space {
	if account == f.home.account && region == f.home.region {
		return f.home
	}
	return f.spaces[[2]string{account, region}]
}

// actorFor resolves an identity. A region or account that is not well formed (an SDK
// configured with the region "local", say) stands for the fake's own, as do the fake's own
// values given explicitly. Called with f.mu held.
func (f *Fake) actorFor(who *identity) *actor {
	if *who == (identity{}) {
		return f.homeActor // most calls: the fake's own, resolved without copying an identity
	}
	id := f.trimOwn(*who)
	if id == (identity{}) {
		return f.homeActor
	}
	if id == (identity{insecure: true}) && f.homeOverHTTP != nil {
		return f.homeOverHTTP // every unsigned or lenient wire request of the fake's own
	}
	if a := f.actors[id]; a != nil {
		return a
	}
	var a *actor
	if id == (identity{}) {
		a = f.homeActor
	} else if id.service.Service != "" {
		a = f.serviceActor(id)
	} else {
		account, region := cmp.Or(id.account, f.home.account), cmp.Or(id.region, f.home.region)
		sp := f.spaceOf(account, region)
		a = &actor{sp: sp, principal: cmp.Or(id.principal, rootARN(sp.partition, account)), orgID: id.orgID, insecure: id.insecure}
		if a.own = sp == f.home && a.principal == f.homeActor.principal; !a.own {
			f.actorList = append(f.actorList, a)
			a.num = uint32(len(f.actorList))
		}
	}
	if f.actors == nil {
		f.actors = make(map[identity]*actor)
	}
	f.actors[id] = a
	if id == (identity{insecure: true}) {
		f.homeOverHTTP = a
	}
	return a
}

// trimOwn leaves out of id what is the fake's own — its account, its region, its root user —
// and what is not well formed, which stands for the fake's own, so that one identity has one
// form and the fake's own resolves without a map lookup. It reads only what New set, so a door
// may call it without f.mu.
func (f *Fake) trimOwn(id identity) identity {
	if id.account == f.home.account || id.account != "" && !isAccountID(id.account) {
		id.account = ""
	}
	if id.region == f.home.region || id.region != "" && !isRegionName(id.region) {
		id.region = ""
	}
	if id.account == "" && id.principal == f.homeActor.principal {
		id.principal = ""
	}
	return id
}

// principalOf returns the principal ARN of the actor numbered num (actor.num), or "" for the
// fake's own root user. Called with f.mu held.
func (f *Fake) principalOf(num uint32) string {
	if num == 0 || int(num) > len(f.actorList) {
		return ""
	}
	return f.actorList[num-1].principal
}

// unauthenticated stands in the call record for the caller of a request refused before it
// was authenticated: it has no account, region or principal.
var unauthenticated = &actor{}

// rootARN is the principal ARN of an account's root user.
func rootARN(partition, account string) string {
	return "arn:" + partition + ":iam::" + account + ":root"
}
