package accounts_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/dynagotest"
	"github.com/dynago/dynago/examples/gen/accounts"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/run"
)

// reasons returns a cancelled transaction's reason codes ("" for a
// success).
func reasons(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("want a TransactionCanceledException, got %v", err)
	}
	var codes []string
	for _, r := range tce.CancellationReasons {
		codes = append(codes, aws.ToString(r.Code))
	}
	return fmt.Sprint(codes)
}

// TestGenerated_Accounts runs the transactions gen-go wrote for
// internal/design/gengo/testdata/accounts.design.yaml against dynago: the
// email guard item refuses a second user with the same email, and a
// version read before someone else's write makes an update, a delete and
// their companion actions fail together.
func TestGenerated_Accounts(t *testing.T) {
	ctx := context.Background()
	db := dynagotest.New(t).Client()
	d, diags, err := design.Load("../../../internal/design/gengo/testdata/accounts.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if _, err := run.CreateTable(ctx, d, db, accounts.TableName); err != nil {
		t.Fatal(err)
	}
	c := accounts.New(db)
	get := func(id string) *accounts.User {
		t.Helper()
		u, err := c.GetUser(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	guard := func(email string) bool {
		t.Helper()
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(c.Table), Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "EMAIL#" + email}, "SK": &types.AttributeValueMemberS{Value: "EMAIL#" + email}}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Item != nil
	}

	// Sign-up: the guard makes the email unique.
	ann := accounts.User{UserId: "ann", Email: "a@example.com", DisplayName: "Ann"}
	if r := reasons(t, c.SignUp(ctx, ann, accounts.UserEmail{Email: ann.Email, UserId: ann.UserId})); r != "" {
		t.Fatalf("sign-up: %s", r)
	}
	bob := accounts.User{UserId: "bob", Email: ann.Email, DisplayName: "Bob"}
	if r := reasons(t, c.SignUp(ctx, bob, accounts.UserEmail{Email: bob.Email, UserId: bob.UserId})); r != "[None ConditionalCheckFailed]" {
		t.Fatalf("a second user with ann's email: %q", r)
	}
	if get("bob") != nil {
		t.Fatal("the refused sign-up wrote its user")
	}

	// Rename with the version read: it passes and adds one to it.
	read := *get("ann")
	if read.Version != "" {
		t.Fatalf("a new user's version: %q", read.Version)
	}
	read.DisplayName = "Ann B."
	if r := reasons(t, c.Rename(ctx, read, accounts.UserEmail{Email: read.Email})); r != "" {
		t.Fatalf("rename: %s", r)
	}
	now := get("ann")
	if now.DisplayName != "Ann B." || now.Version != "1" {
		t.Fatalf("after rename: %+v", now)
	}
	// A writer still holding the old read loses: its version is stale.
	read.DisplayName = "Stale"
	if r := reasons(t, c.Rename(ctx, read, accounts.UserEmail{Email: read.Email})); r != "[ConditionalCheckFailed None]" {
		t.Fatalf("a rename from a stale read: %q", r)
	}
	if got := get("ann"); got.DisplayName != "Ann B." || got.Version != "1" {
		t.Fatalf("the stale rename changed the user: %+v", got)
	}

	// Change the email: the user, the old guard and the new one together.
	moved := *now
	moved.Email = "ann@example.com"
	err = c.ChangeEmail(ctx, moved, accounts.UserEmail{Email: now.Email}, accounts.UserEmail{Email: moved.Email, UserId: moved.UserId})
	if r := reasons(t, err); r != "" {
		t.Fatalf("change-email: %s", r)
	}
	if got := get("ann"); got.Email != moved.Email || got.Version != "2" || guard(now.Email) || !guard(moved.Email) {
		t.Fatalf("after change-email: %+v, old guard %v, new guard %v", got, guard(now.Email), guard(moved.Email))
	}

	// Close the account from a stale read: refused, and the guard stays.
	if r := reasons(t, c.CloseAccount(ctx, *now, accounts.UserEmail{Email: moved.Email})); r != "[ConditionalCheckFailed None]" {
		t.Fatalf("close-account from a stale read: %q", r)
	}
	if get("ann") == nil || !guard(moved.Email) {
		t.Fatal("the refused close-account deleted something")
	}
	if r := reasons(t, c.CloseAccount(ctx, *get("ann"), accounts.UserEmail{Email: moved.Email})); r != "" {
		t.Fatalf("close-account: %s", r)
	}
	if get("ann") != nil || guard(moved.Email) {
		t.Fatal("close-account left the user or its guard")
	}
}

