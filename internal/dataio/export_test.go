package dataio

import (
	"bufio"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// The export fixtures under testdata/export-ddbjson and testdata/export-ion
// follow the layout, manifests and item lines of the developer guide's
// "DynamoDB table export output format",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html
// (its ProductCatalog example): AWSDynamoDB/<ExportId>/manifest-summary.json,
// manifest-files.json (itemCount, md5Checksum, etag, dataFileS3Key) and
// data/ files, here one gzip and one plain each. The golden files are the
// items as DynamoDB JSON lines.
func TestExportFixtures(t *testing.T) {
	tests := []struct {
		dir, golden string
	}{
		{"testdata/export-ddbjson/AWSDynamoDB/01604474914028-a1b2c3d4", "testdata/export-ddbjson.golden"},
		{"testdata/export-ddbjson/AWSDynamoDB", "testdata/export-ddbjson.golden"},
		{"testdata/export-ddbjson", "testdata/export-ddbjson.golden"},
		{"testdata/export-ion/AWSDynamoDB/01604474914028-e5f6a7b8", "testdata/export-ion.golden"},
		{"testdata/export-ion", "testdata/export-ion.golden"},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			r, err := Open(tc.dir, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var got strings.Builder
			for _, item := range readAll(t, r) {
				got.WriteString(canon(t, item))
			}
			done, total := r.Progress()
			if done != total || total == 0 {
				t.Errorf("Progress %d/%d, want all", done, total)
			}
			want, err := os.ReadFile(tc.golden)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Fatalf("got\n%s\nwant\n%s", got.String(), want)
			}
		})
	}
}

