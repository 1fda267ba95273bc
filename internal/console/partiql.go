package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The PartiQL editor (/console/partiql): one statement at a time, run
// with ExecuteStatement as a client sends it (ReturnConsumedCapacity
// TOTAL), its items as a table, "next page" with the NextToken, the
// consumed capacity, the request and response folded, and DynamoDB's
// error as DynamoDB words it. A plain form POST renders the whole page;
// htmx swaps only the result. The statement history of the browser
// session is static/partiql.js's (sessionStorage).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html

func (c *Console) partiqlRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /console/partiql", c.partiqlPage)
	m.HandleFunc("POST /console/partiql", c.partiqlRun)
}

// partiqlForm is the editor's input, kept as the user typed it.
type partiqlForm struct {
	Statement string
	// Parameters is a JSON array; ParamMode says how its elements are
	// read: "auto" (an object with one member named after a DynamoDB
	// type is DynamoDB JSON, anything else plain JSON), "ddb" or
	// "plain".
	Parameters string
	ParamMode  string
	// Limit is ExecuteStatement's Limit ("" : none).
	Limit          string
	ConsistentRead bool
	// NextToken continues the statement from an earlier page.
	NextToken string
}

// partiqlResult is what one run shows.
type partiqlResult struct {
	// Ran says the statement was sent to DynamoDB.
	Ran bool
	// Problem is the console's own complaint about the form (an empty
	// statement, parameters that are not a JSON array): nothing was
	// sent.
	Problem string
	Err     *APIError
	Call    Call
	Table   ItemTable
	Count   int
	// NextToken is the response's, for the next page.
	NextToken string
	// Page is the result page's number (1 for a run without NextToken).
	Page     int
	Consumed *consumedCapacity
}

// consumedCapacity is ReturnConsumedCapacity TOTAL's answer.
type consumedCapacity struct {
	TableName     string
	CapacityUnits float64
}

type partiqlData struct {
	Form   partiqlForm
	Result partiqlResult
	// Tables are the table names, for the "SELECT from" links.
	Tables []string
}

func (c *Console) partiqlPage(w http.ResponseWriter, r *http.Request) {
	d := partiqlData{Form: partiqlForm{ParamMode: "auto"}}
	if t := r.URL.Query().Get("table"); t != "" {
		d.Form.Statement = `SELECT * FROM "` + t + `"`
	}
	d.Tables, _ = c.listTables(r)
	c.render(w, r, http.StatusOK, "partiql", c.page(r, "PartiQL", "partiql", d))
}

func (c *Console) partiqlRun(w http.ResponseWriter, r *http.Request) {
	f := partiqlForm{
		Statement:      r.PostFormValue("statement"),
		Parameters:     r.PostFormValue("parameters"),
		ParamMode:      r.PostFormValue("parammode"),
		Limit:          strings.TrimSpace(r.PostFormValue("limit")),
		ConsistentRead: r.PostFormValue("consistent") != "",
		NextToken:      r.PostFormValue("nexttoken"),
	}
	if f.ParamMode == "" {
		f.ParamMode = "auto"
	}
	page, _ := strconv.Atoi(r.PostFormValue("page"))
	d := partiqlData{Form: f, Result: c.runStatement(r, f, max(page, 1))}
	status := http.StatusOK
	if d.Result.Err != nil && r.Header.Get("HX-Request") == "" {
		// htmx swaps only 2xx answers; a plain POST gets DynamoDB's status.
		status = d.Result.Err.Status
	}
	if r.Header.Get("HX-Request") != "" {
		c.renderFragment(w, r, status, "partiql", "partiql-result", c.page(r, "PartiQL", "partiql", d))
		return
	}
	d.Tables, _ = c.listTables(r)
	c.render(w, r, status, "partiql", c.page(r, "PartiQL", "partiql", d))
}

