package engine

import (
	"context"
	"errors"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
)

// CreateTable creates a table. It fails with ResourceInUseException when
// a table of that name exists in any state.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html
func (e *Engine) CreateTable(ctx context.Context, in *api.CreateTableInput) (*api.TableDescriptionOutput, error) {
	now := e.opts.Now()
	t := &catalog.Table{
		Name:               *in.TableName,
		ID:                 newTableID(),
		Created:            now.UnixNano(),
		BillingMode:        catalog.BillingProvisioned,
		DeletionProtection: in.DeletionProtectionEnabled != nil && *in.DeletionProtectionEnabled,
	}
	if e.opts.CreateDelay > 0 {
		t.ActiveAt = now.Add(e.opts.CreateDelay).UnixNano()
	}
	for _, k := range in.KeySchema {
		t.KeySchema = append(t.KeySchema, catalog.KeyElement{AttributeName: *k.AttributeName, KeyType: *k.KeyType})
	}
	for _, d := range in.AttributeDefinitions {
		t.AttributeDefinitions = append(t.AttributeDefinitions, catalog.AttributeDefinition{AttributeName: *d.AttributeName, AttributeType: *d.AttributeType})
	}
	if in.TableClass != nil && *in.TableClass != "STANDARD" {
		t.TableClass = *in.TableClass
	}
	if sse := in.SSESpecification; sse != nil && sse.Enabled != nil && *sse.Enabled {
		t.SSE = &catalog.SSE{SSEType: "KMS"}
		if sse.KMSMasterKeyID != nil {
			t.SSE.KMSMasterKeyID = *sse.KMSMasterKeyID
		}
	}
	for _, tag := range in.Tags {
		t.Tags = append(t.Tags, catalog.Tag{Key: *tag.Key, Value: *tag.Value})
	}
	applyOnDemand(in.OnDemandThroughput, &t.MaxReadRequestUnits, &t.MaxWriteRequestUnits)
	for i := range in.LocalSecondaryIndexes {
		t.LSIs = append(t.LSIs, newIndex(t, &in.LocalSecondaryIndexes[i], true))
	}
	for i := range in.GlobalSecondaryIndexes {
		t.GSIs = append(t.GSIs, newIndex(t, &in.GlobalSecondaryIndexes[i], false))
	}
	if in.IsPayPerRequest() {
		t.BillingMode = catalog.BillingPayPerRequest
		t.PayPerRequestSince = now.UnixNano()
	} else {
		t.ReadCapacityUnits = *in.ProvisionedThroughput.ReadCapacityUnits
		t.WriteCapacityUnits = *in.ProvisionedThroughput.WriteCapacityUnits
		if err := e.checkTableMax(ctx, t.ReadCapacityUnits, t.WriteCapacityUnits); err != nil {
			return nil, err
		}
		for _, ix := range t.GSIs {
			if err := e.checkTableMax(ctx, ix.ReadCapacityUnits, ix.WriteCapacityUnits); err != nil {
				return nil, err
			}
		}
	}
	err := e.update(ctx, func(tx storage.Txn) error {
		if _, _, err := catalog.Get(tx, t.Name); err == nil {
			return ddberr.New(ddberr.ResourceInUseException, "Table already exists: "+t.Name)
		} else if !errors.Is(err, catalog.ErrNotFound) {
			return err
		}
		n, err := catalog.NextNumber(tx)
		if err != nil {
			return err
		}
		t.Number = n
		t.Stream = nil
		if ss := in.StreamSpecification; ss != nil && *ss.StreamEnabled {
			if err := e.enableStream(tx, t, *ss.StreamViewType, now); err != nil {
				return err
			}
		}
		return catalog.Put(tx, t)
	})
	if err != nil {
		return nil, err
	}
	e.opts.Logger.Info("table created", "table", t.Name, "number", t.Number)
	d := e.describe(ctx, t, tableStats{})
	// As in DynamoDB, the CreateTable response says CREATING (DescribeTable
	// says ACTIVE as soon as the table is, at once by default) and lacks
	// WarmThroughput and the pay-per-request timestamp.
	d.TableStatus = catalog.StatusCreating
	d.WarmRead, d.WarmWrite, d.LastUpdateToPayPerRequestDateTime = 0, 0, 0
	for _, ix := range d.GlobalSecondaryIndexes {
		ix.IndexStatus = catalog.IndexCreating
		ix.WarmRead, ix.WarmWrite = 0, 0
	}
	return &api.TableDescriptionOutput{Member: "TableDescription", Table: d}, nil
}

// applyOnDemand sets the on-demand caps an OnDemandThroughput gives (nil:
// none) into maxRead and maxWrite, the table's or an index's; a member the
// request leaves out keeps its cap.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_OnDemandThroughput.html
func applyOnDemand(o *api.OnDemandThroughput, maxRead, maxWrite *int64) {
	if o == nil {
		return
	}
	if o.MaxReadRequestUnits != nil {
		*maxRead = *o.MaxReadRequestUnits
	}
	if o.MaxWriteRequestUnits != nil {
		*maxWrite = *o.MaxWriteRequestUnits
	}
}

// newIndex returns the catalog description of a validated index request,
// allocating its index number in t.
func newIndex(t *catalog.Table, in *api.SecondaryIndex, local bool) *catalog.Index {
	t.LastIndex++
	ix := &catalog.Index{
		Name:             *in.IndexName,
		Number:           t.LastIndex,
		Local:            local,
		Projection:       *in.Projection.ProjectionType,
		NonKeyAttributes: in.Projection.NonKeyAttributes,
	}
	for _, k := range in.KeySchema {
		ix.KeySchema = append(ix.KeySchema, catalog.KeyElement{AttributeName: *k.AttributeName, KeyType: *k.KeyType})
	}
	if pt := in.ProvisionedThroughput; pt != nil {
		ix.ReadCapacityUnits, ix.WriteCapacityUnits = *pt.ReadCapacityUnits, *pt.WriteCapacityUnits
	}
	applyOnDemand(in.OnDemandThroughput, &ix.MaxReadRequestUnits, &ix.MaxWriteRequestUnits)
	return ix
}
