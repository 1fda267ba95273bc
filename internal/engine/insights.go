package engine

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/insights"
	"github.com/dynago/dynago/internal/storage"
)

// Contributor Insights: the setting (this file) and the data collected
// for tables and GSIs that have it on (insights_report.go).
//
// States and messages: docs/research-contributor-insights.md.

// tableArnPattern is a table ARN: region, account, name.
var tableArnPattern = lazyRegexp(`^arn:aws:dynamodb:([a-z0-9-]+):([0-9]{12}):table/([a-zA-Z0-9_.-]{3,255})$`)

// tableNameOf returns the table name of a TableName member that may
// also be a table ARN (arn:aws:dynamodb:<region>:<account>:table/<name>).
// An ARN of another region or account, or not a table's, is returned
// whole: no table has that name, so the caller answers
// ResourceNotFoundException naming it.
func (e *Engine) tableNameOf(ctx context.Context, s string) string {
	m := tableArnPattern().FindStringSubmatch(s)
	if m == nil || m[1] != e.region(ctx) || m[2] != e.opts.AccountID {
		return s
	}
	return m[3]
}

// insightsTarget returns the table and, when index is set, the GSI whose
// Contributor Insights a request names; an LSI or a missing index is
// ResourceNotFoundException.
func insightsTarget(t *catalog.Table, index *string) (*catalog.Index, error) {
	if index == nil {
		return nil, nil
	}
	ix := t.Index(*index)
	if ix == nil || ix.Local {
		return nil, ddberr.New(ddberr.ResourceNotFoundException, "Requested resource not found: Index: "+*index+" not found for table: "+t.Name)
	}
	return ix, nil
}

// UpdateContributorInsights enables or disables Contributor Insights on a
// table or GSI. Enabling what is enabled in the same mode, or disabling
// what is disabled, answers the settled status and changes nothing.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContributorInsights.html
func (e *Engine) UpdateContributorInsights(ctx context.Context, in *api.UpdateContributorInsightsInput) (*api.UpdateContributorInsightsOutput, error) {
	name := e.tableNameOf(ctx, *in.TableName)
	out := &api.UpdateContributorInsightsOutput{TableName: name}
	if in.IndexName != nil {
		out.IndexName = *in.IndexName
	}
	// reset is the key space whose recorded keys a fresh start drops.
	var reset *insights.Space
	err := e.update(ctx, func(tx storage.Txn) error {
		t, err := tableToChange(tx, name)
		if err != nil {
			return err
		}
		ix, err := insightsTarget(t, in.IndexName)
		if err != nil {
			return err
		}
		now := e.opts.Now()
		if t.Status(now) == catalog.StatusCreating {
			return ddberr.Validation("Table or Index is not in a valid state to update Key Access Insights: TableStatus must be ACTIVE to enable ContributorInsights.")
		}
		if ix != nil && ix.Status(now) == catalog.IndexCreating {
			return ddberr.Validation("Table or Index is not in a valid state to update Key Access Insights: IndexStatus must be ACTIVE to enable ContributorInsights.")
		}
		setting := &t.Insights
		if ix != nil {
			setting = &ix.Insights
		}
		cur := *setting
		status := cur.Status(now)
		enable := *in.Action == "ENABLE"
		mode := catalog.InsightsAccessedAndThrottled
		if in.Mode != nil && enable {
			mode = *in.Mode
		}
		switch {
		case enable && status == catalog.Enabled && cur.Mode == mode,
			!enable && status == catalog.Disabled:
			out.Status = status
			if cur != nil {
				out.Mode = cur.Mode
			}
			return nil
		}
		next := &catalog.Insights{Toggle: catalog.NewToggle(enable, now, e.opts.CreateDelay), Mode: mode}
		switch {
		case !enable:
			next.Mode, next.RulesCreated = cur.Mode, cur.RulesCreated
			out.Status = catalog.Disabling
		case cur != nil && cur.Enabled:
			// A change of mode keeps the rules that stay.
			next.RulesCreated = cur.RulesCreated
			out.Status = catalog.Enabling
		default:
			next.RulesCreated = now.UnixMilli()
			out.Status = catalog.Enabling
		}
		out.Mode = next.Mode
		*setting = next
		if enable {
			// Enabled anew, or in another mode: the report starts afresh.
			sp := insights.Space{Table: t.Number}
			if ix != nil {
				sp.Index = ix.Number
			}
			reset = &sp
		}
		return catalog.Put(tx, t)
	})
	if err != nil {
		return nil, err
	}
	if reset != nil {
		e.insights.Reset(*reset)
	}
	return out, nil
}

