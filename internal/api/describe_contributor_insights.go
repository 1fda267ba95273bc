package api

import "github.com/dynago/dynago/internal/wire"

// DescribeContributorInsightsInput is the DescribeContributorInsights
// request.
type DescribeContributorInsightsInput struct{ ContributorInsightsInput }

// Decode implements Input.
func (in *DescribeContributorInsightsInput) Decode(r *wire.Reader) error {
	return in.decode(r, "DescribeContributorInsightsInput")
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
