package api

import (
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// Contributor Insights requests and responses.
//
// Shapes, constraints and messages: docs/research-contributor-insights.md
// §1 and §3.

// Contributor Insights enumerations, in the order DynamoDB's messages
// list them (the mode's differs from the model's).
var (
	insightsActionValues = []string{"ENABLE", "DISABLE"}
	insightsModeValues   = []string{"THROTTLED_KEYS", "ACCESSED_AND_THROTTLED_KEYS"}
)

// ContributorInsightsInput is the UpdateContributorInsights and
// DescribeContributorInsights request (Describe has no Action or Mode).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContributorInsights.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeContributorInsights.html
type ContributorInsightsInput struct {
	// TableName is a table name or table ARN (1 to 1,024 characters).
	TableName *string
	IndexName *string
	// Action is ENABLE or DISABLE (UpdateContributorInsights only).
	Action *string
	// Mode is ACCESSED_AND_THROTTLED_KEYS (the default) or
	// THROTTLED_KEYS.
	Mode *string
	// update is set for UpdateContributorInsights.
	update bool
}

func (in *ContributorInsightsInput) decode(r *wire.Reader, typ string) error {
	_, err := object(r, typ, func(k string) error {
		switch k {
		case "TableName":
			return readString(r, &in.TableName)
		case "IndexName":
			return readString(r, &in.IndexName)
		case "ContributorInsightsAction":
			if in.update {
				return readString(r, &in.Action)
			}
		case "ContributorInsightsMode":
			if in.update {
				return readString(r, &in.Mode)
			}
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the members' constraints. An index name out of 3 to
// 255 characters gets DynamoDB's own sentence, without the constraint
// envelope.
func (in *ContributorInsightsInput) Prepare() error {
	if in.IndexName != nil && (charLen(*in.IndexName) < 3 || charLen(*in.IndexName) > 255) {
		return ddberr.Validation("IndexName must be at least 3 characters long and at most 255 characters long")
	}
	var c constraints
	c.length("tableName", in.TableName, 1, 1024, true)
	if in.IndexName != nil && !namePattern.MatchString(*in.IndexName) {
		c.add(*in.IndexName, false, "indexName", "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+")
	}
	if in.update {
		if in.Action == nil {
			c.add("", true, "contributorInsightsAction", "Member must not be null")
		}
		c.enum("contributorInsightsAction", in.Action, insightsActionValues...)
		c.enum("contributorInsightsMode", in.Mode, insightsModeValues...)
	}
	return c.err()
}

// appendOptString appends `,"key":value` unless value is "".
func appendOptString(dst []byte, key, value string) []byte {
	if value == "" {
		return dst
	}
	dst = wire.AppendKey(dst, key)
	return wire.AppendString(dst, value)
}
