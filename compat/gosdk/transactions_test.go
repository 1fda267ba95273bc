package gosdk

// TransactWriteItems and TransactGetItems under concurrency, and across a
// crash, through aws-sdk-go-v2 against a real "dynago serve". The reference
// is DynamoDB's documented guarantee (developer guide, "Amazon DynamoDB
// Transactions: How it works"): the actions of a TransactWriteItems call are
// applied all-or-nothing and are serializable with other transactions and
// with TransactGetItems, which returns a consistent snapshot of its items.
// A transaction that collides with another is cancelled with a
// TransactionConflict reason; one whose condition fails with
// ConditionalCheckFailed.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func txS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func txN(v int) types.AttributeValue    { return &types.AttributeValueMemberN{Value: strconv.Itoa(v)} }

func txCreateTable(t *testing.T, c *dynamodb.Client, name string) {
	t.Helper()
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	w := dynamodb.NewTableExistsWaiter(c, func(o *dynamodb.TableExistsWaiterOptions) { o.MinDelay = 50 * time.Millisecond })
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

func acctKey(i int) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": txS(fmt.Sprintf("ACCT#%02d", i)), "SK": txS("BAL")}
}

// cancelCodes returns the reason codes of a TransactionCanceledException, or
// ok=false for any other error.
func cancelCodes(err error) (codes []string, ok bool) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return nil, false
	}
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	return codes, true
}

// onlyCodes reports whether every code is "None" or one of allowed, and at
// least one is not "None".
func onlyCodes(codes []string, allowed ...string) bool {
	failed := false
	for _, c := range codes {
		if c == "None" {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || c == a
		}
		if !ok {
			return false
		}
		failed = true
	}
	return failed
}

func transferItems(table string, src, dst, amt int) []types.TransactWriteItem {
	return []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:                 aws.String(table),
			Key:                       acctKey(src),
			UpdateExpression:          aws.String("SET bal = bal - :a"),
			ConditionExpression:       aws.String("bal >= :a"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":a": txN(amt)},
		}},
		{Update: &types.Update{
			TableName:                 aws.String(table),
			Key:                       acctKey(dst),
			UpdateExpression:          aws.String("SET bal = bal + :a"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":a": txN(amt)},
		}},
	}
}

func balOf(t testing.TB, item map[string]types.AttributeValue) int {
	return intAttr(t, item, "bal")
}

// intAttr reads the integer attribute name of item.
func intAttr(t testing.TB, item map[string]types.AttributeValue, name string) int {
	n, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		t.Fatalf("item without a numeric %s: %v", name, item)
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTransact_BankTransfersKeepTheTotal: 16 goroutines make random
// conditional transfers between 50 accounts for 3 s while a reader takes
// TransactGetItems snapshots of all 50 (one call; the limit is 100 items).
// Every snapshot must sum to the starting total with no negative balance.
func TestTransact_BankTransfersKeepTheTotal(t *testing.T) {
	bankTransfers(t, StartServer(t, "--in-memory").Client())
}

// bankTransfers runs the bank test through clients: transfer goroutine w
// sends through clients[w % len(clients)], the reader through the first.
func bankTransfers(t *testing.T, clients ...*dynamodb.Client) {
	c := clients[0]
	const table, accounts, start = "bank", 50, 1000
	txCreateTable(t, c, table)
	for i := 0; i < accounts; i++ {
		item := acctKey(i)
		item["bal"] = txN(start)
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	const total = accounts * start

	var ok, cancelled, reads, readConflicts atomic.Int64
	var mu sync.Mutex
	var problems []string
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 10 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	deadline := time.Now().Add(3 * time.Second)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			c := clients[int(seed)%len(clients)]
			r := rand.New(rand.NewPCG(seed, 99))
			for time.Now().Before(deadline) {
				src := r.IntN(accounts)
				dst := r.IntN(accounts - 1)
				if dst >= src {
					dst++
				}
				_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: transferItems(table, src, dst, 1+r.IntN(400))})
				if err == nil {
					ok.Add(1)
					continue
				}
				if codes, isCancel := cancelCodes(err); isCancel && onlyCodes(codes, "TransactionConflict", "ConditionalCheckFailed") {
					cancelled.Add(1)
					continue
				}
				report("transfer %d->%d: %v", src, dst, err)
				return
			}
		}(uint64(w))
	}
	gets := make([]types.TransactGetItem, accounts)
	for i := range gets {
		gets[i] = types.TransactGetItem{Get: &types.Get{TableName: aws.String(table), Key: acctKey(i)}}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for time.Now().Before(deadline) {
			out, err := c.TransactGetItems(ctx, &dynamodb.TransactGetItemsInput{TransactItems: gets})
			if err != nil {
				if codes, isCancel := cancelCodes(err); isCancel && onlyCodes(codes, "TransactionConflict") {
					readConflicts.Add(1)
					continue
				}
				report("reader: %v", err)
				return
			}
			if len(out.Responses) != accounts {
				report("reader: %d responses for %d gets", len(out.Responses), accounts)
				return
			}
			sum, low := 0, 0
			for i, resp := range out.Responses {
				b := balOf(t, resp.Item)
				sum += b
				if b < low {
					low = b
				}
				if got := resp.Item["PK"].(*types.AttributeValueMemberS).Value; got != fmt.Sprintf("ACCT#%02d", i) {
					report("reader: response %d is %s (responses must follow request order)", i, got)
				}
			}
			if sum != total || low < 0 {
				report("reader: snapshot sums to %d (want %d), lowest balance %d", sum, total, low)
			}
			reads.Add(1)
		}
	}()
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	sum := 0
	for i := 0; i < accounts; i++ {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: acctKey(i), ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		b := balOf(t, out.Item)
		if b < 0 {
			t.Errorf("account %d ends at %d", i, b)
		}
		sum += b
	}
	if sum != total {
		t.Errorf("final total %d, want %d", sum, total)
	}
	if ok.Load() == 0 || reads.Load() == 0 {
		t.Errorf("no progress: %d transfers, %d snapshots", ok.Load(), reads.Load())
	}
	t.Logf("%d transfers, %d cancelled, %d snapshots, %d snapshot conflicts", ok.Load(), cancelled.Load(), reads.Load(), readConflicts.Load())
}

