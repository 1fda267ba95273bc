package engine

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/api"
)

// TestControlPlane: DescribeLimits, DescribeEndpoints, continuous
// backups, Kinesis destinations and replica auto scaling answer as
// DynamoDB does (docs/research-control-plane.md, live probes).
func TestControlPlane(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	secs := func(d time.Duration) string {
		return strconv.FormatFloat(epochSeconds(clock.Now().Add(d).UnixNano()), 'f', -1, 64)
	}
	enabledAt := secs(0)
	ops := map[string]answerFunc{
		"limits":           answer((*Engine).DescribeLimits),
		"endpoints":        answer((*Engine).DescribeEndpoints),
		"describe-backups": answer((*Engine).DescribeContinuousBackups),
		"update-backups":   answer((*Engine).UpdateContinuousBackups),
		"kinesis":          answer((*Engine).DescribeKinesisStreamingDestination),
		"replica-scaling":  answer((*Engine).DescribeTableReplicaAutoScaling),
	}
	walkAnswers(t, e, clock, ops, []answerStep{
		{"limits", `{}`, `{"AccountMaxReadCapacityUnits":80000,"AccountMaxWriteCapacityUnits":80000,"TableMaxReadCapacityUnits":40000,"TableMaxWriteCapacityUnits":40000}`, 0},
		{"endpoints", `{}`, `{"Endpoints":[{"Address":"dynamodb.us-east-1.amazonaws.com","CachePeriodInMinutes":1440}]}`, 0},
		{"describe-backups", `{"TableName":"accounts"}`, `{"ContinuousBackupsDescription":{"ContinuousBackupsStatus":"ENABLED","PointInTimeRecoveryDescription":{"PointInTimeRecoveryStatus":"DISABLED"}}}`, 0},
		{"update-backups", `{"TableName":"accounts","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true}}`, `{"ContinuousBackupsDescription":{"ContinuousBackupsStatus":"ENABLED","PointInTimeRecoveryDescription":{"PointInTimeRecoveryStatus":"ENABLED","RecoveryPeriodInDays":35,"EarliestRestorableDateTime":` + enabledAt + `,"LatestRestorableDateTime":` + enabledAt + `}}}`, 10 * time.Minute},
		// Latest trails now by five minutes; enabling again keeps the start.
		{"update-backups", `{"TableName":"arn:aws:dynamodb:us-east-1:000000000000:table/accounts","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true,"RecoveryPeriodInDays":7}}`, `{"ContinuousBackupsDescription":{"ContinuousBackupsStatus":"ENABLED","PointInTimeRecoveryDescription":{"PointInTimeRecoveryStatus":"ENABLED","RecoveryPeriodInDays":7,"EarliestRestorableDateTime":` + enabledAt + `,"LatestRestorableDateTime":` + secs(5*time.Minute) + `}}}`, 0},
		{"update-backups", `{"TableName":"accounts","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":false,"RecoveryPeriodInDays":7}}`, `ValidationException: Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.`, 0},
		{"update-backups", `{"TableName":"accounts","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":false}}`, `{"ContinuousBackupsDescription":{"ContinuousBackupsStatus":"ENABLED","PointInTimeRecoveryDescription":{"PointInTimeRecoveryStatus":"DISABLED"}}}`, 0},
		{"update-backups", `{"TableName":"accounts","PointInTimeRecoverySpecification":{}}`, `ValidationException: 1 validation error detected: Value null at 'pointInTimeRecoverySpecification.pointInTimeRecoveryEnabled' failed to satisfy constraint: Member must not be null`, 0},
		{"update-backups", `{"TableName":"accounts","PointInTimeRecoverySpecification":{"PointInTimeRecoveryEnabled":true,"RecoveryPeriodInDays":0}}`, `ValidationException: 1 validation error detected: Value '0' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value greater than or equal to 1`, 0},
		{"describe-backups", `{"TableName":"nope"}`, `TableNotFoundException: Table not found: nope`, 0},
		{"kinesis", `{"TableName":"accounts"}`, `{"TableName":"accounts","KinesisDataStreamDestinations":[]}`, 0},
		{"kinesis", `{"TableName":"nope"}`, `ResourceNotFoundException: Requested resource not found: Table: nope not found`, 0},
		{"replica-scaling", `{"TableName":"accounts"}`, `ResourceNotFoundException: Global table with name: 'accounts' does not exist.`, 0},
	})
	// DescribeEndpoints names the host the request came to.
	out, err := e.DescribeEndpoints(WithHost(context.Background(), "127.0.0.1:8000"), &api.DescribeEndpointsInput{})
	if err != nil || out.Address != "127.0.0.1:8000" {
		t.Fatalf("endpoint %+v %v", out, err)
	}
}

