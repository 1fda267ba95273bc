package api

import "github.com/dynago/dynago/internal/wire"

// Input is implemented by every operation's input.
type Input interface {
	// Decode reads the request body's JSON object. Unknown members are
	// ignored, as DynamoDB ignores them; members of the wrong JSON type
	// are a SerializationException.
	Decode(r *wire.Reader) error
}

// BodyKeeper is implemented by inputs that need the raw request body
// after decoding (DecodeInput calls KeepBody).
type BodyKeeper interface{ KeepBody(body []byte) }

// depthKeeper is implemented by inputs whose validation depends on how
// deeply the request body nests (CommonWrite: olderReadingDepth).
type depthKeeper interface{ keepDepth(int) }
