package api

import "github.com/dynago/dynago/internal/wire"

// ThroughputHistory is the change history in a
// ProvisionedThroughputDescription: LastIncreaseDateTime and
// LastDecreaseDateTime (epoch seconds, omitted while 0) and
// NumberOfDecreasesToday (this UTC day).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ProvisionedThroughputDescription.html
type ThroughputHistory struct {
	LastIncrease, LastDecrease float64
	DecreasesToday             int64
}

// appendJSON appends the ProvisionedThroughputDescription object with the
// given units.
func (h ThroughputHistory) appendJSON(dst []byte, read, write int64) []byte {
	dst = append(dst, '{')
	if h.LastIncrease != 0 {
		dst = append(dst, `"LastIncreaseDateTime":`...)
		dst = wire.AppendFloat(dst, h.LastIncrease)
		dst = append(dst, ',')
	}
	if h.LastDecrease != 0 {
		dst = append(dst, `"LastDecreaseDateTime":`...)
		dst = wire.AppendFloat(dst, h.LastDecrease)
		dst = append(dst, ',')
	}
	dst = append(dst, `"NumberOfDecreasesToday":`...)
	dst = wire.AppendInt(dst, h.DecreasesToday)
	dst = append(dst, `,"ReadCapacityUnits":`...)
	dst = wire.AppendInt(dst, read)
	dst = append(dst, `,"WriteCapacityUnits":`...)
	dst = wire.AppendInt(dst, write)
	return append(dst, '}')
}
