package server_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestScenarios replays testdata/scenarios/*.txt: sequences of requests
// with the responses DynamoDB gives. Each file runs against a fresh server.
//
// Format, one step per block:
//
//	# comment lines anywhere
//	> Operation
//	{ request JSON, possibly over several lines }
//	< status
//	{ expected JSON: a subset of the response; "<absent>" as a value
//	  means the member must be missing }
//
// A blank line ends a JSON block.
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/scenarios/*.txt")
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) {
			ts := newServer(t)
			for _, st := range parseScenario(t, f) {
				status, _, body := call(t, ts, st.op, st.req)
				var got any
				if err := json.Unmarshal(body, &got); err != nil {
					t.Fatalf("%s:%d %s: response is not JSON: %s", f, st.line, st.op, body)
				}
				if status != st.status {
					t.Errorf("%s:%d %s: status %d, want %d; body %s", f, st.line, st.op, status, st.status, body)
					continue
				}
				if st.want == "" {
					continue
				}
				var want any
				if err := json.Unmarshal([]byte(st.want), &want); err != nil {
					t.Fatalf("%s:%d: bad expected JSON: %v", f, st.line, err)
				}
				if msg := subset("", want, got); msg != "" {
					t.Errorf("%s:%d %s: %s\nbody %s", f, st.line, st.op, msg, body)
				}
			}
		})
	}
}

type step struct {
	line    int
	op, req string
	status  int
	want    string
}

func parseScenario(t *testing.T, path string) []step {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var steps []step
	var cur *step
	var buf []string
	mode := ""
	n := 0
	flush := func() {
		if cur == nil {
			return
		}
		text := strings.TrimSpace(strings.Join(buf, "\n"))
		switch mode {
		case "req":
			cur.req = text
		case "want":
			cur.want = text
		}
		buf = nil
	}
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "> "):
			flush()
			if cur != nil {
				steps = append(steps, *cur)
			}
			cur = &step{line: n, op: strings.TrimSpace(line[2:])}
			mode = "req"
		case strings.HasPrefix(line, "< "):
			flush()
			st, err := strconv.Atoi(strings.TrimSpace(line[2:]))
			if err != nil || cur == nil {
				t.Fatalf("%s:%d: bad status line", path, n)
			}
			cur.status = st
			mode = "want"
		case strings.TrimSpace(line) == "":
			flush()
			mode = ""
		default:
			buf = append(buf, line)
		}
	}
	flush()
	if cur != nil {
		steps = append(steps, *cur)
	}
	return steps
}

// subset reports how want is not contained in got ("" when it is).
func subset(path string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path + ": not an object"
		}
		for k, wv := range w {
			gv, present := g[k]
			if wv == "<absent>" {
				if present {
					return path + "." + k + ": present, want absent"
				}
				continue
			}
			if !present {
				return path + "." + k + ": missing"
			}
			if msg := subset(path+"."+k, wv, gv); msg != "" {
				return msg
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path + ": want a list of " + strconv.Itoa(len(w))
		}
		for i := range w {
			if msg := subset(path+"["+strconv.Itoa(i)+"]", w[i], g[i]); msg != "" {
				return msg
			}
		}
		return ""
	}
	wb, _ := json.Marshal(want)
	gb, _ := json.Marshal(got)
	if string(wb) != string(gb) {
		return path + ": got " + string(gb) + ", want " + string(wb)
	}
	return ""
}
