package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// A table's settings (/console/table-settings/NAME): its deletion
// protection (UpdateTable DeletionProtectionEnabled), its time to live
// (UpdateTimeToLive: the form offers what applies to its
// DescribeTimeToLive status) and deleting it (DeleteTable). Deleting asks for the
// table's name to be typed first, as DynamoDB's own console does; the
// console refuses a name that does not match without calling DynamoDB.
// Deletion protection is DynamoDB's to honour: DeleteTable is sent either
// way and DynamoDB's ValidationException is shown as it is, with turning
// the protection off offered as its own action.

// settingsData is the settings page's data.
type settingsData struct {
	Name string
	// Header is the table's header and tabs (table_header).
	Header itemsHeader
	// Table is the table's summary; Err DescribeTable's error.
	Table tableSummary
	Found bool
	Err   *APIError
	Flash *flash
	// Confirm is the name typed in the delete form; ConfirmErr the
	// console's complaint about it; DeleteErr DynamoDB's answer to
	// DeleteTable and DeleteCall the call.
	Confirm    string
	ConfirmErr string
	DeleteErr  *APIError
	DeleteCall Call
	// FocusDelete focuses the confirmation field (?delete=1).
	FocusDelete bool
	// TTLAttr is the TTL form's attribute; TTLAttrErr the console's
	// complaint about it (empty).
	TTLAttr, TTLAttrErr string
}

// TTLOn and TTLOff say which of the TTL form's buttons apply to the
// table's DescribeTimeToLive TimeToLiveStatus: ENABLED and ENABLING
// offer off, DISABLED and DISABLING on (a change while one settles is
// refused by DynamoDB either way, with its own message), a status not
// known both.
func (d settingsData) TTLOn() bool {
	st := d.Table.TTL.TimeToLiveStatus
	return st != "ENABLED" && st != "ENABLING"
}

// TTLOff: see TTLOn.
func (d settingsData) TTLOff() bool {
	switch d.Table.TTL.TimeToLiveStatus {
	case "DISABLED", "DISABLING":
		return false
	}
	return true
}

// settingsURL is table's settings page.
func settingsURL(table string) string {
	return "/console/table-settings/" + url.PathEscape(table)
}

func (c *Console) renderSettings(w http.ResponseWriter, r *http.Request, status int, d settingsData) {
	t, err := c.describe(r, d.Name)
	switch {
	case err == nil:
		d.Table, d.Found = c.summaryOf(r, t), true
		d.Header = newItemsHeader(t, "settings")
	default:
		d.Err = asAPIError(err)
		d.Header = itemsHeader{Name: d.Name, Tab: "settings", Missing: d.Err.Type == "ResourceNotFoundException"}
		if status == http.StatusOK && d.Err.Type == "ResourceNotFoundException" {
			status = http.StatusNotFound
		}
	}
	d.Header.Title = d.Name + ": settings"
	if d.TTLAttr == "" {
		d.TTLAttr = d.Table.TTL.AttributeName
	}
	c.render(w, r, status, "tables_settings", c.page(r, d.Name+" settings", "tables", d))
}

// summaryOf is summarize(t) with its time to live described. DynamoDB
// answers DescribeTimeToLive on a CREATING table with a
// ValidationException: the TTL is shown once the table is ACTIVE.
func (c *Console) summaryOf(r *http.Request, t TableDescription) tableSummary {
	s := summarize(t)
	if t.TableStatus != "CREATING" {
		ttl, err := c.describeTTL(r, t.TableName)
		s.TTL, s.TTLErr = ttl, asAPIError(err)
	}
	return s
}

func (c *Console) settingsPage(w http.ResponseWriter, r *http.Request) {
	d := settingsData{Name: r.PathValue("name"), FocusDelete: r.URL.Query().Get("delete") != ""}
	d.Flash = c.takeFlash(r)
	c.renderSettings(w, r, http.StatusOK, d)
}

