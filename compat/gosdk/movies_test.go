package gosdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// movie is one entry of ../shared/data/moviedata.json, the developer
// guide's sample data (year N, title S, info M).
type movie struct {
	Year  json.Number     `json:"year"`
	Title string          `json:"title"`
	Info  json.RawMessage `json:"info"`
}

func loadMovies(t *testing.T) []movie {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data", "moviedata.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("movies dataset not available: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var movies []movie
	if err := dec.Decode(&movies); err != nil {
		t.Fatal(err)
	}
	return movies
}

// toAV converts decoded JSON (with json.Number) to an AttributeValue:
// numbers become N with the file's literal text.
func toAV(v any) types.AttributeValue {
	switch x := v.(type) {
	case string:
		return &types.AttributeValueMemberS{Value: x}
	case json.Number:
		return &types.AttributeValueMemberN{Value: x.String()}
	case bool:
		return &types.AttributeValueMemberBOOL{Value: x}
	case nil:
		return &types.AttributeValueMemberNULL{Value: true}
	case []any:
		l := make([]types.AttributeValue, len(x))
		for i, e := range x {
			l[i] = toAV(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case map[string]any:
		m := make(map[string]types.AttributeValue, len(x))
		for k, e := range x {
			m[k] = toAV(e)
		}
		return &types.AttributeValueMemberM{Value: m}
	}
	panic("unexpected JSON value")
}

func decodeJSON(t *testing.T, raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func (m movie) item(t *testing.T) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"year":  &types.AttributeValueMemberN{Value: m.Year.String()},
		"title": &types.AttributeValueMemberS{Value: m.Title},
		"info":  toAV(decodeJSON(t, m.Info)),
	}
}

// canonicalNumber matches DynamoDB's output form: no exponent, no leading
// zeros, no trailing fraction zeros, no '+'.
var canonicalNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$`)

// sameJSONValue compares an AttributeValue returned by the server with the
// JSON value it was made from: numbers must be numerically equal and in
// canonical form; everything else identical.
func sameJSONValue(t *testing.T, path string, want any, got types.AttributeValue) {
	t.Helper()
	switch w := want.(type) {
	case string:
		g, ok := got.(*types.AttributeValueMemberS)
		if !ok || g.Value != w {
			t.Errorf("%s: got %#v, want S %q", path, got, w)
		}
	case json.Number:
		g, ok := got.(*types.AttributeValueMemberN)
		if !ok {
			t.Errorf("%s: got %#v, want N %s", path, got, w)
			return
		}
		wr, _ := new(big.Rat).SetString(w.String())
		gr, ok2 := new(big.Rat).SetString(g.Value)
		if !ok2 || wr.Cmp(gr) != 0 || !canonicalNumber.MatchString(g.Value) {
			t.Errorf("%s: got N %q, want the exact value of %s in canonical form", path, g.Value, w)
		}
	case []any:
		g, ok := got.(*types.AttributeValueMemberL)
		if !ok || len(g.Value) != len(w) {
			t.Errorf("%s: got %#v, want a list of %d", path, got, len(w))
			return
		}
		for i := range w {
			sameJSONValue(t, path+"["+strconv.Itoa(i)+"]", w[i], g.Value[i])
		}
	case map[string]any:
		g, ok := got.(*types.AttributeValueMemberM)
		if !ok || len(g.Value) != len(w) {
			t.Errorf("%s: got %#v, want a map of %d", path, got, len(w))
			return
		}
		for k := range w {
			sameJSONValue(t, path+"."+k, w[k], g.Value[k])
		}
	default:
		t.Errorf("%s: unexpected JSON %T", path, want)
	}
}

func createMovies(t *testing.T, c *dynamodb.Client) {
	t.Helper()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("Movies"),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("year"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("title"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("year"), AttributeType: types.ScalarAttributeTypeN},
			{AttributeName: aws.String("title"), AttributeType: types.ScalarAttributeTypeS},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatal(err)
	}
	w := dynamodb.NewTableExistsWaiter(c)
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Movies")}, 30e9); err != nil {
		t.Fatal(err)
	}
}

// loadAll writes every movie with BatchWriteItem, 25 at a time, from 4
// goroutines, resending UnprocessedItems.
func loadAll(t *testing.T, c *dynamodb.Client, movies []movie) {
	t.Helper()
	var batches [][]types.WriteRequest
	for i := 0; i < len(movies); i += 25 {
		var b []types.WriteRequest
		for _, m := range movies[i:min(i+25, len(movies))] {
			b = append(b, types.WriteRequest{PutRequest: &types.PutRequest{Item: m.item(t)}})
		}
		batches = append(batches, b)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(batches))
	work := make(chan []types.WriteRequest)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				req := map[string][]types.WriteRequest{"Movies": b}
				for len(req) > 0 {
					out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
					if err != nil {
						errs <- err
						break
					}
					req = out.UnprocessedItems
				}
			}
		}()
	}
	for _, b := range batches {
		work <- b
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func byYear(movies []movie) map[string][]movie {
	m := map[string][]movie{}
	for _, mv := range movies {
		m[mv.Year.String()] = append(m[mv.Year.String()], mv)
	}
	for _, l := range m {
		// DynamoDB orders S sort keys by UTF-8 bytes: Go's string order.
		sort.Slice(l, func(i, j int) bool { return l[i].Title < l[j].Title })
	}
	return m
}

func titles(items []map[string]types.AttributeValue) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it["title"].(*types.AttributeValueMemberS).Value
	}
	return out
}

func movieTitles(ms []movie) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Title
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func yearKey(year string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{":y": &types.AttributeValueMemberN{Value: year}}
}

// queryAll runs a query to the end, page by page.
func queryAll(t *testing.T, c *dynamodb.Client, in *dynamodb.QueryInput) []map[string]types.AttributeValue {
	t.Helper()
	var items []map[string]types.AttributeValue
	p := dynamodb.NewQueryPaginator(c, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, out.Items...)
	}
	return items
}

// TestMovies_LoadQueryScanRestart is issue 2's acceptance run: the
// developer guide's 4,610 movies through aws-sdk-go-v2 against a real
// dynago process on disk, every expected value computed from the file.
func TestMovies_LoadQueryScanRestart(t *testing.T) {
	movies := loadMovies(t)
	dir := t.TempDir()
	srv := StartServer(t, "--data-dir", dir)
	c := srv.Client()
	createMovies(t, c)
	loadAll(t, c, movies)
	years := byYear(movies)

	t.Run("Query_SelectCount_PerYear", func(t *testing.T) {
		for year, ms := range years {
			out, err := c.Query(ctx, &dynamodb.QueryInput{
				TableName:                 aws.String("Movies"),
				KeyConditionExpression:    aws.String("#y = :y"),
				ExpressionAttributeNames:  map[string]string{"#y": "year"},
				ExpressionAttributeValues: yearKey(year),
				Select:                    types.SelectCount,
			})
			if err != nil {
				t.Fatal(err)
			}
			if int(out.Count) != len(ms) || out.Items != nil {
				t.Errorf("year %s: Count %d (items %d), want %d", year, out.Count, len(out.Items), len(ms))
			}
		}
	})

	year := "2013" // the year with the most movies
	ms := years[year]

	t.Run("Query_Between_Titles", func(t *testing.T) {
		lo, hi := "A", "M"
		var want []string
		for _, m := range ms {
			if m.Title >= lo && m.Title <= hi {
				want = append(want, m.Title)
			}
		}
		vals := yearKey(year)
		vals[":lo"] = &types.AttributeValueMemberS{Value: lo}
		vals[":hi"] = &types.AttributeValueMemberS{Value: hi}
		got := titles(queryAll(t, c, &dynamodb.QueryInput{
			TableName:                 aws.String("Movies"),
			KeyConditionExpression:    aws.String("#y = :y AND title BETWEEN :lo AND :hi"),
			ExpressionAttributeNames:  map[string]string{"#y": "year"},
			ExpressionAttributeValues: vals,
		}))
		if len(want) == 0 || !equalStrings(got, want) {
			t.Errorf("BETWEEN: got %d titles, want %d", len(got), len(want))
		}
	})

	t.Run("Query_BeginsWith_Titles", func(t *testing.T) {
		var want []string
		for _, m := range ms {
			if strings.HasPrefix(m.Title, "The ") {
				want = append(want, m.Title)
			}
		}
		vals := yearKey(year)
		vals[":p"] = &types.AttributeValueMemberS{Value: "The "}
		got := titles(queryAll(t, c, &dynamodb.QueryInput{
			TableName:                 aws.String("Movies"),
			KeyConditionExpression:    aws.String("#y = :y AND begins_with(title, :p)"),
			ExpressionAttributeNames:  map[string]string{"#y": "year"},
			ExpressionAttributeValues: vals,
		}))
		if len(want) == 0 || !equalStrings(got, want) {
			t.Errorf("begins_with: got %v, want %v", got, want)
		}
	})

	t.Run("Query_Descending", func(t *testing.T) {
		want := movieTitles(ms)
		for i, j := 0, len(want)-1; i < j; i, j = i+1, j-1 {
			want[i], want[j] = want[j], want[i]
		}
		got := titles(queryAll(t, c, &dynamodb.QueryInput{
			TableName:                 aws.String("Movies"),
			KeyConditionExpression:    aws.String("#y = :y"),
			ExpressionAttributeNames:  map[string]string{"#y": "year"},
			ExpressionAttributeValues: yearKey(year),
			ScanIndexForward:          aws.Bool(false),
		}))
		if !equalStrings(got, want) {
			t.Errorf("descending order differs: got %d titles", len(got))
		}
	})

	t.Run("Query_Limit10_Pagination", func(t *testing.T) {
		var got []string
		var start map[string]types.AttributeValue
		pages := 0
		for {
			out, err := c.Query(ctx, &dynamodb.QueryInput{
				TableName:                 aws.String("Movies"),
				KeyConditionExpression:    aws.String("#y = :y"),
				ExpressionAttributeNames:  map[string]string{"#y": "year"},
				ExpressionAttributeValues: yearKey(year),
				Limit:                     aws.Int32(10),
				ExclusiveStartKey:         start,
			})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if len(out.Items) > 10 {
				t.Fatalf("page of %d items with Limit 10", len(out.Items))
			}
			got = append(got, titles(out.Items)...)
			if out.LastEvaluatedKey == nil {
				break
			}
			if len(out.LastEvaluatedKey) != 2 {
				t.Fatalf("LastEvaluatedKey %v is not the table key", out.LastEvaluatedKey)
			}
			start = out.LastEvaluatedKey
		}
		if !equalStrings(got, movieTitles(ms)) || pages < len(ms)/10 {
			t.Errorf("paginated: %d titles in %d pages, want %d", len(got), pages, len(ms))
		}
	})

	t.Run("GetItem_NestedInfo_ExactNumbers", func(t *testing.T) {
		for _, m := range movies[:50] {
			out, err := c.GetItem(ctx, &dynamodb.GetItemInput{
				TableName: aws.String("Movies"),
				Key: map[string]types.AttributeValue{
					"year":  &types.AttributeValueMemberN{Value: m.Year.String()},
					"title": &types.AttributeValueMemberS{Value: m.Title},
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.Item == nil {
				t.Fatalf("%s (%s) not found", m.Title, m.Year)
			}
			sameJSONValue(t, m.Title+".info", decodeJSON(t, m.Info), out.Item["info"])
		}
	})

	// Issue 3's real input: filters and projections on the movies,
	// expected values computed from the JSON file.
	type info struct {
		Rating    *json.Number `json:"rating"`
		Genres    []string     `json:"genres"`
		Actors    []string     `json:"actors"`
		Directors []string     `json:"directors"`
	}
	infoOf := func(m movie) info {
		var in info
		if err := json.Unmarshal(m.Info, &in); err != nil {
			t.Fatal(err)
		}
		return in
	}
	t.Run("Query_Filter_RatingAndGenre", func(t *testing.T) {
		r, g := "7.5", "Drama"
		var want []string
		for _, m := range ms {
			in := infoOf(m)
			if in.Rating == nil {
				continue
			}
			mr, _ := new(big.Rat).SetString(in.Rating.String())
			rr, _ := new(big.Rat).SetString(r)
			hasGenre := false
			for _, x := range in.Genres {
				hasGenre = hasGenre || x == g
			}
			if mr.Cmp(rr) > 0 && hasGenre {
				want = append(want, m.Title)
			}
		}
		vals := yearKey(year)
		vals[":r"] = &types.AttributeValueMemberN{Value: r}
		vals[":g"] = &types.AttributeValueMemberS{Value: g}
		got := titles(queryAll(t, c, &dynamodb.QueryInput{
			TableName:                 aws.String("Movies"),
			KeyConditionExpression:    aws.String("#y = :y"),
			FilterExpression:          aws.String("info.rating > :r AND contains(info.genres, :g)"),
			ExpressionAttributeNames:  map[string]string{"#y": "year"},
			ExpressionAttributeValues: vals,
		}))
		if len(want) == 0 || !equalStrings(got, want) {
			t.Errorf("filter: got %d titles, want %d", len(got), len(want))
		}
	})
	t.Run("Query_Filter_SizeActors", func(t *testing.T) {
		var want []string
		for _, m := range ms {
			if len(infoOf(m).Actors) >= 3 {
				want = append(want, m.Title)
			}
		}
		vals := yearKey(year)
		vals[":n"] = &types.AttributeValueMemberN{Value: "3"}
		var got []string
		var scanned int32
		p := dynamodb.NewQueryPaginator(c, &dynamodb.QueryInput{
			TableName:                 aws.String("Movies"),
			KeyConditionExpression:    aws.String("#y = :y"),
			FilterExpression:          aws.String("size(info.actors) >= :n"),
			ExpressionAttributeNames:  map[string]string{"#y": "year"},
			ExpressionAttributeValues: vals,
			Limit:                     aws.Int32(50),
		})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if out.Count > out.ScannedCount {
				t.Fatalf("Count %d > ScannedCount %d", out.Count, out.ScannedCount)
			}
			scanned += out.ScannedCount
			got = append(got, titles(out.Items)...)
		}
		if !equalStrings(got, want) || int(scanned) != len(ms) {
			t.Errorf("size filter: %d titles (scanned %d), want %d of %d", len(got), scanned, len(want), len(ms))
		}
	})
	t.Run("Query_Projection_TitleFirstDirector", func(t *testing.T) {
		items := queryAll(t, c, &dynamodb.QueryInput{
			TableName:                 aws.String("Movies"),
			KeyConditionExpression:    aws.String("#y = :y"),
			ProjectionExpression:      aws.String("title, info.directors[0]"),
			ExpressionAttributeNames:  map[string]string{"#y": "year"},
			ExpressionAttributeValues: yearKey(year),
		})
		if len(items) != len(ms) {
			t.Fatalf("%d items, want %d", len(items), len(ms))
		}
		for i, it := range items {
			m := ms[i]
			in := infoOf(m)
			if _, hasYear := it["year"]; hasYear {
				t.Fatalf("projection returned year: %v", it)
			}
			info, ok := it["info"].(*types.AttributeValueMemberM)
			if len(in.Directors) == 0 {
				if ok {
					t.Errorf("%s: info %v for a movie without directors", m.Title, info)
				}
				continue
			}
			d, _ := info.Value["directors"].(*types.AttributeValueMemberL)
			if !ok || d == nil || len(info.Value) != 1 || len(d.Value) != 1 || d.Value[0].(*types.AttributeValueMemberS).Value != in.Directors[0] {
				t.Errorf("%s: got %#v, want directors [%s]", m.Title, it["info"], in.Directors[0])
			}
		}
	})

	scanAll := func(t *testing.T) {
		t.Helper()
		const segments = 4
		seen := map[string]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for s := 0; s < segments; s++ {
			wg.Add(1)
			go func(s int) {
				defer wg.Done()
				p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{
					TableName: aws.String("Movies"), Segment: aws.Int32(int32(s)), TotalSegments: aws.Int32(segments),
				})
				for p.HasMorePages() {
					out, err := p.NextPage(ctx)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					for _, it := range out.Items {
						seen[it["year"].(*types.AttributeValueMemberN).Value+"/"+it["title"].(*types.AttributeValueMemberS).Value]++
					}
					mu.Unlock()
				}
			}(s)
		}
		wg.Wait()
		for _, m := range movies {
			k := m.Year.String() + "/" + m.Title
			if seen[k] != 1 {
				t.Errorf("%s seen %d times", k, seen[k])
			}
			delete(seen, k)
		}
		if len(seen) != 0 {
			t.Errorf("%d unexpected items", len(seen))
		}
	}
	t.Run("Scan_Parallel4_EveryItemOnce", scanAll)

	t.Run("DescribeTable_ItemCount", func(t *testing.T) {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("Movies")})
		if err != nil {
			t.Fatal(err)
		}
		if *out.Table.ItemCount != int64(len(movies)) || *out.Table.TableSizeBytes <= 0 {
			t.Errorf("ItemCount %d, TableSizeBytes %d", *out.Table.ItemCount, *out.Table.TableSizeBytes)
		}
	})

	// Restart on the same directory: everything is still there.
	srv.Stop(t)
	srv = StartServer(t, "--data-dir", dir)
	c = srv.Client()
	t.Run("Restart_Scan_EveryItemOnce", scanAll)
	t.Run("Restart_GetItem", func(t *testing.T) {
		m := movies[len(movies)-1]
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String("Movies"),
			Key: map[string]types.AttributeValue{
				"year":  &types.AttributeValueMemberN{Value: m.Year.String()},
				"title": &types.AttributeValueMemberS{Value: m.Title},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		sameJSONValue(t, "info", decodeJSON(t, m.Info), out.Item["info"])
	})
	var rnf *types.ResourceNotFoundException
	_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("NoSuchTable")})
	if !errors.As(err, &rnf) {
		t.Errorf("DescribeTable of a missing table: %v", err)
	}
}
