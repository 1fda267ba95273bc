package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Creating a table: the form at /console/create-table builds a CreateTable
// request (API reference, CreateTable:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html)
// and sends it as a client would; DynamoDB's own validation decides what
// is wrong, and its message is shown in the form with every field kept.
// The console checks only what a form cannot carry to DynamoDB (a
// capacity that is not a whole number). A time to live is not part of
// CreateTable: after it, the console sends UpdateTimeToLive, first
// waiting (up to ttlWait) for a CREATING table to be ACTIVE, since
// DynamoDB refuses it on a table being created.

// formErrorStatus is the status of a form shown again with an error
// (DynamoDB's or the console's): 200, a page like any other, since
// browsers log a 4xx page as a failed load and htmx swaps no 4xx answer.
const formErrorStatus = http.StatusOK

// ttlWait is how long the console waits for a new table to be ACTIVE
// before setting its time to live.
const ttlWait = 10 * time.Second

// ttlPoll is how often it asks DescribeTable meanwhile.
const ttlPoll = 100 * time.Millisecond

// maxIndexRows bounds the index rows a form may have (above DynamoDB's
// own limits, 20 GSIs and 5 LSIs, so that DynamoDB words those).
const maxIndexRows = 32

// createForm is the create-table form, as typed.
type createForm struct {
	Name       string
	PK, PKType string
	SK, SKType string
	Billing    string // PAY_PER_REQUEST or PROVISIONED
	RCU, WCU   string
	GSIs, LSIs []indexForm
	Stream     bool
	StreamView string
	TTL        string
	Protect    bool
	// Focus is the id of the field to focus when the form is shown again
	// (the new index row's name).
	Focus string
}

// indexForm is one index row of the form (an LSI uses SK only: its
// partition key is the table's).
type indexForm struct {
	Name       string
	PK, PKType string
	SK, SKType string
	Projection string // ALL, KEYS_ONLY, INCLUDE
	NonKey     string // INCLUDE's attributes, comma or space separated
	RCU, WCU   string
	// idx is the row's N in the posted field names.
	idx int
}

// Provisioned says the form asks for provisioned capacity.
func (f createForm) Provisioned() bool { return f.Billing == "PROVISIONED" }

func newCreateForm() createForm {
	return createForm{PKType: "S", SKType: "S", Billing: "PAY_PER_REQUEST", RCU: "5", WCU: "5", StreamView: "NEW_AND_OLD_IMAGES"}
}

func newIndexForm() indexForm {
	return indexForm{PKType: "S", SKType: "S", Projection: "ALL", RCU: "5", WCU: "5"}
}

var indexField = regexp.MustCompile(`^(gsi|lsi)-([0-9]{1,3})-name$`)

// parseCreateForm reads the form's fields from r's posted form. Index
// rows are gsi-N-* and lsi-N-* fields, N any number (rows added by the
// page's script and removed again leave gaps), in N's order.
func parseCreateForm(form url.Values) createForm {
	g := func(k string) string { return strings.TrimSpace(form.Get(k)) }
	f := createForm{Name: g("name"), PK: g("pk"), PKType: g("pk_type"), SK: g("sk"), SKType: g("sk_type"),
		Billing: g("billing"), RCU: g("rcu"), WCU: g("wcu"), Stream: form.Get("stream") != "",
		StreamView: g("stream_view"), TTL: g("ttl"), Protect: form.Get("protection") != ""}
	rows := map[string][]int{}
	for k := range form {
		if m := indexField.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[2])
			rows[m[1]] = append(rows[m[1]], n)
		}
	}
	for _, kind := range []string{"gsi", "lsi"} {
		ns := rows[kind]
		sort.Ints(ns)
		if len(ns) > maxIndexRows {
			ns = ns[:maxIndexRows]
		}
		for _, n := range ns {
			p := kind + "-" + strconv.Itoa(n) + "-"
			ix := indexForm{Name: g(p + "name"), PK: g(p + "pk"), PKType: g(p + "pk_type"), SK: g(p + "sk"), SKType: g(p + "sk_type"),
				Projection: g(p + "projection"), NonKey: g(p + "nonkey"), RCU: g(p + "rcu"), WCU: g(p + "wcu"), idx: n}
			if kind == "gsi" {
				f.GSIs = append(f.GSIs, ix)
			} else {
				f.LSIs = append(f.LSIs, ix)
			}
		}
	}
	return f
}

