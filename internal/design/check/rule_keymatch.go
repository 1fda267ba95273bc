package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// KeyMatchRule finds key conditions that look as if they match an
// entity's keys but never do: a begins_with on a key whose values start
// with a variable (<OrderDate>#ORDER#...), a key bound from an attribute
// the entity does not build it from (USER_EMAIL = <Email> where the item
// holds <UserId> there), and range bounds that leave out the leading
// part of the key (STATUS#<Status>#<CreatedAt> ranged on dates alone).
// The key-condition rule's template matching lets these through: a
// variable stands for any text there.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.KeyConditionExpressions.html
// (begins_with and between compare the sort key's value from its first
// byte; strings sort by UTF-8 bytes), and seed 004's use case 3 ("Both
// bounds must use the same status prefix").
var KeyMatchRule = &Rule{
	Name: "key-match",
	Doc: `A key condition compares the whole stored value from its first byte. begins_with
ORDER# never matches a sort key that starts with a date (<OrderDate>#ORDER#...);
a key bound with <Email> never finds an item that builds that key from
<UserId>; and between bounds that leave out the key's leading part (dates
alone against STATUS#<Status>#<CreatedAt>) sort outside every value of it.
Each is reported on the pattern's key with what the entity builds and the
fix.`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, r := range d.Reads() {
			for _, name := range r.Pattern.Returns {
				e := d.Entity(name)
				if e == nil || d.MatchEntity(r, e) == design.Never {
					continue // the key-condition rule reports it
				}
				for _, c := range slices.Concat(r.PKConds, r.SKConds) {
					t, _, _, ok := e.ValueOf(c.Attr)
					if !ok || c.Op != "=" && design.HasAttr(r.PK, c.Attr) {
						continue // a partition key range: the key-condition rule's
					}
					if msg := keyMismatch(e, c, t); msg != "" {
						pass.Reportf(r.Pattern.KeyPos, design.Error, "pattern %s: %s", r.Pattern.ID, msg)
					}
				}
			}
		}
	},
}

// keyMismatch explains why condition c never matches e's key template
// t, or returns "".
func keyMismatch(e *design.Entity, c design.Condition, t design.Template) string {
	// A variable of the entity's that its key is not built from (range
	// bounds are named for what they bound, and compared by skippedLead).
	for _, v := range c.Values {
		if c.Op != "=" && c.Op != "begins_with" {
			break
		}
		for _, name := range v.Vars() {
			if name != "shard" && e.Attribute(name) != nil && !t.Uses(name) {
				with := "the value it holds"
				if vs := t.Vars(); len(vs) > 0 {
					with = "<" + strings.Join(vs, ">, <") + ">"
				}
				return fmt.Sprintf("%s never finds a %s: %s builds %s = %s, not from %s, so no %s item holds its %s there; build %s from <%s>, or query with %s",
					c, e.Name, e.Name, c.Attr, t, name, e.Name, name, c.Attr, name, with)
			}
		}
	}
	if c.Op == "=" && c.Values[0].Shape() == t.Shape() {
		// A variable that is none of the entity's attributes where its
		// key has another (USER_EMAIL = <Email> on a key built from
		// <UserId>, for an entity with no Email); a misspelling of the
		// key's own is the names rule's.
		for i, p := range c.Values[0].Parts {
			q := t.Parts[i]
			if p.Var == "" || p.Var == q.Var || p.Var == "shard" || q.Var == "shard" || e.Attribute(p.Var) != nil || closest(p.Var, []string{q.Var}) != "" {
				continue
			}
			return fmt.Sprintf("%s never finds a %s: %s builds %s = %s from <%s>, and %s has no attribute %s; write <%s> in the key, or build %s from an attribute %s",
				c, e.Name, e.Name, c.Attr, t, q.Var, e.Name, p.Var, q.Var, c.Attr, p.Var)
		}
	}
	switch c.Op {
	case "begins_with":
		if lead := leadingVar(e, t, c.Values[0].Prefix()); lead != "" {
			return fmt.Sprintf("%s never matches %s: its %s, %s, starts with the value of <%s>, not with %s; put the literal first (%s) or query another key",
				c, e.Name, c.Attr, t, lead, c.Values[0].Prefix(), literalFirst(t))
		}
	case "between", "<", "<=", ">", ">=":
		skipped := ""
		bounds := make([]string, len(c.Values))
		for i, b := range c.Values {
			s, fix := skippedLead(b, t)
			skipped = cmp.Or(skipped, s)
			bounds[i] = cmp.Or(fix, b.Text)
			if s != "" && fix == "" {
				bounds = nil
				break
			}
		}
		if skipped == "" {
			break
		}
		msg := fmt.Sprintf("%s leaves out %s at the front of %s's %s, %s: the key sorts by that text first, so bounds without it sort outside every %s item", c, skipped, e.Name, c.Attr, t, e.Name)
		if bounds == nil {
			return msg + "; start the bounds with what the key starts with, or key an index by what the range is on"
		}
		fixed := design.Condition{Attr: c.Attr, Op: c.Op}
		for _, b := range bounds {
			fixed.Values = append(fixed.Values, design.Template{Text: b})
		}
		return msg + fmt.Sprintf("; give the bounds the leading part (%s), or key an index by what the range is on", fixed)
	}
	return ""
}

