package console

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// recordView is one stream record as the page shows it: its keys, and
// its images side by side, attribute by attribute.
type recordView struct {
	EventName, EventID, Seq, Shard, Time string
	ViewType                             string
	SizeBytes                            int64
	Keys                                 []keyCell
	// ViewOld and ViewNew say the record's view type carries the old and
	// the new image (a KEYS_ONLY record carries neither); HasOld and
	// HasNew that this record has them (an INSERT has no old image, a
	// REMOVE no new one).
	ViewOld, ViewNew bool
	HasOld, HasNew   bool
	Rows             []diffRow
	// Changed is how many attributes a MODIFY changed, added or removed.
	Changed int
	// New marks a record a poll brought (highlighted as it arrives).
	New bool
}

// keyCell is one key attribute of a record.
type keyCell struct {
	Name string
	Cell Cell
}

// diffRow is one attribute in the old and the new image. Change is ""
// (the same in both, or only one image to show), "changed", "added" or
// "removed" (a MODIFY's). A changed map or list lists what changed
// inside it (Paths, info.rating: 8.8 → 8; More past pathsMax), since its
// cells, cut to the same first characters, need not show it; a changed
// value cut otherwise is shown opened (Open).
type diffRow struct {
	Name     string
	Old, New Cell
	Change   string
	Paths    []pathChange
	More     int
	Open     bool
}

// pathChange is one changed value inside a map or list attribute: its
// document path and its old and new values as compact JSON ("—" for
// none).
type pathChange struct {
	Path, Old, New string
}

// pathsMax is how many changed paths a row lists.
const pathsMax = 12

// changedPaths returns the paths inside attribute name at which
// AttributeValues o and n differ, each with the two values.
func changedPaths(name string, o, n json.RawMessage) []pathChange {
	a, errA := PlainValue(o)
	b, errB := PlainValue(n)
	if errA != nil || errB != nil {
		return nil
	}
	var out []pathChange
	diffPlain(name, a, b, &out)
	return out
}

// absent marks a value a path has in one image only.
type absent struct{}

// diffPlain appends to out the paths under path where plain values a
// and b differ: into maps by key and lists by index, else the value.
func diffPlain(path string, a, b any, out *[]pathChange) {
	if am, ok := a.(map[string]any); ok {
		if bm, ok := b.(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(mergeKeys(am, bm))) {
				diffPlain(path+"."+k, valueOr(am, k), valueOr(bm, k), out)
			}
			return
		}
	}
	if al, ok := a.([]any); ok {
		if bl, ok := b.([]any); ok {
			for i := range max(len(al), len(bl)) {
				diffPlain(path+"["+strconv.Itoa(i)+"]", indexOr(al, i), indexOr(bl, i), out)
			}
			return
		}
	}
	if ta, tb := plainText(a), plainText(b); ta != tb {
		*out = append(*out, pathChange{path, ta, tb})
	}
}

func mergeKeys(a, b map[string]any) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

func valueOr(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return absent{}
}

func indexOr(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return absent{}
}

// plainText is v as compact JSON, cut to CellMax characters; "—" for
// absent.
func plainText(v any) string {
	if _, ok := v.(absent); ok {
		return "—"
	}
	b, _ := marshalText(v, false)
	if s := string(b); utf8.RuneCountInString(s) > CellMax {
		return string([]rune(s)[:CellMax]) + "…"
	}
	return string(b)
}

// newRecordView lays out rec, key attributes pk and sk first.
func newRecordView(rec streamRecord, pk, sk string) recordView {
	d := rec.Dynamodb
	v := recordView{EventName: rec.EventName, EventID: rec.EventID, Seq: d.SequenceNumber, Shard: rec.Shard,
		ViewType: d.StreamViewType, SizeBytes: d.SizeBytes}
	if d.ApproximateCreationDateTime > 0 {
		v.Time = formatEpoch(d.ApproximateCreationDateTime)
	}
	for _, k := range Columns([]Item{d.Keys}, pk, sk) {
		if _, ok := d.Keys[k]; ok {
			v.Keys = append(v.Keys, keyCell{k, CellOf(d.Keys[k])})
		}
	}
	switch d.StreamViewType {
	case "NEW_AND_OLD_IMAGES":
		v.ViewOld, v.ViewNew = true, true
	case "NEW_IMAGE":
		v.ViewNew = true
	case "OLD_IMAGE":
		v.ViewOld = true
	case "KEYS_ONLY":
	default: // a view type this console does not know: what the record has
		v.ViewOld, v.ViewNew = d.OldImage != nil, d.NewImage != nil
	}
	// An INSERT has no old image, a REMOVE no new one.
	v.HasOld, v.HasNew = v.ViewOld && d.OldImage != nil, v.ViewNew && d.NewImage != nil
	if !v.HasOld && !v.HasNew {
		return v
	}
	modify := rec.EventName == "MODIFY" && v.HasOld && v.HasNew
	for _, name := range Columns([]Item{d.OldImage, d.NewImage}, pk, sk) {
		o, n := d.OldImage[name], d.NewImage[name]
		if o == nil && n == nil {
			continue // a key attribute the images lack
		}
		row := diffRow{Name: name, Old: CellOf(o), New: CellOf(n)}
		if modify {
			switch {
			case o == nil:
				row.Change = "added"
			case n == nil:
				row.Change = "removed"
			case !sameValue(o, n):
				row.Change = "changed"
			}
			if row.Change != "" {
				v.Changed++
			}
			// A changed map or list (the same type on both sides) lists
			// its changed paths; another changed value that is cut is
			// shown opened.
			if t := row.Old.Type; row.Change == "changed" && t == row.New.Type && (t == "M" || t == "L") {
				row.Paths = changedPaths(name, o, n)
				if len(row.Paths) > pathsMax {
					row.Paths, row.More = row.Paths[:pathsMax], len(row.Paths)-pathsMax
				}
			} else if row.Change == "changed" {
				row.Open = row.Old.Cut || row.New.Cut
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}