// The CreateTable request, as the API reference lays it out.
type (
	createTableRequest struct {
		TableName              string
		AttributeDefinitions   []attributeDefinition
		KeySchema              []KeySchemaElement
		BillingMode            string
		ProvisionedThroughput  map[string]int64 `json:",omitempty"`
		GlobalSecondaryIndexes []gsiRequest     `json:",omitempty"`
		LocalSecondaryIndexes  []lsiRequest     `json:",omitempty"`
		StreamSpecification    *streamSpec      `json:",omitempty"`
		// DeletionProtectionEnabled is sent when set.
		DeletionProtectionEnabled bool `json:",omitempty"`
	}
	attributeDefinition struct{ AttributeName, AttributeType string }
	projection          struct {
		ProjectionType   string
		NonKeyAttributes []string `json:",omitempty"`
	}
	gsiRequest struct {
		IndexName             string
		KeySchema             []KeySchemaElement
		Projection            projection
		ProvisionedThroughput map[string]int64 `json:",omitempty"`
	}
	lsiRequest struct {
		IndexName  string
		KeySchema  []KeySchemaElement
		Projection projection
	}
	streamSpec struct {
		StreamEnabled  bool
		StreamViewType string `json:",omitempty"`
	}
)

// request builds the CreateTable request of f. AttributeDefinitions has
// every key attribute of the table and its indexes once; the same name
// given two types is sent twice, for DynamoDB to refuse ("Duplicate
// AttributeName in AttributeDefinitions"). The error is the console's
// own: a capacity that is not a whole number.
func (f createForm) request() (createTableRequest, error) {
	req := createTableRequest{TableName: f.Name, BillingMode: f.Billing}
	seen := map[attributeDefinition]bool{}
	def := func(name, typ string) {
		a := attributeDefinition{name, typ}
		if !seen[a] {
			seen[a] = true
			req.AttributeDefinitions = append(req.AttributeDefinitions, a)
		}
	}
	keys := func(pk, pkType, sk, skType string) []KeySchemaElement {
		ks := []KeySchemaElement{{pk, "HASH"}}
		def(pk, pkType)
		if sk != "" {
			ks = append(ks, KeySchemaElement{sk, "RANGE"})
			def(sk, skType)
		}
		return ks
	}
	req.KeySchema = keys(f.PK, f.PKType, f.SK, f.SKType)
	var err error
	if f.Provisioned() {
		if req.ProvisionedThroughput, err = throughput("the table's", f.RCU, f.WCU); err != nil {
			return req, err
		}
	}
	for i, ix := range f.GSIs {
		g := gsiRequest{IndexName: ix.Name, KeySchema: keys(ix.PK, ix.PKType, ix.SK, ix.SKType), Projection: ix.projection()}
		if f.Provisioned() {
			if g.ProvisionedThroughput, err = throughput(fmt.Sprintf("GSI %d's", i+1), ix.RCU, ix.WCU); err != nil {
				return req, err
			}
		}
		req.GlobalSecondaryIndexes = append(req.GlobalSecondaryIndexes, g)
	}
	for _, ix := range f.LSIs {
		l := lsiRequest{IndexName: ix.Name, KeySchema: keys(f.PK, f.PKType, ix.SK, ix.SKType), Projection: ix.projection()}
		req.LocalSecondaryIndexes = append(req.LocalSecondaryIndexes, l)
	}
	if f.Stream {
		req.StreamSpecification = &streamSpec{StreamEnabled: true, StreamViewType: f.StreamView}
	}
	req.DeletionProtectionEnabled = f.Protect
	return req, nil
}