// leadingVar returns the variable t starts with when no value of it can
// start with the literal prefix: a time or number (whose values start
// with a digit) against a prefix that does not, or an attribute whose
// declared values none of which fit; "" otherwise (a free-text variable
// may start with anything).
func leadingVar(e *design.Entity, t design.Template, prefix string) string {
	if prefix == "" || len(t.Parts) == 0 || t.Parts[0].Var == "" {
		return ""
	}
	v := t.Parts[0].Var
	if v == "shard" {
		if prefix[0] >= '0' && prefix[0] <= '9' {
			return ""
		}
		return v
	}
	a := e.Attribute(v)
	switch {
	case a == nil:
		return ""
	case len(a.Values) > 0:
		for _, val := range a.Values {
			if strings.HasPrefix(val, prefix) || strings.HasPrefix(prefix, val) || t.Parts[0].Case != "" {
				return ""
			}
		}
		return v
	case a.Type == "timestamp" || a.Type == "epoch" || a.Type == "N" || looksLikeTime(v):
		if c := prefix[0]; c >= '0' && c <= '9' || c == '-' {
			return ""
		}
		return v
	}
	return ""
}

// literalFirst suggests t with its first literal moved to the front:
// <OrderDate>#ORDER#<OrderId> becomes ORDER#<OrderDate>#<OrderId>.
func literalFirst(t design.Template) string {
	for i, p := range t.Parts {
		if p.Var != "" || i == 0 {
			continue
		}
		lit := strings.Trim(p.Literal, "#")
		if lit == "" {
			continue
		}
		var b strings.Builder
		b.WriteString(lit + "#")
		for j, q := range t.Parts {
			switch {
			case j == i:
				b.WriteString("#")
			case q.Var != "":
				b.WriteString("<" + q.Var + ">")
			default:
				b.WriteString(q.Literal)
			}
		}
		return strings.ReplaceAll(strings.TrimSuffix(b.String(), "#"), "##", "#")
	}
	return "a literal prefix, then the variables"
}

// skippedLead compares a range bound b with the key template t part by
// part and returns the leading text of t that b leaves out ("" when it
// keeps t's lead), with the bound written with it when b's variable
// names which of t's it stands for (<FromCreatedAt> for <CreatedAt>).
func skippedLead(b, t design.Template) (skipped, fix string) {
	for i, p := range b.Parts {
		if i >= len(t.Parts) {
			return "", ""
		}
		q := t.Parts[i]
		switch {
		case p.Var == "" && q.Var == "":
			if p.Literal != q.Literal && !(i == len(b.Parts)-1 && strings.HasPrefix(q.Literal, p.Literal)) {
				return "", "" // a different literal: the key-condition rule's matching settles it
			}
			continue
		case p.Var == "" && q.Var != "":
			return "", "" // a literal where t has a variable: any value may hold it
		case p.Var != "" && q.Var != "" && p.Var == q.Var:
			continue
		}
		// b has a variable where t has a literal, or a variable that
		// names one of t's later variables.
		j := -1
		for k := i; k < len(t.Parts); k++ {
			if v := t.Parts[k].Var; v != "" && v != p.Var && strings.HasSuffix(strings.ToLower(p.Var), strings.ToLower(v)) {
				j = k
				break
			}
		}
		switch {
		case j > i:
			lead := partsText(t.Parts[i:j])
			return lead, partsText(b.Parts[:i]) + lead + partsText(b.Parts[i:])
		case q.Var == "":
			return q.Literal, ""
		}
		return "", "" // a bound variable in a variable's place
	}
	return "", ""
}

// partsText writes template parts in the design file's notation.
func partsText(ps []design.Part) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Var == "" {
			b.WriteString(p.Literal)
			continue
		}
		b.WriteString("<" + p.Var)
		switch {
		case p.Width > 0:
			fmt.Fprintf(&b, ":0%dd", p.Width)
		case p.Case != "":
			b.WriteString(":" + p.Case)
		}
		b.WriteString(">")
	}
	return b.String()
}
