// Package catalog owns table metadata: the stored description of each
// table (key schema, attribute definitions, billing settings, status
// lifecycle, deletion protection) and its persistence in the storage
// layer, where it changes only inside transactions so that several
// dynago nodes see one catalog.
//
// Layout: "c/t/<TableName>" holds a table's JSON descriptor;
// "c/n" holds the last allocated table number. Table numbers name the key
// spaces of items (package keycodec), so a table re-created under an old
// name never sees the old table's items.
package catalog

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/storage"
)

// Billing modes.
const (
	BillingProvisioned   = "PROVISIONED"
	BillingPayPerRequest = "PAY_PER_REQUEST"
)

// Table statuses.
const (
	StatusCreating = "CREATING"
	StatusActive   = "ACTIVE"
	StatusDeleting = "DELETING"
)

// KeyElement is one element of a key schema.
type KeyElement struct {
	AttributeName string `json:"n"`
	KeyType       string `json:"t"` // HASH or RANGE
}

// AttributeDefinition declares a key attribute's type (S, N or B).
type AttributeDefinition struct {
	AttributeName string `json:"n"`
	AttributeType string `json:"t"`
}

// Table is a table's stored description.
type Table struct {
	Name    string `json:"name"`
	Number  uint64 `json:"num"`
	ID      string `json:"id"`
	Created int64  `json:"created"` // Unix nanoseconds
	// ActiveAt is when a CREATING table becomes ACTIVE (Unix nanoseconds);
	// zero means active at once.
	ActiveAt             int64                 `json:"activeAt,omitempty"`
	KeySchema            []KeyElement          `json:"keySchema"`
	AttributeDefinitions []AttributeDefinition `json:"attrs"`
	BillingMode          string                `json:"billing"`
	ReadCapacityUnits    int64                 `json:"rcu,omitempty"`
	WriteCapacityUnits   int64                 `json:"wcu,omitempty"`
	// Throughput remembers the provisioned throughput changes DynamoDB
	// reports and budgets.
	Throughput ThroughputChanges `json:"pt,omitzero"`
	// PayPerRequestSince is when the table last switched to (or was
	// created with) PAY_PER_REQUEST, in Unix nanoseconds.
	PayPerRequestSince int64 `json:"pprSince,omitempty"`
	// PayPerRequestSwitches are the times (Unix ns) of the switches to
	// PAY_PER_REQUEST in the last 24 hours, for DynamoDB's limit of four.
	PayPerRequestSwitches []int64 `json:"pprSwitches,omitempty"`
	DeletionProtection    bool    `json:"deletionProtection,omitempty"`
	// TableClass is "" for STANDARD never set, or STANDARD or
	// STANDARD_INFREQUENT_ACCESS; TableClassChanged is when UpdateTable
	// last changed it (Unix ns, 0: never).
	TableClass        string `json:"tableClass,omitempty"`
	TableClassChanged int64  `json:"tableClassAt,omitempty"`
	// TableClassChanges are the times (Unix ns) of the TableClass changes
	// in the last 30 days, for DynamoDB's limit of two.
	TableClassChanges []int64 `json:"tableClassChanges,omitempty"`
	// SSE is set when the table asked for KMS server-side encryption.
	SSE *SSE `json:"sse,omitempty"`
	// Tags are the table's tags in the order given.
	Tags []Tag `json:"tags,omitempty"`
	// MaxReadRequestUnits and MaxWriteRequestUnits are the
	// OnDemandThroughput caps; 0 means none.
	MaxReadRequestUnits  int64 `json:"maxRRU,omitempty"`
	MaxWriteRequestUnits int64 `json:"maxWRU,omitempty"`
	// GSIs and LSIs are the table's secondary indexes, in the order they
	// were declared (GSIs added by UpdateTable at the end).
	GSIs []*Index `json:"gsis,omitempty"`
	LSIs []*Index `json:"lsis,omitempty"`
	// TTL is the table's Time to Live setting; nil when never set.
	TTL *TTL `json:"ttl,omitempty"`
	// Stream is the table's stream setting; nil when it never had one.
	Stream *TableStream `json:"stream,omitempty"`
	// Insights is the table's Contributor Insights setting; nil when
	// never set.
	Insights *Insights `json:"insights,omitempty"`
	// PITR is the table's point-in-time recovery setting; nil when never
	// enabled.
	PITR *PITR `json:"pitr,omitempty"`
	// LastIndex is the last index number allocated in this table: index
	// numbers name key spaces (keycodec.Space.Index) and are never reused,
	// so an index re-created under an old name never sees old entries.
	LastIndex uint16 `json:"lastIndex,omitempty"`
}

