package api

import (
	"maps"
	"slices"

	"github.com/dynago/dynago/internal/wire"
)

// ItemOutput is the response of GetItem (member "Item") and of PutItem and
// DeleteItem (member "Attributes"). Item holds the encoded item JSON, or
// nil when there is none to return.
type ItemOutput struct {
	Member           string
	Item             []byte
	ConsumedCapacity *ConsumedCapacity
	// ItemCollectionMetrics is the encoded ItemCollectionMetrics object
	// (ReturnItemCollectionMetrics=SIZE on a table with LSIs), or nil.
	ItemCollectionMetrics []byte
}

// AppendJSON appends the response body.
func (o *ItemOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if o.Item != nil {
		dst = wire.AppendKey(dst, o.Member)
		dst = append(dst, o.Item...)
	}
	if o.ConsumedCapacity != nil {
		dst = wire.AppendKey(dst, "ConsumedCapacity")
		dst = o.ConsumedCapacity.AppendJSON(dst)
	}
	if o.ItemCollectionMetrics != nil {
		dst = wire.AppendKey(dst, "ItemCollectionMetrics")
		dst = append(dst, o.ItemCollectionMetrics...)
	}
	return append(dst, '}')
}

// EmptyOutput is the body of an operation that answers nothing
// (TagResource, UntagResource): {}.
type EmptyOutput struct{}

// AppendJSON appends the response body.
func (EmptyOutput) AppendJSON(dst []byte) []byte { return append(dst, "{}"...) }

// ContinuousBackupsOutput is the Describe/UpdateContinuousBackups
// response. Earliest and Latest are epoch seconds (0 to omit with the
// period when PITR is off).
type ContinuousBackupsOutput struct {
	PITREnabled          bool
	RecoveryPeriodInDays int64
	Earliest, Latest     float64
}

// AppendJSON appends the response body.
func (o *ContinuousBackupsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"ContinuousBackupsDescription":{"ContinuousBackupsStatus":"ENABLED","PointInTimeRecoveryDescription":{"PointInTimeRecoveryStatus":`...)
	if !o.PITREnabled {
		return append(dst, `"DISABLED"}}}`...)
	}
	dst = append(dst, `"ENABLED","RecoveryPeriodInDays":`...)
	dst = wire.AppendInt(dst, o.RecoveryPeriodInDays)
	dst = append(dst, `,"EarliestRestorableDateTime":`...)
	dst = wire.AppendFloat(dst, o.Earliest)
	dst = append(dst, `,"LatestRestorableDateTime":`...)
	dst = wire.AppendFloat(dst, o.Latest)
	return append(dst, "}}}"...)
}

// appendTableLists appends a map of table names (sorted) to lists of
// encoded JSON values.
func appendTableLists(dst []byte, m map[string][][]byte) []byte {
	dst = append(dst, '{')
	for i, t := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wire.AppendString(dst, t)
		dst = append(dst, ":["...)
		for j, v := range m[t] {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, v...)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}
