package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/smithy-go/logging"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/dataio"
	"github.com/dynago/dynago/internal/sdkhttp"
)

// defaultDataEndpoint is load's and dump's --endpoint: a local dynago
// serve on its default port.
const defaultDataEndpoint = "http://127.0.0.1:8000"

// endpointHelp documents load's and dump's --endpoint rule.
const endpointHelp = `DynamoDB endpoint URL; "" uses the AWS SDK's own endpoint (real DynamoDB in the configured region, or AWS_ENDPOINT_URL_DYNAMODB)`

// SDK retries of one request: throttling errors
// (ProvisionedThroughputExceededException, ThrottlingException) and
// transient failures are retried by the SDK's standard retryer with
// exponential backoff and full jitter, up to dataMaxAttempts attempts and
// dataMaxBackoff between them, without the client-side retry quota (a
// long throttled load would drain it and then fail at once). Throttling
// that outlasts them is retried by load and dump themselves (stallGuard).
// Non-retryable errors (ValidationException, ResourceNotFoundException)
// are returned at once.
const (
	dataMaxAttempts = 5
	dataMaxBackoff  = 2 * time.Second
	dataHTTPTimeout = 60 * time.Second
)

// dataClient is a DynamoDB client for load and dump, and the transport
// whose idle connections its user closes at the end.
type dataClient struct {
	*dynamodb.Client
	transport *http.Transport
}

// close drops the client's idle connections.
func (c dataClient) close() { c.transport.CloseIdleConnections() }

// newDataClient builds the client for endpoint (see endpointHelp) with
// the SDK's usual configuration chain (endpointConfig). conns is the
// number of concurrent requests to keep connections for.
func newDataClient(ctx context.Context, endpoint string, conns int) (dataClient, error) {
	if endpoint != "" {
		u, err := url.Parse(endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return dataClient{}, usageError{fmt.Errorf("--endpoint must be an http(s) URL or \"\", not %q", endpoint)}
		}
	}
	cfg, err := endpointConfig(ctx, endpoint)
	if err != nil {
		return dataClient{}, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = conns + 2
	cfg.HTTPClient = sdkhttp.NoWriteTo{Doer: &http.Client{Transport: tr, Timeout: dataHTTPTimeout}}
	// The SDK's own log lines (response bodies it could not close when a
	// request is cancelled by Ctrl-C) would mix into load's and dump's
	// reports; their errors reach the commands anyway.
	cfg.Logger = logging.Nop{}
	cfg.RetryMaxAttempts = dataMaxAttempts
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts, o.MaxBackoff, o.RateLimiter = dataMaxAttempts, dataMaxBackoff, ratelimit.None
		})
	}
	if endpoint != "" {
		cfg.BaseEndpoint = aws.String(endpoint)
	}
	return dataClient{Client: dynamodb.NewFromConfig(cfg), transport: tr}, nil
}

// endpointConfig loads the SDK's configuration chain (awsConfig) for a
// client of endpoint (a checked http(s) URL, or "" for AWS). For a
// loopback endpoint the EC2 instance metadata service is not asked, and
// when the chain finds no credentials dummy ones are used, so that a
// command pointed at a local dynago needs no AWS setup (and does not wait
// on a metadata service that is not there).
func endpointConfig(ctx context.Context, endpoint string) (aws.Config, error) {
	var lo []func(*config.LoadOptions) error
	loopback := false
	if u, err := url.Parse(endpoint); endpoint != "" && err == nil {
		loopback = isLoopbackHost(u.Hostname())
	}
	if loopback {
		lo = append(lo, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
	}
	cfg, err := awsConfig(ctx, lo...)
	if err != nil {
		return cfg, err
	}
	if loopback {
		if cfg.Credentials == nil {
			cfg.Credentials = credentials.NewStaticCredentialsProvider("dynago", "dynago", "")
		} else if _, err := cfg.Credentials.Retrieve(ctx); err != nil {
			cfg.Credentials = credentials.NewStaticCredentialsProvider("dynago", "dynago", "")
		}
	}
	return cfg, nil
}

// isLoopbackHost reports whether host is localhost or a loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// keyAttr is one attribute of a key schema: its name and type (S, N, B).
type keyAttr struct {
	name string
	typ  string
}

// parseKeySpec parses --key's "pk:T[,sk:T]" (T one of S, N, B); flag names
// the flag for the message.
func parseKeySpec(flag, spec string) ([]keyAttr, error) {
	parts := strings.Split(spec, ",")
	if spec == "" || len(parts) > 2 {
		return nil, usageError{fmt.Errorf("%s %q: want NAME:TYPE for the partition key, then optionally ,NAME:TYPE for the sort key", flag, spec)}
	}
	var keys []keyAttr
	for _, p := range parts {
		name, typ, ok := strings.Cut(p, ":")
		typ = strings.ToUpper(typ)
		if !ok || name == "" || (typ != "S" && typ != "N" && typ != "B") {
			return nil, usageError{fmt.Errorf("%s %q: %q is not NAME:TYPE with TYPE S, N or B", flag, spec, p)}
		}
		keys = append(keys, keyAttr{name, typ})
	}
	if len(keys) == 2 && keys[0].name == keys[1].name {
		return nil, usageError{fmt.Errorf("%s %q: the sort key must differ from the partition key", flag, spec)}
	}
	return keys, nil
}

// tableKeys returns the table's primary key (partition key first) and
// its description from DescribeTable.
func tableKeys(ctx context.Context, c dataClient, table string) ([]keyAttr, *types.TableDescription, error) {
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return nil, nil, fmt.Errorf("table %s: %w", table, err)
	}
	types := attributeTypes(out.Table)
	var keys []keyAttr
	for _, k := range out.Table.KeySchema {
		ka := keyAttr{aws.ToString(k.AttributeName), types[aws.ToString(k.AttributeName)]}
		if k.KeyType == "HASH" {
			keys = append([]keyAttr{ka}, keys...)
		} else {
			keys = append(keys, ka)
		}
	}
	return keys, out.Table, nil
}

