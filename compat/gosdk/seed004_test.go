package gosdk

// Seed 004 (../shared/seeds/004_*.txt), "The DynamoDB book" e-commerce design:
// one table (PK, SK) holding users, orders, reviews, categories and products,
// GSI1 (GSI1PK, GSI1SK) and GSI2 (Type, SK), and the worksheet's 15 access
// patterns. A deterministic dataset of a few thousand items is written with
// BatchWriteItem; every access pattern is then run through aws-sdk-go-v2,
// paginated (small Limits force many pages), and each answer is compared with
// one computed here from the generated data by filtering and sorting in memory.
//
// DynamoDB rules the expected answers follow (API reference, Query; developer
// guide, "Working with indexes"):
//   - an index holds only items that have its key attributes (sparse);
//   - a Query returns items in index sort-key order, S keys by UTF-8 bytes;
//     the order of items with equal index keys is not specified, so items with
//     equal index keys are compared as a set;
//   - LastEvaluatedKey of an index query holds the table key and the index key
//     of the last item returned;
//   - ProjectionType ALL returns whole items.

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const s4Table = "seed004-ecommerce"

type s4AV = types.AttributeValue

func s4S(v string) s4AV { return &types.AttributeValueMemberS{Value: v} }
func s4N(v int) s4AV    { return &types.AttributeValueMemberN{Value: fmt.Sprint(v)} }

// s4Order etc. are the generated entities; the items written are built from them.
type s4Order struct {
	User, ID, Status string
	Created          time.Time
	Cents            int
}

type s4Review struct {
	User, ID, Product string
	Rating            int
}

type s4Product struct {
	Category, Name string
	Cents          int
}

// s4Model is the generated dataset plus every item of the table, by table key.
type s4Model struct {
	users      []string
	orders     []*s4Order
	reviews    []*s4Review
	categories []string
	products   []*s4Product
	items      map[string]map[string]s4AV // "PK\x00SK" -> item
}

const s4TimeFormat = "2006-01-02T15:04:05Z"

func (o *s4Order) item() map[string]s4AV {
	created := o.Created.Format(s4TimeFormat)
	return map[string]s4AV{
		"PK": s4S("USER#" + o.User), "SK": s4S("ORDER#" + o.ID), "Type": s4S("ORDER"),
		"GSI1PK": s4S("ORDER"), "GSI1SK": s4S("STATUS#" + o.Status + "#" + created + "#" + o.ID),
		"UserName": s4S(o.User), "OrderId": s4S(o.ID), "Status": s4S(o.Status),
		"CreatedAt": s4S(created), "TotalCents": s4N(o.Cents),
	}
}

func (r *s4Review) item() map[string]s4AV {
	return map[string]s4AV{
		"PK": s4S("USER#" + r.User), "SK": s4S("REVIEW#" + r.ID), "Type": s4S("REVIEW"),
		"GSI1PK": s4S("PRODUCT#" + r.Product), "GSI1SK": s4S("REVIEW#" + r.ID),
		"UserName": s4S(r.User), "ReviewId": s4S(r.ID), "ProductName": s4S(r.Product),
		"Rating": s4N(r.Rating),
	}
}

func (p *s4Product) item() map[string]s4AV {
	return map[string]s4AV{
		"PK": s4S("CATEGORY#" + p.Category), "SK": s4S("PRODUCT#" + p.Name), "Type": s4S("PRODUCT"),
		"CategoryName": s4S(p.Category), "ProductName": s4S(p.Name), "PriceCents": s4N(p.Cents),
	}
}

func s4UserItem(name string) map[string]s4AV {
	return map[string]s4AV{
		"PK": s4S("USER#" + name), "SK": s4S("USER#" + name), "Type": s4S("USER"),
		"UserName": s4S(name), "Email": s4S(strings.ToLower(name) + "@example.com"),
	}
}

func s4CategoryItem(name string) map[string]s4AV {
	return map[string]s4AV{
		"PK": s4S("CATEGORY#" + name), "SK": s4S("CATEGORY#" + name), "Type": s4S("CATEGORY"),
		"CategoryName": s4S(name),
	}
}

