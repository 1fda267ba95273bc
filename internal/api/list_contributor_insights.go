package api

import "github.com/dynago/dynago/internal/wire"

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

// Prepare checks the members' constraints.
func (in *ListContributorInsightsInput) Prepare() error {
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
