package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
)

// Control-plane operations tools call right after creating a table, each
// answering as DynamoDB does for a table with the feature off (or, for
// continuous backups, storing and reporting the setting).
//
// Shapes and messages: docs/research-control-plane.md (live DynamoDB).

// DynamoDB's default account quotas, in capacity units.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html
const (
	accountMaxUnits = 80000
	tableMaxUnits   = 40000
)

// DescribeLimits returns the account's capacity quotas: DynamoDB's
// defaults, 80,000 units a second for the account and 40,000 for a
// table, read and write.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeLimits.html
func (e *Engine) DescribeLimits(ctx context.Context, in *api.DescribeLimitsInput) (*api.DescribeLimitsOutput, error) {
	return &api.DescribeLimitsOutput{AccountMaxRead: accountMaxUnits, AccountMaxWrite: accountMaxUnits, TableMaxRead: tableMaxUnits, TableMaxWrite: tableMaxUnits}, nil
}

// DescribeEndpoints returns the endpoint to use: this server, by the
// host (and port) the request was sent to, so that an SDK with endpoint
// discovery keeps talking to it; cached for 1,440 minutes as DynamoDB
// says.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeEndpoints.html
func (e *Engine) DescribeEndpoints(ctx context.Context, in *api.DescribeEndpointsInput) (*api.DescribeEndpointsOutput, error) {
	host, _ := ctx.Value(hostKey{}).(string)
	if host == "" {
		host = "dynamodb." + e.region(ctx) + ".amazonaws.com"
	}
	return &api.DescribeEndpointsOutput{Address: host, CachePeriodInMinutes: 1440}, nil
}

// backupTable returns the table a continuous-backups request names (a
// name or an ARN), or DynamoDB's TableNotFoundException.
func (e *Engine) backupTable(ctx context.Context, tx storage.Txn, name string) (*catalog.Table, error) {
	t, err := e.lookup(tx, e.tableNameOf(ctx, name))
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, ddberr.New(ddberr.TableNotFoundException, "Table not found: "+name)
	}
	return t, err
}

// continuousBackups describes t's setting at now: DynamoDB keeps
// LatestRestorableDateTime five minutes behind now, never before the
// enabling.
func continuousBackups(t *catalog.Table, now time.Time) *api.ContinuousBackupsOutput {
	out := &api.ContinuousBackupsOutput{}
	if p := t.PITR; p != nil && p.Enabled {
		out.PITREnabled, out.RecoveryPeriodInDays = true, p.RecoveryPeriodInDays
		out.Earliest = epochSeconds(p.EnabledAt)
		out.Latest = epochSeconds(max(p.EnabledAt, now.Add(-5*time.Minute).UnixNano()))
	}
	return out
}

// DescribeContinuousBackups reports a table's continuous backups:
// always ENABLED, with point-in-time recovery as set.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeContinuousBackups.html
func (e *Engine) DescribeContinuousBackups(ctx context.Context, in *api.DescribeContinuousBackupsInput) (*api.ContinuousBackupsOutput, error) {
	var out *api.ContinuousBackupsOutput
	err := e.read(ctx, func(tx storage.Txn) error {
		t, err := e.backupTable(ctx, tx, *in.TableName)
		if err != nil {
			return err
		}
		out = continuousBackups(t, e.opts.Now())
		return nil
	})
	return out, err
}

// UpdateContinuousBackups enables or disables point-in-time recovery at
// once. Enabling what is enabled keeps its start (and takes a new
// period, 35 days unless given); disabling forgets the period. dynago
// stores the setting; it does not restore.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContinuousBackups.html
func (e *Engine) UpdateContinuousBackups(ctx context.Context, in *api.UpdateContinuousBackupsInput) (*api.ContinuousBackupsOutput, error) {
	enable := *in.Enabled
	if !enable && in.RecoveryPeriodInDays != nil {
		return nil, ddberr.Validation("Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.")
	}
	var out *api.ContinuousBackupsOutput
	err := e.update(ctx, func(tx storage.Txn) error {
		t, err := e.backupTable(ctx, tx, *in.TableName)
		if err != nil {
			return err
		}
		now := e.opts.Now()
		if t.Status(now) == catalog.StatusCreating {
			return ddberr.New(ddberr.ContinuousBackupsUnavailableException, "Backups are being enabled for the table: "+t.Name+". Please retry later")
		}
		switch {
		case !enable:
			t.PITR = &catalog.PITR{}
		default:
			days := int64(35)
			if in.RecoveryPeriodInDays != nil {
				days = *in.RecoveryPeriodInDays
			}
			start := now.UnixNano()
			if t.PITR != nil && t.PITR.Enabled {
				start = t.PITR.EnabledAt
			}
			t.PITR = &catalog.PITR{Enabled: true, RecoveryPeriodInDays: days, EnabledAt: start}
		}
		out = continuousBackups(t, now)
		return catalog.Put(tx, t)
	})
	return out, err
}

// DescribeKinesisStreamingDestination reports a table's Kinesis data
// stream destinations: dynago streams to none.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeKinesisStreamingDestination.html
func (e *Engine) DescribeKinesisStreamingDestination(ctx context.Context, in *api.DescribeKinesisStreamingDestinationInput) (*api.KinesisDestinationsOutput, error) {
	t, err := e.namedTable(ctx, e.tableNameOf(ctx, *in.TableName))
	if err != nil {
		return nil, err
	}
	return &api.KinesisDestinationsOutput{TableName: t.Name}, nil
}

// DescribeTableReplicaAutoScaling answers for a global table's replicas.
// dynago has no global tables, so every table gets what DynamoDB answers
// for a regional one: ResourceNotFoundException.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTableReplicaAutoScaling.html
func (e *Engine) DescribeTableReplicaAutoScaling(ctx context.Context, in *api.DescribeTableReplicaAutoScalingInput) (api.EmptyOutput, error) {
	return api.EmptyOutput{}, ddberr.New(ddberr.ResourceNotFoundException, "Global table with name: '"+e.tableNameOf(ctx, *in.TableName)+"' does not exist.")
}

// checkTableMax refuses provisioned throughput above the per-table
// maximum DescribeLimits reports (40,000 read and 40,000 write units, for
// a table and for each GSI), with DynamoDB's LimitExceededException. The
// live text was captured up to "Per table maximum: 40000."
// (docs/research-control-plane.md §1); the sentence after it is DynamoDB's
// usual pointer to the limits page.
func (e *Engine) checkTableMax(ctx context.Context, read, write int64) error {
	for _, u := range []struct {
		name string
		v    int64
	}{{"ReadCapacityUnits", read}, {"WriteCapacityUnits", write}} {
		if u.v > tableMaxUnits {
			return ddberr.New(ddberr.LimitExceededException, fmt.Sprintf("The requested %s, %d, is above the per table maximum for the account in %s. Per table maximum: %d. "+
				"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.", u.name, u.v, e.region(ctx), tableMaxUnits))
		}
	}
	return nil
}