// TestExportWriter: the manifests Create writes, as the guide describes
// them, with checksums of the data files; an export of the 10 types read
// back through a zstd data file too.
func TestExportWriter(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "out")
	at := time.Date(2026, 11, 4, 7, 28, 34, 28e6, time.UTC)
	opts := WriteOptions{Format: FormatExport, TableArn: "arn:aws:dynamodb:us-east-1:123456789012:table/T", ExportTime: at, ExportID: "01793777314028-abcdef01", S3Prefix: "p", ItemsPerFile: 2}
	writeAll(t, dest, opts, allTypes())
	dir := filepath.Join(dest, "AWSDynamoDB", opts.ExportID)
	var sum map[string]any
	b, err := os.ReadFile(filepath.Join(dir, "manifest-summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"version": "2020-06-30", "exportArn": opts.TableArn + "/export/" + opts.ExportID, "startTime": "2026-11-04T07:28:34.028Z",
		"tableArn": opts.TableArn, "exportTime": "2026-11-04T07:28:34.028Z", "s3Prefix": "p", "s3SseAlgorithm": "AES256", "s3SseKmsKeyId": nil,
		"manifestFilesS3Key": "p/AWSDynamoDB/" + opts.ExportID + "/manifest-files.json", "itemCount": 3.0, "outputFormat": "DYNAMODB_JSON", "exportType": "FULL_EXPORT",
	}
	for k, v := range want {
		if sum[k] != v {
			t.Errorf("manifest-summary %s = %v, want %v", k, sum[k], v)
		}
	}
	for _, k := range []string{"endTime", "tableId", "s3Bucket", "billedSizeBytes"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("manifest-summary has no %s", k)
		}
	}
	f, err := os.Open(filepath.Join(dir, "manifest-files.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var counts []int64
	for sc.Scan() {
		var ef exportFile
		if err := json.Unmarshal(sc.Bytes(), &ef); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(ef.DataFileS3Key, "p/AWSDynamoDB/"+opts.ExportID+"/data/") || !strings.HasSuffix(ef.DataFileS3Key, ".json.gz") {
			t.Errorf("dataFileS3Key %s", ef.DataFileS3Key)
		}
		data, err := os.ReadFile(filepath.Join(dir, "data", filepath.Base(ef.DataFileS3Key)))
		if err != nil {
			t.Fatal(err)
		}
		h := md5.Sum(data)
		if ef.MD5Checksum != base64.StdEncoding.EncodeToString(h[:]) || ef.Etag != hex.EncodeToString(h[:]) {
			t.Errorf("%s: md5Checksum %s etag %s do not match the file", ef.DataFileS3Key, ef.MD5Checksum, ef.Etag)
		}
		counts = append(counts, ef.ItemCount)
	}
	if len(counts) != 2 || counts[0] != 2 || counts[1] != 1 {
		t.Errorf("item counts %v, want [2 1]", counts)
	}
	sameItems(t, openAll(t, dest, ReadOptions{}), allTypes())
	if _, err := Create(dest, opts); err == nil {
		t.Error("Create into a folder that is not empty succeeded")
	}
}

// TestExportZstdAndEmpty: a zstd data file is read; an export of no
// items has one empty data file and reads as no items.
func TestExportZstdAndEmpty(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "out")
	writeAll(t, dest, WriteOptions{Format: FormatExport, ExportID: "x"}, nil)
	if items := openAll(t, dest, ReadOptions{}); len(items) != 0 {
		t.Fatalf("%d items in an empty export", len(items))
	}
	dir := filepath.Join(dest, "AWSDynamoDB", "x")
	var zb strings.Builder
	for _, item := range allTypes() {
		zb.WriteString(encodeIon(item))
	}
	enc, _ := zstd.NewWriter(nil)
	data := enc.EncodeAll([]byte(zb.String()), nil)
	enc.Close()
	if err := os.WriteFile(filepath.Join(dir, "data", "z.ion.zst"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	line := `{"itemCount":3,"md5Checksum":"","etag":"","dataFileS3Key":"AWSDynamoDB/x/data/z.ion.zst"}` + "\n"
	sumb, _ := os.ReadFile(filepath.Join(dir, "manifest-summary.json"))
	sumb = []byte(strings.Replace(string(sumb), `"DYNAMODB_JSON"`, `"ION"`, 1))
	if err := os.WriteFile(filepath.Join(dir, "manifest-summary.json"), sumb, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest-files.json"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	// allTypes' numbers are all ones whose Ion decimal reads back as
	// the same text (2013 is 2013., 1E-130 is 1d-130).
	sameItems(t, openAll(t, dest, ReadOptions{}), allTypes())
}

// TestExportManifestChecks: a data file that does not match its manifest
// line (item count, MD5) is a *BadInput at that line and none of its
// items is read (a bad-input trial of issue 26: they were read, then the
// *BadInput came, so that load --skip-bad wrote a corrupt file's items);
// an incremental export and an unknown outputFormat are refused at Open.
func TestExportManifestChecks(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(files, summary string) (string, string)
		openFails bool
		badLine   int
		items     int // read from the other data file
	}{
		{"item count", func(f, s string) (string, string) {
			return strings.Replace(f, `"itemCount":1`, `"itemCount":2`, 1), s
		}, false, 2, 2},
		{"md5", func(f, s string) (string, string) {
			return strings.Replace(f, `"md5Checksum":"`, `"md5Checksum":"x`, 1), s
		}, false, 1, 1},
		{"incremental", func(f, s string) (string, string) {
			return f, strings.Replace(s, `"FULL_EXPORT"`, `"INCREMENTAL_EXPORT"`, 1)
		}, true, 0, 0},
		{"format", func(f, s string) (string, string) {
			return f, strings.Replace(s, `"DYNAMODB_JSON"`, `"CSV"`, 1)
		}, true, 0, 0},
	}
	src := "testdata/export-ddbjson/AWSDynamoDB/01604474914028-a1b2c3d4"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			fb, _ := os.ReadFile(filepath.Join(dir, filesName))
			sb, _ := os.ReadFile(filepath.Join(dir, summaryName))
			f, s := tc.edit(string(fb), string(sb))
			os.WriteFile(filepath.Join(dir, filesName), []byte(f), 0o644)
			os.WriteFile(filepath.Join(dir, summaryName), []byte(s), 0o644)
			r, err := Open(dir, ReadOptions{})
			if tc.openFails {
				if err == nil {
					r.Close()
					t.Fatal("Open succeeded")
				}
				badLine(t, err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var items, bad []int
			for n := 0; ; n++ {
				_, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					bad = append(bad, badLine(t, err))
					continue
				}
				items = append(items, n)
			}
			if len(items) != tc.items || len(bad) != 1 || bad[0] != tc.badLine {
				t.Fatalf("items %v, bad lines %v; want %d items and line %d", items, bad, tc.items, tc.badLine)
			}
		})
	}
}

// TestIonMarkerLine: a line of only the version marker is no item.
func TestIonMarkerLine(t *testing.T) {
	r, err := openIonFile(writeFile(t, "d.ion", "$ion_1_0\n$ion_1_0 {Item:{a:1.}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if items := readAll(t, r); len(items) != 1 {
		t.Fatalf("%d items", len(items))
	}
}
