package snsfake

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/smithy-go"
)

// The client-side checks of service/sns's validators, reproduced so that door 1 fails
// before SNS sees the call exactly as a *sns.Client does (SPEC-sns.md §1): a nil member the
// model requires. The order of the members is the SDK's.

// member is a required member: its name, and whether it is missing.
type member struct {
	name    string
	missing bool
}

func required(context string, members ...member) smithy.InvalidParamsError {
	ip := smithy.InvalidParamsError{Context: context}
	for _, m := range members {
		if m.missing {
			ip.Add(smithy.NewErrParamRequired(m.name))
		}
	}
	return ip
}

func done(ip smithy.InvalidParamsError) error {
	if ip.Len() > 0 {
		return ip
	}
	return nil
}

func validateTags(ip *smithy.InvalidParamsError, tags []types.Tag) {
	if tags == nil {
		return
	}
	list := smithy.InvalidParamsError{Context: "TagList"}
	for i, t := range tags {
		if e := required("Tag", member{"Key", t.Key == nil}, member{"Value", t.Value == nil}); e.Len() > 0 {
			list.AddNested(fmt.Sprintf("[%d]", i), e)
		}
	}
	if list.Len() > 0 {
		ip.AddNested("Tags", list)
	}
}

func validateAttributes(ip *smithy.InvalidParamsError, attrs map[string]types.MessageAttributeValue) {
	if attrs == nil {
		return
	}
	m := smithy.InvalidParamsError{Context: "MessageAttributeMap"}
	for k, v := range attrs {
		if e := required("MessageAttributeValue", member{"DataType", v.DataType == nil}); e.Len() > 0 {
			m.AddNested(fmt.Sprintf("[%q]", k), e)
		}
	}
	if m.Len() > 0 {
		ip.AddNested("MessageAttributes", m)
	}
}

// validateInput runs the SDK's validator of the operation whose input params is.
func validateInput(params any) error {
	switch v := params.(type) {
	case *sns.AddPermissionInput:
		return done(required("AddPermissionInput", member{"TopicArn", v.TopicArn == nil}, member{"Label", v.Label == nil},
			member{"AWSAccountId", v.AWSAccountId == nil}, member{"ActionName", v.ActionName == nil}))
	case *sns.ConfirmSubscriptionInput:
		return done(required("ConfirmSubscriptionInput", member{"TopicArn", v.TopicArn == nil}, member{"Token", v.Token == nil}))
	case *sns.CreateTopicInput:
		ip := required("CreateTopicInput", member{"Name", v.Name == nil})
		validateTags(&ip, v.Tags)
		return done(ip)
	case *sns.DeleteTopicInput:
		return done(required("DeleteTopicInput", member{"TopicArn", v.TopicArn == nil}))
	case *sns.GetDataProtectionPolicyInput:
		return done(required("GetDataProtectionPolicyInput", member{"ResourceArn", v.ResourceArn == nil}))
	case *sns.GetSubscriptionAttributesInput:
		return done(required("GetSubscriptionAttributesInput", member{"SubscriptionArn", v.SubscriptionArn == nil}))
	case *sns.GetTopicAttributesInput:
		return done(required("GetTopicAttributesInput", member{"TopicArn", v.TopicArn == nil}))
	case *sns.ListSubscriptionsByTopicInput:
		return done(required("ListSubscriptionsByTopicInput", member{"TopicArn", v.TopicArn == nil}))
	case *sns.ListTagsForResourceInput:
		return done(required("ListTagsForResourceInput", member{"ResourceArn", v.ResourceArn == nil}))
	case *sns.PublishInput:
		ip := required("PublishInput", member{"Message", v.Message == nil})
		validateAttributes(&ip, v.MessageAttributes)
		return done(ip)
	case *sns.PublishBatchInput:
		ip := required("PublishBatchInput", member{"TopicArn", v.TopicArn == nil}, member{"PublishBatchRequestEntries", v.PublishBatchRequestEntries == nil})
		if v.PublishBatchRequestEntries != nil {
			list := smithy.InvalidParamsError{Context: "PublishBatchRequestEntryList"}
			for i, e := range v.PublishBatchRequestEntries {
				eip := required("PublishBatchRequestEntry", member{"Id", e.Id == nil}, member{"Message", e.Message == nil})
				validateAttributes(&eip, e.MessageAttributes)
				if eip.Len() > 0 {
					list.AddNested(fmt.Sprintf("[%d]", i), eip)
				}
			}
			if list.Len() > 0 {
				ip.AddNested("PublishBatchRequestEntries", list)
			}
		}
		return done(ip)
	case *sns.PutDataProtectionPolicyInput:
		return done(required("PutDataProtectionPolicyInput", member{"ResourceArn", v.ResourceArn == nil}, member{"DataProtectionPolicy", v.DataProtectionPolicy == nil}))
	case *sns.RemovePermissionInput:
		return done(required("RemovePermissionInput", member{"TopicArn", v.TopicArn == nil}, member{"Label", v.Label == nil}))
	case *sns.SetSubscriptionAttributesInput:
		return done(required("SetSubscriptionAttributesInput", member{"SubscriptionArn", v.SubscriptionArn == nil}, member{"AttributeName", v.AttributeName == nil}))
	case *sns.SetTopicAttributesInput:
		return done(required("SetTopicAttributesInput", member{"TopicArn", v.TopicArn == nil}, member{"AttributeName", v.AttributeName == nil}))
	case *sns.SubscribeInput:
		return done(required("SubscribeInput", member{"TopicArn", v.TopicArn == nil}, member{"Protocol", v.Protocol == nil}))
	case *sns.TagResourceInput:
		ip := required("TagResourceInput", member{"ResourceArn", v.ResourceArn == nil}, member{"Tags", v.Tags == nil})
		validateTags(&ip, v.Tags)
		return done(ip)
	case *sns.UnsubscribeInput:
		return done(required("UnsubscribeInput", member{"SubscriptionArn", v.SubscriptionArn == nil}))
	case *sns.UntagResourceInput:
		return done(required("UntagResourceInput", member{"ResourceArn", v.ResourceArn == nil}, member{"TagKeys", v.TagKeys == nil}))
	}
	return nil
}
