package dataio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fuzz targets decode an input; whatever decodes must encode and
// decode again to the same items, and nothing may panic.

// seedLines are inputs every line decoder's corpus starts from.
var seedLines = []string{
	`{"year":2013,"title":"Rush","info":{"rating":8.3,"genres":["Action","Drama"],"n":null,"ok":true}}`,
	`{"Item":{"a":{"SS":["x","y"]},"b":{"B":"AAE="},"c":{"L":[{"N":"1E5"},{"NULL":true}]},"d":{"M":{"e":{"BS":["AQ=="]}}}}}`,
	`{"a":{"NS":["1","-0.5"]},"f":{"BOOL":false}}`,
	`$ion_1_0 {Item:{Id:103.,Price:2d3,Authors:$dynamodb_SS::["A","B"],Blob:{{AAE=}},L:[1,null,"s"],M:{x:true}}}`,
	`$ion_1_0 {Item:{'q s':"\u00e9\n",NS:$dynamodb_NS::[1.5,2d-3],BS:$dynamodb_BS::[{{AQ==}}]}} // c`,
	`[{"a":1},{"b":"x"}]`,
}

func FuzzPlainJSON(f *testing.F) {
	for _, s := range seedLines {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, sets bool) {
		item, err := decodePlainLine(data, sets)
		if err != nil {
			return
		}
		enc, err := encodePlainLine(nil, item)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodePlainLine(enc, sets)
		if err != nil {
			t.Fatalf("%s does not read back: %v", enc, err)
		}
		sameItems(t, []Item{again}, []Item{item})
	})
}

func FuzzDynamoDBJSON(f *testing.F) {
	for _, s := range seedLines {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		item, err := decodeDynamoDBJSONLine(data)
		if err != nil {
			return
		}
		enc, err := encodeDynamoDBJSONLine(nil, item)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeDynamoDBJSONLine(enc)
		if err != nil {
			t.Fatalf("%s does not read back: %v", enc, err)
		}
		sameItems(t, []Item{again}, []Item{item})
	})
}

func FuzzIon(f *testing.F) {
	for _, s := range seedLines {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		item, err := decodeIonLine(data)
		if err != nil || item == nil { // nil: a line of only $ion_1_0
			return
		}
		enc := encodeIon(item)
		again, err := decodeIonLine([]byte(enc))
		if err != nil {
			t.Fatalf("%s does not read back: %v", enc, err)
		}
		sameItems(t, []Item{again}, []Item{item})
	})
}

// FuzzCSV reads a whole CSV file (skipping bad rows, up to a quoted field
// in error, which ends the reading), writes the items as CSV and reads
// them back.
func FuzzCSV(f *testing.F) {
	f.Add([]byte("a,b:N,c:SS,d:AV\nx,1,\"[\"\"s\"\"]\",\"{\"\"S\"\":\"\"\"\"}\"\n2,3,,\n"))
	f.Add([]byte("year,title,ok\n2013,Rush,true\n,,\n"))
	f.Add([]byte("m:M,l:L,bs:BS,z:NULL,b:B\n\"{\"\"k\"\":{\"\"N\"\":\"\"1\"\"}}\",[],\"[\"\"AQ==\"\"]\",true,AAE=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		src := filepath.Join(dir, "in.csv")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(src, ReadOptions{})
		if err != nil {
			return
		}
		var items []Item
		for {
			item, err := r.Next()
			if err == io.EOF {
				break
			}
			var b *BadInput
			if err != nil && !errors.As(err, &b) && strings.Contains(err.Error(), "reading stopped") {
				break // after a quoted field in error (testdata/fuzz/FuzzCSV/dcea4d66a4200efa)
			}
			if err != nil {
				badLine(t, err)
				continue
			}
			if len(item) > 0 { // a row of empty cells is an empty item, which CSV cannot always write
				items = append(items, item)
			}
		}
		r.Close()
		dest := filepath.Join(dir, "out.csv")
		writeAll(t, dest, WriteOptions{Format: FormatCSV}, items)
		sameItems(t, openAll(t, dest, ReadOptions{}), items)
	})
}