// TestGenerated_OneItemConditions: the one-item writes with a condition,
// a counter or a version: a put that must not overwrite, an ADD on an
// existing user only (a missing one is not created), and a version that
// refuses a stale rename; each failure is a ConditionalCheckFailedException.
func TestGenerated_OneItemConditions(t *testing.T) {
	ctx := context.Background()
	db := dynagotest.New(t).Client()
	d, diags, err := design.Load("../../../internal/design/gengo/testdata/accounts.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if _, err := run.CreateTable(ctx, d, db, accounts.TableName); err != nil {
		t.Fatal(err)
	}
	c := accounts.New(db)
	refused := func(err error) bool {
		var ccf *types.ConditionalCheckFailedException
		return errors.As(err, &ccf)
	}
	ann := accounts.User{UserId: "ann", Email: "a@example.com", DisplayName: "Ann"}
	if err := c.CreateUser(ctx, ann); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateUser(ctx, accounts.User{UserId: "ann", Email: "other@example.com"}); !refused(err) {
		t.Fatalf("a second create-user of ann: %v", err)
	}
	for range 2 {
		if err := c.CountLogin(ctx, accounts.User{UserId: "ann"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.CountLogin(ctx, accounts.User{UserId: "nobody"}); !refused(err) {
		t.Fatalf("count-login of a missing user: %v", err)
	}
	if u, err := c.GetUser(ctx, "nobody"); err != nil || u != nil {
		t.Fatalf("count-login created a user: %+v %v", u, err)
	}
	read, err := c.GetUser(ctx, "ann")
	if err != nil || read.Logins != "2" || read.Email != ann.Email {
		t.Fatalf("after two logins: %+v %v", read, err)
	}
	read.DisplayName = "Ann B."
	if err := c.SetName(ctx, *read); err != nil {
		t.Fatal(err)
	}
	read.DisplayName = "Stale"
	if err := c.SetName(ctx, *read); !refused(err) {
		t.Fatalf("a rename from a stale read: %v", err)
	}
	if got, _ := c.GetUser(ctx, "ann"); got.DisplayName != "Ann B." || got.Version != "1" || got.Logins != "2" {
		t.Fatalf("after the renames: %+v", got)
	}
}

// TestGenerated_SignUpTeam: an action with a count takes a slice, each
// element an action of the one transaction: a team whose last email is
// taken signs up nobody.
func TestGenerated_SignUpTeam(t *testing.T) {
	ctx := context.Background()
	db := dynagotest.New(t).Client()
	d, diags, err := design.Load("../../../internal/design/gengo/testdata/accounts.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	if _, err := run.CreateTable(ctx, d, db, accounts.TableName); err != nil {
		t.Fatal(err)
	}
	c := accounts.New(db)
	team := func(ids ...string) ([]accounts.User, []accounts.UserEmail) {
		var us []accounts.User
		var es []accounts.UserEmail
		for _, id := range ids {
			us = append(us, accounts.User{UserId: id, Email: id + "@example.com"})
			es = append(es, accounts.UserEmail{UserId: id, Email: id + "@example.com"})
		}
		return us, es
	}
	us, es := team("ann", "bob")
	if err := c.SignUpTeam(ctx, us, es); err != nil {
		t.Fatal(err)
	}
	us, es = team("cat", "dan", "eve")
	es[2].Email = "ann@example.com" // taken
	if r := reasons(t, c.SignUpTeam(ctx, us, es)); r != "[None None None None None ConditionalCheckFailed]" {
		t.Fatalf("a team with a taken email: %q", r)
	}
	for _, id := range []string{"ann", "bob", "cat", "dan"} {
		u, err := c.GetUser(ctx, id)
		if err != nil || (u != nil) != (id == "ann" || id == "bob") {
			t.Fatalf("user %s after the sign-ups: %+v %v", id, u, err)
		}
	}
}
