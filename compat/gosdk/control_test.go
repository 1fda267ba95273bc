package gosdk

import (
	"errors"
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// noRetry makes one call one request: LimitExceededException is one of
// the SDK's retried throttle codes, and these tests want its first answer.
func noRetry(o *dynamodb.Options) { o.RetryMaxAttempts = 1 }

// wantAPIError fails unless err is the API error code with message msg.
func wantAPIError(t *testing.T, what string, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) || ae.ErrorCode() != code || ae.ErrorMessage() != msg {
		t.Errorf("%s: got %v\nwant %s: %s", what, err, code, msg)
	}
}

// TestControlPlane_ThroughGoSDK (issue 11): the control-plane calls that
// infrastructure tools make after CreateTable, through aws-sdk-go-v2 and
// its typed outputs: tags on the table and on its live stream,
// UpdateTable's billing, throughput (decrease count), deletion protection
// and table class, DescribeLimits, DescribeEndpoints, continuous backups,
// Kinesis destinations and replica auto scaling. Messages:
// docs/research-tags.md, docs/research-control-plane.md.
func TestControlPlane_ThroughGoSDK(t *testing.T) {
	srv := StartServer(t, "--in-memory")
	c := srv.Client()
	created, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:             aws.String("infra"),
		KeySchema:             []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions:  []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(10), WriteCapacityUnits: aws.Int64(10)},
		StreamSpecification:   &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly},
		Tags:                  []types.Tag{{Key: aws.String("team"), Value: aws.String("core")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	arn, streamArn := created.TableDescription.TableArn, created.TableDescription.LatestStreamArn

	// Tags: the table's and the stream's are apart.
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{{Key: aws.String("env"), Value: aws.String("dev")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: streamArn, Tags: []types.Tag{{Key: aws.String("pipeline"), Value: aws.String("orders")}}}); err != nil {
		t.Fatal(err)
	}
	tags := func(resource *string) map[string]string {
		out, err := c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: resource})
		if err != nil {
			t.Fatal(err)
		}
		if out.NextToken != nil {
			t.Errorf("NextToken %q: DynamoDB returns every tag at once", *out.NextToken)
		}
		m := map[string]string{}
		for _, tg := range out.Tags {
			m[*tg.Key] = *tg.Value
		}
		return m
	}
	if got := tags(arn); len(got) != 2 || got["team"] != "core" || got["env"] != "dev" {
		t.Errorf("table tags: %v", got)
	}
	if got := tags(streamArn); len(got) != 1 || got["pipeline"] != "orders" {
		t.Errorf("stream tags: %v", got)
	}
	if _, err := c.UntagResource(ctx, &dynamodb.UntagResourceInput{ResourceArn: arn, TagKeys: []string{"team", "absent"}}); err != nil {
		t.Fatal(err)
	}
	if got := tags(arn); len(got) != 1 || got["env"] != "dev" {
		t.Errorf("after untag: %v", got)
	}
	_, err = c.TagResource(ctx, &dynamodb.TagResourceInput{ResourceArn: arn, Tags: []types.Tag{{Key: aws.String("aws:owner"), Value: aws.String("x")}}})
	wantAPIError(t, "aws: key", err, "ValidationException", "Tag Key cannot be prefixed with aws:, Key: aws:owner")
	_, err = c.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: aws.String(*arn + "/index/none")})
	wantAPIError(t, "index ARN", err, "ValidationException",
		"One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource arn: "+*arn+"/index/none")

	// Throughput: a decrease is counted, the response keeps the old units.
	up, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("infra"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(8), WriteCapacityUnits: aws.Int64(10)}})
	if err != nil {
		t.Fatal(err)
	}
	if pt := up.TableDescription.ProvisionedThroughput; up.TableDescription.TableStatus != types.TableStatusUpdating ||
		*pt.ReadCapacityUnits != 10 || *pt.NumberOfDecreasesToday != 0 || pt.LastDecreaseDateTime == nil {
		t.Errorf("UpdateTable response: %s %+v", up.TableDescription.TableStatus, pt)
	}
	d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("infra")})
	if err != nil {
		t.Fatal(err)
	}
	if pt := d.Table.ProvisionedThroughput; *pt.ReadCapacityUnits != 8 || *pt.NumberOfDecreasesToday != 1 || pt.LastIncreaseDateTime != nil {
		t.Errorf("DescribeTable: %+v", pt)
	}
	for _, r := range []int64{7, 6, 5} {
		if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("infra"),
			ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(r), WriteCapacityUnits: aws.Int64(10)}}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("infra"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(4), WriteCapacityUnits: aws.Int64(10)}}, noRetry)
	var le *types.LimitExceededException
	if !errors.As(err, &le) {
		t.Errorf("fifth decrease in an hour: %v, want LimitExceededException", err)
	}
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("infra"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(10)}})
	wantAPIError(t, "same throughput", err, "ValidationException", "The provisioned throughput for the table will not change. The requested value equals the current value. "+
		"Current ReadCapacityUnits provisioned for the table: 5. Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the table: 10. Requested WriteCapacityUnits: 10. "+
		"Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.")

	// Billing mode: to on-demand and its caps.
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("infra"), BillingMode: types.BillingModePayPerRequest}); err != nil {
		t.Fatal(err)
	}
	_, err = c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("infra"),
		ProvisionedThroughput: &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(1), WriteCapacityUnits: aws.Int64(1)}})
	wantAPIError(t, "throughput on on-demand", err, "ValidationException",
		"One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST")
	od, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("infra"), OnDemandThroughput: &types.OnDemandThroughput{MaxWriteRequestUnits: aws.Int64(500)}})
	if err != nil || od.TableDescription.TableStatus != types.TableStatusActive || aws.ToInt64(od.TableDescription.OnDemandThroughput.MaxWriteRequestUnits) != 500 {
		t.Errorf("OnDemandThroughput: %+v %v", od, err)
	}

	// Deletion protection, then table class.
	if _, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("infra"), DeletionProtectionEnabled: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("infra")})
	wantAPIError(t, "DeleteTable on a protected table", err, "ValidationException",
		"Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first.")
	tc, err := c.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String("infra"), TableClass: types.TableClassStandardInfrequentAccess})
	if err != nil || tc.TableDescription.TableStatus != types.TableStatusUpdating {
		t.Fatalf("TableClass: %+v %v", tc, err)
	}
	if d, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String("infra")}); err != nil ||
		d.Table.TableClassSummary == nil || d.Table.TableClassSummary.TableClass != types.TableClassStandardInfrequentAccess || !*d.Table.DeletionProtectionEnabled {
		t.Errorf("DescribeTable after class and protection: %+v %v", d.Table, err)
	}

	// The rest of what Terraform and GUIs read.
	lim, err := c.DescribeLimits(ctx, &dynamodb.DescribeLimitsInput{})
	if err != nil || *lim.AccountMaxReadCapacityUnits != 80000 || *lim.TableMaxWriteCapacityUnits != 40000 {
		t.Errorf("DescribeLimits: %+v %v", lim, err)
	}
	ep, err := c.DescribeEndpoints(ctx, &dynamodb.DescribeEndpointsInput{})
	if u, _ := url.Parse(srv.Endpoint); err != nil || len(ep.Endpoints) != 1 || *ep.Endpoints[0].Address != u.Host || ep.Endpoints[0].CachePeriodInMinutes != 1440 {
		t.Errorf("DescribeEndpoints: %+v %v", ep, err)
	}
	cb, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("infra")})
	if err != nil || cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusDisabled {
		t.Errorf("DescribeContinuousBackups: %+v %v", cb, err)
	}
	ucb, err := c.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{TableName: aws.String("infra"),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true), RecoveryPeriodInDays: aws.Int32(7)}})
	if err != nil {
		t.Fatal(err)
	}
	if p := ucb.ContinuousBackupsDescription.PointInTimeRecoveryDescription; p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled || aws.ToInt32(p.RecoveryPeriodInDays) != 7 {
		t.Errorf("UpdateContinuousBackups: %+v", p)
	}
	kin, err := c.DescribeKinesisStreamingDestination(ctx, &dynamodb.DescribeKinesisStreamingDestinationInput{TableName: aws.String("infra")})
	if err != nil || *kin.TableName != "infra" || len(kin.KinesisDataStreamDestinations) != 0 {
		t.Errorf("DescribeKinesisStreamingDestination: %+v %v", kin, err)
	}
	_, err = c.DescribeTableReplicaAutoScaling(ctx, &dynamodb.DescribeTableReplicaAutoScalingInput{TableName: aws.String("infra")})
	var rnf *types.ResourceNotFoundException
	if !errors.As(err, &rnf) {
		t.Errorf("DescribeTableReplicaAutoScaling on a regional table: %v, want ResourceNotFoundException", err)
	}
}
