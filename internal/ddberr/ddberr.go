// Package ddberr is dynago's error catalog: every error a client can see, in
// DynamoDB's own words.
//
// Each Code carries the `__type` namespace and HTTP status that DynamoDB uses
// for it. Domain code returns *Error values built with New or one of the
// helpers; the HTTP edge (internal/server) renders them exactly once as
//
//	{"__type": "<namespace>#<Code>", "message": "<Message>"}
//
// Namespaces follow what DynamoDB sends on the wire: request validation errors
// come from the Coral framework ("com.amazon.coral.validate"), protocol and
// authentication errors from "com.amazon.coral.service", and service errors
// from "com.amazonaws.dynamodb.v20120810". SDKs only read the part after '#',
// but tools that log the whole type (and our cases corpus) see the namespace.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
package ddberr

import (
	"errors"
	"fmt"
)

// Code is a DynamoDB error code, the part of `__type` after '#'.
type Code string

// The error codes dynago returns. Each one's namespace and status are in the
// catalog below.
const (
	ValidationException                      Code = "ValidationException"
	SerializationException                   Code = "SerializationException"
	UnknownOperationException                Code = "UnknownOperationException"
	MissingAuthenticationTokenException      Code = "MissingAuthenticationTokenException"
	IncompleteSignatureException             Code = "IncompleteSignatureException"
	InvalidSignatureException                Code = "InvalidSignatureException"
	UnrecognizedClientException              Code = "UnrecognizedClientException"
	AccessDeniedException                    Code = "AccessDeniedException"
	ResourceNotFoundException                Code = "ResourceNotFoundException"
	ResourceInUseException                   Code = "ResourceInUseException"
	ConditionalCheckFailedException          Code = "ConditionalCheckFailedException"
	ProvisionedThroughputExceededException   Code = "ProvisionedThroughputExceededException"
	ThrottlingException                      Code = "ThrottlingException"
	RequestLimitExceeded                     Code = "RequestLimitExceeded"
	LimitExceededException                   Code = "LimitExceededException"
	ItemCollectionSizeLimitExceededException Code = "ItemCollectionSizeLimitExceededException"
	TransactionCanceledException             Code = "TransactionCanceledException"
	TransactionConflictException             Code = "TransactionConflictException"
	// DuplicateItemException answers a PartiQL INSERT of an item that
	// exists (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html#API_ExecuteStatement_Errors).
	DuplicateItemException                Code = "DuplicateItemException"
	TransactionInProgressException        Code = "TransactionInProgressException"
	IdempotentParameterMismatchException  Code = "IdempotentParameterMismatchException"
	InternalServerError                   Code = "InternalServerError"
	TableNotFoundException                Code = "TableNotFoundException"
	ContinuousBackupsUnavailableException Code = "ContinuousBackupsUnavailableException"
	// ExpiredIteratorException and TrimmedDataAccessException are DynamoDB
	// Streams errors.
	ExpiredIteratorException   Code = "ExpiredIteratorException"
	TrimmedDataAccessException Code = "TrimmedDataAccessException"
	ServiceUnavailable         Code = "ServiceUnavailable"
)

const (
	nsValidate = "com.amazon.coral.validate"
	nsService  = "com.amazon.coral.service"
	nsAvail    = "com.amazon.coral.availability"
	nsDynamo   = "com.amazonaws.dynamodb.v20120810"
	// nsStreams is the DynamoDB Streams model's namespace for its own
	// errors (the JS SDK v3 deserializer names it); the Streams API's
	// other errors use nsDynamo. See docs/research-streams.md §5.
	nsStreams = "com.amazonaws.dynamodb.streams.v20120810"
)

// entry is one catalog row.
type entry struct {
	namespace string
	status    int
}

var catalog = map[Code]entry{
	ValidationException:                    {nsValidate, 400},
	SerializationException:                 {nsService, 400},
	UnknownOperationException:              {nsService, 400},
	MissingAuthenticationTokenException:    {nsService, 400},
	IncompleteSignatureException:           {nsService, 400},
	InvalidSignatureException:              {nsService, 400},
	UnrecognizedClientException:            {nsService, 400},
	AccessDeniedException:                  {nsService, 400},
	ResourceNotFoundException:              {nsDynamo, 400},
	ExpiredIteratorException:               {nsStreams, 400},
	TrimmedDataAccessException:             {nsStreams, 400},
	ResourceInUseException:                 {nsDynamo, 400},
	ConditionalCheckFailedException:        {nsDynamo, 400},
	ProvisionedThroughputExceededException: {nsDynamo, 400},
	// No capture shows the namespace of a data-plane ThrottlingException;
	// control-plane ones are com.amazon.coral.availability
	// (docs/research-throttling.md §1). SDKs read only the code.
	ThrottlingException:                      {nsAvail, 400},
	RequestLimitExceeded:                     {nsDynamo, 400},
	LimitExceededException:                   {nsDynamo, 400},
	ItemCollectionSizeLimitExceededException: {nsDynamo, 400},
	TransactionCanceledException:             {nsDynamo, 400},
	TransactionConflictException:             {nsDynamo, 400},
	DuplicateItemException:                   {nsDynamo, 400},
	TransactionInProgressException:           {nsDynamo, 400},
	IdempotentParameterMismatchException:     {nsDynamo, 400},
	TableNotFoundException:                   {nsDynamo, 400},
	ContinuousBackupsUnavailableException:    {nsDynamo, 400},
	InternalServerError:                      {nsDynamo, 500},
	ServiceUnavailable:                       {nsAvail, 503},
}