func s4Str(item map[string]s4AV, name string) string {
	if s, ok := item[name].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

func s4Key(item map[string]s4AV) string { return s4Str(item, "PK") + "\x00" + s4Str(item, "SK") }

// Names whose UTF-8 byte order differs from case-insensitive, accent-aware
// or UTF-16 order: upper case before lower case, "é" (C3 A9) after "z",
// U+FF21 (EF BC A1) before U+1F600 (F0 9F 98 80), though UTF-16 puts the
// surrogate pair D83D first.
var s4SpecialNames = []string{"Zoë", "zoe", "Zoe", "Émile", "émile", "ana", "Ana", "李雷", "\U0001F600smile", "\uFF21lpha", "a", "a#b", "a b"}

func s4Generate() *s4Model {
	r := rand.New(rand.NewPCG(4, 2024))
	m := &s4Model{items: map[string]map[string]s4AV{}}
	for i := 0; i < 200; i++ {
		m.users = append(m.users, fmt.Sprintf("user%04d", (i*7919)%10000))
	}
	m.users = append(m.users, s4SpecialNames...)

	m.categories = []string{"Books", "books", "Électronique", "Garden & Outdoor", "Toys", "日本", "Kitchen", "Music", "Sports", "Zzz", "A", "Office"}

	// Products: 260 names for ~340 products, so several names occur in more
	// than one category (equal GSI2 keys: Type PRODUCT, SK PRODUCT#<name>).
	names := append([]string{}, s4SpecialNames...)
	names = append(names, "Café", "cafe", "Ärmel", "Widget", "widget")
	for len(names) < 260 {
		names = append(names, fmt.Sprintf("Product %03d", len(names)*13%997))
	}
	seen := map[string]bool{}
	for i := 0; len(m.products) < 340; i++ {
		var name string
		if i%6 == 0 {
			name = names[r.IntN(8)] // a few names land in many categories
		} else {
			name = names[r.IntN(len(names))]
		}
		p := &s4Product{Category: m.categories[r.IntN(len(m.categories))], Name: name, Cents: 100 + r.IntN(100000)}
		if seen[p.Category+"\x00"+p.Name] {
			continue
		}
		seen[p.Category+"\x00"+p.Name] = true
		m.products = append(m.products, p)
	}

	// Orders: fixed-width ids (the seed: "encode IDs consistently, for
	// example with fixed-width numeric components"); creation times on a
	// 10-minute grid over 90 days, so some orders share a status and a
	// CreatedAt and only the order id tells them apart.
	statuses := []string{"PENDING", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"}
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 1500; i++ {
		user := m.users[r.IntN(len(m.users))]
		if i%10 == 0 {
			user = m.users[i%5] // five users with many orders
		}
		m.orders = append(m.orders, &s4Order{
			User:    user,
			ID:      fmt.Sprintf("%06d", 100000+(i*7919)%900000),
			Status:  statuses[r.IntN(len(statuses))],
			Created: base.Add(time.Duration(r.IntN(90*144)) * 10 * time.Minute),
			Cents:   r.IntN(50000),
		})
	}
	// Reviews of product names, by users.
	for i := 0; i < 1000; i++ {
		product := m.products[r.IntN(len(m.products))].Name
		if i%4 == 0 {
			product = names[i%3]
		}
		m.reviews = append(m.reviews, &s4Review{
			User: m.users[r.IntN(len(m.users))], ID: fmt.Sprintf("R%05d", (i*6113)%100000),
			Product: product, Rating: 1 + r.IntN(5),
		})
	}

	add := func(it map[string]s4AV) { m.items[s4Key(it)] = it }
	for _, u := range m.users {
		add(s4UserItem(u))
	}
	for _, c := range m.categories {
		add(s4CategoryItem(c))
	}
	for _, p := range m.products {
		add(p.item())
	}
	for _, o := range m.orders {
		add(o.item())
	}
	for _, rv := range m.reviews {
		add(rv.item())
	}
	// Items in the same partitions without Type or GSI1 keys: in no index,
	// and their sort keys share a leading "ORDER"/"REVIEW" without the "#".
	for i, u := range m.users[:40] {
		add(map[string]s4AV{"PK": s4S("USER#" + u), "SK": s4S(fmt.Sprintf("ORDER_ARCHIVE#%03d", i)), "Note": s4S("archived")})
		add(map[string]s4AV{"PK": s4S("USER#" + u), "SK": s4S("REVIEWS_SUMMARY"), "Count": s4N(i)})
	}
	return m
}

func (m *s4Model) all() []map[string]s4AV {
	out := make([]map[string]s4AV, 0, len(m.items))
	for _, it := range m.items {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return s4Key(out[i]) < s4Key(out[j]) })
	return out
}

// where returns the items for which keep is true.
func (m *s4Model) where(keep func(map[string]s4AV) bool) []map[string]s4AV {
	var out []map[string]s4AV
	for _, it := range m.all() {
		if keep(it) {
			out = append(out, it)
		}
	}
	return out
}

// sortedBy sorts items by the string attribute attr (Go compares strings
// bytewise, which is UTF-8 byte order), descending if desc.
func s4SortedBy(items []map[string]s4AV, attr string, desc bool) []map[string]s4AV {
	sort.SliceStable(items, func(i, j int) bool {
		if desc {
			return s4Str(items[i], attr) > s4Str(items[j], attr)
		}
		return s4Str(items[i], attr) < s4Str(items[j], attr)
	})
	return items
}

func s4CreateTable(t *testing.T, c *dynamodb.Client) *types.TableDescription {
	t.Helper()
	keys := func(h, r string) []types.KeySchemaElement {
		return []types.KeySchemaElement{
			{AttributeName: aws.String(h), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(r), KeyType: types.KeyTypeRange},
		}
	}
	def := func(n string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(n), AttributeType: types.ScalarAttributeTypeS}
	}
	out, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(s4Table),
		KeySchema:            keys("PK", "SK"),
		AttributeDefinitions: []types.AttributeDefinition{def("PK"), def("SK"), def("GSI1PK"), def("GSI1SK"), def("Type")},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
			{IndexName: aws.String("GSI1"), KeySchema: keys("GSI1PK", "GSI1SK"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
			{IndexName: aws.String("GSI2"), KeySchema: keys("Type", "SK"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	if n := len(out.TableDescription.GlobalSecondaryIndexes); n != 2 {
		t.Errorf("CreateTable: %d GlobalSecondaryIndexes described, want 2", n)
	}
	w := dynamodb.NewTableExistsWaiter(c)
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s4Table)}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(s4Table)})
	if err != nil {
		t.Fatal(err)
	}
	return d.Table
}