// runStatement sends f's statement with ExecuteStatement.
func (c *Console) runStatement(r *http.Request, f partiqlForm, page int) partiqlResult {
	res := partiqlResult{Page: page}
	if strings.TrimSpace(f.Statement) == "" {
		res.Problem = "Write a PartiQL statement to run, for example SELECT * FROM \"Movies\" WHERE \"year\" = 1985."
		return res
	}
	req := map[string]any{"Statement": f.Statement, "ReturnConsumedCapacity": "TOTAL"}
	params, err := statementParameters(f.Parameters, f.ParamMode)
	if err != nil {
		res.Problem = sentence(err)
		return res
	}
	if params != nil {
		req["Parameters"] = params
	}
	if f.Limit != "" {
		n, err := strconv.ParseInt(f.Limit, 10, 64)
		if err != nil {
			res.Problem = fmt.Sprintf("Limit: %q is not a whole number.", f.Limit)
			return res
		}
		req["Limit"] = n // DynamoDB checks its range
	}
	if f.ConsistentRead {
		req["ConsistentRead"] = true
	}
	if f.NextToken != "" {
		req["NextToken"] = f.NextToken
	}
	var out struct {
		Items            []Item
		NextToken        string
		ConsumedCapacity *consumedCapacity
	}
	res.Ran = true
	call, err := c.callShown(r.Context(), "DynamoDB_20120810.ExecuteStatement", req, &out)
	res.Call = call
	if err != nil {
		res.Err = asAPIError(err)
		return res
	}
	res.Count, res.NextToken, res.Consumed = len(out.Items), out.NextToken, out.ConsumedCapacity
	var pk, sk string
	if out.ConsumedCapacity != nil && out.ConsumedCapacity.TableName != "" && len(out.Items) > 0 {
		if t, err := c.describe(r, out.ConsumedCapacity.TableName); err == nil {
			pk, sk = Keys(t.KeySchema)
		}
	}
	res.Table = NewItemTable(out.Items, pk, sk)
	res.Table.Empty = "The statement returned no items."
	return res
}

// ddbTypes are the DynamoDB JSON type names of an AttributeValue.
var ddbTypes = map[string]bool{"S": true, "N": true, "B": true, "BOOL": true, "NULL": true,
	"SS": true, "NS": true, "BS": true, "L": true, "M": true}

// statementParameters reads the parameters field: "" (or only space) is
// none; otherwise a JSON array whose elements are DynamoDB JSON
// AttributeValues (mode "ddb", sent as written, so DynamoDB judges
// them), plain JSON values (mode "plain", converted as ItemFromPlain
// converts an attribute), or either (mode "auto": an object with one
// member named after a type is DynamoDB JSON).
func statementParameters(text, mode string) ([]json.RawMessage, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var whole json.RawMessage
	if err := d.Decode(&whole); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s: the JSON is cut short", paramsArray)
		}
		return nil, fmt.Errorf("%s: %v", paramsArray, itemsJSONError(text, err))
	}
	var raw []json.RawMessage
	if !bytes.HasPrefix(bytes.TrimSpace(whole), []byte("[")) || json.Unmarshal(whole, &raw) != nil {
		return nil, fmt.Errorf("%s: put [ and ] around the values", paramsArray)
	}
	if jsonEnd(d) != nil {
		return nil, fmt.Errorf("%s: text follows its closing ]", paramsOne)
	}
	out := make([]json.RawMessage, len(raw))
	for i, e := range raw {
		if mode == "ddb" || (mode != "plain" && looksTyped(e)) {
			out[i] = e
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(e))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("parameter %d: %v", i+1, err)
		}
		if plainDepth(v) > maxPlainDepth {
			return nil, fmt.Errorf("parameter %d is nested more than %d levels deep (DynamoDB allows 32)", i+1, maxPlainDepth)
		}
		out[i] = avOfPlain(v)
	}
	return out, nil
}

// paramsArray and paramsOne begin the parameters field's complaints
// (shown as sentences: sentence capitalizes them).
const (
	paramsArray = `parameters must be a JSON array, such as [1985, "Brazil"]`
	paramsOne   = `parameters must be one JSON array, such as [1985, "Brazil"]`
)

// sentence is err's text with its first letter upper-case, for the page.
func sentence(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// maxPlainDepth bounds the nesting of a plain JSON parameter the console
// converts to DynamoDB JSON (each level a {"L": [...]} or {"M": {...}}
// that avOfPlain marshals again): past DynamoDB's 32, so that DynamoDB
// words the error for any depth a statement could mean, but far below
// encoding/json's 10,000, where the conversion would fail.
const maxPlainDepth = 64

// plainDepth is how deeply v (a decoded JSON value) nests arrays and
// objects: 0 for a scalar.
func plainDepth(v any) int {
	d := 0
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			d = max(d, plainDepth(e))
		}
	case map[string]any:
		for _, e := range x {
			d = max(d, plainDepth(e))
		}
	default:
		return 0
	}
	return d + 1
}

// looksTyped says e is an object with exactly one member, named after a
// DynamoDB type ({"S": "x"}).
func looksTyped(e json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(e, &m) != nil || len(m) != 1 {
		return false
	}
	for k := range m {
		return ddbTypes[k]
	}
	return false
}