// Type returns the full `__type` string for c, for example
// "com.amazon.coral.validate#ValidationException". Codes missing from the
// catalog get DynamoDB's service namespace.
func (c Code) Type() string {
	e, ok := catalog[c]
	if !ok {
		return nsDynamo + "#" + string(c)
	}
	return e.namespace + "#" + string(c)
}

// Status returns the HTTP status DynamoDB answers c with (400 unless the
// catalog says otherwise).
func (c Code) Status() int {
	if e, ok := catalog[c]; ok {
		return e.status
	}
	return 400
}

// Error is an error a client sees. Message is DynamoDB's text, verbatim.
type Error struct {
	Code    Code
	Message string
	// Item is the item a failed conditional check saw, as AttributeValue
	// JSON (ReturnValuesOnConditionCheckFailure=ALL_OLD); rendered as the
	// body's "Item" member. Nil for most errors.
	//
	// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html#DDB-PutItem-request-ReturnValuesOnConditionCheckFailure
	Item []byte
	// CancellationReasons are a TransactionCanceledException's reasons,
	// one per action of the request, in order; rendered as the body's
	// "CancellationReasons" member.
	//
	// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CancellationReason.html
	CancellationReasons []CancellationReason
	// ThrottlingReasons say which limit of which resource throttled the
	// request; rendered as "ThrottlingReasons", or "throttlingReasons"
	// for ThrottlingException, as DynamoDB spells them
	// (docs/research-throttling.md §2).
	//
	// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html
	ThrottlingReasons []ThrottlingReason
	// UpperMessage renders the message under the key "Message" instead of
	// "message", as DynamoDB does for SerializationException.
	UpperMessage bool
	cause        error // Internal's, for logs; never shown to the client
}

// CancellationReason is why one action of a transaction did not apply.
// An empty Code is rendered as DynamoDB's "None" (the action was fine).
type CancellationReason struct {
	// Code is the reason: ConditionalCheckFailed, ValidationError,
	// TransactionConflict, ItemCollectionSizeLimitExceeded,
	// ThrottlingError, ProvisionedThroughputExceeded, or "" for None.
	Code string
	// Message is DynamoDB's text for the reason; "" omits it.
	Message string
	// Item is the action's item as AttributeValue JSON
	// (ReturnValuesOnConditionCheckFailure=ALL_OLD); nil omits it.
	Item []byte
}

// ThrottlingReason is one entry of an exception's throttling reasons:
// the limit exceeded (for example "TableWriteProvisionedThroughputExceeded")
// and the ARN of the table or index.
type ThrottlingReason struct {
	Reason   string
	Resource string
}

// Error implements error as "Code: Message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// New returns an *Error with the given code and message.
func New(code Code, msg string) *Error { return &Error{Code: code, Message: msg} }

// Newf returns an *Error with the given code and a formatted message.
func Newf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Validation returns a ValidationException with msg.
func Validation(msg string) *Error { return New(ValidationException, msg) }

// Validationf returns a ValidationException with a formatted message.
func Validationf(format string, args ...any) *Error {
	return Newf(ValidationException, format, args...)
}

// InvalidParam returns the common ValidationException
// "One or more parameter values were invalid: <msg>".
func InvalidParam(msg string) *Error {
	return New(ValidationException, "One or more parameter values were invalid: "+msg)
}

// InvalidParamf is InvalidParam with a formatted message.
func InvalidParamf(format string, args ...any) *Error {
	return InvalidParam(fmt.Sprintf(format, args...))
}

// Serialization returns a SerializationException with msg, rendered under
// "Message" as DynamoDB does.
func Serialization(msg string) *Error {
	return &Error{Code: SerializationException, Message: msg, UpperMessage: true}
}

// TableNotFound is DynamoDB's ResourceNotFoundException for data-plane
// operations on a table that does not exist (or is not ACTIVE).
func TableNotFound() *Error {
	return New(ResourceNotFoundException, "Requested resource not found")
}

// TableNotFoundNamed is the control-plane variant (DescribeTable,
// DeleteTable), which names the table.
func TableNotFoundNamed(name string) *Error {
	return New(ResourceNotFoundException, "Requested resource not found: Table: "+name+" not found")
}

// ConditionalCheckFailed is DynamoDB's ConditionalCheckFailedException.
func ConditionalCheckFailed() *Error {
	return New(ConditionalCheckFailedException, "The conditional request failed")
}

// KeySchemaMismatch is the ValidationException DynamoDB returns when a Key
// does not have exactly the table's key attributes with the right types.
func KeySchemaMismatch() *Error {
	return Validation("The provided key element does not match the schema")
}

// Internal wraps an unexpected failure as InternalServerError. The cause is
// kept for logs; the client sees DynamoDB's generic message.
func Internal(cause error) *Error {
	return &Error{Code: InternalServerError, Message: "Internal server error", cause: cause}
}

// Unwrap returns the cause of an Internal error (nil for the others), so
// that errors.Is and errors.As see through it.
func (e *Error) Unwrap() error { return e.cause }

// As reports whether err is (or wraps) an *Error and returns it.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Is reports whether err is an *Error with the given code.
func Is(err error, code Code) bool {
	e, ok := As(err)
	return ok && e.Code == code
}