// deleteTable sends DeleteTable once the typed name matches.
func (c *Console) deleteTable(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	d := settingsData{Name: name, Confirm: strings.TrimSpace(r.PostFormValue("confirm")), FocusDelete: true}
	if d.Confirm != name {
		d.ConfirmErr = fmt.Sprintf("Type the table's name, %s, to confirm deleting it. Nothing was deleted.", name)
		c.renderSettings(w, r, formErrorStatus, d)
		return
	}
	var out struct{ TableDescription TableDescription }
	call, err := c.callShown(r.Context(), "DynamoDB_20120810.DeleteTable", map[string]string{"TableName": name}, &out)
	if err != nil {
		d.DeleteErr, d.DeleteCall = asAPIError(err), call
		c.renderSettings(w, r, formErrorStatus, d)
		return
	}
	fl := &flash{OK: fmt.Sprintf("Table %s deleted (%s).", name, out.TableDescription.TableStatus), Calls: []Call{call}}
	http.Redirect(w, r, "/console/?flash="+url.QueryEscape(c.putFlash(r, fl)), http.StatusSeeOther)
}

// setProtection sends UpdateTable DeletionProtectionEnabled=enabled.
func (c *Console) setProtection(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	on := r.PostFormValue("enabled") == "true"
	in := map[string]any{"TableName": name, "DeletionProtectionEnabled": on}
	call, err := c.callShown(r.Context(), "DynamoDB_20120810.UpdateTable", in, nil)
	if err != nil {
		c.renderSettings(w, r, formErrorStatus, settingsData{Name: name,
			Flash: &flash{Warn: "UpdateTable answered:", WarnErr: asAPIError(err), Calls: []Call{call}}})
		return
	}
	word := "off"
	if on {
		word = "on"
	}
	fl := &flash{OK: fmt.Sprintf("Deletion protection is %s for %s.", word, name), Calls: []Call{call}}
	// With protection off, the delete form's confirmation field has the
	// focus (autofocus, which a URL #fragment would cancel).
	next := settingsURL(name) + "?flash=" + url.QueryEscape(c.putFlash(r, fl))
	if !on {
		next += "&delete=1"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// setTTL sends UpdateTimeToLive: enabled=true with the attribute, or
// false (DynamoDB wants the attribute then too: the one in use).
func (c *Console) setTTL(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	attr := strings.TrimSpace(r.PostFormValue("attribute"))
	on := r.PostFormValue("enabled") == "true"
	if attr == "" {
		// DynamoDB's answer would be a ValidationException about
		// timeToLiveSpecification.attributeName's length: the console
		// knows the field is empty, and says so itself.
		word := "on"
		if !on {
			word = "off"
		}
		c.renderSettings(w, r, formErrorStatus, settingsData{Name: name, TTLAttrErr: "Name the TTL attribute: UpdateTimeToLive needs the attribute's name to turn time to live " + word + ". Nothing was sent."})
		return
	}
	in := map[string]any{"TableName": name, "TimeToLiveSpecification": map[string]any{"Enabled": on, "AttributeName": attr}}
	call, err := c.callShown(r.Context(), "DynamoDB_20120810.UpdateTimeToLive", in, nil)
	if err != nil {
		c.renderSettings(w, r, formErrorStatus, settingsData{Name: name, TTLAttr: attr,
			Flash: &flash{Warn: "UpdateTimeToLive answered:", WarnErr: asAPIError(err), Calls: []Call{call}}})
		return
	}
	msg := fmt.Sprintf("Time to live turned on for %s with attribute %s.", name, attr)
	if !on {
		msg = fmt.Sprintf("Time to live turned off for %s.", name)
	}
	fl := &flash{OK: msg, Calls: []Call{call}}
	http.Redirect(w, r, settingsURL(name)+"?flash="+url.QueryEscape(c.putFlash(r, fl)), http.StatusSeeOther)
}
