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

// UpdateContributorInsightsInput is the UpdateContributorInsights
// request.
type UpdateContributorInsightsInput struct{ ContributorInsightsInput }

// DescribeContributorInsightsInput is the DescribeContributorInsights
// request.
type DescribeContributorInsightsInput struct{ ContributorInsightsInput }

// Decode implements Input.
func (in *UpdateContributorInsightsInput) Decode(r *wire.Reader) error {
	in.update = true
	return in.decode(r, "UpdateContributorInsightsInput")
}

// Decode implements Input.
func (in *DescribeContributorInsightsInput) Decode(r *wire.Reader) error {
	return in.decode(r, "DescribeContributorInsightsInput")
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

// Validate checks the members' constraints. An index name out of 3 to
// 255 characters gets DynamoDB's own sentence, without the constraint
// envelope.
func (in *ContributorInsightsInput) Validate() error {
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

// UpdateContributorInsightsOutput is the UpdateContributorInsights
// response.
type UpdateContributorInsightsOutput struct {
	TableName, IndexName string // IndexName "" to omit
	Status               string
	Mode                 string // "" to omit (never enabled)
}

// AppendJSON appends the response body.
func (o *UpdateContributorInsightsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"TableName":`...)
	dst = wire.AppendString(dst, o.TableName)
	dst = appendOptString(dst, "IndexName", o.IndexName)
	dst = append(dst, `,"ContributorInsightsStatus":`...)
	dst = wire.AppendString(dst, o.Status)
	dst = appendOptString(dst, "ContributorInsightsMode", o.Mode)
	return append(dst, '}')
}

// DescribeContributorInsightsOutput is the DescribeContributorInsights
// response.
type DescribeContributorInsightsOutput struct {
	TableName, IndexName string   // IndexName "" to omit
	Rules                []string // ContributorInsightsRuleList; nil to omit
	Status               string
	// LastUpdate is LastUpdateDateTime in epoch seconds; 0 to omit.
	LastUpdate float64
	Mode       string // "" to omit
}

// AppendJSON appends the response body.
func (o *DescribeContributorInsightsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"TableName":`...)
	dst = wire.AppendString(dst, o.TableName)
	dst = appendOptString(dst, "IndexName", o.IndexName)
	if o.Rules != nil {
		dst = append(dst, `,"ContributorInsightsRuleList":[`...)
		for i, r := range o.Rules {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = wire.AppendString(dst, r)
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"ContributorInsightsStatus":`...)
	dst = wire.AppendString(dst, o.Status)
	if o.LastUpdate != 0 {
		dst = append(dst, `,"LastUpdateDateTime":`...)
		dst = wire.AppendFloat(dst, o.LastUpdate)
	}
	dst = appendOptString(dst, "ContributorInsightsMode", o.Mode)
	return append(dst, '}')
}

// ListContributorInsightsInput is the ListContributorInsights request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListContributorInsights.html
type ListContributorInsightsInput struct {
	TableName  *string // optional: every table when nil
	NextToken  *string
	MaxResults *int64 // at most 100
}

// Decode implements Input.
func (in *ListContributorInsightsInput) Decode(r *wire.Reader) error {
	_, err := object(r, "ListContributorInsightsInput", func(k string) error {
		switch k {
		case "TableName":
			return readString(r, &in.TableName)
		case "NextToken":
			return readString(r, &in.NextToken)
		case "MaxResults":
			return readInt(r, "Integer", &in.MaxResults)
		}
		return r.Skip()
	})
	return err
}

// Validate checks the members' constraints.
func (in *ListContributorInsightsInput) Validate() error {
	var c constraints
	c.length("tableName", in.TableName, 1, 1024, false)
	c.max("maxResults", in.MaxResults, 100)
	return c.err()
}

// ContributorInsightsSummary is one entry of ListContributorInsights.
type ContributorInsightsSummary struct {
	TableName, IndexName, Status, Mode string
}

// ListContributorInsightsOutput is the ListContributorInsights response.
type ListContributorInsightsOutput struct {
	Summaries []ContributorInsightsSummary
	NextToken string // "" to omit
}

// AppendJSON appends the response body.
func (o *ListContributorInsightsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"ContributorInsightsSummaries":[`...)
	for i, s := range o.Summaries {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"TableName":`...)
		dst = wire.AppendString(dst, s.TableName)
		dst = appendOptString(dst, "IndexName", s.IndexName)
		dst = append(dst, `,"ContributorInsightsStatus":`...)
		dst = wire.AppendString(dst, s.Status)
		dst = appendOptString(dst, "ContributorInsightsMode", s.Mode)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	dst = appendOptString(dst, "NextToken", o.NextToken)
	return append(dst, '}')
}

// appendOptString appends `,"key":value` unless value is "".
func appendOptString(dst []byte, key, value string) []byte {
	if value == "" {
		return dst
	}
	dst = wire.AppendKey(dst, key)
	return wire.AppendString(dst, value)
}
