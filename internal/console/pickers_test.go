package console_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/console"
	"github.com/dynago/dynago/internal/engine"
)

// TestPickers_KeyboardSafe: the capacity page's table and window pickers
// and the item-collection view's key space apply with their Show button
// (or Enter, in the page's script), never on change: a closed select's
// arrow keys fire change on every step, so a submit on change reloaded
// the page at the first ArrowDown and dropped the focus to <body> (WCAG
// 2.2 success criterion 3.2.2 On Input; technique G80, a submit button
// to start a change of context:
// https://www.w3.org/WAI/WCAG22/Techniques/general/G80).
func TestPickers_KeyboardSafe(t *testing.T) {
	capEnv := newEnv(t, console.Options{}, engine.Options{})
	capEnv.api("CreateTable", ordersTable)
	des := designEnv(t, ecommerce)
	onChange := regexp.MustCompile(`addEventListener\(\s*'change'[^;]*requestSubmit`)
	for _, tc := range []struct {
		name, page, form, script string
	}{
		{"capacity", "/console/capacity", `<form class="row capacity-pick"`, "/console/static/capacity.js"},
		{"design collections", "/console/design/1/collections", `<form class="row design-pick"`, "/console/static/design.js"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := capEnv
			if tc.name != "capacity" {
				e = des
			}
			status, body := e.get(tc.page)
			if status != 200 {
				t.Fatalf("%s: %d", tc.page, status)
			}
			i := strings.Index(body, tc.form)
			if i < 0 {
				t.Fatalf("no picker form %s", tc.form)
			}
			form := body[i : i+strings.Index(body[i:], "</form>")]
			if !strings.Contains(form, `<button type="submit">Show</button>`) {
				t.Errorf("the picker has no Show button:\n%s", form)
			}
			if strings.Contains(form, "autosubmit") {
				t.Errorf("a select submits on change:\n%s", form)
			}
			status, js := e.get(tc.script)
			if status != 200 || onChange.MatchString(js) || !strings.Contains(js, "e.key === 'Enter'") {
				t.Errorf("%s: %d; submits on change %v, or not on Enter", tc.script, status, onChange.MatchString(js))
			}
		})
	}
}