// TestUpdateTable_DeletionProtection: UpdateTable turns deletion
// protection on (DeleteTable is refused) and off, ACTIVE throughout; it
// must be the request's only change.
func TestUpdateTable_DeletionProtection(t *testing.T) {
	e, _ := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	out := mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"accounts","DeletionProtectionEnabled":true}`)
	if !out.Table.DeletionProtectionEnabled || out.Table.TableStatus != "ACTIVE" {
		t.Fatalf("response %+v", out.Table)
	}
	if _, err := run(e, (*Engine).DeleteTable, `{"TableName":"accounts"}`); err == nil || !strings.Contains(err.Error(), "currently protected against deletion") {
		t.Fatalf("DeleteTable of a protected table: %v", err)
	}
	if _, err := run(e, (*Engine).UpdateTable, `{"TableName":"accounts","DeletionProtectionEnabled":false,"StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"}}`); err == nil ||
		err.Error() != "ValidationException: One or more parameter values were invalid: DeletionProtection modification must be the only operation in the request" {
		t.Fatalf("combined: %v", err)
	}
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"accounts","DeletionProtectionEnabled":false}`)
	mustRun(t, e, (*Engine).DeleteTable, `{"TableName":"accounts"}`)
}

// TestUpdateTable_OnDemandThroughput: caps merge member by member, -1
// removes one, the table stays ACTIVE; bad values and combinations get
// DynamoDB's messages (docs/research-control-plane.md §6.4).
func TestUpdateTable_OnDemandThroughput(t *testing.T) {
	e, _ := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	mustRun(t, e, (*Engine).CreateTable, `{"TableName":"prov","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}`)
	caps := func() (int64, int64) {
		d := mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"accounts"}`).Table
		return d.MaxReadRequestUnits, d.MaxWriteRequestUnits
	}
	out := mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"accounts","OnDemandThroughput":{"MaxReadRequestUnits":2000,"MaxWriteRequestUnits":500}}`)
	if out.Table.TableStatus != "ACTIVE" {
		t.Fatalf("status %s", out.Table.TableStatus)
	}
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"accounts","BillingMode":"PAY_PER_REQUEST","OnDemandThroughput":{"MaxReadRequestUnits":3000}}`)
	if r, w := caps(); r != 3000 || w != 500 {
		t.Fatalf("after merging the read cap: %d/%d", r, w)
	}
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"accounts","OnDemandThroughput":{"MaxWriteRequestUnits":-1}}`)
	if r, w := caps(); r != 3000 || w != 0 {
		t.Fatalf("after removing the write cap: %d/%d", r, w)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"TableName":"accounts","OnDemandThroughput":{"MaxReadRequestUnits":0}}`, "ValidationException: One or more parameter values were invalid: Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range"},
		{`{"TableName":"accounts","OnDemandThroughput":{"MaxWriteRequestUnits":-2}}`, "ValidationException: One or more parameter values were invalid: Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range"},
		{`{"TableName":"accounts","OnDemandThroughput":{"MaxReadRequestUnits":40001}}`, "LimitExceededException: Subscriber limit exceeded: Requested MaxReadRequestUnits for OnDemandThroughput for table exceeds TableMaxReadCapacityUnits of the account in region us-east-1"},
		{`{"TableName":"accounts","DeletionProtectionEnabled":true,"OnDemandThroughput":{"MaxReadRequestUnits":5}}`, "ValidationException: One or more parameter values were invalid: DeletionProtection modification must be the only operation in the request"},
		{`{"TableName":"accounts","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"KEYS_ONLY"},"OnDemandThroughput":{"MaxReadRequestUnits":5}}`, "ValidationException: One or more parameter values were invalid: OnDemandThroughput can only be combined with BillingMode in an UpdateTable request"},
		{`{"TableName":"prov","OnDemandThroughput":{"MaxReadRequestUnits":5}}`, "ValidationException: One or more parameter values were invalid: MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED"},
	} {
		if _, err := run(e, (*Engine).UpdateTable, tc.body); err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.body, err, tc.want)
		}
	}
	if r, w := caps(); r != 3000 || w != 0 {
		t.Fatalf("refused updates changed the caps: %d/%d", r, w)
	}
}