func (ix indexForm) projection() projection {
	p := projection{ProjectionType: ix.Projection}
	if ix.Projection == "INCLUDE" {
		p.NonKeyAttributes = strings.FieldsFunc(ix.NonKey, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' })
	}
	return p
}

// throughput is a ProvisionedThroughput of the units given (an empty one
// left out, for DynamoDB to say both are needed).
func throughput(whose, rcu, wcu string) (map[string]int64, error) {
	t := map[string]int64{}
	for _, u := range []struct{ key, what, v string }{{"ReadCapacityUnits", "read", rcu}, {"WriteCapacityUnits", "write", wcu}} {
		if u.v == "" {
			continue
		}
		n, err := strconv.ParseInt(u.v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s %s capacity units, %q, is not a whole number", whose, u.what, u.v)
		}
		t[u.key] = n
	}
	if len(t) == 0 {
		return nil, nil
	}
	return t, nil
}

// createData is the create-table page's data.
type createData struct {
	Form createForm
	// Err is DynamoDB's answer (or the console's own complaint, Type
	// "console"); Call the CreateTable call that was sent.
	Err  *APIError
	Call Call
	// Blank rows for the page's script to copy (index "__N__").
	BlankGSI, BlankLSI indexRow
}

// indexRow is one index row as the template lays it out.
type indexRow struct {
	Kind        string // gsi or lsi
	Idx         string // the field names' N
	Num         string // its number on the page, from 1
	F           indexForm
	Provisioned bool
	Focus       bool
}

// Rows returns the form's index rows of kind (gsi, lsi).
func (d createData) Rows(kind string) []indexRow {
	list := d.Form.GSIs
	if kind == "lsi" {
		list = d.Form.LSIs
	}
	var rows []indexRow
	for i, ix := range list {
		id := kind + "-" + strconv.Itoa(i)
		rows = append(rows, indexRow{Kind: kind, Idx: strconv.Itoa(i), Num: strconv.Itoa(i + 1), F: ix,
			Provisioned: d.Form.Provisioned(), Focus: d.Form.Focus == id+"-name"})
	}
	return rows
}

func (c *Console) renderCreate(w http.ResponseWriter, r *http.Request, status int, d createData) {
	d.BlankGSI = indexRow{Kind: "gsi", Idx: "__N__", Num: "__NUM__", F: newIndexForm(), Provisioned: d.Form.Provisioned()}
	d.BlankLSI = indexRow{Kind: "lsi", Idx: "__N__", Num: "__NUM__", F: newIndexForm(), Provisioned: d.Form.Provisioned()}
	c.render(w, r, status, "create_table", c.page(r, "Create table", "tables", d))
}

func (c *Console) createTablePage(w http.ResponseWriter, r *http.Request) {
	c.renderCreate(w, r, http.StatusOK, createData{Form: newCreateForm()})
}

// createTable handles the form: its action is create (the default: Enter
// in any field), or add-gsi, add-lsi, remove-gsi-N, remove-lsi-N, which
// show the form again with a row more or less (the page's script does
// those in place when it runs).
func (c *Console) createTable(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		c.renderCreate(w, r, formErrorStatus, createData{Form: newCreateForm(), Err: asAPIError(err)})
		return
	}
	f := parseCreateForm(r.PostForm)
	action := r.PostForm.Get("action")
	switch {
	case action == "add-gsi" || action == "add-lsi":
		if action == "add-gsi" && len(f.GSIs) < maxIndexRows {
			f.GSIs = append(f.GSIs, newIndexForm())
			f.Focus = "gsi-" + strconv.Itoa(len(f.GSIs)-1) + "-name"
		} else if action == "add-lsi" && len(f.LSIs) < maxIndexRows {
			f.LSIs = append(f.LSIs, newIndexForm())
			f.Focus = "lsi-" + strconv.Itoa(len(f.LSIs)-1) + "-name"
		}
		c.renderCreate(w, r, http.StatusOK, createData{Form: f})
		return
	case strings.HasPrefix(action, "remove-gsi-") || strings.HasPrefix(action, "remove-lsi-"):
		n, err := strconv.Atoi(action[len("remove-gsi-"):])
		if err != nil {
			n = -1
		}
		if strings.HasPrefix(action, "remove-gsi-") {
			f.GSIs = removeRow(f.GSIs, n)
		} else {
			f.LSIs = removeRow(f.LSIs, n)
		}
		c.renderCreate(w, r, http.StatusOK, createData{Form: f})
		return
	}
	req, err := f.request()
	if err != nil {
		c.renderCreate(w, r, formErrorStatus, createData{Form: f, Err: &APIError{Type: "console", Message: err.Error()}})
		return
	}
	var out struct{ TableDescription TableDescription }
	call, err := c.callShown(r.Context(), "DynamoDB_20120810.CreateTable", req, &out)
	if err != nil {
		c.renderCreate(w, r, formErrorStatus, createData{Form: f, Err: asAPIError(err), Call: call})
		return
	}
	fl := &flash{Created: f.Name, CreatedStatus: out.TableDescription.TableStatus, Calls: []Call{call}}
	fl.OK = createdWords(f.Name, fl.CreatedStatus, fl.CreatedStatus)
	if f.TTL != "" {
		c.enableTTL(r.Context(), f.Name, f.TTL, out.TableDescription.TableStatus, fl)
	}
	http.Redirect(w, r, "/console/?flash="+url.QueryEscape(c.putFlash(r, fl)), http.StatusSeeOther)
}

