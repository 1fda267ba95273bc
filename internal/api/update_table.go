package api

import (
	"strconv"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// GlobalSecondaryIndexUpdate is one entry of UpdateTable's
// GlobalSecondaryIndexUpdates: exactly one of Create, Update, Delete.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GlobalSecondaryIndexUpdate.html
type GlobalSecondaryIndexUpdate struct {
	Create *SecondaryIndex
	Update *SecondaryIndex // IndexName, ProvisionedThroughput, OnDemandThroughput
	Delete *SecondaryIndex // IndexName
}

// UpdateTableInput is the UpdateTable request. dynago applies
// GlobalSecondaryIndexUpdates (with the AttributeDefinitions a Create
// needs); the table-level settings are refused by name until they are
// supported.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html
type UpdateTableInput struct {
	TableName                   *string
	AttributeDefinitions        []AttributeDefinition
	GlobalSecondaryIndexUpdates []GlobalSecondaryIndexUpdate
	// StreamSpecification enables or disables the table's stream.
	StreamSpecification *StreamSpecification
	// BillingMode switches between PROVISIONED (with
	// ProvisionedThroughput) and PAY_PER_REQUEST; the current mode may be
	// sent again (tools send it with every update).
	BillingMode *string
	// DeletionProtectionEnabled turns deletion protection on or off; it
	// must be the only change of its request.
	DeletionProtectionEnabled *bool
	// OnDemandThroughput changes an on-demand table's caps member by
	// member (-1 removes one); it combines only with BillingMode.
	OnDemandThroughput *OnDemandThroughput
	// ProvisionedThroughput is a provisioned table's new throughput, or
	// the throughput of a switch to PROVISIONED.
	ProvisionedThroughput *ProvisionedThroughput
	// TableClass is STANDARD or STANDARD_INFREQUENT_ACCESS; it must be
	// the only change of its request.
	TableClass *string
	// Unsupported lists the table-level members present, in request
	// order.
	Unsupported []string
	hasAttrDefs bool
	hasUpdates  bool
}

// Decode implements Input.
func (in *UpdateTableInput) Decode(r *wire.Reader) error {
	_, err := object(r, "UpdateTableInput", func(k string) error {
		var err error
		switch k {
		case "TableName":
			return readString(r, &in.TableName)
		case "AttributeDefinitions":
			in.hasAttrDefs, err = decodeAttributeDefinitions(r, &in.AttributeDefinitions)
			return err
		case "GlobalSecondaryIndexUpdates":
			in.hasUpdates, err = decodeGSIUpdates(r, &in.GlobalSecondaryIndexUpdates)
			return err
		case "StreamSpecification":
			return decodeStreamSpecification(r, &in.StreamSpecification)
		case "BillingMode":
			return readString(r, &in.BillingMode)
		case "DeletionProtectionEnabled":
			return readBool(r, &in.DeletionProtectionEnabled)
		case "OnDemandThroughput":
			return decodeOnDemandThroughput(r, &in.OnDemandThroughput)
		case "ProvisionedThroughput":
			return decodeThroughput(r, &in.ProvisionedThroughput)
		case "TableClass":
			return readString(r, &in.TableClass)
		case "SSESpecification", "ReplicaUpdates", "WarmThroughput", "MultiRegionConsistency",
			"GlobalTableWitnessUpdates":
			if r.Peek() != wire.Null {
				in.Unsupported = append(in.Unsupported, k)
			}
			return r.Skip()
		}
		return r.Skip()
	})
	return err
}

func decodeGSIUpdates(r *wire.Reader, dst *[]GlobalSecondaryIndexUpdate) (bool, error) {
	list := []GlobalSecondaryIndexUpdate{}
	ok, err := r.Array("List", func(int) error {
		var u GlobalSecondaryIndexUpdate
		_, err := object(r, "GlobalSecondaryIndexUpdate", func(k string) error {
			var target **SecondaryIndex
			var typ string
			switch k {
			case "Create":
				target, typ = &u.Create, "CreateGlobalSecondaryIndexAction"
			case "Update":
				target, typ = &u.Update, "UpdateGlobalSecondaryIndexAction"
			case "Delete":
				target, typ = &u.Delete, "DeleteGlobalSecondaryIndexAction"
			default:
				return r.Skip()
			}
			var ix SecondaryIndex
			present, err := decodeSecondaryIndex(r, typ, &ix)
			if present {
				*target = &ix
			}
			return err
		})
		list = append(list, u)
		return err
	})
	if ok {
		*dst = list
	}
	return ok, err
}

// Prepare applies UpdateTable's checks that need no table, in
// DynamoDB's order: member constraints, then the shape of each index
// update and the one-online-index-change rule.
//
// Messages: docs/research-indexes.md §4.
func (in *UpdateTableInput) Prepare() error {
	var c constraints
	c.name("tableName", in.TableName, true)
	for i, u := range in.GlobalSecondaryIndexUpdates {
		p := "globalSecondaryIndexUpdates." + strconv.Itoa(i+1) + ".member."
		if u.Create != nil {
			u.Create.constraints(&c, p+"create", true)
		}
		if u.Update != nil {
			c.name(p+"update.indexName", u.Update.IndexName, true)
			if u.Update.ProvisionedThroughput == nil && u.Update.OnDemandThroughput == nil {
				c.add("", true, p+"update.provisionedThroughput", "Member must not be null")
			}
			if pt := u.Update.ProvisionedThroughput; pt != nil {
				c.min(p+"update.provisionedThroughput.writeCapacityUnits", pt.WriteCapacityUnits, 1)
				c.min(p+"update.provisionedThroughput.readCapacityUnits", pt.ReadCapacityUnits, 1)
			}
		}
		if u.Delete != nil {
			c.name(p+"delete.indexName", u.Delete.IndexName, true)
		}
	}
	attributeDefinitionConstraints(&c, in.AttributeDefinitions)
	if ss := in.StreamSpecification; ss != nil {
		if ss.StreamEnabled == nil {
			c.add("", true, "streamSpecification.streamEnabled", "Member must not be null")
		}
		c.enum("streamSpecification.streamViewType", ss.StreamViewType, streamViewTypes...)
	}
	c.enum("billingMode", in.BillingMode, "PROVISIONED", "PAY_PER_REQUEST")
	throughputConstraints(&c, in.ProvisionedThroughput)
	if err := c.err(); err != nil {
		return err
	}
	if len(in.GlobalSecondaryIndexUpdates) == 0 && len(in.Unsupported) == 0 && in.StreamSpecification == nil && in.DeletionProtectionEnabled == nil && in.OnDemandThroughput == nil &&
		in.ProvisionedThroughput == nil && in.BillingMode == nil && in.TableClass == nil {
		return ddberr.Validation("At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates, SSESpecification, ReplicaUpdates, MultiAccountReplicaReady, ReplicaTransitRoleArn, MultiRegionConsistency, DeletionProtectionEnabled, OnDemandThroughput, WarmThroughput or TableClass is required")
	}
	if in.TableClass != nil {
		// docs/research-control-plane.md §6.1, §6.6.
		if *in.TableClass != "STANDARD" && *in.TableClass != "STANDARD_INFREQUENT_ACCESS" {
			return ddberr.Validation("Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS].")
		}
		if len(in.GlobalSecondaryIndexUpdates) > 0 || len(in.Unsupported) > 0 || in.StreamSpecification != nil || in.BillingMode != nil ||
			in.OnDemandThroughput != nil || in.ProvisionedThroughput != nil || in.DeletionProtectionEnabled != nil {
			return ddberr.InvalidParam("TableClass modification must be the only operation in the request")
		}
	}
	if in.DeletionProtectionEnabled != nil && (len(in.GlobalSecondaryIndexUpdates) > 0 || len(in.Unsupported) > 0 || in.StreamSpecification != nil || in.BillingMode != nil || in.OnDemandThroughput != nil || in.ProvisionedThroughput != nil) {
		// docs/research-control-plane.md §6.5.
		return ddberr.InvalidParam("DeletionProtection modification must be the only operation in the request")
	}
	if o := in.OnDemandThroughput; o != nil {
		// docs/research-control-plane.md §6.4.
		if len(in.GlobalSecondaryIndexUpdates) > 0 || len(in.Unsupported) > 0 || in.StreamSpecification != nil || in.ProvisionedThroughput != nil {
			return ddberr.InvalidParam("OnDemandThroughput can only be combined with BillingMode in an UpdateTable request")
		}
		for _, m := range []struct {
			name string
			v    *int64
		}{{"MaxReadRequestUnits", o.MaxReadRequestUnits}, {"MaxWriteRequestUnits", o.MaxWriteRequestUnits}} {
			if m.v != nil && *m.v != -1 && *m.v < 1 {
				return ddberr.InvalidParam("Requested " + m.name + " for OnDemandThroughput for table is outside of valid range")
			}
		}
	}
	if in.hasUpdates && len(in.GlobalSecondaryIndexUpdates) == 0 {
		return ddberr.InvalidParam("List of GlobalSecondaryIndexUpdates is empty")
	}
	if ss := in.StreamSpecification; ss != nil {
		// Messages: docs/research-streams.md §1.3, §1.4.
		switch {
		case *ss.StreamEnabled && ss.StreamViewType == nil:
			return ddberr.InvalidParam("If stream is being enabled then UpdateViewType is required")
		case !*ss.StreamEnabled && ss.StreamViewType != nil:
			return ddberr.InvalidParam("If stream is being disabled, then UpdateViewType must not be specified")
		case len(in.GlobalSecondaryIndexUpdates) > 0:
			return ddberr.InvalidParam("You cannot create or delete index while changing stream status")
		}
	}
	if len(in.Unsupported) > 0 {
		// Table-level changes are issue 11; refuse rather than ignore them.
		return ddberr.Validation("dynago does not support changing " + in.Unsupported[0] + " with UpdateTable yet; BillingMode, ProvisionedThroughput, OnDemandThroughput, DeletionProtectionEnabled, StreamSpecification and GlobalSecondaryIndexUpdates are applied")
	}
	names := map[string]bool{}
	changes := 0
	for _, u := range in.GlobalSecondaryIndexUpdates {
		n := 0
		var ix *SecondaryIndex
		for _, a := range []*SecondaryIndex{u.Create, u.Update, u.Delete} {
			if a != nil {
				n++
				ix = a
			}
		}
		if n == 0 {
			return ddberr.InvalidParam("One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null")
		}
		if n > 1 {
			return ddberr.InvalidParam("Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object")
		}
		if names[*ix.IndexName] {
			return ddberr.InvalidParam("Only one global secondary index update per index is allowed simultaneously. Index: " + *ix.IndexName)
		}
		names[*ix.IndexName] = true
		if u.Update == nil {
			changes++
		}
	}
	if changes > 1 {
		return ddberr.New(ddberr.LimitExceededException, "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table")
	}
	for _, u := range in.GlobalSecondaryIndexUpdates {
		ix := u.Create
		if ix == nil {
			continue
		}
		if !in.hasAttrDefs {
			return ddberr.InvalidParam("AttributeDefinitions is not specified for index: " + *ix.IndexName)
		}
		if err := ix.validateKeySchema(true); err != nil {
			return err
		}
		if err := ix.validateProjection(); err != nil {
			return err
		}
	}
	return nil
}
