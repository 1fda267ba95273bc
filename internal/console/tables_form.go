package console

// The create-table form's select fields.

// selectField is a <select>: its name (its id too), the value chosen and
// the choices.
type selectField struct {
	Name, Value, Class string
	Values             []string
	// Texts, when set, are the choices' texts (else the values).
	Texts []string
}

// ID is the select's id, for its <label for>: a <label> around a
// select would name it with its options' texts too.
func (s selectField) ID() string { return s.Name }

// selectOption is one <option>.
type selectOption struct {
	Value, Text string
	Selected    bool
}

// Options returns the select's options, the chosen one selected.
func (s selectField) Options() []selectOption {
	var out []selectOption
	for i, v := range s.Values {
		o := selectOption{Value: v, Text: v, Selected: v == s.Value}
		if i < len(s.Texts) {
			o.Text = s.Texts[i]
		}
		out = append(out, o)
	}
	return out
}

var (
	keyTypes     = []string{"S", "N", "B"}
	keyTypeTexts = []string{"S (string)", "N (number)", "B (binary)"}
	projections  = []string{"ALL", "KEYS_ONLY", "INCLUDE"}
	streamViews  = []string{"NEW_AND_OLD_IMAGES", "NEW_IMAGE", "OLD_IMAGE", "KEYS_ONLY"}
)

func keyTypeSelect(name, v string) selectField {
	return selectField{Name: name, Value: v, Values: keyTypes, Texts: keyTypeTexts}
}

// PKTypeSelect is the partition key type's select.
func (f createForm) PKTypeSelect() selectField { return keyTypeSelect("pk_type", f.PKType) }

// SKTypeSelect is the sort key type's select.
func (f createForm) SKTypeSelect() selectField { return keyTypeSelect("sk_type", f.SKType) }

// StreamViewSelect is the stream view type's select.
func (f createForm) StreamViewSelect() selectField {
	return selectField{Name: "stream_view", Value: f.StreamView, Values: streamViews}
}

func (r indexRow) prefix() string { return r.Kind + "-" + r.Idx + "-" }

// PKTypeSelect is the index's partition key type's select.
func (r indexRow) PKTypeSelect() selectField { return keyTypeSelect(r.prefix()+"pk_type", r.F.PKType) }

// SKTypeSelect is the index's sort key type's select.
func (r indexRow) SKTypeSelect() selectField { return keyTypeSelect(r.prefix()+"sk_type", r.F.SKType) }

// ProjectionSelect is the index's projection type's select.
func (r indexRow) ProjectionSelect() selectField {
	return selectField{Name: r.prefix() + "projection", Value: r.F.Projection, Values: projections, Class: "projection"}
}
