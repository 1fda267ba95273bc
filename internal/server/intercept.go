package server

import "context"

// Interceptor is a hook around the API operations the server runs
// (Options.Intercept), for what watches or polices live traffic without
// being part of the HTTP edge (serve --design's classifier, in package
// designtraffic). The server calls it for every DynamoDB and DynamoDB
// Streams operation it routes, from the request's goroutine, so an
// Interceptor must be safe for concurrent use.
//
// A request meets it only once it is a valid call: routed to an
// operation dynago serves, authenticated, its body decoded and prepared
// (what DynamoDB checks without the table). A request refused before that
// (an unknown target, a bad signature, a body that is not JSON, a
// ValidationException) reaches neither method.
type Interceptor interface {
	// Before is called before the engine runs the request, with the
	// request's context, the operation's name (its X-Amz-Target without
	// the service prefix: "Query", "GetRecords") and its input: a pointer
	// to package api's input struct for the operation (*api.QueryInput,
	// *api.BatchWriteItemInput...), decoded and prepared (api.Request),
	// which Before must not change.
	//
	// A nil error lets the request run. A non-nil error refuses it: the
	// engine does not run it, After is not called, and the error is the
	// answer, rendered once like any error the engine returns: a
	// *ddberr.Error as its code, HTTP status and message (AccessDenied-
	// Exception for a policy's refusal, as IAM's), anything else as
	// InternalServerError, logged.
	Before(ctx context.Context, op string, in any) error

	// After is called once the engine has answered a request that Before
	// let through, with the same context, op and in, before the answer
	// is sent. out is the operation's output (a pointer to package api's
	// output struct: *api.ReadOutput for Query and Scan...) and err nil,
	// or out is nil and err the engine's error (a failed condition,
	// throttling, a missing table). After cannot change the answer. A
	// request whose run panicked reaches no After.
	After(ctx context.Context, op string, in, out any, err error)
}