// TTL is a table's Time to Live setting.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html
type TTL struct {
	AttributeName string `json:"attr"`
	Toggle
}

// Toggle is a setting switched on and off that takes time to settle:
// Time to Live and Contributor Insights.
type Toggle struct {
	Enabled bool `json:"on"`
	// ChangedAt is when it was last enabled, disabled or changed (Unix
	// ns); Settled is when that change completes (ENABLING → ENABLED,
	// DISABLING → DISABLED).
	ChangedAt int64 `json:"at"`
	Settled   int64 `json:"settled,omitempty"`
}

// NewToggle returns a setting switched on or off at now that settles
// after delay.
func NewToggle(on bool, now time.Time, delay time.Duration) Toggle {
	return Toggle{Enabled: on, ChangedAt: now.UnixNano(), Settled: now.Add(delay).UnixNano()}
}

// Statuses of a Toggle (DynamoDB's TimeToLiveStatus and
// ContributorInsightsStatus share them).
const (
	Enabling  = "ENABLING"
	Enabled   = "ENABLED"
	Disabling = "DISABLING"
	Disabled  = "DISABLED"
)

// TTL statuses.
const (
	TTLEnabling  = Enabling
	TTLEnabled   = Enabled
	TTLDisabling = Disabling
	TTLDisabled  = Disabled
)

// status returns the status at time now.
func (g *Toggle) status(now time.Time) string {
	switch {
	case g.Enabled && now.UnixNano() < g.Settled:
		return Enabling
	case g.Enabled:
		return Enabled
	case now.UnixNano() < g.Settled:
		return Disabling
	}
	return Disabled
}

// Status returns the TTL status at time now (DISABLED for nil).
func (t *TTL) Status(now time.Time) string {
	if t == nil {
		return Disabled
	}
	return t.status(now)
}

// Insights is the Contributor Insights setting of a table or a GSI.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateContributorInsights.html;
// states in docs/research-contributor-insights.md §3.2.
type Insights struct {
	Toggle
	// Mode is ACCESSED_AND_THROTTLED_KEYS or THROTTLED_KEYS.
	Mode string `json:"mode"`
	// RulesCreated is when the current rules were created (Unix
	// milliseconds): the suffix of their names.
	RulesCreated int64 `json:"rules"`
}

// Contributor Insights modes.
const (
	InsightsAccessedAndThrottled = "ACCESSED_AND_THROTTLED_KEYS"
	InsightsThrottledOnly        = "THROTTLED_KEYS"
)

// Status returns the status at time now (DISABLED for nil).
func (in *Insights) Status(now time.Time) string {
	if in == nil {
		return Disabled
	}
	return in.status(now)
}

// PITR is a table's point-in-time recovery (continuous backups) setting.
// dynago stores and reports it; restoring is not implemented.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PointInTimeRecoveryDescription.html
type PITR struct {
	Enabled bool `json:"on"`
	// RecoveryPeriodInDays is 1 to 35 (35 by default).
	RecoveryPeriodInDays int64 `json:"days,omitempty"`
	// EnabledAt is when it was last enabled (Unix ns).
	EnabledAt int64 `json:"at,omitempty"`
}

// Projection types.
const (
	ProjectAll      = "ALL"
	ProjectKeysOnly = "KEYS_ONLY"
	ProjectInclude  = "INCLUDE"
)

// Index statuses.
const (
	IndexCreating = "CREATING"
	IndexActive   = "ACTIVE"
	IndexDeleting = "DELETING"
	IndexUpdating = "UPDATING"
)

// MaxIndexNumber is the largest index number. The three spaces above it
// are reserved: keycodec.Space{Index: 0xFFFD} marks items transactions
// wrote, {Index: 0xFFFE} queues GSI changes not yet visible (the
// engine's GSILag), {Index: 0xFFFF} holds item-collection sizes.
const MaxIndexNumber = 0xFFFC

