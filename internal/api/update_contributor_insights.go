package api

import "github.com/dynago/dynago/internal/wire"

// UpdateContributorInsightsInput is the UpdateContributorInsights
// request.
type UpdateContributorInsightsInput struct{ ContributorInsightsInput }

// Decode implements Input.
func (in *UpdateContributorInsightsInput) Decode(r *wire.Reader) error {
	in.update = true
	return in.decode(r, "UpdateContributorInsightsInput")
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
