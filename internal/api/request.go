package api

import "github.com/dynago/dynago/internal/wire"

// Input is implemented by every operation's input.
type Input interface {
	// Decode reads the request body's JSON object. Unknown members are
	// ignored, as DynamoDB ignores them; members of the wrong JSON type
	// are a SerializationException.
	Decode(r *wire.Reader) error
}

// Request is the contract between the server, this package and the
// engine: every operation's input is decoded (Input), then prepared,
// and only then run. A request travels server → DecodeInput → Prepare →
// (*engine.Engine).Op.
type Request interface {
	Input

	// Prepare readies a decoded request for the engine, without looking
	// at any table. It does two things, and the engine relies on both:
	//
	//   - It checks the request as DynamoDB does, returning DynamoDB's
	//     ValidationException text (member constraints in Coral's "N
	//     validation errors detected: ..." form, then semantic problems
	//     one at a time, in the order DynamoDB checks them).
	//   - It resolves the request's expressions (ConditionExpression,
	//     UpdateExpression, KeyConditionExpression, ProjectionExpression,
	//     FilterExpression, and the legacy Expected, AttributeUpdates,
	//     KeyConditions, QueryFilter, ScanFilter and AttributesToGet) into
	//     the parsed fields each input names in its doc (Condition,
	//     Update, KeyConds, Filter, Projection), and rewrites the
	//     request's attribute values in canonical form, in place
	//     (attr.ValidateItemIn).
	//
	// Engine methods require a prepared input: they read the parsed
	// fields and never parse an expression themselves, so an input that
	// skipped Prepare would silently run without its condition, update,
	// key condition, filter or projection.
	Prepare() error
}

// BodyKeeper is implemented by inputs that need the raw request body
// after decoding (DecodeInput calls KeepBody).
type BodyKeeper interface{ KeepBody(body []byte) }

// depthKeeper is implemented by inputs whose Prepare depends on how
// deeply the request body nests (CommonWrite: olderReadingDepth).
type depthKeeper interface{ keepDepth(int) }
