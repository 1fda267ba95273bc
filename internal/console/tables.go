package console

import (
	"net/http"
	"strconv"
	"strings"
)

// The tables page (/console/): every table, as ListTables names them,
// DescribeTable describes them and DescribeTimeToLive gives their time
// to live; a table being created, updated or deleted refreshes the list
// every second (htmx) until it settles. Creating a table is
// tables_create.go, a table's settings and deleting it tables_settings.go.
//
//	GET  /console/                              the list (?flash=ID: what was just done)
//	GET  /console/create-table                  the create-table form
//	POST /console/create-table                  CreateTable (or add / remove an index row)
//	GET  /console/table-settings/{name}         deletion protection, TTL, delete
//	POST /console/table-settings/{name}/delete  DeleteTable, after the name is typed
//	POST /console/table-settings/{name}/protection  UpdateTable DeletionProtectionEnabled
//	POST /console/table-settings/{name}/ttl     UpdateTimeToLive
//
// The create and settings pages live outside /console/tables/ so that no
// table name ("new" is one) is shadowed there.

func (c *Console) tablesRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /console/{$}", c.tablesPage)
	m.HandleFunc("GET /console/create-table", c.createTablePage)
	m.HandleFunc("POST /console/create-table", c.createTable)
	m.HandleFunc("GET /console/table-settings/{name}", c.settingsPage)
	m.HandleFunc("POST /console/table-settings/{name}/delete", c.deleteTable)
	m.HandleFunc("POST /console/table-settings/{name}/protection", c.setProtection)
	m.HandleFunc("POST /console/table-settings/{name}/ttl", c.setTTL)
}

// tableSummary is one row of the tables page.
type tableSummary struct {
	Name                      string
	Status                    string
	ItemCount, TableSizeBytes int64
	BillingMode               string
	// Capacity is "R / W" provisioned units ("" on demand).
	Capacity string
	// PK and SK are the key attributes as "name (S)".
	PK, SK  string
	Indexes []indexSummary
	Stream  string
	// TTL is DescribeTimeToLive's answer; TTLErr its error.
	TTL    TTLDescription
	TTLErr *APIError
	// DeletionProtection is DeletionProtectionEnabled.
	DeletionProtection bool
	Err                *APIError
}

// indexSummary is one index of a table on the tables page.
type indexSummary struct {
	Name, Kind, Status string
	// Keys and Projection describe it ("pk (S), sk (N)"; "ALL").
	Keys, Projection string
}

// Settling says the table or one of its indexes is changing state
// (CREATING, UPDATING, DELETING...), so the list refreshes itself.
func (s tableSummary) Settling() bool {
	if s.Err == nil && s.Status != "ACTIVE" {
		return true
	}
	for _, ix := range s.Indexes {
		if ix.Status != "" && ix.Status != "ACTIVE" {
			return true
		}
	}
	return s.TTL.TimeToLiveStatus == "ENABLING" || s.TTL.TimeToLiveStatus == "DISABLING"
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

// TTLDescription is DescribeTimeToLive's TimeToLiveDescription:
// TimeToLiveStatus is ENABLING, DISABLING, ENABLED or DISABLED.
type TTLDescription struct {
	TimeToLiveStatus string
	AttributeName    string
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

// describeTTL returns DescribeTimeToLive's description of table.
func (c *Console) describeTTL(r *http.Request, table string) (TTLDescription, error) {
	var out struct{ TimeToLiveDescription TTLDescription }
	err := c.call(r.Context(), "DescribeTimeToLive", map[string]string{"TableName": table}, &out)
	return out.TimeToLiveDescription, err
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
	// Flash is what was just done (a table created or deleted), if any.
	Flash *flash
}

// Settling says some table is changing state.
func (d tablesData) Settling() bool {
	for _, t := range d.Tables {
		if t.Settling() {
			return true
		}
	}
	return false
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
		s, ok := c.summary(r, n)
		if ok {
			d.Tables = append(d.Tables, s)
		}
	}
	if r.Header.Get("HX-Request") != "" && r.URL.Query().Get("list") != "" {
		c.renderFragment(w, r, http.StatusOK, "tables", "list", c.page(r, "Tables", "tables", d))
		return
	}
	d.Flash = c.takeFlash(r)
	if fl := d.Flash; fl != nil && fl.Created != "" {
		for _, t := range d.Tables {
			if t.Name == fl.Created {
				fl.OK = createdWords(fl.Created, fl.CreatedStatus, t.Status)
			}
		}
	}
	c.render(w, r, http.StatusOK, "tables", c.page(r, "Tables", "tables", d))
}

// summary describes table n (its TTL too); ok is false when it is gone
// since ListTables named it.
func (c *Console) summary(r *http.Request, n string) (tableSummary, bool) {
	t, err := c.describe(r, n)
	if err != nil {
		if e, ok := err.(*APIError); ok && e.Type == "ResourceNotFoundException" {
			return tableSummary{}, false
		}
		s := tableSummary{Name: n}
		s.Err = asAPIError(err)
		return s, true
	}
	return c.summaryOf(r, t), true
}

func summarize(t TableDescription) tableSummary {
	s := tableSummary{Name: t.TableName, Status: t.TableStatus, ItemCount: t.ItemCount, TableSizeBytes: t.TableSizeBytes,
		BillingMode: "PROVISIONED", DeletionProtection: t.DeletionProtectionEnabled, Stream: "off"}
	if t.BillingModeSummary != nil && t.BillingModeSummary.BillingMode != "" {
		s.BillingMode = t.BillingModeSummary.BillingMode
	}
	if s.BillingMode == "PROVISIONED" && t.ProvisionedThroughput != nil {
		s.Capacity = strconv.FormatInt(t.ProvisionedThroughput.ReadCapacityUnits, 10) + " / " + strconv.FormatInt(t.ProvisionedThroughput.WriteCapacityUnits, 10)
	}
	types := map[string]string{}
	for _, a := range t.AttributeDefinitions {
		types[a.AttributeName] = a.AttributeType
	}
	keyText := func(name string) string {
		if name == "" {
			return ""
		}
		if ty := types[name]; ty != "" {
			return name + " (" + ty + ")"
		}
		return name
	}
	pk, sk := Keys(t.KeySchema)
	s.PK, s.SK = keyText(pk), keyText(sk)
	index := func(kind string, ix IndexDescription) indexSummary {
		pk, sk := Keys(ix.KeySchema)
		keys := keyText(pk)
		if sk != "" {
			keys += ", " + keyText(sk)
		}
		proj := ix.Projection.ProjectionType
		if len(ix.Projection.NonKeyAttributes) > 0 {
			proj += " (" + strings.Join(ix.Projection.NonKeyAttributes, ", ") + ")"
		}
		// An LSI's description has no IndexStatus (it lives and dies
		// with its table): the list shows none.
		return indexSummary{Name: ix.IndexName, Kind: kind, Status: ix.IndexStatus, Keys: keys, Projection: proj}
	}
	for _, ix := range t.GlobalSecondaryIndexes {
		s.Indexes = append(s.Indexes, index("GSI", ix))
	}
	for _, ix := range t.LocalSecondaryIndexes {
		s.Indexes = append(s.Indexes, index("LSI", ix))
	}
	if t.StreamSpecification != nil && t.StreamSpecification.StreamEnabled {
		s.Stream = t.StreamSpecification.StreamViewType
	}
	return s
}
