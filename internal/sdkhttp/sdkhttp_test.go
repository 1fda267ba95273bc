package sdkhttp

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

type recordDoer struct{ body io.ReadCloser }

func (d *recordDoer) Do(r *http.Request) (*http.Response, error) {
	d.body = r.Body
	return &http.Response{StatusCode: 200}, nil
}

// writerToBody is a body with WriteTo, as smithy-go's is.
type writerToBody struct{ *strings.Reader }

func (writerToBody) Close() error { return nil }

// TestNoWriteTo: the body the inner client sees has no WriteTo, reads
// the same bytes, and an empty body is passed through.
func TestNoWriteTo(t *testing.T) {
	var d recordDoer
	r, _ := http.NewRequest("POST", "http://127.0.0.1/", nil)
	r.Body = writerToBody{strings.NewReader("{}")}
	if _, ok := r.Body.(io.WriterTo); !ok {
		t.Fatal("test body lacks WriteTo")
	}
	if _, err := (NoWriteTo{&d}).Do(r); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.body.(io.WriterTo); ok {
		t.Fatal("the body still has WriteTo")
	}
	if b, _ := io.ReadAll(d.body); string(b) != "{}" {
		t.Fatalf("body %q", b)
	}
	r.Body = http.NoBody
	if (NoWriteTo{&d}).Do(r); d.body != http.NoBody {
		t.Fatal("NoBody was wrapped")
	}
}
