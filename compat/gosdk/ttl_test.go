package gosdk

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestTTL_ThroughGoSDK: UpdateTimeToLive / DescribeTimeToLive, and an
// expired item deleted by the sweep (--ttl-sweep 200ms) while one that
// has not expired stays. Sources: API_UpdateTimeToLive,
// API_DescribeTimeToLive, developer guide "Time to Live".
func TestTTL_ThroughGoSDK(t *testing.T) {
	srv := StartServer(t, "--in-memory", "--ttl-sweep", "200ms")
	c := srv.Client()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName: aws.String("sessions"), BillingMode: types.BillingModePayPerRequest,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String("sessions"),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("expiresAt"), Enabled: aws.Bool(true)},
	}); err != nil {
		t.Fatal(err)
	}
	d, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String("sessions")})
	if err != nil || d.TimeToLiveDescription.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(d.TimeToLiveDescription.AttributeName) != "expiresAt" {
		t.Fatalf("DescribeTimeToLive: %+v %v", d, err)
	}
	now := time.Now().Unix()
	for id, at := range map[string]int64{"old": now - 5, "new": now + 3600} {
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("sessions"), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: id}, "expiresAt": &types.AttributeValueMemberN{Value: strconv.FormatInt(at, 10)},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	get := func(id string) bool {
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("sessions"), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: id}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}
	deadline := time.Now().Add(20 * time.Second)
	for get("old") {
		if time.Now().After(deadline) {
			t.Fatal("the expired item was not deleted within 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !get("new") {
		t.Fatal("an item that has not expired was deleted")
	}
}
