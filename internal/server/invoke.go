package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/engine"
)

// Invoke runs one API call in the process, as if a client had sent body
// with the X-Amz-Target target ("DynamoDB_20120810.Query",
// "DynamoDBStreams_20120810.GetRecords"), and returns what that client
// would get: the HTTP status (200, or the error's 400/500) and the JSON
// response body ({"__type": ..., "message": ...} for an error). The call
// goes through the same decoder, Interceptor (serve --design's traffic
// classifier), engine and metrics as a request on the wire, with region
// us-east-1 and host "localhost"; it is not authenticated: the caller
// (the web console, /console/) has authenticated its user itself. body
// is not retained.
func (s *Server) Invoke(ctx context.Context, target string, body []byte) (status int, out []byte) {
	start := time.Now()
	id := s.ids.next()
	opName, run, ok, feature := route(target)
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic serving request", "op", opName, "panic", p)
				err = ddberr.Internal(errors.New("panic"))
			}
		}()
		switch {
		case !ok && feature != "":
			err = unsupportedError(opName, feature)
			return
		case !ok:
			err = ddberr.New(ddberr.UnknownOperationException, "")
			return
		}
		ctx = engine.WithHost(engine.WithRegion(ctx, "us-east-1"), "localhost")
		var res output
		if res, err = s.run(ctx, opName, run, body); err == nil {
			out = res.AppendJSON(nil)
		}
	}()
	status = http.StatusOK
	if err != nil {
		out, status = renderError(nil, err, s.log, id, opName)
	}
	if s.metrics != nil {
		s.metrics.request(opName, status, err, time.Since(start))
	}
	return status, out
}

// SetConsole serves h (the web console) at /console/ and below, before
// any other route and outside the API's Signature Version 4 check: the
// console authenticates its own users (a login form and a session
// cookie). Call it before the server serves; nil removes it.
func (s *Server) SetConsole(h http.Handler) { s.console = h }
