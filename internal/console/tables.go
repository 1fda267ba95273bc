package console

import (
	"net/http"
)

// The tables page (/console/): every table, as ListTables names them
// and DescribeTable describes them.

func (c *Console) tablesRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /console/{$}", c.tablesPage)
}

// tableSummary is one row of the tables page.
type tableSummary struct {
	Name                      string
	Status                    string
	ItemCount, TableSizeBytes int64
	BillingMode               string
	Indexes                   []string
	Stream                    string
	TTL                       string
	DeletionProtection        bool
	Err                       *APIError
}

// TableDescription is the part of DescribeTable's TableDescription the
// console reads (API reference, TableDescription).
type TableDescription struct {
	TableName             string
	TableStatus           string
	TableArn              string
	ItemCount             int64
	TableSizeBytes        int64
	KeySchema             []KeySchemaElement
	AttributeDefinitions  []struct{ AttributeName, AttributeType string }
	BillingModeSummary    *struct{ BillingMode string }
	ProvisionedThroughput *struct {
		ReadCapacityUnits, WriteCapacityUnits int64
	}
	GlobalSecondaryIndexes []IndexDescription
	LocalSecondaryIndexes  []IndexDescription
	StreamSpecification    *struct {
		StreamEnabled  bool
		StreamViewType string
	}
	LatestStreamArn           string
	DeletionProtectionEnabled bool
}

// KeySchemaElement is one attribute of a key schema: AttributeName and
// its KeyType, HASH (the partition key) or RANGE (the sort key).
type KeySchemaElement struct{ AttributeName, KeyType string }

// IndexDescription is a GSI's or LSI's description, as far as the console
// reads it.
type IndexDescription struct {
	IndexName   string
	IndexStatus string
	KeySchema   []KeySchemaElement
	Projection  struct {
		ProjectionType   string
		NonKeyAttributes []string
	}
	ItemCount int64
}

// Keys returns the partition key and sort key ("" when none) names of a
// key schema.
func Keys(ks []KeySchemaElement) (pk, sk string) {
	for _, k := range ks {
		if k.KeyType == "HASH" {
			pk = k.AttributeName
		} else if k.KeyType == "RANGE" {
			sk = k.AttributeName
		}
	}
	return pk, sk
}

// describe returns DescribeTable's description of table.
func (c *Console) describe(r *http.Request, table string) (TableDescription, error) {
	var out struct{ Table TableDescription }
	err := c.call(r.Context(), "DescribeTable", map[string]string{"TableName": table}, &out)
	return out.Table, err
}

// listTables returns every table name, following LastEvaluatedTableName.
func (c *Console) listTables(r *http.Request) ([]string, error) {
	var names []string
	in := map[string]any{}
	for {
		var out struct {
			TableNames             []string
			LastEvaluatedTableName string
		}
		if err := c.call(r.Context(), "ListTables", in, &out); err != nil {
			return nil, err
		}
		names = append(names, out.TableNames...)
		if out.LastEvaluatedTableName == "" {
			return names, nil
		}
		in["ExclusiveStartTableName"] = out.LastEvaluatedTableName
	}
}

type tablesData struct {
	Tables []tableSummary
	Err    error
	// Endpoint is this server's address as the browser reached it, for
	// the empty state's "point an SDK at ...".
	Endpoint string
}

// endpointOf is the API's URL as r reached the console.
func endpointOf(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}

func (c *Console) tablesPage(w http.ResponseWriter, r *http.Request) {
	d := tablesData{Endpoint: endpointOf(r)}
	names, err := c.listTables(r)
	if err != nil {
		d.Err = err
	}
	for _, n := range names {
		s := tableSummary{Name: n}
		t, err := c.describe(r, n)
		if err != nil {
			if e, ok := err.(*APIError); ok && e.Type == "ResourceNotFoundException" {
				continue // deleted since ListTables
			}
			s.Err, _ = err.(*APIError)
			d.Tables = append(d.Tables, s)
			continue
		}
		d.Tables = append(d.Tables, summarize(t))
	}
	c.render(w, r, http.StatusOK, "tables", c.page(r, "Tables", "tables", d))
}

func summarize(t TableDescription) tableSummary {
	s := tableSummary{Name: t.TableName, Status: t.TableStatus, ItemCount: t.ItemCount, TableSizeBytes: t.TableSizeBytes,
		BillingMode: "PROVISIONED", DeletionProtection: t.DeletionProtectionEnabled, Stream: "off"}
	if t.BillingModeSummary != nil && t.BillingModeSummary.BillingMode != "" {
		s.BillingMode = t.BillingModeSummary.BillingMode
	}
	for _, ix := range t.GlobalSecondaryIndexes {
		s.Indexes = append(s.Indexes, ix.IndexName+" (GSI)")
	}
	for _, ix := range t.LocalSecondaryIndexes {
		s.Indexes = append(s.Indexes, ix.IndexName+" (LSI)")
	}
	if t.StreamSpecification != nil && t.StreamSpecification.StreamEnabled {
		s.Stream = t.StreamSpecification.StreamViewType
	}
	return s
}
