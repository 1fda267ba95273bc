package social_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/dynagotest"
	"github.com/dynago/dynago/examples/gen/social"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/run"
)

// setup starts an in-process dynago with the social design's table.
func setup(t *testing.T) *social.Client {
	t.Helper()
	db := dynagotest.New(t).Client()
	d, diags, err := design.Load("../../social.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if _, err := run.CreateTable(context.Background(), d, db, social.TableName); err != nil {
		t.Fatal(err)
	}
	return social.New(db)
}

// likeCount reads the post's LikeCount through posts-1 ("" when it has none).
func likeCount(t *testing.T, c *social.Client, p social.Post) string {
	t.Helper()
	for x, err := range c.Posts1(context.Background(), p.UserId) {
		if err != nil {
			t.Fatal(err)
		}
		if x.PostId == p.PostId {
			return x.LikeCount
		}
	}
	t.Fatalf("post %s is gone", p.PostId)
	return ""
}

// cancelReasons returns the cancellation reason codes of a cancelled
// transaction, or fails.
func cancelReasons(t *testing.T, err error) []string {
	t.Helper()
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("want a TransactionCanceledException, got %v", err)
	}
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	return codes
}

// TestGenerated_LikePost runs seed 000's transaction as gen-go writes it:
// one TransactWriteItems that puts the Like and ADDs one to the post's
// LikeCount. Concurrent likes all count (ADD is applied by the server, not
// read and written back), the Like refuses a second like by the same user
// (its attribute_not_exists guard cancels the whole transaction, so the
// count does not move), and a like of a missing post writes nothing.
func TestGenerated_LikePost(t *testing.T) {
	ctx := context.Background()
	c := setup(t)
	post := social.Post{UserId: "author", PostId: "p1", Title: "Hello", CreatedAt: "2026-01-01T00:00:00Z"}
	if _, err := c.DB.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(c.Table), Item: post.Item()}); err != nil {
		t.Fatal(err)
	}
	key := social.Post{UserId: post.UserId, PostId: post.PostId, CreatedAt: post.CreatedAt} // the caller knows the key only
	const likers = 16
	var wg sync.WaitGroup
	errs := make(chan error, likers)
	for i := range likers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			like := social.Like{UserId: fmt.Sprintf("u%d", i), PostId: post.PostId, CreatedAt: "2026-01-02T00:00:00Z"}
			for attempt := 0; ; attempt++ {
				err := c.LikePost(ctx, like, key)
				var tce *types.TransactionCanceledException
				if errors.As(err, &tce) && attempt < 100 && aws.ToString(tce.CancellationReasons[1].Code) == "TransactionConflict" {
					continue // two likes of one post at once: DynamoDB's advice is to retry
				}
				errs <- err
				return
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := likeCount(t, c, post); got != fmt.Sprint(likers) {
		t.Fatalf("LikeCount after %d likes = %q", likers, got)
	}
	// The same user again: the guard refuses it, and nothing changes.
	err := c.LikePost(ctx, social.Like{UserId: "u0", PostId: post.PostId, CreatedAt: "2026-01-03T00:00:00Z"}, key)
	if codes := cancelReasons(t, err); fmt.Sprint(codes) != "[ConditionalCheckFailed None]" {
		t.Fatalf("a second like by u0: reasons %v", codes)
	}
	if got := likeCount(t, c, post); got != fmt.Sprint(likers) {
		t.Fatalf("LikeCount after a refused like = %q", got)
	}
	if l, err := c.Likes3(ctx, "u0", post.PostId); err != nil || l == nil || l.CreatedAt != "2026-01-02T00:00:00Z" {
		t.Fatalf("u0's like was overwritten: %+v %v", l, err)
	}
	// A missing post: the update's attribute_exists cancels it, and the
	// Like is not written either.
	missing := social.Post{UserId: "author", PostId: "nope", CreatedAt: post.CreatedAt}
	err = c.LikePost(ctx, social.Like{UserId: "u0", PostId: "nope"}, missing)
	if codes := cancelReasons(t, err); fmt.Sprint(codes) != "[None ConditionalCheckFailed]" {
		t.Fatalf("a like of a missing post: reasons %v", codes)
	}
	if l, err := c.Likes3(ctx, "u0", "nope"); err != nil || l != nil {
		t.Fatalf("a cancelled transaction wrote its Like: %+v %v", l, err)
	}
}

// TestGenerated_Batches runs the seed's Batch Write and Batch Get: more
// users than one BatchWriteItem (25) holds are written in several
// requests, and read back in one BatchGetItem; a missing user is left out.
func TestGenerated_Batches(t *testing.T) {
	ctx := context.Background()
	c := setup(t)
	var users, keys []social.User
	for i := range 30 {
		u := social.User{UserId: fmt.Sprintf("u%02d", i), Email: fmt.Sprintf("u%02d@example.com", i), Name: "N"}
		users = append(users, u)
		keys = append(keys, social.User{UserId: u.UserId})
	}
	if err := c.CreateUsers(ctx, users); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetUsers(ctx, append(keys, social.User{UserId: "missing"}))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]social.User{}
	for _, x := range got {
		u := x.(social.User)
		seen[u.UserId] = u
	}
	if len(got) != 30 || len(seen) != 30 || seen["u07"] != users[7] {
		t.Fatalf("GetUsers: %d items, %d users, u07 %+v", len(got), len(seen), seen["u07"])
	}
}