func s4Load(t *testing.T, c *dynamodb.Client, items []map[string]s4AV) {
	t.Helper()
	var batches [][]types.WriteRequest
	for i := 0; i < len(items); i += 25 {
		var b []types.WriteRequest
		for _, it := range items[i:min(i+25, len(items))] {
			b = append(b, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		batches = append(batches, b)
	}
	s4Batches(t, c, batches)
}

// s4Batches sends BatchWriteItem requests from 4 goroutines, resending
// UnprocessedItems.
func s4Batches(t *testing.T, c *dynamodb.Client, batches [][]types.WriteRequest) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(batches))
	work := make(chan []types.WriteRequest)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				req := map[string][]types.WriteRequest{s4Table: b}
				for attempt := 0; len(req) > 0; attempt++ {
					if attempt == 20 {
						errs <- fmt.Errorf("BatchWriteItem: still unprocessed after 20 attempts")
						break
					}
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

// s4Case is one access pattern with one set of parameters.
type s4Case struct {
	name  string
	get   *dynamodb.GetItemInput // pattern 1; otherwise query
	query *dynamodb.QueryInput
	want  []map[string]s4AV // in the expected order
	// keyAttrs are the attributes of LastEvaluatedKey (table key + index key);
	// sortAttr is the attribute the answer is ordered by.
	keyAttrs []string
	sortAttr string
}

var (
	s4BaseKeys = []string{"PK", "SK"}
	s4GSI1Keys = []string{"GSI1PK", "GSI1SK", "PK", "SK"}
	s4GSI2Keys = []string{"PK", "SK", "Type"}
)

func s4Base(cond string, values map[string]s4AV, limit int32, desc, consistent bool) *dynamodb.QueryInput {
	in := &dynamodb.QueryInput{
		TableName: aws.String(s4Table), KeyConditionExpression: aws.String(cond),
		ExpressionAttributeValues: values, ScanIndexForward: aws.Bool(!desc),
	}
	if limit > 0 {
		in.Limit = aws.Int32(limit)
	}
	if consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	return in
}

func s4Index(index, cond string, names map[string]string, values map[string]s4AV, limit int32, desc bool) *dynamodb.QueryInput {
	in := s4Base(cond, values, limit, desc, false)
	in.IndexName = aws.String(index)
	in.ExpressionAttributeNames = names
	return in
}

// GSI2's partition key is the attribute "Type", a DynamoDB reserved word:
// it goes through an expression attribute name.
var s4TypeName = map[string]string{"#type": "Type", "#sk": "SK"}

func s4GSI2(typ, skCond string, values map[string]s4AV, limit int32, desc bool) *dynamodb.QueryInput {
	cond := "#type = :type"
	names := map[string]string{"#type": "Type"}
	if skCond != "" {
		cond += " AND " + skCond
		names = s4TypeName
	}
	vals := map[string]s4AV{":type": s4S(typ)}
	for k, v := range values {
		vals[k] = v
	}
	return s4Index("GSI2", cond, names, vals, limit, desc)
}

func s4Cases(m *s4Model) []s4Case {
	var cs []s4Case
	has := func(attr, val string) func(map[string]s4AV) bool {
		return func(it map[string]s4AV) bool { return s4Str(it, attr) == val }
	}
	ofType := func(typ string) []map[string]s4AV { return m.where(has("Type", typ)) }
	prefixed := func(pk, prefix string) []map[string]s4AV {
		return m.where(func(it map[string]s4AV) bool {
			return s4Str(it, "PK") == pk && strings.HasPrefix(s4Str(it, "SK"), prefix)
		})
	}

	// 1. Get a user by username: GetItem PK = SK = USER#<UserName>.
	for _, u := range []string{m.users[0], m.users[77], "Zoë", "\U0001F600smile", "a#b", "nobody", "zoë"} {
		var want []map[string]s4AV
		if it, ok := m.items["USER#"+u+"\x00USER#"+u]; ok {
			want = append(want, it)
		}
		cs = append(cs, s4Case{
			name: "01 user by username " + u,
			get: &dynamodb.GetItemInput{TableName: aws.String(s4Table), ConsistentRead: aws.Bool(true),
				Key: map[string]s4AV{"PK": s4S("USER#" + u), "SK": s4S("USER#" + u)}},
			want: want,
		})
	}

	// 2. All users: GSI2 Type = USER.
	users := s4SortedBy(ofType("USER"), "SK", false)
	cs = append(cs,
		s4Case{name: "02 all users, Limit 17", query: s4GSI2("USER", "", nil, 17, false), want: users, keyAttrs: s4GSI2Keys, sortAttr: "SK"},
		s4Case{name: "02 all users, descending, Limit 50", query: s4GSI2("USER", "", nil, 50, true), want: s4Reversed(users), keyAttrs: s4GSI2Keys, sortAttr: "SK"},
	)

	// 3. All products: GSI2 Type = PRODUCT (names repeat across categories).
	products := s4SortedBy(ofType("PRODUCT"), "SK", false)
	cs = append(cs,
		s4Case{name: "03 all products", query: s4GSI2("PRODUCT", "", nil, 0, false), want: products, keyAttrs: s4GSI2Keys, sortAttr: "SK"},
		s4Case{name: "03 all products, Limit 7", query: s4GSI2("PRODUCT", "", nil, 7, false), want: products, keyAttrs: s4GSI2Keys, sortAttr: "SK"},
		s4Case{name: "03 all products, descending, Limit 3", query: s4GSI2("PRODUCT", "", nil, 3, true), want: s4Reversed(products), keyAttrs: s4GSI2Keys, sortAttr: "SK"},
	)

	// 4. Products in a category: base table, PK = CATEGORY#<name>, SK begins with PRODUCT#.
	for i, c := range []string{"Books", "books", "Électronique", "日本", "Zzz", "Nope"} {
		want := s4SortedBy(prefixed("CATEGORY#"+c, "PRODUCT#"), "SK", false)
		cs = append(cs, s4Case{
			name: "04 products in category " + c,
			query: s4Base("PK = :pk AND begins_with(SK, :p)",
				map[string]s4AV{":pk": s4S("CATEGORY#" + c), ":p": s4S("PRODUCT#")}, int32(i%3*4), false, i%2 == 0),
			want: want, keyAttrs: s4BaseKeys, sortAttr: "SK",
		})
	}

	// 5. Products by product name: GSI2 Type = PRODUCT, SK = PRODUCT#<name>.
	// Names in several categories give several items with the same index key;
	// Limit 1 and 2 cut those groups across pages.
	byName := map[string]int{}
	for _, p := range m.products {
		byName[p.Name]++
	}
	var multi []string
	for n, k := range byName {
		if k >= 3 {
			multi = append(multi, n)
		}
	}
	sort.Strings(multi)
	if len(multi) < 3 {
		panic("seed004 data: too few repeated product names")
	}
	for i, n := range append(multi[:min(6, len(multi))], "Product 999x", "zoë") {
		want := m.where(func(it map[string]s4AV) bool { return s4Str(it, "Type") == "PRODUCT" && s4Str(it, "ProductName") == n })
		cs = append(cs, s4Case{
			name:  fmt.Sprintf("05 products named %q (%d)", n, len(want)),
			query: s4GSI2("PRODUCT", "#sk = :sk", map[string]s4AV{":sk": s4S("PRODUCT#" + n)}, int32(i%3), i%2 == 1),
			want:  want, keyAttrs: s4GSI2Keys, sortAttr: "SK",
		})
	}

	// 6. Orders for a user: base table, PK = USER#<name>, SK begins with ORDER#.
	for i, u := range []string{m.users[0], m.users[1], m.users[4], "Zoë", m.users[150]} {
		want := s4SortedBy(prefixed("USER#"+u, "ORDER#"), "SK", i%2 == 1)
		cs = append(cs, s4Case{
			name: fmt.Sprintf("06 orders for user %s (%d)", u, len(want)),
			query: s4Base("PK = :pk AND begins_with(SK, :p)",
				map[string]s4AV{":pk": s4S("USER#" + u), ":p": s4S("ORDER#")}, int32(3*(i%2)), i%2 == 1, i == 0),
			want: want, keyAttrs: s4BaseKeys, sortAttr: "SK",
		})
	}

	// 7. All orders: GSI2 Type = ORDER.
	orders := s4SortedBy(ofType("ORDER"), "SK", false)
	cs = append(cs,
		s4Case{name: "07 all orders", query: s4GSI2("ORDER", "", nil, 0, false), want: orders, keyAttrs: s4GSI2Keys, sortAttr: "SK"},
		s4Case{name: "07 all orders, Limit 100, descending", query: s4GSI2("ORDER", "", nil, 100, true), want: s4Reversed(orders), keyAttrs: s4GSI2Keys, sortAttr: "SK"},
	)

	// 8. Orders in an order-ID range: GSI2 Type = ORDER, SK BETWEEN ORDER#<a> AND ORDER#<b>.
	// Expected: the orders whose numeric id is in [a, b], by id.
	for i, rg := range [][2]int{{100000, 199999}, {250000, 260000}, {m.idNum(7), m.idNum(7) + 40000}, {999999, 999999}, {500000, 400000 + 100000}} {
		lo, hi := rg[0], rg[1]
		var want []map[string]s4AV
		for _, o := range m.sortedOrders(func(a, b *s4Order) bool { return a.ID < b.ID }) {
			if n := s4Atoi(o.ID); n >= lo && n <= hi && m.items[s4Key(o.item())] != nil {
				want = append(want, m.items[s4Key(o.item())])
			}
		}
		if i%2 == 1 {
			want = s4Reversed(want)
		}
		cs = append(cs, s4Case{
			name: fmt.Sprintf("08 orders with ids %06d..%06d (%d)", lo, hi, len(want)),
			query: s4GSI2("ORDER", "#sk BETWEEN :a AND :b",
				map[string]s4AV{":a": s4S(fmt.Sprintf("ORDER#%06d", lo)), ":b": s4S(fmt.Sprintf("ORDER#%06d", hi))}, int32(5*(i%3)), i%2 == 1),
			want: want, keyAttrs: s4GSI2Keys, sortAttr: "SK",
		})
	}

	// 9. Orders for a status and a date range: GSI1 GSI1PK = ORDER, GSI1SK
	// BETWEEN STATUS#<s>#<from> AND STATUS#<s>#<to>. Expected: orders with that
	// status created in [from, to), by creation time then order id.
	type window struct {
		status   string
		from, to time.Time
		limit    int32
		desc     bool
	}
	day := func(m, d int) time.Time { return time.Date(2024, time.Month(m), d, 0, 0, 0, 0, time.UTC) }
	for _, w := range []window{
		{"SHIPPED", day(1, 1), day(1, 15), 0, false},
		{"SHIPPED", day(2, 1), day(2, 3), 4, true},
		{"PENDING", day(1, 10), day(3, 1), 25, false},
		{"CANCELLED", day(3, 20), day(4, 1), 1, false},
		{"DELIVERED", day(1, 1), day(12, 31), 0, true},
		{"PAID", day(3, 1), day(3, 31), 3, false},
		{"SHIPPED", day(2, 29), day(3, 1), 2, false}, // after the updates: new orders on both sides of midnight
	} {
		var want []map[string]s4AV
		for _, o := range m.sortedOrders(func(a, b *s4Order) bool {
			if !a.Created.Equal(b.Created) {
				return a.Created.Before(b.Created)
			}
			return a.ID < b.ID
		}) {
			if o.Status == w.status && !o.Created.Before(w.from) && o.Created.Before(w.to) {
				want = append(want, m.items[s4Key(o.item())])
			}
		}
		if w.desc {
			want = s4Reversed(want)
		}
		// The upper bound "STATUS#<s>#<to date>" sorts before every key of that
		// day ("...#2024-01-15" < "...#2024-01-15T00:00:00Z#..."), so it is exclusive.
		lo := "STATUS#" + w.status + "#" + w.from.Format(s4TimeFormat)
		hi := "STATUS#" + w.status + "#" + w.to.Format("2006-01-02")
		cs = append(cs, s4Case{
			name: fmt.Sprintf("09 %s orders %s..%s (%d)", w.status, w.from.Format("01-02"), w.to.Format("01-02"), len(want)),
			query: s4Index("GSI1", "GSI1PK = :pk AND GSI1SK BETWEEN :lo AND :hi", nil,
				map[string]s4AV{":pk": s4S("ORDER"), ":lo": s4S(lo), ":hi": s4S(hi)}, w.limit, w.desc),
			want: want, keyAttrs: s4GSI1Keys, sortAttr: "GSI1SK",
		})
	}
	// The same pattern for one whole status with begins_with.
	var shipped []map[string]s4AV
	for _, o := range m.sortedOrders(func(a, b *s4Order) bool {
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return a.ID < b.ID
	}) {
		if o.Status == "SHIPPED" {
			shipped = append(shipped, m.items[s4Key(o.item())])
		}
	}
	cs = append(cs, s4Case{
		name: fmt.Sprintf("09 all SHIPPED orders, begins_with, Limit 40 (%d)", len(shipped)),
		query: s4Index("GSI1", "GSI1PK = :pk AND begins_with(GSI1SK, :p)", nil,
			map[string]s4AV{":pk": s4S("ORDER"), ":p": s4S("STATUS#SHIPPED#")}, 40, false),
		want: shipped, keyAttrs: s4GSI1Keys, sortAttr: "GSI1SK",
	})

	// 10. Order by order id: GSI2 Type = ORDER, SK = ORDER#<id>.
	for i, id := range []string{m.orders[0].ID, m.orders[777].ID, m.orders[1499].ID, "000000", "1000000"} {
		want := m.where(func(it map[string]s4AV) bool { return s4Str(it, "Type") == "ORDER" && s4Str(it, "OrderId") == id })
		cs = append(cs, s4Case{
			name:  "10 order by id " + id,
			query: s4GSI2("ORDER", "#sk = :sk", map[string]s4AV{":sk": s4S("ORDER#" + id)}, int32(i%2), false),
			want:  want, keyAttrs: s4GSI2Keys, sortAttr: "SK",
		})
	}

	// 11. Reviews for a user: base table, SK begins with REVIEW#.
	for i, u := range []string{m.users[3], m.users[100], "李雷", "a b"} {
		want := s4SortedBy(prefixed("USER#"+u, "REVIEW#"), "SK", i == 1)
		cs = append(cs, s4Case{
			name: fmt.Sprintf("11 reviews for user %s (%d)", u, len(want)),
			query: s4Base("PK = :pk AND begins_with(SK, :p)",
				map[string]s4AV{":pk": s4S("USER#" + u), ":p": s4S("REVIEW#")}, int32(2*(i%2)), i == 1, i == 2),
			want: want, keyAttrs: s4BaseKeys, sortAttr: "SK",
		})
	}

	// 12. All reviews: GSI2 Type = REVIEW.
	reviews := s4SortedBy(ofType("REVIEW"), "SK", false)
	cs = append(cs,
		s4Case{name: "12 all reviews, Limit 64", query: s4GSI2("REVIEW", "", nil, 64, false), want: reviews, keyAttrs: s4GSI2Keys, sortAttr: "SK"},
		s4Case{name: "12 all reviews, descending", query: s4GSI2("REVIEW", "", nil, 0, true), want: s4Reversed(reviews), keyAttrs: s4GSI2Keys, sortAttr: "SK"},
	)

	// 13. Review by review id: GSI2 Type = REVIEW, SK = REVIEW#<id>.
	for _, id := range []string{m.reviews[0].ID, m.reviews[500].ID, "R99999x", "R"} {
		want := m.where(func(it map[string]s4AV) bool { return s4Str(it, "Type") == "REVIEW" && s4Str(it, "ReviewId") == id })
		cs = append(cs, s4Case{
			name:  "13 review by id " + id,
			query: s4GSI2("REVIEW", "#sk = :sk", map[string]s4AV{":sk": s4S("REVIEW#" + id)}, 0, false),
			want:  want, keyAttrs: s4GSI2Keys, sortAttr: "SK",
		})
	}

	// 14. Reviews for a product: GSI1 GSI1PK = PRODUCT#<name>, GSI1SK begins with REVIEW#.
	for i, p := range []string{s4SpecialNames[0], s4SpecialNames[1], s4SpecialNames[2], m.reviews[1].Product, "Widget", "No such product"} {
		want := s4SortedBy(m.where(func(it map[string]s4AV) bool {
			return s4Str(it, "Type") == "REVIEW" && s4Str(it, "ProductName") == p
		}), "ReviewId", i%2 == 1)
		cs = append(cs, s4Case{
			name: fmt.Sprintf("14 reviews for product %q (%d)", p, len(want)),
			query: s4Index("GSI1", "GSI1PK = :pk AND begins_with(GSI1SK, :p)", nil,
				map[string]s4AV{":pk": s4S("PRODUCT#" + p), ":p": s4S("REVIEW#")}, int32(6*(i%2)), i%2 == 1),
			want: want, keyAttrs: s4GSI1Keys, sortAttr: "GSI1SK",
		})
	}

	// 15. All categories: GSI2 Type = CATEGORY.
	cats := s4SortedBy(ofType("CATEGORY"), "SK", false)
	cs = append(cs,
		s4Case{name: "15 all categories, Limit 5", query: s4GSI2("CATEGORY", "", nil, 5, false), want: cats, keyAttrs: s4GSI2Keys, sortAttr: "SK"},
		s4Case{name: "15 all categories, descending", query: s4GSI2("CATEGORY", "", nil, 0, true), want: s4Reversed(cats), keyAttrs: s4GSI2Keys, sortAttr: "SK"},
	)
	return cs
}

func (m *s4Model) idNum(i int) int { return s4Atoi(m.orders[i].ID) }

func (m *s4Model) sortedOrders(less func(a, b *s4Order) bool) []*s4Order {
	out := append([]*s4Order{}, m.orders...)
	sort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

func s4Atoi(s string) int {
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		panic(err)
	}
	return n
}

func s4Reversed(items []map[string]s4AV) []map[string]s4AV {
	out := make([]map[string]s4AV, len(items))
	for i, it := range items {
		out[len(items)-1-i] = it
	}
	return out
}

// render is a canonical text form of an item, for comparisons and messages.
func s4Render(item map[string]s4AV) string {
	names := make([]string, 0, len(item))
	for n := range item {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		switch v := item[n].(type) {
		case *types.AttributeValueMemberS:
			fmt.Fprintf(&b, "%s=S:%q ", n, v.Value)
		case *types.AttributeValueMemberN:
			fmt.Fprintf(&b, "%s=N:%s ", n, v.Value)
		default:
			fmt.Fprintf(&b, "%s=%T ", n, v)
		}
	}
	return b.String()
}

// s4Run runs one access pattern to the end, page by page, and compares.
func s4Run(t *testing.T, c *dynamodb.Client, tc s4Case) {
	t.Helper()
	if tc.get != nil {
		out, err := c.GetItem(ctx, tc.get)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case len(tc.want) == 0 && out.Item != nil:
			t.Errorf("got %s, want no item", s4Render(out.Item))
		case len(tc.want) == 1 && s4Render(out.Item) != s4Render(tc.want[0]):
			t.Errorf("got  %s\nwant %s", s4Render(out.Item), s4Render(tc.want[0]))
		}
		return
	}
	var got []map[string]s4AV
	in := *tc.query
	limit := int(aws.ToInt32(in.Limit))
	pages := 0
	for {
		pages++
		if pages > len(tc.want)+3 {
			t.Fatalf("more than %d pages for %d items: the query does not end", pages-1, len(tc.want))
		}
		out, err := c.Query(ctx, &in)
		if err != nil {
			t.Fatalf("Query (page %d): %v", pages, err)
		}
		if int(out.Count) != len(out.Items) || out.ScannedCount != out.Count {
			t.Errorf("page %d: Count %d, ScannedCount %d, %d items", pages, out.Count, out.ScannedCount, len(out.Items))
		}
		if limit > 0 && len(out.Items) > limit {
			t.Errorf("page %d: %d items, more than Limit %d", pages, len(out.Items), limit)
		}
		got = append(got, out.Items...)
		lek := out.LastEvaluatedKey
		if lek == nil {
			if limit > 0 && len(got) < len(tc.want) {
				t.Errorf("page %d ends the query after %d of %d items", pages, len(got), len(tc.want))
			}
			break
		}
		// The data is far below 1 MB a page: only Limit may cut a page.
		if limit == 0 || len(out.Items) != limit {
			t.Errorf("page %d: LastEvaluatedKey after %d items (Limit %d)", pages, len(out.Items), limit)
		}
		// LastEvaluatedKey = the table key and index key of the last item.
		if len(out.Items) > 0 {
			last := out.Items[len(out.Items)-1]
			want := map[string]s4AV{}
			for _, a := range tc.keyAttrs {
				want[a] = last[a]
			}
			if s4Render(lek) != s4Render(want) {
				t.Errorf("page %d: LastEvaluatedKey %s, want %s", pages, s4Render(lek), s4Render(want))
			}
		}
		in.ExclusiveStartKey = lek
	}
	if limit > 0 && len(tc.want) > 0 {
		// Every page but the last is full, and the last may be empty.
		if lo, hi := (len(tc.want)+limit-1)/limit, len(tc.want)/limit+1; pages < lo || pages > hi {
			t.Errorf("%d pages for %d items with Limit %d", pages, len(tc.want), limit)
		}
	}
	s4Compare(t, got, tc.want, tc.sortAttr)
}

// s4Compare checks got against want: the same sequence of sort-key values
// (so the order is checked wherever the sort keys differ), and the same items
// (items with equal sort keys may come in any order).
func s4Compare(t *testing.T, got, want []map[string]s4AV, sortAttr string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d items, want %d", len(got), len(want))
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		if g, w := s4Str(got[i], sortAttr), s4Str(want[i], sortAttr); g != w {
			t.Errorf("item %d: %s = %q, want %q (table key %q)", i, sortAttr, g, w, s4Key(got[i]))
			break
		}
	}
	gr, wr := make([]string, len(got)), make([]string, len(want))
	for i, it := range got {
		gr[i] = s4Render(it)
	}
	for i, it := range want {
		wr[i] = s4Render(it)
	}
	sort.Strings(gr)
	sort.Strings(wr)
	missing, extra := s4Diff(wr, gr)
	for i, s := range missing {
		if i == 5 {
			t.Errorf("... %d more missing", len(missing)-5)
			break
		}
		t.Errorf("missing: %s", s)
	}
	for i, s := range extra {
		if i == 5 {
			t.Errorf("... %d more unexpected", len(extra)-5)
			break
		}
		t.Errorf("unexpected: %s", s)
	}
}

