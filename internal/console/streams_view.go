package console

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
// "removed" (a MODIFY's).
type diffRow struct {
	Name     string
	Old, New Cell
	Change   string
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
		}
		v.Rows = append(v.Rows, row)
	}
	return v
}