// TestTransact_UsernameRaceHasOneWinner: seed 001's uniqueness pattern (a
// USERNAME#<name> item and the user's profile, both Put with
// attribute_not_exists(PK)); 32 goroutines claim the same name at once.
// Exactly one transaction succeeds, and no loser's profile is written.
func TestTransact_UsernameRaceHasOneWinner(t *testing.T) {
	usernameRace(t, StartServer(t, "--in-memory").Client())
}

// usernameRace runs the username race through clients: racer i sends
// through clients[i % len(clients)].
func usernameRace(t *testing.T, clients ...*dynamodb.Client) {
	c := clients[0]
	const table, racers = "app", 32
	txCreateTable(t, c, table)
	start := make(chan struct{})
	results := make([]error, racers)
	var wg sync.WaitGroup
	for i := 0; i < racers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			_, results[i] = clients[i%len(clients)].TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{
					TableName:           aws.String(table),
					Item:                map[string]types.AttributeValue{"PK": txS("USERNAME#asha"), "SK": txS("USERNAME"), "owner": txS(fmt.Sprintf("USER#%d", i))},
					ConditionExpression: aws.String("attribute_not_exists(PK)"),
				}},
				{Put: &types.Put{
					TableName:           aws.String(table),
					Item:                map[string]types.AttributeValue{"PK": txS(fmt.Sprintf("USER#%d", i)), "SK": txS("PROFILE"), "username": txS("asha")},
					ConditionExpression: aws.String("attribute_not_exists(PK)"),
				}},
			}})
		}(i)
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range results {
		if err == nil {
			if winner >= 0 {
				t.Errorf("both racer %d and racer %d claimed the username", winner, i)
			}
			winner = i
			continue
		}
		codes, isCancel := cancelCodes(err)
		if !isCancel || len(codes) != 2 || !onlyCodes(codes, "ConditionalCheckFailed", "TransactionConflict") || codes[1] == "ConditionalCheckFailed" {
			t.Errorf("racer %d: want TransactionCanceledException [ConditionalCheckFailed|TransactionConflict, None|TransactionConflict], got %v", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("nobody claimed the username")
	}
	out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": txS("USERNAME#asha"), "SK": txS("USERNAME")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Item["owner"].(*types.AttributeValueMemberS).Value; got != fmt.Sprintf("USER#%d", winner) {
		t.Errorf("username owned by %s, but racer %d won", got, winner)
	}
	for i := 0; i < racers; i++ {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"PK": txS(fmt.Sprintf("USER#%d", i)), "SK": txS("PROFILE")}})
		if err != nil {
			t.Fatal(err)
		}
		if (out.Item != nil) != (i == winner) {
			t.Errorf("profile USER#%d exists=%v, winner is %d", i, out.Item != nil, winner)
		}
	}
}

