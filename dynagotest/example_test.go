package dynagotest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/dynago/dynago/dynagotest"
)

// A table created, an item put and read back. In a test,
// dynagotest.New(t) starts the server and closes it when the test ends;
// Start, used here, is for code without a testing.TB.
func Example() {
	srv, err := dynagotest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	db := srv.Client()

	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		log.Fatal(err)
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String("users"),
		Item: map[string]types.AttributeValue{
			"id":   &types.AttributeValueMemberS{Value: "u1"},
			"name": &types.AttributeValueMemberS{Value: "Ada"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("users"),
		Key:       map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "u1"}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Item["name"].(*types.AttributeValueMemberS).Value)
	// Output: Ada
}

// A design file attached in strict mode: requests are classified against
// its access patterns, a Scan it does not declare is refused, and the
// report is read from GET /design/traffic.
func ExampleWithDesign() {
	srv, err := dynagotest.Start(
		dynagotest.WithDesign("testdata/users.design.yaml"),
		dynagotest.WithDesignStrict(),
	)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	db := srv.Client()
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

	_, err = db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("users"),
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	})
	if err != nil {
		log.Fatal(err)
	}
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("users"),
		Item: map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("PROFILE"), "userId": s("u1"), "userName": s("Ada")}})
	if err != nil {
		log.Fatal(err)
	}
	_, err = db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("users"),
		Key: map[string]types.AttributeValue{"PK": s("USER#u1"), "SK": s("PROFILE")}})
	if err != nil {
		log.Fatal(err)
	}
	_, err = db.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String("users")})
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("Scan:", apiErr.ErrorCode())
	}

	resp, err := http.Get(srv.Endpoint() + "/design/traffic?table=users")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var report struct {
		Tables []struct {
			Paths []struct {
				Pattern, Path string
				Declared      bool
				Requests      int
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&report); err != nil {
		log.Fatal(err)
	}
	for _, p := range report.Tables[0].Paths {
		name := p.Pattern
		if !p.Declared {
			name = "undeclared " + p.Path
		}
		fmt.Printf("%s: %d\n", name, p.Requests)
	}
	// Output:
	// Scan: AccessDeniedException
	// get-user: 1
	// user-sessions: 0
	// put-user: 1
	// undeclared Scan table: 1
}

// A clock of the test's own: the table's creation time is the clock's,
// and an item whose Time to Live passes when the test moves the clock on
// is deleted by the next sweep (every 10 ms here).
func ExampleWithClock() {
	var now atomic.Int64 // Unix ns
	now.Store(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()).UTC() }

	srv, err := dynagotest.Start(dynagotest.WithClock(clock), dynagotest.WithTTLSweep(10*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	db := srv.Client()

	created, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String("sessions"),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created:", created.TableDescription.CreationDateTime.UTC())
	_, err = db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String("sessions"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)}})
	if err != nil {
		log.Fatal(err)
	}
	expires := clock().Add(time.Hour).Unix()
	_, err = db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("sessions"), Item: map[string]types.AttributeValue{
		"id":        &types.AttributeValueMemberS{Value: "s1"},
		"expiresAt": &types.AttributeValueMemberN{Value: strconv.FormatInt(expires, 10)},
	}})
	if err != nil {
		log.Fatal(err)
	}
	exists := func() bool {
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("sessions"),
			Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "s1"}}})
		if err != nil {
			log.Fatal(err)
		}
		return out.Item != nil
	}
	time.Sleep(50 * time.Millisecond) // sweeps run; the item has an hour to live
	fmt.Println("after 50 ms:", exists())

	now.Add(int64(2 * time.Hour))
	for deadline := time.Now().Add(5 * time.Second); exists() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("two hours later:", exists())
	// Output:
	// created: 2030-01-01 12:00:00 +0000 UTC
	// after 50 ms: true
	// two hours later: false
}
