package engine

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/partiql"
)

// BatchExecuteStatement runs up to 25 statements, each on its own: a
// SELECT of one item by its full primary key as GetItem, a write as its
// single-item operation. A statement that fails answers its own Error and
// the others still run.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchExecuteStatement.html
func (e *Engine) BatchExecuteStatement(ctx context.Context, in *api.BatchExecuteStatementInput) (*api.BatchExecuteStatementOutput, error) {
	if err := checkBatchKinds(in.Statements); err != nil {
		return nil, err
	}
	out := &api.BatchExecuteStatementOutput{Responses: make([]api.BatchStatementResponse, len(in.Statements))}
	capacity := map[string]*api.ConsumedCapacity{}
	var order []string
	for i := range in.Statements {
		s := &in.Statements[i]
		r := &out.Responses[i]
		if s.Err != nil {
			r.Err = s.Err
			continue
		}
		var cc *api.ConsumedCapacity
		switch st := s.Parsed.(type) {
		case *partiql.Select:
			r.TableName = st.From.Table
			var get *api.GetItemInput
			var proj []*partiql.Path
			get, proj, r.Err = e.planKeyRead(ctx, st, s.Params, s.ConsistentRead, "BatchExecuteStatement")
			if r.Err == nil {
				get.ReturnConsumedCapacity = in.ReturnConsumedCapacity
				r.Item, cc, r.Err = e.keyRead(ctx, get, proj)
			}
		case *partiql.Insert, *partiql.Update, *partiql.Delete:
			w := writeOptions{params: s.Params, capacity: in.ReturnConsumedCapacity, onFailure: s.ReturnValuesOnConditionCheckFailure}
			var plan *writePlan
			if plan, r.Err = e.planWrite(ctx, s.Parsed, w); r.Err == nil {
				r.TableName = plan.table
				_, cc, r.Err = e.runWrite(ctx, plan)
			}
		default:
			r.Err = ddberr.Validation("Unsupported operation: only SELECT, INSERT, UPDATE and DELETE statements run in BatchExecuteStatement")
		}
		if r.Err != nil {
			if e, ok := ddberr.As(r.Err); !ok || e.Code != ddberr.ResourceNotFoundException {
				r.TableName = ""
			}
		}
		if cc != nil {
			if capacity[cc.TableName] == nil {
				order = append(order, cc.TableName)
			}
			capacity[cc.TableName] = addCapacity(capacity[cc.TableName], cc)
		}
	}
	for _, t := range order {
		out.ConsumedCapacity = append(out.ConsumedCapacity, capacity[t])
	}
	if wantsCapacity(in.ReturnConsumedCapacity) && out.ConsumedCapacity == nil {
		out.ConsumedCapacity = []*api.ConsumedCapacity{}
	}
	return out, nil
}

// checkBatchKinds refuses a batch of both reads and writes. The API
// reference says "The entire batch must consist of either read statements
// or write statements, you cannot mix both in one batch"
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchExecuteStatement.html);
// no capture pins DynamoDB's message, so the refusal quotes that sentence.
func checkBatchKinds(statements []api.BatchStatementRequest) error {
	reads, writes := false, false
	for _, s := range statements {
		switch s.Parsed.(type) {
		case *partiql.Select:
			reads = true
		case *partiql.Insert, *partiql.Update, *partiql.Delete:
			writes = true
		}
	}
	if reads && writes {
		return ddberr.Validation("The entire batch must consist of either read statements or write statements, you cannot mix both in one batch")
	}
	return nil
}

// planKeyRead makes a SELECT of BatchExecuteStatement or ExecuteTransaction
// into a GetItem: it must read the table, not an index, and its WHERE
// clause must be exactly the equalities of the full primary key
// (executeStatementIndex.test.ts, partiqlFunctions.test.ts: "Select
// statements within <operation> must specify the primary key in the where
// clause.").
func (e *Engine) planKeyRead(ctx context.Context, st *partiql.Select, params []attr.Value, consistent *bool, op string) (*api.GetItemInput, []*partiql.Path, error) {
	needsKey := ddberr.Validation("Select statements within " + op + " must specify the primary key in the where clause.")
	rt, err := e.resolveTarget(ctx, st.From, false)
	if err != nil {
		return nil, nil, err
	}
	if rt.index != nil {
		return nil, nil, needsKey
	}
	var proj []*partiql.Path
	for _, x := range st.Projection {
		path, ok := partiql.Unparen(x).(*partiql.Path)
		if !ok || path.Elems[0].Name == "*" {
			return nil, nil, ddberr.Validation("Unexpected path component at " + x.Pos().String())
		}
		proj = append(proj, path)
	}
	if err := checkProjection(proj); err != nil {
		return nil, nil, err
	}
	key, rest, ok, err := partiql.KeyOf(st.Where, keyNames(rt.table), params)
	if err != nil {
		return nil, nil, err
	}
	if !ok || len(rest) > 0 {
		return nil, nil, needsKey
	}
	if err := checkKeyTypes(rt.table, key); err != nil {
		return nil, nil, err
	}
	name := rt.table.Name
	get := &api.GetItemInput{TableName: &name, Key: key, ConsistentRead: consistent}
	if err := get.Prepare(); err != nil {
		return nil, nil, err
	}
	return get, proj, nil
}

// keyRead runs a planned GetItem and projects its item.
func (e *Engine) keyRead(ctx context.Context, get *api.GetItemInput, proj []*partiql.Path) ([]byte, *api.ConsumedCapacity, error) {
	out, err := e.GetItem(ctx, get)
	if err != nil {
		return nil, nil, err
	}
	if out.Item == nil || proj == nil {
		return out.Item, out.ConsumedCapacity, nil
	}
	item, err := attr.DecodeItem(out.Item)
	if err != nil {
		return nil, nil, err
	}
	return attr.AppendItem(nil, project(item, proj)), out.ConsumedCapacity, nil
}
