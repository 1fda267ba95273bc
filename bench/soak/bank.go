package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The bank: accounts A#00..A#31 open with 1,000 each. A transfer is one
// TransactWriteItems of three actions: debit the source (condition
// bal >= amount), credit the destination (condition the account exists)
// and put a transfer record X#<id> (condition it does not exist yet),
// with ClientRequestToken <id>. The record commits with the transfer or
// not at all, so after the run the records say exactly which transfers
// applied, whatever the clients learnt; the token makes a retry after a
// lost answer safe (dynago keeps tokens in the store, written in the
// transaction they record, for 10 minutes).

// Transfer outcomes.
const (
	xAcked        = "acknowledged"
	xAckedRetry   = "acknowledged on a retry after a lost answer"
	xInsufficient = "cancelled: insufficient funds"
	xConflict     = "cancelled: transaction conflict"
	xCancelled    = "cancelled: other reason"
	xRecordExists = "retry found its record already there (token not honoured)"
	xUnresolved   = "unresolved at the end of the run"
	xError        = "rejected with an error"
	xNotSent      = "never sent: the run ended while the server was down"
)

type xfer struct {
	id       string
	from, to int
	amt      int64
	status   string
	attempts int
}

// applied reports whether the client learnt that the transfer applied.
func (x *xfer) applied() bool {
	return x.status == xAcked || x.status == xAckedRetry || x.status == xRecordExists
}

// rejected reports whether the client learnt that it did not apply.
func (x *xfer) rejected() bool {
	return x.status == xInsufficient || x.status == xConflict || x.status == xCancelled || x.status == xError || x.status == xNotSent
}

func xferInput(x *xfer) *dynamodb.TransactWriteItemsInput {
	amt := item{":a": nv(x.amt)}
	rec := keyOf("X#"+x.id, "x")
	rec["from"], rec["to"], rec["amt"], rec["cat"] = nv(int64(x.from)), nv(int64(x.to)), nv(x.amt), sv("xfer")
	return &dynamodb.TransactWriteItemsInput{
		ClientRequestToken: aws.String(x.id),
		TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{
				TableName: aws.String(tableName), Key: accountKey(x.from),
				UpdateExpression: aws.String("SET bal = bal - :a"), ConditionExpression: aws.String("bal >= :a"),
				ExpressionAttributeValues: amt,
			}},
			{Update: &types.Update{
				TableName: aws.String(tableName), Key: accountKey(x.to),
				UpdateExpression: aws.String("SET bal = bal + :a"), ConditionExpression: aws.String("attribute_exists(PK)"),
				ExpressionAttributeValues: amt,
			}},
			{Put: &types.Put{
				TableName: aws.String(tableName), Item: rec,
				ConditionExpression: aws.String("attribute_not_exists(PK)"),
			}},
		},
	}
}

// transfer moves 1 to 200 between two random accounts. After a lost
// answer it waits for a newer server and sends the same request with the
// same token again, until an answer comes.
func (w *worker) transfer() {
	const op = "TransactWriteItems"
	x := &xfer{id: fmt.Sprintf("%d-%d", w.id, w.seq+1), from: w.rng.IntN(accounts), amt: int64(1 + w.rng.IntN(200))}
	w.seq++
	x.to = (x.from + 1 + w.rng.IntN(accounts-1)) % accounts
	in := xferInput(x)
	w.xfers = append(w.xfers, x)
	lost := false
	for {
		x.attempts++
		cls, g0, err := w.send(op, func(ctx context.Context) error {
			_, err := w.db.TransactWriteItems(ctx, in)
			return err
		})
		if err == nil {
			x.status = xAcked
			if lost {
				x.status = xAckedRetry
				w.st.resApplied[op]++
			}
			w.st.ok[op]++
			progress.Add(1)
			break
		}
		if cls == notSent && !lost {
			x.status = xNotSent
			break
		}
		if cls == unknown || cls == notSent {
			if cls == unknown && !lost {
				lost = true
				w.st.unknown[op]++
			}
			if w.ctx.Err() != nil || w.srv.waitNewer(w.ctx, g0, liveWait) != nil {
				x.status = xUnresolved
				if lost {
					w.st.unresolved[op]++
				}
				break
			}
			if cls == unknown && w.srv.generation() == g0 {
				w.st.liveLost++
			}
			continue
		}
		var tc *types.TransactionCanceledException
		if errors.As(err, &tc) {
			x.status = xCancelled
			codes := make([]string, len(tc.CancellationReasons))
			for i, r := range tc.CancellationReasons {
				codes[i] = aws.ToString(r.Code)
			}
			switch {
			case len(codes) == 3 && codes[2] == "ConditionalCheckFailed":
				x.status = xRecordExists
				w.viol.add(1, "transfer %s: a retry with the same ClientRequestToken after a lost answer was cancelled because its record exists (reasons %v): the token did not make the retry idempotent", x.id, codes)
			case len(codes) == 3 && codes[0] == "ConditionalCheckFailed":
				x.status = xInsufficient
			case strings.Contains(strings.Join(codes, ","), "TransactionConflict"):
				x.status = xConflict
			default:
				w.unexpected(op, err)
			}
		} else {
			x.status = xError
			w.unexpected(op, err)
		}
		if lost {
			if x.status == xRecordExists {
				w.st.resApplied[op]++
			} else {
				w.st.resNot[op]++
			}
		}
		break
	}
	w.st.xfer[x.status]++
}

// audit reads every account in one TransactGetItems: a serializable
// snapshot, whose balances must add up to the opening total exactly.
func (w *worker) audit() {
	const op = "TransactGetItems"
	in := &dynamodb.TransactGetItemsInput{}
	for a := 0; a < accounts; a++ {
		in.TransactItems = append(in.TransactItems, types.TransactGetItem{Get: &types.Get{
			TableName: aws.String(tableName), Key: accountKey(a), ProjectionExpression: aws.String("bal"),
		}})
	}
	var out *dynamodb.TransactGetItemsOutput
	err := w.readCall(op, func(ctx context.Context) error {
		var err error
		out, err = w.db.TransactGetItems(ctx, in)
		return err
	})
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) {
		w.st.xfer["audit cancelled (conflict)"]++
		return
	}
	if err != nil {
		if w.ctx.Err() == nil {
			w.unexpected(op, err)
		}
		return
	}
	var sum int64
	for i, r := range out.Responses {
		b, ok := num(r.Item, "bal")
		if !ok {
			w.viol.add(1, "TransactGetItems: account %d has no balance (%s)", i, showItem(r.Item))
		}
		sum += b
	}
	w.st.ok[op]++
	w.st.readChecks++
	progress.Add(1)
	if want := int64(accounts * openingBal); sum != want || len(out.Responses) != accounts {
		w.viol.add(1, "TransactGetItems: %d balances sum to %d, want %d", len(out.Responses), sum, want)
	}
}
