package engine

import (
	"context"
	"errors"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// DeleteTable deletes a table and all its items. The response describes
// the table in status DELETING, as DynamoDB's does; the table is gone for
// every later request at once.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteTable.html
func (e *Engine) DeleteTable(ctx context.Context, in *api.DeleteTableInput) (*api.TableDescriptionOutput, error) {
	name := *in.TableName
	var t *catalog.Table
	err := e.update(ctx, func(tx storage.Txn) error {
		var err error
		t, err = e.lookup(tx, name)
		if errors.Is(err, catalog.ErrNotFound) {
			return ddberr.TableNotFoundNamed(name)
		}
		if err != nil {
			return err
		}
		if t.DeletionProtection {
			return ddberr.Validation("Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
		}
		if indexChanging(t) {
			return ddberr.New(ddberr.ResourceInUseException, "Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, updated, or deleted.")
		}
		if t.Status(e.opts.Now()) == catalog.StatusCreating {
			return ddberr.New(ddberr.ResourceInUseException, "Attempt to change a resource which is still in use: Table is being created: "+name)
		}
		if t.Stream != nil {
			st, _, err := catalog.GetStream(tx, name, t.Stream.Label)
			if err != nil {
				return err
			}
			if s := st.Status(e.opts.Now()); s == catalog.StreamEnabling || s == catalog.StreamDisabling {
				return ddberr.New(ddberr.ResourceInUseException, "Attempt to change a resource which is still in use: Cannot delete table while stream is being enabled/disabled.")
			}
		}
		if streamed(t) {
			// The stream stays readable (DISABLED) for 24 hours.
			if err := e.disableStream(tx, name, t.Stream.Label, e.opts.Now()); err != nil {
				return err
			}
		}
		return catalog.Delete(tx, name)
	})
	if err != nil {
		return nil, err
	}
	st, err := e.tableStats(ctx, t)
	if err != nil {
		return nil, err
	}
	lo, hi := keycodec.TableBounds(t.Number)
	if err := e.store.DeleteRange(ctx, lo, hi); err != nil {
		return nil, err
	}
	e.tables.forget(name)
	e.forgetStats(t.Number)
	if e.limiter != nil {
		e.limiter.Forget(t.Number)
	}
	e.insights.Forget(t.Number)
	e.opts.Logger.Info("table deleted", "table", name, "number", t.Number)
	d := e.describe(ctx, t, st)
	d.TableStatus, d.Deleting = catalog.StatusDeleting, true
	return &api.TableDescriptionOutput{Member: "TableDescription", Table: d}, nil
}