// createdWords is the confirmation of table name created: CreateTable
// answered status then (CREATING: DynamoDB creates a table
// asynchronously, API reference, CreateTable), and the list shows it now.
func createdWords(name, then, now string) string {
	switch {
	case now == "" || now == then && then != "CREATING":
		return fmt.Sprintf("Table %s created: CreateTable answered %s.", name, then)
	case now == then:
		return fmt.Sprintf("Table %s created: CreateTable answered CREATING; the list below shows when it is ACTIVE.", name)
	}
	return fmt.Sprintf("Table %s created: CreateTable answered %s; the table is now %s.", name, then, now)
}

// removeRow is rows without the row whose fields are numbered n.
func removeRow(rows []indexForm, n int) []indexForm {
	var out []indexForm
	for _, r := range rows {
		if r.idx != n {
			out = append(out, r)
		}
	}
	return out
}

// enableTTL turns the new table's time to live on for attribute attr,
// once the table is ACTIVE, and notes in fl what happened.
func (c *Console) enableTTL(ctx context.Context, table, attr, status string, fl *flash) {
	start, waited := time.Now(), status == "CREATING"
	if waited {
		ctx, cancel := context.WithTimeout(ctx, ttlWait)
		defer cancel()
		tick := time.NewTicker(ttlPoll)
		defer tick.Stop()
		for status == "CREATING" {
			select {
			case <-ctx.Done():
				fl.Warn = fmt.Sprintf("Time to live was not set: the table was still CREATING after %s. Set it on the table's settings page once it is ACTIVE.", ttlWait)
				return
			case <-tick.C:
			}
			var out struct{ Table TableDescription }
			if err := c.call(ctx, "DescribeTable", map[string]string{"TableName": table}, &out); err != nil {
				fl.Warn, fl.WarnErr = "Time to live was not set: DescribeTable, asked while waiting for the table to be ACTIVE, answered:", asAPIError(err)
				return
			}
			status = out.Table.TableStatus
		}
	}
	in := map[string]any{"TableName": table, "TimeToLiveSpecification": map[string]any{"Enabled": true, "AttributeName": attr}}
	call, err := c.callShown(ctx, "DynamoDB_20120810.UpdateTimeToLive", in, nil)
	fl.Calls = append(fl.Calls, call)
	if err != nil {
		fl.Warn, fl.WarnErr = "The table was created, but UpdateTimeToLive answered:", asAPIError(err)
		return
	}
	if waited {
		fl.Notes = append(fl.Notes, fmt.Sprintf("The table was CREATING: the console waited %.1fs for it to be ACTIVE, then turned time to live on with attribute %s (UpdateTimeToLive).", time.Since(start).Seconds(), attr))
		return
	}
	fl.Notes = append(fl.Notes, fmt.Sprintf("Time to live turned on with attribute %s (UpdateTimeToLive, sent after CreateTable).", attr))
}