// diffSorted returns the elements of a not in b and of b not in a (multisets).
func s4Diff(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
	}
	return onlyA, onlyB
}

// s4WaitIndexes waits until each index holds as many items as the model says
// (GSIs are updated asynchronously in DynamoDB).
func s4WaitIndexes(t *testing.T, c *dynamodb.Client, m *s4Model) {
	t.Helper()
	count := func(index string) (int, error) {
		n := 0
		in := &dynamodb.ScanInput{TableName: aws.String(s4Table), IndexName: aws.String(index), Select: types.SelectCount}
		for {
			out, err := c.Scan(ctx, in)
			if err != nil {
				return 0, err
			}
			n += int(out.Count)
			if out.LastEvaluatedKey == nil {
				return n, nil
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	want := map[string]int{
		"GSI1": len(m.where(func(it map[string]s4AV) bool { return it["GSI1PK"] != nil && it["GSI1SK"] != nil })),
		"GSI2": len(m.where(func(it map[string]s4AV) bool { return it["Type"] != nil })),
	}
	deadline := time.Now().Add(30 * time.Second)
	for index, w := range want {
		for {
			n, err := count(index)
			if err != nil {
				t.Fatalf("Scan %s: %v", index, err)
			}
			if n == w {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("index %s holds %d items, want %d", index, n, w)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func TestSeed004AccessPatterns(t *testing.T) {
	srv := StartServer(t, "--in-memory")
	c := srv.Client()
	m := s4Generate()

	desc := s4CreateTable(t, c)
	t.Run("describe table", func(t *testing.T) {
		if len(desc.GlobalSecondaryIndexes) != 2 {
			t.Fatalf("%d GSIs described, want 2", len(desc.GlobalSecondaryIndexes))
		}
		wantKeys := map[string][2]string{"GSI1": {"GSI1PK", "GSI1SK"}, "GSI2": {"Type", "SK"}}
		for _, g := range desc.GlobalSecondaryIndexes {
			name := aws.ToString(g.IndexName)
			k, ok := wantKeys[name]
			if !ok {
				t.Errorf("unexpected index %q", name)
				continue
			}
			if len(g.KeySchema) != 2 || aws.ToString(g.KeySchema[0].AttributeName) != k[0] || g.KeySchema[0].KeyType != types.KeyTypeHash ||
				aws.ToString(g.KeySchema[1].AttributeName) != k[1] || g.KeySchema[1].KeyType != types.KeyTypeRange {
				t.Errorf("%s KeySchema %+v", name, g.KeySchema)
			}
			if g.IndexStatus != types.IndexStatusActive {
				t.Errorf("%s IndexStatus %q, want ACTIVE", name, g.IndexStatus)
			}
			if g.Projection == nil || g.Projection.ProjectionType != types.ProjectionTypeAll {
				t.Errorf("%s Projection %+v, want ALL", name, g.Projection)
			}
			if want := aws.ToString(desc.TableArn) + "/index/" + name; aws.ToString(g.IndexArn) != want {
				t.Errorf("%s IndexArn %q, want %q", name, aws.ToString(g.IndexArn), want)
			}
			if aws.ToInt64(g.ItemCount) != 0 {
				t.Errorf("%s ItemCount %d on an empty table", name, aws.ToInt64(g.ItemCount))
			}
		}
	})

	all := m.all()
	if len(all) < 3000 {
		t.Fatalf("only %d items generated", len(all))
	}
	s4Load(t, c, all)
	s4WaitIndexes(t, c, m)

	// The whole table, for a start: a paginated Scan sees every item once.
	t.Run("scan table", func(t *testing.T) {
		var got []map[string]s4AV
		in := &dynamodb.ScanInput{TableName: aws.String(s4Table), Limit: aws.Int32(500)}
		for {
			out, err := c.Scan(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, out.Items...)
			if out.LastEvaluatedKey == nil {
				break
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
		sort.Slice(got, func(i, j int) bool { return s4Key(got[i]) < s4Key(got[j]) })
		s4Compare(t, got, all, "SK")
	})

	run := func(t *testing.T) {
		for _, tc := range s4Cases(m) {
			t.Run(tc.name, func(t *testing.T) { s4Run(t, c, tc) })
			t.Run(tc.name+" as PartiQL", func(t *testing.T) { s4RunPartiQL(t, c, tc) })
		}
	}
	t.Run("patterns", run)

	// Index maintenance at scale: orders change status (their GSI1SK moves),
	// reviews are deleted, products are re-typed out of GSI2 by removing
	// Type, and new orders arrive; then every pattern again.
	t.Run("after updates", func(t *testing.T) {
		var batch []types.WriteRequest
		flush := func() {
			if len(batch) > 0 {
				s4Batches(t, c, [][]types.WriteRequest{batch})
				batch = nil
			}
		}
		queue := func(w types.WriteRequest) {
			batch = append(batch, w)
			if len(batch) == 25 {
				flush()
			}
		}
		for i, o := range m.orders {
			if i%9 == 0 {
				o.Status = map[string]string{"PENDING": "PAID", "PAID": "SHIPPED", "SHIPPED": "DELIVERED", "DELIVERED": "DELIVERED", "CANCELLED": "PENDING"}[o.Status]
				o.Created = o.Created.Add(time.Hour)
				it := o.item()
				m.items[s4Key(it)] = it
				queue(types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
			}
		}
		for i, r := range m.reviews {
			if i%7 == 3 {
				it := r.item()
				delete(m.items, s4Key(it))
				queue(types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: map[string]s4AV{"PK": it["PK"], "SK": it["SK"]}}})
			}
		}
		flush()
		// UpdateItem REMOVE Type: the product leaves GSI2 (sparse) but stays in the table.
		for i, p := range m.products {
			if i%11 == 5 {
				it := p.item()
				if _, err := c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
					TableName: aws.String(s4Table), Key: map[string]s4AV{"PK": it["PK"], "SK": it["SK"]},
					UpdateExpression: aws.String("REMOVE #t"), ExpressionAttributeNames: map[string]string{"#t": "Type"},
				}); err != nil {
					t.Fatal(err)
				}
				delete(it, "Type")
				m.items[s4Key(it)] = it
			}
		}
		base := time.Date(2024, 2, 29, 23, 50, 0, 0, time.UTC)
		for i := 0; i < 60; i++ {
			o := &s4Order{User: m.users[i%7], ID: fmt.Sprintf("%06d", 100000+(1500+i)*7919%900000), Status: "SHIPPED", Created: base.Add(time.Duration(i%3) * 10 * time.Minute), Cents: i}
			m.orders = append(m.orders, o)
			it := o.item()
			if m.items[s4Key(it)] != nil {
				t.Fatalf("order id %s reused", o.ID)
			}
			m.items[s4Key(it)] = it
			queue(types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		flush()
		s4WaitIndexes(t, c, m)
		run(t)
	})
}
