package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// UpdateTable applies BillingMode, ProvisionedThroughput and TableClass changes,
// DeletionProtectionEnabled, OnDemandThroughput, StreamSpecification and
// GlobalSecondaryIndexUpdates: Create adds a GSI that
// is backfilled from the table's items in the background (IndexStatus
// CREATING, Backfilling, then ACTIVE); Delete removes a GSI and its
// entries; Update changes a GSI's provisioned throughput or on-demand
// caps. As in DynamoDB, one index may be created or deleted at a time.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.html;
// messages in docs/research-indexes.md §4.
func (e *Engine) UpdateTable(ctx context.Context, in *api.UpdateTableInput) (*api.TableDescriptionOutput, error) {
	var u *tableUpdate
	err := e.update(ctx, func(tx storage.Txn) error {
		var err error
		u, err = e.changeTable(ctx, tx, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	t := u.t
	e.forgetStats(t.Number)
	if u.deleted != nil {
		lo, hi := keycodec.SpaceBounds(keycodec.Space{Table: t.Number, Index: u.deleted.Number})
		if err := e.store.DeleteRange(ctx, lo, hi); err != nil {
			return nil, err
		}
		e.opts.Logger.Info("index deleted", "table", t.Name, "index", u.deleted.Name)
	}
	if u.created != nil {
		e.opts.Logger.Info("index creating", "table", t.Name, "index", u.created.Name)
		e.startBackfill(t.Name, t.Number, u.created.Number)
	}
	return e.describeUpdate(ctx, in, u)
}

// tableUpdate is what one attempt at an UpdateTable changed, and what its
// response shows as it was before the change.
type tableUpdate struct {
	t                *catalog.Table // the changed descriptor (a fresh copy)
	created, deleted *catalog.Index // the GSI created or deleted, if any
	// updating: a billing, throughput or table class change, which the
	// response shows as UPDATING; switched: the billing mode changes.
	updating, switched bool
	// before is the table's throughput before the change, indexesBefore
	// each updated GSI's.
	before        throughputBefore
	indexesBefore map[string]throughputBefore
	// classBefore and classChangedBefore are the table class and the
	// time it last changed (Unix ns) before the change.
	classBefore        string
	classChangedBefore int64
}

// throughputBefore is provisioned throughput as it was before an
// UpdateTable: read and write capacity units and the decreases made
// today.
type throughputBefore struct {
	read, write, decreases int64
}

// changeTable applies an UpdateTable to its table's descriptor in tx and
// says what it changed.
func (e *Engine) changeTable(ctx context.Context, tx storage.Txn, in *api.UpdateTableInput) (*tableUpdate, error) {
	// A fresh copy: cached descriptors are shared and never mutated.
	t, err := tableToChange(tx, *in.TableName)
	if err != nil {
		return nil, err
	}
	now := e.opts.Now()
	u := &tableUpdate{t: t, before: throughputBefore{t.ReadCapacityUnits, t.WriteCapacityUnits, t.Throughput.DecreasesToday(now)}}
	if t.Status(now) == catalog.StatusCreating {
		return nil, ddberr.New(ddberr.ResourceInUseException, "Attempt to change a resource which is still in use: Table is being created: "+t.Name)
	}
	// A switch to PAY_PER_REQUEST in this request (GSI throughput
	// alongside it has a message of its own).
	switchToPPR := in.BillingMode != nil && *in.BillingMode == catalog.BillingPayPerRequest && t.BillingMode != catalog.BillingPayPerRequest
	u.switched = in.BillingMode != nil && *in.BillingMode != t.BillingMode
	if u.updating, err = e.changeThroughput(ctx, t, in); err != nil {
		return nil, err
	}
	if ss := in.StreamSpecification; ss != nil {
		if err := e.changeStream(tx, t, *ss.StreamEnabled, ss.StreamViewType); err != nil {
			return nil, err
		}
	}
	if o := in.OnDemandThroughput; o != nil {
		if err := e.changeOnDemandThroughput(ctx, t, o); err != nil {
			return nil, err
		}
	}
	if tc := in.TableClass; tc != nil {
		// A change answers UPDATING with the old class; the class it
		// already has (STANDARD when never set) changes nothing.
		if err := checkTableClassBudget(t, now); err != nil {
			return nil, err
		}
		u.updating = true
		u.classBefore, u.classChangedBefore = t.TableClass, t.TableClassChanged
		if *tc != cmp.Or(t.TableClass, "STANDARD") {
			t.TableClass, t.TableClassChanged = *tc, now.UnixNano()
			t.TableClassChanges = append(t.TableClassChanges, now.UnixNano())
		}
	}
	if dp := in.DeletionProtectionEnabled; dp != nil {
		// Applied at once; the table stays ACTIVE
		// (docs/research-control-plane.md §6.5).
		t.DeletionProtection = *dp
	}
	for _, gu := range in.GlobalSecondaryIndexUpdates {
		if err := e.changeIndex(ctx, u, &gu, in.AttributeDefinitions, switchToPPR); err != nil {
			return nil, err
		}
	}
	return u, catalog.Put(tx, t)
}

// changeIndex applies one GlobalSecondaryIndexUpdates action to u's
// table: Create, Delete, or Update (throughput or on-demand caps); defs
// are the request's AttributeDefinitions, switchToPPR says the request
// switches the table to PAY_PER_REQUEST.
func (e *Engine) changeIndex(ctx context.Context, u *tableUpdate, gu *api.GlobalSecondaryIndexUpdate, defs []api.AttributeDefinition, switchToPPR bool) error {
	var err error
	switch {
	case gu.Create != nil:
		if u.created, err = e.createIndex(u.t, gu.Create, defs); err != nil {
			return err
		}
		return e.checkTableMax(ctx, u.created.ReadCapacityUnits, u.created.WriteCapacityUnits)
	case gu.Delete != nil:
		u.deleted, err = deleteIndex(u.t, *gu.Delete.IndexName)
		return err
	case gu.Update != nil:
		ix, err := findGSI(u.t, *gu.Update.IndexName, "update")
		if err != nil {
			return err
		}
		now := e.opts.Now()
		if u.indexesBefore == nil {
			u.indexesBefore = map[string]throughputBefore{}
		}
		u.indexesBefore[ix.Name] = throughputBefore{ix.ReadCapacityUnits, ix.WriteCapacityUnits, ix.Throughput.DecreasesToday(now)}
		if pt := gu.Update.ProvisionedThroughput; pt != nil && pt.ReadCapacityUnits != nil && pt.WriteCapacityUnits != nil {
			if err := e.checkTableMax(ctx, *pt.ReadCapacityUnits, *pt.WriteCapacityUnits); err != nil {
				return err
			}
		}
		return updateIndexThroughput(u.t, ix, gu.Update, switchToPPR, now)
	}
	return nil
}

// describeUpdate is UpdateTable's response: the table as changed, but as
// DynamoDB answers an update in progress: UPDATING, and the throughput,
// table class and index throughput being replaced still shown.
func (e *Engine) describeUpdate(ctx context.Context, in *api.UpdateTableInput, u *tableUpdate) (*api.TableDescriptionOutput, error) {
	t := u.t
	st, err := e.tableStats(ctx, t)
	if err != nil {
		return nil, err
	}
	d := e.describe(ctx, t, st)
	d.WarmRead, d.WarmWrite = 0, 0
	if u.created != nil || u.deleted != nil || in.StreamSpecification != nil || u.updating {
		d.TableStatus = "UPDATING"
	}
	if u.switched {
		// DynamoDB's response to a switch has the new BillingModeSummary
		// without LastUpdateToPayPerRequestDateTime; DescribeTable shows it
		// (docs/research-control-plane.md §6.7).
		d.LastUpdateToPayPerRequestDateTime = 0
	}
	if in.TableClass != nil {
		// The response still shows the class being replaced.
		d.TableClass, d.TableClassUpdated = u.classBefore, 0
		if u.classChangedBefore != 0 {
			d.TableClassUpdated = epochSeconds(u.classChangedBefore)
		}
	}
	if u.updating && t.BillingMode != catalog.BillingPayPerRequest && in.BillingMode == nil && in.TableClass == nil {
		// The response still shows the throughput being replaced and the
		// decreases before this one, with the new change's time.
		d.ReadCapacityUnits, d.WriteCapacityUnits = u.before.read, u.before.write
		d.Throughput.DecreasesToday = u.before.decreases
	}
	for _, id := range d.GlobalSecondaryIndexes {
		if u.created != nil && id.IndexName == u.created.Name {
			f := false
			id.Backfilling = &f
			id.IndexStatus = catalog.IndexCreating
		}
		if old, ok := u.indexesBefore[id.IndexName]; ok {
			// The response still shows the throughput being replaced.
			id.IndexStatus = catalog.IndexUpdating
			id.ReadCapacityUnits, id.WriteCapacityUnits = old.read, old.write
			id.Throughput.DecreasesToday = old.decreases
		}
		id.WarmRead, id.WarmWrite = 0, 0
	}
	if u.deleted != nil {
		id := indexDescription(d.TableArn, u.deleted, e.opts.Now())
		id.IndexStatus = catalog.IndexDeleting
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, id)
	}
	return &api.TableDescriptionOutput{Member: "TableDescription", Table: d}, nil
}

// changeThroughput applies a BillingMode switch and a ProvisionedThroughput
// change to t; updating says the response reports UPDATING. A switch to
// PROVISIONED needs the table's throughput (and each GSI's, through its
// GlobalSecondaryIndexUpdates Update); a switch to PAY_PER_REQUEST clears
// them. The same throughput again is refused, as DynamoDB refuses it.
//
// Messages: docs/research-control-plane.md §6.2, §6.3.
func (e *Engine) changeThroughput(ctx context.Context, t *catalog.Table, in *api.UpdateTableInput) (updating bool, err error) {
	mode := t.BillingMode
	if in.BillingMode != nil {
		mode = *in.BillingMode
	}
	pt := in.ProvisionedThroughput
	switch {
	case mode == catalog.BillingPayPerRequest && pt != nil && in.BillingMode != nil:
		return false, ddberr.InvalidParam("ProvisionedThroughput cannot be specified when BillingMode is PAY_PER_REQUEST")
	case mode == catalog.BillingPayPerRequest && pt != nil:
		return false, ddberr.InvalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	case mode != catalog.BillingPayPerRequest && pt == nil && in.BillingMode != nil:
		return false, ddberr.InvalidParam("ProvisionedThroughput must be specified when BillingMode is PROVISIONED")
	}
	switch {
	case mode == catalog.BillingPayPerRequest && t.BillingMode != catalog.BillingPayPerRequest:
		if err := recordPayPerRequestSwitch(t, e.opts.Now()); err != nil {
			return false, err
		}
		t.BillingMode, t.PayPerRequestSince = catalog.BillingPayPerRequest, e.opts.Now().UnixNano()
		t.ReadCapacityUnits, t.WriteCapacityUnits = 0, 0
		for _, ix := range t.GSIs {
			ix.ReadCapacityUnits, ix.WriteCapacityUnits = 0, 0
		}
		return true, nil
	case mode == catalog.BillingPayPerRequest:
		// The current mode sent again: nothing changes, though the
		// response says UPDATING.
		return in.BillingMode != nil && in.OnDemandThroughput == nil, nil
	case pt == nil:
		return false, nil
	case t.BillingMode == catalog.BillingPayPerRequest:
		// To PROVISIONED: every GSI needs its throughput in this request.
		for _, ix := range t.GSIs {
			if !slices.ContainsFunc(in.GlobalSecondaryIndexUpdates, func(u api.GlobalSecondaryIndexUpdate) bool {
				return u.Update != nil && *u.Update.IndexName == ix.Name && u.Update.ProvisionedThroughput != nil
			}) {
				return false, ddberr.InvalidParam("ProvisionedThroughput must be specified for index: " + ix.Name)
			}
		}
		if err := e.checkTableMax(ctx, *pt.ReadCapacityUnits, *pt.WriteCapacityUnits); err != nil {
			return false, err
		}
		t.BillingMode, t.MaxReadRequestUnits, t.MaxWriteRequestUnits = catalog.BillingProvisioned, 0, 0
	case *pt.ReadCapacityUnits == t.ReadCapacityUnits && *pt.WriteCapacityUnits == t.WriteCapacityUnits:
		return false, ddberr.Validation(fmt.Sprintf("The provisioned throughput for the table will not change. The requested value equals the current value. "+
			"Current ReadCapacityUnits provisioned for the table: %d. Requested ReadCapacityUnits: %d. Current WriteCapacityUnits provisioned for the table: %d. Requested WriteCapacityUnits: %d. "+
			"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.", t.ReadCapacityUnits, *pt.ReadCapacityUnits, t.WriteCapacityUnits, *pt.WriteCapacityUnits))
	default:
		if err := e.checkTableMax(ctx, *pt.ReadCapacityUnits, *pt.WriteCapacityUnits); err != nil {
			return false, err
		}
		if err := recordThroughputChange(&t.Throughput, t.ReadCapacityUnits, t.WriteCapacityUnits, *pt.ReadCapacityUnits, *pt.WriteCapacityUnits, e.opts.Now()); err != nil {
			return false, err
		}
	}
	t.ReadCapacityUnits, t.WriteCapacityUnits = *pt.ReadCapacityUnits, *pt.WriteCapacityUnits
	return true, nil
}

// changeOnDemandThroughput merges o into an on-demand table's caps: a
// member sent replaces its cap, -1 removes it, one left out stays. The
// table stays ACTIVE.
//
// Messages: docs/research-control-plane.md §6.4.
func (e *Engine) changeOnDemandThroughput(ctx context.Context, t *catalog.Table, o *api.OnDemandThroughput) error {
	if t.BillingMode != catalog.BillingPayPerRequest {
		return ddberr.InvalidParam("MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED")
	}
	for _, m := range []struct {
		name string
		v    *int64
		dst  *int64
	}{{"MaxReadRequestUnits", o.MaxReadRequestUnits, &t.MaxReadRequestUnits}, {"MaxWriteRequestUnits", o.MaxWriteRequestUnits, &t.MaxWriteRequestUnits}} {
		switch {
		case m.v == nil:
		case *m.v == -1:
			*m.dst = 0
		case *m.v > tableMaxUnits:
			kind := "Read"
			if m.name == "MaxWriteRequestUnits" {
				kind = "Write"
			}
			return ddberr.New(ddberr.LimitExceededException, "Subscriber limit exceeded: Requested "+m.name+" for OnDemandThroughput for table exceeds TableMax"+kind+"CapacityUnits of the account in region "+e.region(ctx))
		default:
			*m.dst = *m.v
		}
	}
	return nil
}

// changeStream enables or disables t's stream (the caller writes t).
//
// Messages: docs/research-streams.md §1.3, §1.4.
func (e *Engine) changeStream(tx storage.Txn, t *catalog.Table, enable bool, viewType *string) error {
	now := e.opts.Now()
	if t.Stream != nil {
		st, _, err := catalog.GetStream(tx, t.Name, t.Stream.Label)
		if err != nil {
			return err
		}
		if s := st.Status(now); s == catalog.StreamEnabling || s == catalog.StreamDisabling {
			op := "ENABLE"
			if s == catalog.StreamDisabling {
				op = "DISABLE"
			}
			return ddberr.New(ddberr.ResourceInUseException, "Attempt to change a resource which is still in use: A stream status change is currently in progress. Table: "+t.Name+" Stream: "+st.Label+" Operation: "+op)
		}
	}
	on := streamed(t)
	switch {
	case enable && on:
		return ddberr.Validation("Table already has an enabled stream: TableName: " + t.Name)
	case !enable && !on:
		return ddberr.Validation("Table has no stream to disable: TableName: " + t.Name)
	case enable:
		return e.enableStream(tx, t, *viewType, now)
	}
	if err := e.disableStream(tx, t.Name, t.Stream.Label, now); err != nil {
		return err
	}
	t.Stream = &catalog.TableStream{Label: t.Stream.Label}
	return nil
}

// indexChanging reports whether an index of t is being created.
func indexChanging(t *catalog.Table) bool {
	for _, ix := range t.GSIs {
		if ix.Backfilling {
			return true
		}
	}
	return false
}

var errOneOnlineIndex = ddberr.New(ddberr.LimitExceededException, "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")

// createIndex adds a new GSI to t (status CREATING, backfilling).
func (e *Engine) createIndex(t *catalog.Table, in *api.SecondaryIndex, defs []api.AttributeDefinition) (*catalog.Index, error) {
	if t.Index(*in.IndexName) != nil {
		return nil, ddberr.Validation("Attempting to create an index which already exists")
	}
	if indexChanging(t) {
		return nil, errOneOnlineIndex
	}
	if len(t.GSIs) >= api.MaxGlobalSecondaryIndexes {
		return nil, ddberr.New(ddberr.LimitExceededException, fmt.Sprintf("Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of %d", api.MaxGlobalSecondaryIndexes))
	}
	given := map[string]string{}
	var givenNames []string
	for _, d := range defs {
		given[*d.AttributeName] = *d.AttributeType
		givenNames = append(givenNames, *d.AttributeName)
	}
	var keys []string
	for _, k := range in.KeySchema {
		keys = append(keys, *k.AttributeName)
	}
	for _, k := range keys {
		typ, ok := given[k]
		if !ok {
			return nil, ddberr.InvalidParam("Some index key attributes are not defined in AttributeDefinitions. Keys: [" +
				strings.Join(keys, ", ") + "], AttributeDefinitions: [" + strings.Join(givenNames, ", ") + "]")
		}
		if cur := t.AttributeType(k); t.IsDefined(k) && cur.String() != typ {
			return nil, ddberr.InvalidParam("Attributes cannot be redefined. Please check that your attribute has the same type as previously defined. Existing schema: Schema:[SchemaElement: key{" +
				k + ":" + cur.String() + ":HASH}] New schema: Schema:[SchemaElement: key{" + k + ":" + typ + ":HASH}]")
		}
	}
	if t.BillingMode == catalog.BillingPayPerRequest {
		if in.ProvisionedThroughput != nil {
			return nil, ddberr.InvalidParam("ProvisionedThroughput should not be specified for index: " + *in.IndexName + " when BillingMode is PAY_PER_REQUEST")
		}
	} else if in.ProvisionedThroughput == nil || in.ProvisionedThroughput.ReadCapacityUnits == nil || in.ProvisionedThroughput.WriteCapacityUnits == nil {
		return nil, ddberr.InvalidParam("Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: " + *in.IndexName)
	}
	projected := len(in.Projection.NonKeyAttributes)
	for _, ix := range t.Indexes() {
		projected += len(ix.NonKeyAttributes)
	}
	if projected > api.MaxProjectedAttributes {
		return nil, ddberr.InvalidParam(fmt.Sprintf("Number of projected attributes in all indexes exceeds limit of %d", api.MaxProjectedAttributes))
	}
	for _, k := range keys {
		if !t.IsDefined(k) {
			t.AttributeDefinitions = append(t.AttributeDefinitions, catalog.AttributeDefinition{AttributeName: k, AttributeType: given[k]})
		}
	}
	ix := newIndex(t, in, false)
	ix.Backfilling = true
	ix.ActiveAt = e.opts.Now().Add(e.opts.CreateDelay).UnixNano()
	t.GSIs = append(t.GSIs, ix)
	return ix, nil
}

// findGSI returns the GSI named name for an Update or Delete action.
func findGSI(t *catalog.Table, name, action string) (*catalog.Index, error) {
	ix := t.Index(name)
	if ix == nil {
		return nil, ddberr.New(ddberr.ResourceNotFoundException, "Requested resource not found: Index "+name+" for table "+t.Name)
	}
	if ix.Local {
		return nil, ddberr.Validation("Cannot " + action + " an index that is not a GlobalSecondaryIndex: " + name)
	}
	return ix, nil
}

// deleteIndex removes the GSI named name from t, and the attribute
// definitions no key uses any more.
func deleteIndex(t *catalog.Table, name string) (*catalog.Index, error) {
	ix, err := findGSI(t, name, "delete")
	if err != nil {
		return nil, err
	}
	for _, other := range t.GSIs {
		if other != ix && other.Backfilling {
			return nil, errOneOnlineIndex
		}
	}
	t.GSIs = slices.DeleteFunc(t.GSIs, func(x *catalog.Index) bool { return x == ix })
	t.AttributeDefinitions = slices.DeleteFunc(t.AttributeDefinitions, func(d catalog.AttributeDefinition) bool {
		if t.IsKeyAttribute(d.AttributeName) {
			return false
		}
		for _, other := range t.Indexes() {
			if other.IsKeyAttribute(d.AttributeName) {
				return false
			}
		}
		return true
	})
	return ix, nil
}

// updateIndexThroughput applies an Update action.
func updateIndexThroughput(t *catalog.Table, ix *catalog.Index, u *api.SecondaryIndex, switching bool, now time.Time) error {
	if pt := u.ProvisionedThroughput; pt != nil {
		if t.BillingMode == catalog.BillingPayPerRequest && switching {
			return ddberr.InvalidParam("Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for index: " + ix.Name + " when BillingMode is PAY_PER_REQUEST")
		}
		if t.BillingMode == catalog.BillingPayPerRequest {
			return ddberr.InvalidParam("The only Updates for index: " + ix.Name + " when TableThroughputMode is PAY_PER_REQUEST can be to OnDemandThroughput, WarmThroughput")
		}
		if pt.ReadCapacityUnits == nil || pt.WriteCapacityUnits == nil {
			return ddberr.InvalidParam("Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: " + ix.Name)
		}
		r, w := *pt.ReadCapacityUnits, *pt.WriteCapacityUnits
		if r == ix.ReadCapacityUnits && w == ix.WriteCapacityUnits {
			return ddberr.Validation(fmt.Sprintf("The provisioned throughput for the index %[1]s will not change. The requested value equals the current value. "+
				"Current ReadCapacityUnits provisioned for index %[1]s: %[2]d. Requested ReadCapacityUnits: %[3]d. "+
				"Current WriteCapacityUnits provisioned for index %[1]s: %[4]d. Requested WriteCapacityUnits: %[5]d. "+
				"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
				ix.Name, ix.ReadCapacityUnits, r, ix.WriteCapacityUnits, w))
		}
		if t.BillingMode != catalog.BillingPayPerRequest && ix.ReadCapacityUnits != 0 {
			// A change of a provisioned GSI (not the throughput a switch
			// to PROVISIONED gives it) counts against its own budget.
			if err := recordThroughputChange(&ix.Throughput, ix.ReadCapacityUnits, ix.WriteCapacityUnits, r, w, now); err != nil {
				return err
			}
		}
		ix.ReadCapacityUnits, ix.WriteCapacityUnits = r, w
	}
	applyOnDemand(u.OnDemandThroughput, &ix.MaxReadRequestUnits, &ix.MaxWriteRequestUnits)
	return nil
}
