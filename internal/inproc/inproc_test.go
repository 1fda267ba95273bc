package inproc

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// TestStart_ServesAndCloses: the server answers the API, /metrics and
// /design/traffic (404 without designs, as serve's); Close twice is fine.
func TestStart_ServesAndCloses(t *testing.T) {
	s, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client().ListTables(t.Context(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/metrics": 200, "/design/traffic": 404} {
		resp, err := http.Get(s.Endpoint() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestStart_BadDesign: a design file that cannot be read, or has a
// problem, fails Start with an error naming it.
func TestStart_BadDesign(t *testing.T) {
	for _, f := range []string{"testdata/none.design.yaml", "inproc.go"} {
		if s, err := Start(Options{Designs: []string{f}}); err == nil {
			s.Close()
			t.Errorf("%s: started", f)
		} else if !strings.Contains(err.Error(), f) {
			t.Errorf("%s: %v", f, err)
		} else {
			t.Log(err)
		}
	}
}