// attributeTypes maps each of a table's attribute definitions (its key
// attributes and its indexes') to its type, S, N or B.
func attributeTypes(t *types.TableDescription) map[string]string {
	typ := map[string]string{}
	for _, d := range t.AttributeDefinitions {
		typ[aws.ToString(d.AttributeName)] = string(d.AttributeType)
	}
	return typ
}

// indexKeyAttr is a key attribute of a secondary index: its name, type
// and index.
type indexKeyAttr struct {
	keyAttr
	index string
}

// indexKeys returns the key attributes of the table's global and local
// secondary indexes that are not the table's own key attributes.
func indexKeys(t *types.TableDescription, table []keyAttr) []indexKeyAttr {
	typ := attributeTypes(t)
	own := map[string]bool{}
	for _, k := range table {
		own[k.name] = true
	}
	var out []indexKeyAttr
	add := func(index string, schema []types.KeySchemaElement) {
		for _, k := range schema {
			if name := aws.ToString(k.AttributeName); !own[name] {
				out = append(out, indexKeyAttr{keyAttr{name, typ[name]}, index})
			}
		}
	}
	for _, g := range t.GlobalSecondaryIndexes {
		add(aws.ToString(g.IndexName), g.KeySchema)
	}
	for _, l := range t.LocalSecondaryIndexes {
		add(aws.ToString(l.IndexName), l.KeySchema)
	}
	return out
}

// isNotFound reports whether err is DynamoDB's ResourceNotFoundException.
func isNotFound(err error) bool {
	var nf *types.ResourceNotFoundException
	return errors.As(err, &nf)
}

// checkItem checks an item against the table's key schema and DynamoDB's
// item size limit before it is sent, and returns its key as a string
// (for finding duplicate keys in a batch; numbers canonical, so that 1
// and 1.0 are one key) or what is wrong with it.
//
// Sources: key attributes must be present with the schema's scalar type
// and, for S and B, not empty
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html);
// an item is at most 400 KB, the sum of its attribute names' and values'
// sizes (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-items);
// a secondary index's key attribute, where an item has it, must have the
// index key's type and not be an empty string or binary
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html);
// and the item passes the server's own validation of attribute names and
// values (internal/attr.ValidateItem: names 1 to 65,535 bytes, at most 32
// levels of nesting, no empty or repeated set members), so that one bad
// item is named with its place instead of failing its whole batch (a
// bad-input trial of issue 26).
func checkItem(item dataio.Item, keys []keyAttr, index []indexKeyAttr) (string, error) {
	var key strings.Builder
	for _, k := range keys {
		v, ok := item[k.name]
		if !ok {
			return "", fmt.Errorf("missing key attribute %s (%s)", k.name, k.typ)
		}
		text, typ := scalarText(v)
		if typ != k.typ {
			return "", fmt.Errorf("key attribute %s is %s, the table's key is %s", k.name, avType(v), k.typ)
		}
		if typ == "N" {
			c, err := attr.ParseNumber(text)
			if err != nil {
				return "", fmt.Errorf("key attribute %s: %v", k.name, err)
			}
			text = c
		} else if text == "" {
			return "", fmt.Errorf("key attribute %s is empty", k.name)
		}
		key.WriteString(text)
		key.WriteByte(0)
	}
	for _, k := range index {
		v, ok := item[k.name]
		if !ok {
			continue // not in the index: a sparse index
		}
		text, typ := scalarText(v)
		if typ != k.typ {
			return "", fmt.Errorf("attribute %s is %s, the key of index %s is %s", k.name, avType(v), k.index, k.typ)
		}
		if typ != "N" && text == "" {
			return "", fmt.Errorf("attribute %s, a key of index %s, is empty", k.name, k.index)
		}
	}
	ai, err := toAttr(item)
	if err != nil {
		return "", err
	}
	if err := attr.ValidateItem(ai); err != nil {
		return "", err
	}
	if n := attr.Item(ai).Size(); n > attr.MaxItemSize {
		return "", fmt.Errorf("item is %d bytes, over DynamoDB's limit of %d (400 KB)", n, attr.MaxItemSize)
	}
	return key.String(), nil
}

