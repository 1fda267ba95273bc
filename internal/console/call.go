package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/dynago/dynago/internal/ddberr"
)

// APIError is a DynamoDB error answer, as a client gets it: the HTTP
// status, the __type's short name (ValidationException) and the message,
// which the console shows as DynamoDB words it.
type APIError struct {
	Status  int
	Type    string
	Message string
	// Body is the whole response (CancellationReasons and all).
	Body json.RawMessage
}

// Error implements error as "Type: Message".
func (e *APIError) Error() string {
	if e.Message == "" {
		return e.Type
	}
	return e.Type + ": " + e.Message
}

// Call is one DynamoDB call the console made, for showing: the operation,
// the request as sent and the response as received (both JSON).
type Call struct {
	Operation string
	Request   json.RawMessage
	Response  json.RawMessage
	Err       *APIError
}

// call runs DynamoDB operation op ("Query") with request in (marshalled
// as JSON; a json.RawMessage or []byte is sent as it is) and decodes the
// answer into out (nil to skip). The error is an *APIError for
// DynamoDB's answers; others are the console's own (a request that does
// not marshal).
func (c *Console) call(ctx context.Context, op string, in, out any) error {
	_, err := c.callShown(ctx, "DynamoDB_20120810."+op, in, out)
	return err
}

// callStreams is call for a DynamoDB Streams operation ("GetRecords").
func (c *Console) callStreams(ctx context.Context, op string, in, out any) error {
	_, err := c.callShown(ctx, "DynamoDBStreams_20120810."+op, in, out)
	return err
}

// callShown is call that also returns the Call, for pages that show the
// request and the response (the query builder, PartiQL).
func (c *Console) callShown(ctx context.Context, target string, in, out any) (Call, error) {
	_, op, _ := strings.Cut(target, ".")
	call := Call{Operation: op}
	var body []byte
	switch v := in.(type) {
	case json.RawMessage:
		body = v
	case []byte:
		body = v
	default:
		b, err := marshalText(in, false)
		if err != nil {
			return call, fmt.Errorf("console: %s request: %w", op, err)
		}
		body = b
	}
	call.Request = body
	status, resp := c.opts.API.Invoke(ctx, target, body)
	call.Response = resp
	if status != http.StatusOK {
		e := &APIError{Status: status, Body: resp}
		var m struct {
			Type     string `json:"__type"`
			Message  string `json:"message"`
			Message2 string `json:"Message"`
		}
		if json.Unmarshal(resp, &m) == nil {
			e.Type = m.Type
			if i := strings.LastIndexByte(e.Type, '#'); i >= 0 {
				e.Type = e.Type[i+1:]
			}
			e.Message = m.Message
			if e.Message == "" {
				e.Message = m.Message2
			}
		}
		if e.Type == "" {
			e.Type = http.StatusText(status)
		}
		call.Err = e
		return call, e
	}
	if out != nil {
		if err := json.Unmarshal(resp, out); err != nil {
			return call, fmt.Errorf("console: %s response: %w", op, err)
		}
	}
	return call, nil
}

// asAPIError returns err as the *APIError a page shows: DynamoDB's
// answer itself, an engine error (ddberr) in its words, or any other
// error as a 500 of the console's own; nil for nil.
func asAPIError(err error) *APIError {
	if err == nil {
		return nil
	}
	var ae *APIError
	if errors.As(err, &ae) {
		return ae
	}
	if de, ok := ddberr.As(err); ok {
		return &APIError{Status: de.Code.Status(), Type: string(de.Code), Message: de.Message}
	}
	return &APIError{Status: http.StatusInternalServerError, Type: "InternalError", Message: err.Error()}
}