// DescribeContributorInsights reports the Contributor Insights setting of
// a table or GSI, with the names of the CloudWatch rules DynamoDB would
// have created for it.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeContributorInsights.html
func (e *Engine) DescribeContributorInsights(ctx context.Context, in *api.DescribeContributorInsightsInput) (*api.DescribeContributorInsightsOutput, error) {
	name := e.tableNameOf(ctx, *in.TableName)
	t, err := e.namedTable(ctx, name)
	if err != nil {
		return nil, err
	}
	ix, err := insightsTarget(t, in.IndexName)
	if err != nil {
		return nil, err
	}
	out := &api.DescribeContributorInsightsOutput{TableName: t.Name}
	setting, resource, hasSort := t.Insights, t.Name, len(t.KeySchema) > 1
	if ix != nil {
		out.IndexName = ix.Name
		setting, resource, hasSort = ix.Insights, t.Name+"-"+ix.Name, len(ix.RangeKeys()) > 0
	}
	out.Status = setting.Status(e.opts.Now())
	if setting == nil {
		return out, nil
	}
	out.Mode = setting.Mode
	out.LastUpdate = epochSeconds(setting.ChangedAt)
	if out.Status != catalog.Disabled {
		out.Rules = insightsRules(setting, resource, hasSort)
	}
	return out, nil
}

// insightsRules returns the CloudWatch Contributor Insights rule names of
// a setting: most accessed (C) and most throttled (T) partition keys
// (PK) and, with a sort key, partition and sort keys (SK); THROTTLED_KEYS
// keeps only the throttled ones.
func insightsRules(s *catalog.Insights, resource string, hasSort bool) []string {
	kinds := []string{"PKC", "PKT", "SKC", "SKT"}
	var rules []string
	for _, k := range kinds {
		if (k[0] == 'S' && !hasSort) || (k[2] == 'C' && s.Mode == catalog.InsightsThrottledOnly) {
			continue
		}
		rules = append(rules, "DynamoDBContributorInsights-"+k+"-"+resource+"-"+strconv.FormatInt(s.RulesCreated, 10))
	}
	return rules
}

// defaultInsightsPage is ListContributorInsights' page size without
// MaxResults (DynamoDB does not document its own).
const defaultInsightsPage = 100

// ListContributorInsights lists the tables and GSIs whose Contributor
// Insights are not DISABLED, by table name, each table before its GSIs.
// NextToken names the last entry returned; a bad one is a
// ValidationException.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListContributorInsights.html
func (e *Engine) ListContributorInsights(ctx context.Context, in *api.ListContributorInsightsInput) (*api.ListContributorInsightsOutput, error) {
	limit := defaultInsightsPage
	if in.MaxResults != nil && *in.MaxResults > 0 {
		limit = int(*in.MaxResults)
	}
	var after string // "table\x00index" of the last entry returned
	if in.NextToken != nil {
		raw, err := base64.RawURLEncoding.DecodeString(*in.NextToken)
		if err != nil || !strings.Contains(string(raw), "\x00") {
			return nil, ddberr.Validation("Invalid NextToken")
		}
		after = string(raw)
	}
	var tables []*catalog.Table
	if in.TableName != nil {
		t, err := e.namedTable(ctx, e.tableNameOf(ctx, *in.TableName))
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	} else {
		var err error
		if tables, err = e.allTables(ctx); err != nil {
			return nil, err
		}
	}
	// Every table's entry, then its GSIs', in table-name order; a page
	// resumes after the token's entry (or, if that entry is gone, at the
	// next table).
	type entry struct {
		table, index string
		setting      *catalog.Insights
	}
	var entries []entry
	for _, t := range tables {
		entries = append(entries, entry{t.Name, "", t.Insights})
		for _, ix := range t.GSIs {
			entries = append(entries, entry{t.Name, ix.Name, ix.Insights})
		}
	}
	from := 0
	if after != "" {
		tok := strings.SplitN(after, "\x00", 2)
		from = len(entries)
		for i, en := range entries {
			if en.table > tok[0] || (en.table == tok[0] && en.index == tok[1]) {
				from = i
				if en.table == tok[0] {
					from++
				}
				break
			}
		}
	}
	now := e.opts.Now()
	out := &api.ListContributorInsightsOutput{Summaries: []api.ContributorInsightsSummary{}}
	for _, en := range entries[from:] {
		status := en.setting.Status(now)
		if status == catalog.Disabled {
			continue
		}
		if len(out.Summaries) == limit {
			last := out.Summaries[len(out.Summaries)-1]
			out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(last.TableName + "\x00" + last.IndexName))
			break
		}
		out.Summaries = append(out.Summaries, api.ContributorInsightsSummary{TableName: en.table, IndexName: en.index, Status: status, Mode: en.setting.Mode})
	}
	return out, nil
}