// Index is a secondary index's stored description.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GlobalSecondaryIndexDescription.html
type Index struct {
	Name   string `json:"name"`
	Number uint16 `json:"num"`
	Local  bool   `json:"local,omitempty"`
	// KeySchema lists the partition key attributes (HASH, one to four)
	// and then the sort key attributes (RANGE, up to four; LSIs exactly
	// one of each).
	KeySchema []KeyElement `json:"keySchema"`
	// Projection is ALL, KEYS_ONLY or INCLUDE; NonKeyAttributes are the
	// INCLUDE attributes.
	Projection         string   `json:"proj"`
	NonKeyAttributes   []string `json:"nonKey,omitempty"`
	ReadCapacityUnits  int64    `json:"rcu,omitempty"`
	WriteCapacityUnits int64    `json:"wcu,omitempty"`
	// Throughput remembers a GSI's provisioned throughput changes; each
	// GSI has its own decrease budget.
	Throughput           ThroughputChanges `json:"pt,omitzero"`
	MaxReadRequestUnits  int64             `json:"maxRRU,omitempty"`
	MaxWriteRequestUnits int64             `json:"maxWRU,omitempty"`
	// Backfilling is set while an index added by UpdateTable is being
	// filled from the table's existing items; the index is CREATING and
	// cannot be read until the backfill ends.
	Backfilling bool `json:"backfilling,omitempty"`
	// ActiveAt is when a new index may become ACTIVE at the earliest
	// (Unix nanoseconds; the engine's CreateDelay).
	ActiveAt int64 `json:"activeAt,omitempty"`
	// Insights is the GSI's Contributor Insights setting; nil when never
	// set.
	Insights *Insights `json:"insights,omitempty"`
}

// Status returns the index's status at time now.
func (ix *Index) Status(now time.Time) string {
	if ix.Backfilling || (ix.ActiveAt != 0 && now.UnixNano() < ix.ActiveAt) {
		return IndexCreating
	}
	return IndexActive
}

// HashKeys returns the index's partition key attribute names.
func (ix *Index) HashKeys() []KeyElement {
	n := 0
	for n < len(ix.KeySchema) && ix.KeySchema[n].KeyType == "HASH" {
		n++
	}
	return ix.KeySchema[:n]
}

// RangeKeys returns the index's sort key attribute names.
func (ix *Index) RangeKeys() []KeyElement { return ix.KeySchema[len(ix.HashKeys()):] }

// IsKeyAttribute reports whether name is one of the index's own key
// attributes.
func (ix *Index) IsKeyAttribute(name string) bool {
	for _, k := range ix.KeySchema {
		if k.AttributeName == name {
			return true
		}
	}
	return false
}

// Indexes returns every secondary index of the table, LSIs first.
func (t *Table) Indexes() []*Index {
	if len(t.GSIs) == 0 {
		return t.LSIs
	}
	if len(t.LSIs) == 0 {
		return t.GSIs
	}
	return append(append(make([]*Index, 0, len(t.LSIs)+len(t.GSIs)), t.LSIs...), t.GSIs...)
}

// Index returns the secondary index named name, or nil.
func (t *Table) Index(name string) *Index {
	for _, ix := range t.Indexes() {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// SSE is a table's server-side encryption setting.
type SSE struct {
	SSEType        string `json:"type"`
	KMSMasterKeyID string `json:"kmsKey,omitempty"`
}

// Tag is a resource tag.
type Tag struct {
	Key   string `json:"k"`
	Value string `json:"v"`
}

// Status returns the table's status at time now.
func (t *Table) Status(now time.Time) string {
	if t.ActiveAt != 0 && now.UnixNano() < t.ActiveAt {
		return StatusCreating
	}
	return StatusActive
}

// AttributeType returns the declared type of a key attribute, or Invalid.
func (t *Table) AttributeType(name string) attr.Kind {
	for _, d := range t.AttributeDefinitions {
		if d.AttributeName == name {
			return attr.KindFromString(d.AttributeType)
		}
	}
	return attr.Invalid
}

// IsDefined reports whether name has an attribute definition.
func (t *Table) IsDefined(name string) bool {
	for _, d := range t.AttributeDefinitions {
		if d.AttributeName == name {
			return true
		}
	}
	return false
}

// HashKey returns the partition key attribute's name and type.
func (t *Table) HashKey() (string, attr.Kind) {
	name := t.KeySchema[0].AttributeName
	return name, t.AttributeType(name)
}

// RangeKey returns the sort key attribute's name and type; ok is false for
// a table without a sort key.
func (t *Table) RangeKey() (name string, kind attr.Kind, ok bool) {
	if len(t.KeySchema) < 2 {
		return "", attr.Invalid, false
	}
	name = t.KeySchema[1].AttributeName
	return name, t.AttributeType(name), true
}

// IsKeyAttribute reports whether name is one of the table's key
// attributes.
func (t *Table) IsKeyAttribute(name string) bool {
	for _, k := range t.KeySchema {
		if k.AttributeName == name {
			return true
		}
	}
	return false
}

// Storage keys.
var (
	counterKey  = []byte("c/n")
	tablePrefix = []byte("c/t/")
)

// IsKey reports whether a storage key belongs to the catalog (the table
// descriptors and the table-number counter). Every request reads the
// catalog and few write it, so the store may cache these keys.
func IsKey(key []byte) bool { return len(key) >= 2 && key[0] == 'c' && key[1] == '/' }

// TableKey returns the storage key of a table's descriptor.
func TableKey(name string) []byte {
	return append(append([]byte(nil), tablePrefix...), name...)
}

// ErrNotFound is returned when a table does not exist.
var ErrNotFound = errors.New("catalog: table not found")

// Get reads a table's descriptor in tx. It returns the raw stored bytes as
// well, so that callers can cache the decoded Table keyed by them.
func Get(tx storage.Txn, name string) (*Table, []byte, error) {
	raw, err := tx.Get(TableKey(name))
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read table %q: %w", name, err)
	}
	t, err := Decode(raw)
	return t, raw, err
}

// Decode decodes a stored descriptor.
func Decode(raw []byte) (*Table, error) {
	var t Table
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("decode table descriptor: %w", err)
	}
	return &t, nil
}

