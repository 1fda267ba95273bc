package api

import (
	"strconv"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/wire"
)

// MaxTotalSegments is the largest TotalSegments of a parallel Scan.
const MaxTotalSegments = 1_000_000

// ScanInput is the Scan request. Prepare sets Filter and Projection
// (ReadRequest) and canonicalises ExclusiveStartKey.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html
type ScanInput struct {
	ReadRequest
	Segment       *int64
	TotalSegments *int64
}

// Decode implements Input.
func (in *ScanInput) Decode(r *wire.Reader) error {
	_, err := object(r, "ScanInput", func(k string) error {
		if ok, err := in.decodeMember(r, k, "ScanFilter"); ok {
			return err
		}
		switch k {
		case "Segment":
			return readInt(r, "Integer", &in.Segment)
		case "TotalSegments":
			return readInt(r, "Integer", &in.TotalSegments)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the request without the table and parses its filter
// and projection.
func (in *ScanInput) Prepare() error {
	in.ExpressionParams.layer = attr.OlderLayer
	var c constraints
	in.constraints(&c, false)
	c.min("segment", in.Segment, 0)
	c.max("segment", in.Segment, MaxTotalSegments-1)
	c.min("totalSegments", in.TotalSegments, 1)
	c.max("totalSegments", in.TotalSegments, MaxTotalSegments)
	if err := c.err(); err != nil {
		return err
	}
	switch {
	case in.Segment != nil && in.TotalSegments == nil:
		return ddberr.Validation("The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case in.Segment == nil && in.TotalSegments != nil:
		return ddberr.Validation("The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case in.Segment != nil && *in.Segment >= *in.TotalSegments:
		return ddberr.Validation("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: " +
			strconv.FormatInt(*in.Segment, 10) + " is not less than TotalSegments: " + strconv.FormatInt(*in.TotalSegments, 10))
	}
	ctx, err := in.ExpressionParams.newContext([]exprParam{
		{expr.ProjectionExpression, in.ProjectionExpression},
		{expr.FilterExpression, in.FilterExpression},
	}, in.legacyParams("ScanFilter"))
	if err != nil {
		return err
	}
	if err := in.validateSelect(); err != nil {
		return err
	}
	return in.finish(ctx)
}