// TestUpdateTable_BillingAndThroughput: switches between PROVISIONED and
// PAY_PER_REQUEST and throughput changes, with DynamoDB's rules and
// messages (docs/research-control-plane.md §6.2, §6.3).
func TestUpdateTable_BillingAndThroughput(t *testing.T) {
	e, _ := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, `{"TableName":"bill","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
	 "ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5},
	 "GlobalSecondaryIndexes":[{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"},"ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}]}`)
	describe := func() (mode string, r, w int64) {
		d := mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"bill"}`).Table
		return cmp.Or(d.BillingMode, "PROVISIONED"), d.ReadCapacityUnits, d.WriteCapacityUnits
	}
	errs := []struct{ body, want string }{
		{`{"TableName":"bill","ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}`, "ValidationException: The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."},
		{`{"TableName":"bill","BillingMode":"PROVISIONED"}`, "ValidationException: One or more parameter values were invalid: ProvisionedThroughput must be specified when BillingMode is PROVISIONED"},
		{`{"TableName":"bill","BillingMode":"PAY_PER_REQUEST","ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}`, "ValidationException: One or more parameter values were invalid: ProvisionedThroughput cannot be specified when BillingMode is PAY_PER_REQUEST"},
		{`{"TableName":"bill","ProvisionedThroughput":{"ReadCapacityUnits":0,"WriteCapacityUnits":0}}`, "ValidationException: 2 validation errors detected: Value '0' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1; Value '0' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: Member must have value greater than or equal to 1"},
	}
	for _, tc := range errs {
		if _, err := run(e, (*Engine).UpdateTable, tc.body); err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.body, err, tc.want)
		}
	}
	out := mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"bill","ProvisionedThroughput":{"ReadCapacityUnits":10,"WriteCapacityUnits":20}}`)
	if out.Table.TableStatus != "UPDATING" || out.Table.ReadCapacityUnits != 5 {
		t.Fatalf("response %s %d: want UPDATING with the old throughput", out.Table.TableStatus, out.Table.ReadCapacityUnits)
	}
	if m, r, w := describe(); m != "PROVISIONED" || r != 10 || w != 20 {
		t.Fatalf("after the change: %s %d/%d", m, r, w)
	}
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"bill","BillingMode":"PAY_PER_REQUEST"}`)
	if m, r, w := describe(); m != "PAY_PER_REQUEST" || r != 0 || w != 0 {
		t.Fatalf("after switching to on-demand: %s %d/%d", m, r, w)
	}
	if _, err := run(e, (*Engine).UpdateTable, `{"TableName":"bill","ProvisionedThroughput":{"ReadCapacityUnits":1,"WriteCapacityUnits":1}}`); err == nil ||
		err.Error() != "ValidationException: One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST" {
		t.Fatalf("throughput on an on-demand table: %v", err)
	}
	if _, err := run(e, (*Engine).UpdateTable, `{"TableName":"bill","BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":3,"WriteCapacityUnits":3}}`); err == nil ||
		err.Error() != "ValidationException: One or more parameter values were invalid: ProvisionedThroughput must be specified for index: byG" {
		t.Fatalf("switch back without the GSI's throughput: %v", err)
	}
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"bill","BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":3,"WriteCapacityUnits":3},
	 "GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"byG","ProvisionedThroughput":{"ReadCapacityUnits":2,"WriteCapacityUnits":2}}}]}`)
	if m, r, w := describe(); m != "PROVISIONED" || r != 3 || w != 3 {
		t.Fatalf("after switching back: %s %d/%d", m, r, w)
	}
}

