package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/dynago/dynago/bench/internal/loopback"
)

// moviesTable is the table -movies creates: the movies keyed by year and
// title, with three global secondary indexes (by title, by genre and
// rating, by rank) and a stream of new and old images, as issue 22's
// startup target describes.
const moviesTable = `{
  "TableName": "Movies",
  "AttributeDefinitions": [
    {"AttributeName": "year", "AttributeType": "N"}, {"AttributeName": "title", "AttributeType": "S"},
    {"AttributeName": "genre", "AttributeType": "S"}, {"AttributeName": "rating", "AttributeType": "N"},
    {"AttributeName": "rank", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "year", "KeyType": "HASH"}, {"AttributeName": "title", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "by-title", "KeySchema": [{"AttributeName": "title", "KeyType": "HASH"}], "Projection": {"ProjectionType": "KEYS_ONLY"}},
    {"IndexName": "by-genre", "KeySchema": [{"AttributeName": "genre", "KeyType": "HASH"}, {"AttributeName": "rating", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "by-rank", "KeySchema": [{"AttributeName": "rank", "KeyType": "HASH"}], "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["info"]}}],
  "BillingMode": "PAY_PER_REQUEST",
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}
}`

// prepareMovies starts bin on dir, creates moviesTable and writes every
// movie of file (../shared/data/moviedata.json's shape: an array of
// objects with year, title and info) through BatchWriteItem, with
// top-level genre (the first of info.genres), rating and rank copied out
// of info for the indexes, waits idle, reads the server's memory into
// after, then stops the server. It returns the number of items written.
func prepareMovies(bin, dir, file string, idle time.Duration, after *sample) (int, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var movies []map[string]any
	if err := dec.Decode(&movies); err != nil {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	port, err := loopback.FreePort()
	if err != nil {
		return 0, err
	}
	endpoint := "http://127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:"+strconv.Itoa(port), "--data-dir", dir, "--log-level", "warn")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer cmd.Wait()
	defer cmd.Process.Signal(os.Interrupt)
	for began := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if resp, err := http.Get(endpoint + "/"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Since(began) > 30*time.Second {
			return 0, fmt.Errorf("%s did not answer GET / within 30 s", bin)
		}
	}
	if err := call(endpoint, "CreateTable", json.RawMessage(moviesTable)); err != nil {
		return 0, err
	}
	for began := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		var out struct{ Table struct{ TableStatus string } }
		if err := callOut(endpoint, "DescribeTable", map[string]string{"TableName": "Movies"}, &out); err != nil {
			return 0, err
		}
		if out.Table.TableStatus == "ACTIVE" {
			break
		}
		if time.Since(began) > 30*time.Second {
			return 0, fmt.Errorf("table Movies not ACTIVE after 30 s")
		}
	}
	for start := 0; start < len(movies); start += 25 {
		var puts []any
		for _, m := range movies[start:min(start+25, len(movies))] {
			if info, ok := m["info"].(map[string]any); ok {
				if g, ok := info["genres"].([]any); ok && len(g) > 0 {
					m["genre"] = g[0]
				}
				for _, k := range []string{"rating", "rank"} {
					if v, ok := info[k]; ok {
						m[k] = v
					}
				}
			}
			puts = append(puts, map[string]any{"PutRequest": map[string]any{"Item": attributeValues(m)}})
		}
		req := map[string]any{"RequestItems": map[string]any{"Movies": puts}}
		for {
			var out struct{ UnprocessedItems map[string][]any }
			if err := callOut(endpoint, "BatchWriteItem", req, &out); err != nil {
				return 0, err
			}
			if len(out.UnprocessedItems) == 0 {
				break
			}
			req["RequestItems"] = out.UnprocessedItems
		}
	}
	time.Sleep(idle)
	return len(movies), readMemory(cmd.Process.Pid, bin, after)
}

// attributeValues turns a plain JSON object into DynamoDB JSON: numbers
// stay as their text, arrays become lists, objects maps.
func attributeValues(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = attributeValue(v)
	}
	return out
}

func attributeValue(v any) any {
	switch v := v.(type) {
	case json.Number:
		return map[string]string{"N": v.String()}
	case string:
		return map[string]string{"S": v}
	case bool:
		return map[string]bool{"BOOL": v}
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = attributeValue(e)
		}
		return map[string]any{"L": l}
	case map[string]any:
		return map[string]any{"M": attributeValues(v)}
	}
	return map[string]bool{"NULL": true}
}

// call sends one DynamoDB request in JSON 1.0 (dynago accepts any
// credentials; the authorization header is only well formed).
func call(endpoint, op string, in any) error { return callOut(endpoint, op, in, nil) }

func callOut(endpoint, op string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, endpoint+"/", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+op)
	req.Header.Set("X-Amz-Date", time.Now().UTC().Format("20060102T150405Z"))
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=local/20261201/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=00")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", op, resp.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}