// Put writes a table's descriptor in tx.
func Put(tx storage.Txn, t *Table) error {
	raw, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return tx.Set(TableKey(t.Name), raw)
}

// Delete removes a table's descriptor in tx.
func Delete(tx storage.Txn, name string) error {
	return tx.Delete(TableKey(name))
}

// NextNumber allocates a new table number in tx.
func NextNumber(tx storage.Txn) (uint64, error) {
	var n uint64
	raw, err := tx.Get(counterKey)
	switch {
	case errors.Is(err, storage.ErrNotFound):
	case err != nil:
		return 0, err
	case len(raw) == 8:
		n = binary.BigEndian.Uint64(raw)
	default:
		return 0, errors.New("catalog: corrupt table counter")
	}
	n++
	return n, tx.Set(counterKey, binary.BigEndian.AppendUint64(nil, n))
}

// List returns table names in byte order, starting after exclusiveStart
// (if not empty), at most limit of them (0 means no limit). more reports
// whether further names follow.
func List(tx storage.Txn, exclusiveStart string, limit int) (names []string, more bool, err error) {
	lower := TableKey("")
	if exclusiveStart != "" {
		lower = append(TableKey(exclusiveStart), 0)
	}
	upper := append([]byte(nil), tablePrefix...)
	upper[len(upper)-1]++
	it, err := tx.Scan(lower, upper, false)
	if err != nil {
		return nil, false, err
	}
	for it.Next() {
		if limit > 0 && len(names) == limit {
			more = true
			break
		}
		names = append(names, string(it.Key()[len(tablePrefix):]))
	}
	return names, more, it.Close()
}

// ThroughputChanges is what DynamoDB keeps of a table's or GSI's
// provisioned throughput changes: when it last rose and fell (Unix ns, 0:
// never) and how many decreases fell on the UTC day of the last one. It
// backs ProvisionedThroughputDescription's LastIncreaseDateTime,
// LastDecreaseDateTime and NumberOfDecreasesToday, and the decrease
// budget.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ProvisionedThroughputDescription.html
type ThroughputChanges struct {
	LastIncrease int64 `json:"inc,omitempty"`
	LastDecrease int64 `json:"dec,omitempty"`
	Decreases    int64 `json:"decs,omitempty"`
}

// DecreasesToday is the number of decreases on now's UTC day.
func (c ThroughputChanges) DecreasesToday(now time.Time) int64 {
	if c.LastDecrease == 0 || !SameUTCDay(time.Unix(0, c.LastDecrease), now) {
		return 0
	}
	return c.Decreases
}

// SameUTCDay reports whether a and b fall on one UTC calendar day.
func SameUTCDay(a, b time.Time) bool {
	ay, am, ad := a.UTC().Date()
	by, bm, bd := b.UTC().Date()
	return ay == by && am == bm && ad == bd
}