// TestUpdateTable_TableClass: a switch answers UPDATING with the old
// class, then DescribeTable shows the new one with its LastUpdateDateTime;
// STANDARD on a table never set changes nothing; a bad class and a
// combined change get DynamoDB's messages (docs/research-control-plane.md
// §6.6).
func TestUpdateTable_TableClass(t *testing.T) {
	e, _ := openEngine(t, Options{}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	out := mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"accounts","TableClass":"STANDARD"}`)
	if out.Table.TableStatus != "UPDATING" || out.Table.TableClass != "" {
		t.Fatalf("STANDARD on a table never set: %s %q", out.Table.TableStatus, out.Table.TableClass)
	}
	if d := mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"accounts"}`).Table; d.TableClass != "" {
		t.Fatalf("no-op set the class: %q", d.TableClass)
	}
	out = mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"accounts","TableClass":"STANDARD_INFREQUENT_ACCESS"}`)
	if out.Table.TableStatus != "UPDATING" || out.Table.TableClass != "" {
		t.Fatalf("switch response: %s %q, want UPDATING with the old class", out.Table.TableStatus, out.Table.TableClass)
	}
	body := string(mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"accounts"}`).AppendJSON(nil))
	if !strings.Contains(body, `"TableClassSummary":{"TableClass":"STANDARD_INFREQUENT_ACCESS","LastUpdateDateTime":`) {
		t.Fatalf("describe: %s", body)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"TableName":"accounts","TableClass":"GLACIER"}`, "ValidationException: Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS]."},
		{`{"TableName":"accounts","TableClass":"STANDARD","DeletionProtectionEnabled":true}`, "ValidationException: One or more parameter values were invalid: TableClass modification must be the only operation in the request"},
	} {
		if _, err := run(e, (*Engine).UpdateTable, tc.body); err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.body, err, tc.want)
		}
	}
}

// TestUpdateTable_ChangeBudgets: DynamoDB's limits on capacity changes,
// with its messages (docs/research-control-plane.md §6.2, §6.3, §6.6):
// four throughput decreases a UTC day and then one an hour, reported as
// NumberOfDecreasesToday with LastIncrease/LastDecreaseDateTime; a separate
// budget per GSI; four switches to on-demand in 24 hours; two TableClass
// changes in 30 days.
func TestUpdateTable_ChangeBudgets(t *testing.T) {
	clock := newFakeClock()
	clock.now = time.Date(2026, 10, 8, 20, 0, 0, 0, time.UTC)
	e, _ := openEngine(t, Options{Now: clock.Now}, "")
	mustRun(t, e, (*Engine).CreateTable, `{"TableName":"budget","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
	 "ProvisionedThroughput":{"ReadCapacityUnits":100,"WriteCapacityUnits":100},
	 "GlobalSecondaryIndexes":[{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"},"ProvisionedThroughput":{"ReadCapacityUnits":50,"WriteCapacityUnits":50}}]}`)
	pt := func(r, w int) string {
		return fmt.Sprintf(`{"TableName":"budget","ProvisionedThroughput":{"ReadCapacityUnits":%d,"WriteCapacityUnits":%d}}`, r, w)
	}
	describe := func() string {
		return string(mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"budget"}`).AppendJSON(nil))
	}
	// A fresh table: no change times, no decreases.
	if d := describe(); !strings.Contains(d, `"ProvisionedThroughput":{"NumberOfDecreasesToday":0,"ReadCapacityUnits":100,"WriteCapacityUnits":100}`) {
		t.Fatalf("fresh: %s", d)
	}
	// An increase sets LastIncreaseDateTime only.
	mustRun(t, e, (*Engine).UpdateTable, pt(200, 100))
	if d := describe(); !strings.Contains(d, `"ProvisionedThroughput":{"LastIncreaseDateTime":1791489600,"NumberOfDecreasesToday":0,"ReadCapacityUnits":200`) {
		t.Fatalf("after an increase: %s", d)
	}
	// Four decreases (one of them lowering both units: one decrease) pass;
	// the response shows the count before its own decrease.
	for i, units := range [][2]int{{190, 100}, {180, 90}, {170, 90}, {160, 90}} {
		clock.Advance(10 * time.Minute)
		out := mustRun(t, e, (*Engine).UpdateTable, pt(units[0], units[1]))
		if got := out.Table.Throughput.DecreasesToday; got != int64(i) {
			t.Fatalf("decrease %d: the response says %d before it", i+1, got)
		}
	}
	if d := describe(); !strings.Contains(d, `"LastDecreaseDateTime":1791492000,"NumberOfDecreasesToday":4,"ReadCapacityUnits":160,"WriteCapacityUnits":90`) {
		t.Fatalf("after four decreases: %s", d)
	}
	// The fifth within the hour: refused until an hour after the fourth.
	clock.Advance(30 * time.Minute) // 21:10
	const limited = "LimitExceededException: Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. After the first 4 decreases, each subsequent decrease in the same UTC day can be performed at most once every 3600 seconds. Number of decreases today: 4. "
	want := limited + "Last decrease at Thursday, October 8, 2026 at 8:40:00 PM Coordinated Universal Time. Next decrease can be made at Thursday, October 8, 2026 at 9:40:00 PM Coordinated Universal Time"
	if _, err := run(e, (*Engine).UpdateTable, pt(150, 90)); err == nil || err.Error() != want {
		t.Fatalf("fifth decrease:\n got %v\nwant %s", err, want)
	}
	// An increase is never limited.
	mustRun(t, e, (*Engine).UpdateTable, pt(160, 95))
	clock.Advance(30 * time.Minute) // 21:40: an hour after the fourth
	mustRun(t, e, (*Engine).UpdateTable, pt(160, 94))
	// Late in the day the next chance is midnight, and the text ends with a period.
	clock.Advance(2*time.Hour + 10*time.Minute) // 23:50
	mustRun(t, e, (*Engine).UpdateTable, pt(160, 93))
	clock.Advance(time.Minute)
	want = limited[:len(limited)-len("4. ")] + "6. Last decrease at Thursday, October 8, 2026 at 11:50:00 PM Coordinated Universal Time. Next decrease can be made at Friday, October 9, 2026 at 12:00:00 AM Coordinated Universal Time."
	if _, err := run(e, (*Engine).UpdateTable, pt(160, 92)); err == nil || err.Error() != want {
		t.Fatalf("late decrease:\n got %v\nwant %s", err, want)
	}
	// A new UTC day starts a new count.
	clock.Advance(10 * time.Minute)
	if d := describe(); !strings.Contains(d, `"NumberOfDecreasesToday":0,"ReadCapacityUnits":160,"WriteCapacityUnits":93`) {
		t.Fatalf("next day: %s", d)
	}
	mustRun(t, e, (*Engine).UpdateTable, pt(160, 92))

	// The GSI has a budget of its own.
	gsi := func(r, w int) string {
		return fmt.Sprintf(`{"TableName":"budget","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"byG","ProvisionedThroughput":{"ReadCapacityUnits":%d,"WriteCapacityUnits":%d}}}]}`, r, w)
	}
	for _, r := range []int{49, 48, 47, 46} {
		mustRun(t, e, (*Engine).UpdateTable, gsi(r, 50))
	}
	if _, err := run(e, (*Engine).UpdateTable, gsi(45, 50)); err == nil || !strings.Contains(err.Error(), "Number of decreases today: 4.") {
		t.Fatalf("fifth GSI decrease: %v", err)
	}
	if d := describe(); !strings.Contains(d, `"NumberOfDecreasesToday":4,"ReadCapacityUnits":46,"WriteCapacityUnits":50`) ||
		!strings.Contains(d, `"NumberOfDecreasesToday":1,"ReadCapacityUnits":160,"WriteCapacityUnits":92`) {
		t.Fatalf("table and GSI budgets: %s", d)
	}

	// Four switches to on-demand in 24 hours; the fifth waits for the first
	// to age out. Switching back to provisioned is never limited.
	toPPR := `{"TableName":"budget","BillingMode":"PAY_PER_REQUEST"}`
	toProv := `{"TableName":"budget","BillingMode":"PROVISIONED","ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5},"GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"byG","ProvisionedThroughput":{"ReadCapacityUnits":5,"WriteCapacityUnits":5}}}]}`
	for range 4 {
		mustRun(t, e, (*Engine).UpdateTable, toPPR)
		clock.Advance(time.Hour)
		mustRun(t, e, (*Engine).UpdateTable, toProv)
	}
	if _, err := run(e, (*Engine).UpdateTable, toPPR); err == nil || err.Error() != "LimitExceededException: Subscriber limit exceeded: Update to PayPerRequest mode are limited to 4 times in 1 day(s)." {
		t.Fatalf("fifth switch: %v", err)
	}
	clock.Advance(21 * time.Hour)
	mustRun(t, e, (*Engine).UpdateTable, toPPR)

	// Two TableClass changes in 30 days; then even the current class is refused.
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"budget","TableClass":"STANDARD_INFREQUENT_ACCESS"}`)
	clock.Advance(time.Hour)
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"budget","TableClass":"STANDARD"}`)
	for _, class := range []string{"STANDARD_INFREQUENT_ACCESS", "STANDARD"} {
		if _, err := run(e, (*Engine).UpdateTable, `{"TableName":"budget","TableClass":"`+class+`"}`); err == nil || err.Error() != "LimitExceededException: Subscriber limit exceeded: Updates to TableClass are limited to 2 times in 30 day(s)." {
			t.Fatalf("third TableClass change (%s): %v", class, err)
		}
	}
	clock.Advance(30 * 24 * time.Hour)
	mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"budget","TableClass":"STANDARD_INFREQUENT_ACCESS"}`)
}

// TestProvisionedMaximum: provisioned throughput above the per-table
// maximum DescribeLimits reports (40,000 units, for the table and each
// GSI) is DynamoDB's LimitExceededException, on CreateTable and on
// UpdateTable; GSI throughput sent with a switch to on-demand has its own
// message (docs/research-control-plane.md §1, §6.8).
func TestProvisionedMaximum(t *testing.T) {
	e, _ := openEngine(t, Options{}, "")
	const over = "LimitExceededException: The requested ReadCapacityUnits, 40001, is above the per table maximum for the account in us-east-1. Per table maximum: 40000. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
	table := func(name, tableUnits, gsiUnits string) string {
		return `{"TableName":"` + name + `","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"}],
		 "ProvisionedThroughput":` + tableUnits + `,"GlobalSecondaryIndexes":[{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"},"ProvisionedThroughput":` + gsiUnits + `}]}`
	}
	for _, tc := range []struct{ body, want string }{
		{table("big1", `{"ReadCapacityUnits":40001,"WriteCapacityUnits":5}`, `{"ReadCapacityUnits":1,"WriteCapacityUnits":1}`), over},
		{table("big2", `{"ReadCapacityUnits":5,"WriteCapacityUnits":5}`, `{"ReadCapacityUnits":40001,"WriteCapacityUnits":1}`), over},
		{table("big3", `{"ReadCapacityUnits":5,"WriteCapacityUnits":100000}`, `{"ReadCapacityUnits":1,"WriteCapacityUnits":1}`), "LimitExceededException: The requested WriteCapacityUnits, 100000, is above"},
	} {
		if _, err := run(e, (*Engine).CreateTable, tc.body); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.body, err, tc.want)
		}
	}
	mustRun(t, e, (*Engine).CreateTable, table("okay", `{"ReadCapacityUnits":40000,"WriteCapacityUnits":40000}`, `{"ReadCapacityUnits":40000,"WriteCapacityUnits":40000}`))
	for _, tc := range []struct{ body, want string }{
		{`{"TableName":"okay","ProvisionedThroughput":{"ReadCapacityUnits":40001,"WriteCapacityUnits":5}}`, over},
		{`{"TableName":"okay","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"byG","ProvisionedThroughput":{"ReadCapacityUnits":40001,"WriteCapacityUnits":5}}}]}`, over},
		{`{"TableName":"okay","BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexUpdates":[{"Update":{"IndexName":"byG","ProvisionedThroughput":{"ReadCapacityUnits":6,"WriteCapacityUnits":6}}}]}`,
			"ValidationException: One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified for index: byG when BillingMode is PAY_PER_REQUEST"},
	} {
		if _, err := run(e, (*Engine).UpdateTable, tc.body); err == nil || err.Error() != tc.want {
			t.Errorf("%s:\n got %v\nwant %s", tc.body, err, tc.want)
		}
	}
	// A switch's response has no LastUpdateToPayPerRequestDateTime yet;
	// DescribeTable shows it.
	out := mustRun(t, e, (*Engine).UpdateTable, `{"TableName":"okay","BillingMode":"PAY_PER_REQUEST"}`)
	if out.Table.BillingMode != "PAY_PER_REQUEST" || out.Table.LastUpdateToPayPerRequestDateTime != 0 {
		t.Errorf("switch response: %+v", out.Table)
	}
	if d := mustRun(t, e, (*Engine).DescribeTable, `{"TableName":"okay"}`).Table; d.LastUpdateToPayPerRequestDateTime == 0 {
		t.Errorf("DescribeTable after the switch: no LastUpdateToPayPerRequestDateTime")
	}
}