// TestCrash_TransactionsWholeOrAbsentAfterKill: goroutines run three-item
// transactions (debit one account, credit another, Put a unique receipt
// naming both and the amount) against a --data-dir server, which is killed
// with SIGKILL mid-stream and restarted on the same directory. Afterwards
// every account's balance must equal the start plus the receipts' credits
// minus their debits (each transaction whole or absent), the total is
// unchanged, and every transaction acknowledged before the kill is there
// (the server syncs every write).
func TestCrash_TransactionsWholeOrAbsentAfterKill(t *testing.T) {
	dir := t.TempDir()
	srv := StartServer(t, "--data-dir", dir)
	c := srv.Client()
	const table, accounts, start = "bank", 20, 1000
	txCreateTable(t, c, table)
	for i := 0; i < accounts; i++ {
		item := acctKey(i)
		item["bal"] = txN(start)
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	var committed atomic.Int64
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for n := 0; ; n++ {
				src := r.IntN(accounts)
				dst := r.IntN(accounts - 1)
				if dst >= src {
					dst++
				}
				amt := 1 + r.IntN(50)
				id := fmt.Sprintf("TX#%d-%d", w, n)
				items := append(transferItems(table, src, dst, amt), types.TransactWriteItem{Put: &types.Put{
					TableName: aws.String(table),
					Item: map[string]types.AttributeValue{"PK": txS(id), "SK": txS("RECEIPT"),
						"src": txN(src), "dst": txN(dst), "amt": txN(amt)},
					ConditionExpression: aws.String("attribute_not_exists(PK)"),
				}})
				_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
				if err == nil {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
					committed.Add(1)
					continue
				}
				if codes, isCancel := cancelCodes(err); isCancel && onlyCodes(codes, "TransactionConflict", "ConditionalCheckFailed") {
					continue
				}
				return // the server is gone
			}
		}(w)
	}
	for committed.Load() < 1000 {
		time.Sleep(2 * time.Millisecond)
	}
	srv.Kill()
	wg.Wait()

	srv = StartServer(t, "--data-dir", dir)
	c = srv.Client()
	bal := make([]int, accounts)
	want := make([]int, accounts)
	for i := range want {
		want[i] = start
	}
	receipts := map[string]bool{}
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	num := func(it map[string]types.AttributeValue, name string) int {
		v, err := strconv.Atoi(it[name].(*types.AttributeValueMemberN).Value)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			pk := it["PK"].(*types.AttributeValueMemberS).Value
			if it["SK"].(*types.AttributeValueMemberS).Value == "RECEIPT" {
				receipts[pk] = true
				want[num(it, "src")] -= num(it, "amt")
				want[num(it, "dst")] += num(it, "amt")
				continue
			}
			var i int
			if _, err := fmt.Sscanf(pk, "ACCT#%d", &i); err != nil {
				t.Fatalf("unexpected item %s", pk)
			}
			bal[i] = num(it, "bal")
		}
	}
	sum := 0
	for i := range bal {
		sum += bal[i]
		if bal[i] != want[i] {
			t.Errorf("account %d: balance %d, but its receipts say %d (a transaction was partly applied)", i, bal[i], want[i])
		}
		if bal[i] < 0 {
			t.Errorf("account %d: negative balance %d", i, bal[i])
		}
	}
	if sum != accounts*start {
		t.Errorf("total after restart %d, want %d", sum, accounts*start)
	}
	missing := 0
	for id := range acked {
		if !receipts[id] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged transactions are missing after the restart", missing, len(acked))
	}
	t.Logf("%d transactions acknowledged before SIGKILL, %d receipts after restart", len(acked), len(receipts))
}

// TestTransact_TokenReplayOfTheSameInput: an application that re-sends the
// same TransactWriteItemsInput with the same ClientRequestToken (the
// documented use of the token, e.g. after a timeout) must get success and
// no second application (API reference, TransactWriteItems,
// ClientRequestToken). DynamoDB compares the request, not its bytes
// (localstack#6529, verified against AWS); aws-sdk-go-v2 writes a map's
// attributes in Go's random map order, so two sends of one input differ in
// key order (aws-sdk-go-v2#1900 shows DynamoDB Local refusing them).
func TestTransact_TokenReplayOfTheSameInput(t *testing.T) {
	srv := StartServer(t, "--in-memory")
	c := srv.Client()
	txCreateTable(t, c, "idem")
	refused := 0
	for i := 0; i < 20; i++ {
		key := map[string]types.AttributeValue{"PK": txS(fmt.Sprintf("COUNTER#%d", i)), "SK": txS("C")}
		in := &dynamodb.TransactWriteItemsInput{
			ClientRequestToken: aws.String(fmt.Sprintf("replay-%d-%d", i, time.Now().UnixNano())),
			TransactItems: []types.TransactWriteItem{
				{Put: &types.Put{TableName: aws.String("idem"), Item: map[string]types.AttributeValue{
					"PK": txS(fmt.Sprintf("ORDER#%d", i)), "SK": txS("O"), "a": txN(1), "b": txN(2), "c": txS("c"), "d": txS("d")}}},
				{Update: &types.Update{TableName: aws.String("idem"), Key: key,
					UpdateExpression:          aws.String("ADD n :one SET #l = :l, #m = :m"),
					ExpressionAttributeNames:  map[string]string{"#l": "label", "#m": "mark"},
					ExpressionAttributeValues: map[string]types.AttributeValue{":one": txN(1), ":l": txS("x"), ":m": txS("y")}}},
			},
		}
		if _, err := c.TransactWriteItems(ctx, in); err != nil {
			t.Fatal(err)
		}
		if _, err := c.TransactWriteItems(ctx, in); err != nil {
			if refused == 0 {
				t.Errorf("replay %d of the identical input: %v", i, err)
			}
			refused++
		}
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("idem"), Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		if n := out.Item["n"].(*types.AttributeValueMemberN).Value; n != "1" {
			t.Errorf("counter %d is %s after a replay, want 1 (applied once)", i, n)
		}
	}
	if refused > 0 {
		t.Errorf("%d of 20 replays of an identical input were refused", refused)
	}
}