// describeKey renders an item's key attributes for a message: year=2013
// title="Rush".
func describeKey(item dataio.Item, keys []keyAttr) string {
	var parts []string
	for _, k := range keys {
		if v, ok := item[k.name]; ok {
			text, typ := scalarText(v)
			if typ == "S" {
				text = fmt.Sprintf("%q", text)
			}
			parts = append(parts, k.name+"="+text)
		}
	}
	return strings.Join(parts, " ")
}

// scalarText returns a scalar value's text and type (S, N or B; B's text
// is its raw bytes); for other types "" and the type's name.
func scalarText(v types.AttributeValue) (string, string) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value, "S"
	case *types.AttributeValueMemberN:
		return v.Value, "N"
	case *types.AttributeValueMemberB:
		return string(v.Value), "B"
	}
	return "", avType(v)
}

// avType names an AttributeValue's DynamoDB type (S, N, SS, L, ...), or
// its Go type for a value of none.
func avType(v types.AttributeValue) string {
	if t := dataio.TypeOf(v); t != "" {
		return t
	}
	return fmt.Sprintf("%T", v)
}

// toAttr converts an SDK item to the engine's attribute values, so that
// its size is computed by internal/attr's implementation of DynamoDB's
// rule (internal/attr imports neither the engine nor storage). A number
// that is not a valid DynamoDB number is an error.
func toAttr(item dataio.Item) (map[string]attr.Value, error) {
	out := make(map[string]attr.Value, len(item))
	for k, v := range item {
		av, err := toAttrValue(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
		out[k] = av
	}
	return out, nil
}

// toAttrValue converts one SDK value (see toAttr).
func toAttrValue(v types.AttributeValue) (attr.Value, error) {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return attr.Str(v.Value), nil
	case *types.AttributeValueMemberN:
		c, err := attr.ParseNumber(v.Value)
		return attr.Num(c), err
	case *types.AttributeValueMemberB:
		return attr.Bin(v.Value), nil
	case *types.AttributeValueMemberBOOL:
		return attr.Bool(v.Value), nil
	case *types.AttributeValueMemberNULL:
		return attr.Null(), nil
	case *types.AttributeValueMemberSS:
		return attr.Set(attr.SS, v.Value), nil
	case *types.AttributeValueMemberNS:
		ms := make([]string, len(v.Value))
		for i, n := range v.Value {
			c, err := attr.ParseNumber(n)
			if err != nil {
				return attr.Value{}, err
			}
			ms[i] = c
		}
		return attr.Set(attr.NS, ms), nil
	case *types.AttributeValueMemberBS:
		ms := make([]string, len(v.Value))
		for i, b := range v.Value {
			ms[i] = string(b)
		}
		return attr.Set(attr.BS, ms), nil
	case *types.AttributeValueMemberL:
		l := make([]attr.Value, len(v.Value))
		for i, e := range v.Value {
			av, err := toAttrValue(e)
			if err != nil {
				return attr.Value{}, err
			}
			l[i] = av
		}
		return attr.List(l), nil
	case *types.AttributeValueMemberM:
		m, err := toAttr(v.Value)
		return attr.Map(m), err
	}
	return attr.Value{}, fmt.Errorf("unsupported attribute value %T", v)
}

// stallTimeout is how long load and dump go on retrying throttled
// requests while nothing at all gets through: a table that admits some
// writes slows a load down, one that admits none for this long fails it.
const stallTimeout = 90 * time.Second

// stallGuard tracks when a command last made progress, across its
// workers, to decide whether a throttled request is worth retrying.
type stallGuard struct {
	last    atomic.Int64 // UnixNano of the last progress
	retries atomic.Int64 // throttled requests and rounds of UnprocessedItems retried
}

// newStallGuard is a guard whose clock starts now.
func newStallGuard() *stallGuard {
	g := &stallGuard{}
	g.progressed()
	return g
}

// progressed notes progress (items written or read).
func (g *stallGuard) progressed() { g.last.Store(time.Now().UnixNano()) }

// retry waits before retrying after attempt failed (throttled, or items
// unprocessed), and returns cause when nothing has progressed for
// stallTimeout or ctx's error when it ends first.
func (g *stallGuard) retry(ctx context.Context, attempt int, cause error) error {
	if since := time.Since(time.Unix(0, g.last.Load())); since > stallTimeout {
		return fmt.Errorf("nothing got through for %s: %w", since.Round(time.Second), cause)
	}
	g.retries.Add(1)
	return sleepCtx(ctx, backoff(attempt))
}

// isThrottle reports whether err is a throttling error: DynamoDB's
// ProvisionedThroughputExceededException, ThrottlingException or
// RequestLimitExceeded
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html).
func isThrottle(err error) bool {
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.ErrorCode() {
	case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded":
		return true
	}
	return false
}

// formatUnits renders capacity units in plain notation (1000000, 2.5).
func formatUnits(u float64) string { return strconv.FormatFloat(u, 'f', -1, 64) }
