package console_test

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/console"
	"github.com/dynago/dynago/internal/engine"
)

// describeTable is DescribeTable's description of table, through the API
// as a client would ask.
func (e *env) describeTable(table string) console.TableDescription {
	e.t.Helper()
	m := e.api("DescribeTable", `{"TableName":"`+table+`"}`)
	b, _ := json.Marshal(m["Table"])
	var t console.TableDescription
	if err := json.Unmarshal(b, &t); err != nil {
		e.t.Fatal(err)
	}
	return t
}

// exists reports whether DescribeTable finds table.
func (e *env) exists(table string) bool {
	e.t.Helper()
	status, _ := e.srv.Invoke(e.t.Context(), "DynamoDB_20120810.DescribeTable", []byte(`{"TableName":"`+table+`"}`))
	return status == http.StatusOK
}

// form makes url.Values of alternating keys and values.
func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The form's CreateTable request, checked by how DynamoDB then describes
// the table (API reference, CreateTable:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html;
// time to live is UpdateTimeToLive's:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTimeToLive.html).
func TestTables_Create(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	tests := []struct {
		name  string
		form  url.Values
		check func(t *testing.T, d console.TableDescription)
		// sent is text the shown CreateTable request has.
		sent string
	}{
		{"pk only", form("name", "PkOnly", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST"),
			func(t *testing.T, d console.TableDescription) {
				if got := jsonOf(d.KeySchema); got != `[{"AttributeName":"id","KeyType":"HASH"}]` {
					t.Errorf("KeySchema %s", got)
				}
				if got := jsonOf(d.AttributeDefinitions); got != `[{"AttributeName":"id","AttributeType":"S"}]` {
					t.Errorf("AttributeDefinitions %s", got)
				}
				if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != "PAY_PER_REQUEST" {
					t.Errorf("BillingModeSummary %+v", d.BillingModeSummary)
				}
			}, `"BillingMode": "PAY_PER_REQUEST"`},
		{"pk and sk", form("name", "PkSk", "pk", "pk", "pk_type", "S", "sk", "ts", "sk_type", "N", "billing", "PAY_PER_REQUEST"),
			func(t *testing.T, d console.TableDescription) {
				if pk, sk := console.Keys(d.KeySchema); pk != "pk" || sk != "ts" {
					t.Errorf("keys %q %q", pk, sk)
				}
				if got := jsonOf(d.AttributeDefinitions); !strings.Contains(got, `{"AttributeName":"ts","AttributeType":"N"}`) {
					t.Errorf("AttributeDefinitions %s", got)
				}
			}, `"KeyType": "RANGE"`},
		{"provisioned", form("name", "Prov", "pk", "id", "pk_type", "N", "billing", "PROVISIONED", "rcu", "3", "wcu", "4"),
			func(t *testing.T, d console.TableDescription) {
				if p := d.ProvisionedThroughput; p == nil || p.ReadCapacityUnits != 3 || p.WriteCapacityUnits != 4 {
					t.Errorf("ProvisionedThroughput %+v", p)
				}
			}, `"ReadCapacityUnits": 3`},
		{"gsi with include, sharing the table's sort key", form("name", "WithGSI", "pk", "pk", "pk_type", "S", "sk", "sk", "sk_type", "S", "billing", "PAY_PER_REQUEST",
			"gsi-0-name", "byEmail", "gsi-0-pk", "email", "gsi-0-pk_type", "S", "gsi-0-sk", "sk", "gsi-0-sk_type", "S",
			"gsi-0-projection", "INCLUDE", "gsi-0-nonkey", "name, age"),
			func(t *testing.T, d console.TableDescription) {
				if len(d.GlobalSecondaryIndexes) != 1 {
					t.Fatalf("GSIs %+v", d.GlobalSecondaryIndexes)
				}
				g := d.GlobalSecondaryIndexes[0]
				if pk, sk := console.Keys(g.KeySchema); g.IndexName != "byEmail" || pk != "email" || sk != "sk" {
					t.Errorf("GSI %+v", g)
				}
				if g.Projection.ProjectionType != "INCLUDE" || jsonOf(g.Projection.NonKeyAttributes) != `["name","age"]` {
					t.Errorf("projection %+v", g.Projection)
				}
				if len(d.AttributeDefinitions) != 3 {
					t.Errorf("AttributeDefinitions (pk, sk once, email) %s", jsonOf(d.AttributeDefinitions))
				}
			}, `"NonKeyAttributes": [`},
		{"provisioned gsi", form("name", "ProvGSI", "pk", "pk", "pk_type", "S", "billing", "PROVISIONED", "rcu", "2", "wcu", "2",
			"gsi-3-name", "byType", "gsi-3-pk", "type", "gsi-3-pk_type", "S", "gsi-3-projection", "KEYS_ONLY", "gsi-3-rcu", "7", "gsi-3-wcu", "8"),
			func(t *testing.T, d console.TableDescription) {
				if len(d.GlobalSecondaryIndexes) != 1 || d.GlobalSecondaryIndexes[0].Projection.ProjectionType != "KEYS_ONLY" {
					t.Fatalf("GSIs %+v", d.GlobalSecondaryIndexes)
				}
			}, `"ReadCapacityUnits": 7`},
		{"lsi", form("name", "WithLSI", "pk", "user", "pk_type", "S", "sk", "id", "sk_type", "S", "billing", "PAY_PER_REQUEST",
			"lsi-0-name", "byDate", "lsi-0-sk", "date", "lsi-0-sk_type", "S", "lsi-0-projection", "ALL"),
			func(t *testing.T, d console.TableDescription) {
				if len(d.LocalSecondaryIndexes) != 1 {
					t.Fatalf("LSIs %+v", d.LocalSecondaryIndexes)
				}
				l := d.LocalSecondaryIndexes[0]
				if pk, sk := console.Keys(l.KeySchema); l.IndexName != "byDate" || pk != "user" || sk != "date" {
					t.Errorf("LSI %+v", l)
				}
			}, `"LocalSecondaryIndexes"`},
		{"stream", form("name", "Streamed", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST", "stream", "on", "stream_view", "NEW_IMAGE"),
			func(t *testing.T, d console.TableDescription) {
				if s := d.StreamSpecification; s == nil || !s.StreamEnabled || s.StreamViewType != "NEW_IMAGE" {
					t.Errorf("StreamSpecification %+v", s)
				}
			}, `"StreamViewType": "NEW_IMAGE"`},
		{"stream off sends none", form("name", "NoStream", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST", "stream_view", "NEW_IMAGE"),
			func(t *testing.T, d console.TableDescription) {
				if s := d.StreamSpecification; s != nil && s.StreamEnabled {
					t.Errorf("StreamSpecification %+v", s)
				}
			}, `"TableName": "NoStream"`},
		{"deletion protection", form("name", "Kept", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST", "protection", "on"),
			func(t *testing.T, d console.TableDescription) {
				if !d.DeletionProtectionEnabled {
					t.Error("DeletionProtectionEnabled is false")
				}
			}, `"DeletionProtectionEnabled": true`},
		{"ttl", form("name", "Expiring", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST", "ttl", "expires"),
			func(t *testing.T, d console.TableDescription) {
				ttl := e.api("DescribeTimeToLive", `{"TableName":"Expiring"}`)
				if got := jsonOf(ttl); got != `{"TimeToLiveDescription":{"AttributeName":"expires","TimeToLiveStatus":"ENABLED"}}` {
					t.Errorf("DescribeTimeToLive %s", got)
				}
			}, `UpdateTimeToLive request and response`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("action", "create")
			code, body := e.post("/console/create-table", tc.form)
			if code != http.StatusOK {
				t.Fatalf("POST: %d\n%s", code, body)
			}
			name := tc.form.Get("name")
			if !strings.Contains(body, "Table "+name+" created") || !strings.Contains(body, "CreateTable request and response") {
				t.Fatalf("no confirmation on the list:\n%s", body)
			}
			if !strings.Contains(html.UnescapeString(body), tc.sent) {
				t.Errorf("the shown request has no %s:\n%s", tc.sent, body)
			}
			tc.check(t, e.describeTable(name))
		})
	}
	// The list shows what was made: indexes with their status, the
	// stream, the time to live, the protection.
	_, body := e.get("/console/")
	for _, want := range []string{"byEmail", "GSI", "byDate", "LSI", "NEW_IMAGE", "expires", ">on<", "Provisioned", "3 / 4"} {
		if !strings.Contains(body, want) {
			t.Errorf("the list has no %q", want)
		}
	}
}

// DynamoDB's validation messages are shown in the form, which keeps
// every field (API reference, CreateTable, Errors: ValidationException;
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html:
// TableName "Length Constraints: Minimum length of 3", IndexName the
// same, ProvisionedThroughput units "Valid Range: Minimum value of 1").
func TestTables_CreateErrors(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	tests := []struct {
		name string
		form url.Values
		want string
		kept []string
	}{
		{"2-character table name", form("name", "ab", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST"),
			"Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3",
			[]string{`name="name" value="ab"`, `name="pk" value="id"`}},
		{"gsi on the table's key with another type", form("name", "Clash", "pk", "pk", "pk_type", "S", "billing", "PAY_PER_REQUEST",
			"gsi-0-name", "byPk", "gsi-0-pk", "pk", "gsi-0-pk_type", "N", "gsi-0-projection", "ALL"),
			"Duplicate AttributeName in AttributeDefinitions: pk",
			[]string{`name="gsi-0-name" value="byPk"`, `<option value="N" selected>`}},
		{"provisioned with 0 units", form("name", "Zero", "pk", "id", "pk_type", "S", "billing", "PROVISIONED", "rcu", "0", "wcu", "0", "ttl", "exp", "stream", "on"),
			"Member must have value greater than or equal to 1",
			[]string{`value="PROVISIONED" checked`, `name="rcu" value="0"`, `name="ttl" value="exp"`, `name="stream" value="on" checked`}},
		{"include without attributes", form("name", "Inc", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST",
			"gsi-0-name", "byX", "gsi-0-pk", "x", "gsi-0-pk_type", "S", "gsi-0-projection", "INCLUDE"),
			"ProjectionType is INCLUDE, but NonKeyAttributes is not specified",
			[]string{`<option value="INCLUDE" selected>`}},
		{"lsi without a table sort key", form("name", "NoSK", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST",
			"lsi-0-name", "byDate", "lsi-0-sk", "date", "lsi-0-sk_type", "S", "lsi-0-projection", "ALL"),
			"Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex",
			[]string{`name="lsi-0-name" value="byDate"`}},
		// Not DynamoDB's: a form field JSON cannot carry as a number.
		{"capacity not a number", form("name", "Words", "pk", "id", "pk_type", "S", "billing", "PROVISIONED", "rcu", "five", "wcu", "5"),
			`the table&#39;s read capacity units, &#34;five&#34;, is not a whole number`,
			[]string{`name="rcu" value="five"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.form.Set("action", "create")
			code, body := e.post("/console/create-table", tc.form)
			if code != http.StatusOK {
				t.Fatalf("status %d, want 200 (the form again)\n%s", code, body)
			}
			if !strings.Contains(body, html.EscapeString(tc.want)) && !strings.Contains(body, tc.want) {
				t.Errorf("no %q in the form:\n%s", tc.want, body)
			}
			for _, k := range tc.kept {
				if !strings.Contains(body, k) {
					t.Errorf("the form lost %s", k)
				}
			}
			if !strings.Contains(tc.want, "whole number") && !strings.Contains(body, "CreateTable request and response") {
				t.Error("the sent request is not shown")
			}
			if e.exists(tc.form.Get("name")) {
				t.Error("the table was created")
			}
		})
	}
}

// Without the page's script, "Add ... index" and "Remove" are submit
// buttons that show the form again with a row more or less.
func TestTables_IndexRowsWithoutJS(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	f := form("name", "Rows", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST",
		"gsi-4-name", "first", "gsi-4-pk", "a", "gsi-9-name", "second", "gsi-9-pk", "b")
	tests := []struct {
		action   string
		want     []string
		dontWant []string
	}{
		{"add-gsi", []string{`name="gsi-0-name" value="first"`, `name="gsi-1-name" value="second"`, `id="gsi-2-name" name="gsi-2-name" value="" autocomplete="off" spellcheck="false" autofocus`}, nil},
		{"add-lsi", []string{`id="lsi-0-name" name="lsi-0-name" value="" autocomplete="off" spellcheck="false" autofocus`}, nil},
		{"remove-gsi-4", []string{`name="gsi-0-name" value="second"`}, []string{`value="first"`}},
	}
	for _, tc := range tests {
		t.Run(tc.action, func(t *testing.T) {
			v := url.Values{}
			for k, vs := range f {
				v[k] = vs
			}
			v.Set("action", tc.action)
			code, body := e.post("/console/create-table", v)
			if code != http.StatusOK {
				t.Fatalf("status %d\n%s", code, body)
			}
			form := body[:strings.Index(body, `<template id="tpl-gsi">`)]
			for _, w := range tc.want {
				if !strings.Contains(form, w) {
					t.Errorf("no %s", w)
				}
			}
			for _, w := range tc.dontWant {
				if strings.Contains(form, w) {
					t.Errorf("still %s", w)
				}
			}
			if e.exists("Rows") {
				t.Error("the table was created")
			}
		})
	}
}

// A time to live asked for a table DynamoDB keeps CREATING for a while
// is set once it is ACTIVE (UpdateTimeToLive on a CREATING table is a
// ResourceInUseException).
func TestTables_CreateTTLWaitsForActive(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{CreateDelay: 400 * time.Millisecond})
	code, body := e.post("/console/create-table", form("name", "Slow", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST", "ttl", "exp", "action", "create"))
	if code != http.StatusOK || !strings.Contains(body, "The table was CREATING: the console waited") {
		t.Fatalf("%d\n%s", code, body)
	}
	if got := jsonOf(e.api("DescribeTimeToLive", `{"TableName":"Slow"}`)); !strings.Contains(got, `"AttributeName":"exp"`) {
		t.Errorf("DescribeTimeToLive %s", got)
	}
}

// The confirmation of a created table says what CreateTable answered
// (CREATING: DynamoDB creates a table asynchronously, API reference,
// CreateTable: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html)
// and does not contradict the list's status.
func TestTables_CreatedWords(t *testing.T) {
	tests := []struct {
		name  string
		delay time.Duration
		ttl   string
		want  string
	}{
		{"ACTIVE by the time the list is read", 0, "", "Table Tab created: CreateTable answered CREATING; the table is now ACTIVE."},
		{"still CREATING", 2 * time.Second, "", "Table Tab created: CreateTable answered CREATING; the list below shows when it is ACTIVE."},
		{"waited for ACTIVE to set the TTL", 300 * time.Millisecond, "exp", "Table Tab created: CreateTable answered CREATING; the table is now ACTIVE."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, console.Options{}, engine.Options{CreateDelay: tc.delay})
			code, body := e.post("/console/create-table", form("name", "Tab", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST", "ttl", tc.ttl, "action", "create"))
			if code != http.StatusOK || !strings.Contains(text(body), tc.want) {
				t.Errorf("%d: the confirmation is not %q:\n%s", code, tc.want, text(body))
			}
		})
	}
}

// Deleting: the typed name must match (the console's check), deletion
// protection is DynamoDB's (API reference, DeleteTable:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteTable.html,
// and UpdateTable's DeletionProtectionEnabled:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html).
func TestTables_Delete(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	e.api("CreateTable", `{"TableName":"Guarded","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST","DeletionProtectionEnabled":true}`)
	const base = "/console/table-settings/Guarded"
	steps := []struct {
		name   string
		path   string
		form   url.Values
		status int
		want   string
		exists bool
	}{
		{"wrong name", base + "/delete", form("confirm", "guarded"), http.StatusOK, "Type the table&#39;s name, Guarded, to confirm deleting it. Nothing was deleted.", true},
		{"protected", base + "/delete", form("confirm", "Guarded"), http.StatusOK, "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.", true},
		{"protection off", base + "/protection", form("enabled", "false"), http.StatusOK, "Deletion protection is off for Guarded.", true},
		{"deleted", base + "/delete", form("confirm", "Guarded"), http.StatusOK, "Table Guarded deleted", false},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, body := e.post(s.path, s.form)
			if code != s.status || !strings.Contains(body, s.want) {
				t.Fatalf("%d (want %d), want %q:\n%s", code, s.status, s.want, body)
			}
			if s.name == "protected" && !strings.Contains(body, "Turn deletion protection off") {
				t.Error("turning protection off is not offered")
			}
			if got := e.exists("Guarded"); got != s.exists {
				t.Errorf("exists %v, want %v", got, s.exists)
			}
		})
	}
}

// Time to live from the settings page, and the list's TTL column.
func TestTables_SettingsTTL(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	e.api("CreateTable", `{"TableName":"Sessions","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`)
	steps := []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		// DynamoDB refuses an empty attribute name (UpdateTimeToLive,
		// TimeToLiveSpecification.AttributeName: minimum length 1,
		// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TimeToLiveSpecification.html):
		// the console knows it is empty and says so itself.
		{"empty attribute, on", form("attribute", " ", "enabled", "true"), http.StatusOK, "Name the TTL attribute: UpdateTimeToLive needs the attribute&#39;s name to turn time to live on. Nothing was sent."},
		{"on", form("attribute", "expiresAt", "enabled", "true"), http.StatusOK, "Time to live turned on for Sessions with attribute expiresAt."},
		{"empty attribute, off", form("attribute", "", "enabled", "false"), http.StatusOK, "Name the TTL attribute: UpdateTimeToLive needs the attribute&#39;s name to turn time to live off."},
		// Other refusals are DynamoDB's, as it words them.
		{"another attribute, off", form("attribute", "other", "enabled", "false"), http.StatusOK, "UpdateTimeToLive answered:"},
		{"off", form("attribute", "expiresAt", "enabled", "false"), http.StatusOK, "Time to live turned off for Sessions."},
	}
	// The buttons offered are those of DescribeTimeToLive's status.
	onButton, offButton := ">Turn time to live on</button>", ">Turn time to live off</button>"
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, body := e.post("/console/table-settings/Sessions/ttl", s.form)
			if code != s.status || !strings.Contains(body, s.want) {
				t.Fatalf("%d, want %q:\n%s", code, s.want, body)
			}
			st := jsonOf(e.api("DescribeTimeToLive", `{"TableName":"Sessions"}`))
			enabled := strings.Contains(st, `"ENABLED"`)
			if strings.Contains(body, onButton) == enabled || strings.Contains(body, offButton) != enabled {
				t.Errorf("TTL %s: the page offers on %v, off %v", st, strings.Contains(body, onButton), strings.Contains(body, offButton))
			}
		})
	}
	e.post("/console/table-settings/Sessions/ttl", form("attribute", "expiresAt", "enabled", "true"))
	if _, body := e.get("/console/"); !strings.Contains(body, "expiresAt") || !strings.Contains(body, "ENABLED") {
		t.Errorf("the list has no TTL:\n%s", body)
	}
	if code, body := e.get("/console/table-settings/Nope"); code != http.StatusNotFound || !strings.Contains(body, "ResourceNotFoundException") {
		t.Errorf("a missing table's settings: %d\n%s", code, body)
	}
}

// Every POST of the tables pages needs the session's CSRF token.
func TestTables_CSRF(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{})
	e.api("CreateTable", `{"TableName":"Target","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`)
	tests := []struct {
		path string
		form url.Values
	}{
		{"/console/create-table", form("name", "Forged", "pk", "id", "pk_type", "S", "billing", "PAY_PER_REQUEST", "action", "create")},
		{"/console/table-settings/Target/delete", form("confirm", "Target")},
		{"/console/table-settings/Target/protection", form("enabled", "true")},
		{"/console/table-settings/Target/ttl", form("attribute", "x", "enabled", "true")},
	}
	for _, tc := range tests {
		for _, tok := range []string{"", "forged"} {
			t.Run(tc.path+" "+tok, func(t *testing.T) {
				tc.form.Set("csrf", tok)
				if code, _ := e.post(tc.path, tc.form); code != http.StatusForbidden {
					t.Errorf("status %d, want 403", code)
				}
			})
		}
	}
	if e.exists("Forged") || !e.exists("Target") {
		t.Error("a forged POST changed tables")
	}
	d := e.describeTable("Target")
	if d.DeletionProtectionEnabled {
		t.Error("a forged POST turned protection on")
	}
	if got := jsonOf(e.api("DescribeTimeToLive", `{"TableName":"Target"}`)); strings.Contains(got, "ENABLED") {
		t.Errorf("a forged POST set TTL: %s", got)
	}
}

// While a table is CREATING the list asks htmx to refresh it every
// second (the "list" fragment alone); once ACTIVE it stops.
func TestTables_ListRefreshesWhileCreating(t *testing.T) {
	e := newEnv(t, console.Options{}, engine.Options{CreateDelay: 300 * time.Millisecond})
	e.api("CreateTable", `{"TableName":"Growing","AttributeDefinitions":[{"AttributeName":"id","AttributeType":"S"}],"KeySchema":[{"AttributeName":"id","KeyType":"HASH"}],"BillingMode":"PAY_PER_REQUEST"}`)
	fragment := func() string {
		req, _ := http.NewRequest("GET", e.ts.URL+"/console/?list=1", nil)
		req.Header.Set("HX-Request", "true")
		res, err := e.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var b strings.Builder
		if _, err := io.Copy(&b, res.Body); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	const poll = `hx-trigger="every 1s"`
	tests := []struct {
		name  string
		wait  time.Duration
		want  string
		polls bool
	}{
		{"creating", 0, "CREATING", true},
		{"active", 400 * time.Millisecond, "ACTIVE", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			time.Sleep(tc.wait)
			body := fragment()
			if strings.Contains(body, "<html") || !strings.Contains(body, `id="tables-list"`) || !strings.Contains(body, tc.want) {
				t.Fatalf("not the list fragment with %s:\n%s", tc.want, body)
			}
			if got := strings.Contains(body, poll); got != tc.polls {
				t.Errorf("polls %v, want %v", got, tc.polls)
			}
		})
	}
}
