package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Each client owns its keys: it is their only writer (apart from the TTL
// sweep, which only deletes expired items), and it issues one request at
// a time, so its model of them is exact. The model holds, per key, the
// states the item may be in: one state (nil for no item), or also "no
// item" when the state is an expired item that the sweep may have
// deleted. After an unknown outcome the client waits for a newer server
// (the old process is dead, so the request has applied or not, for
// good), reads the key with a strongly consistent GetItem and checks
// that it is in the state before or the state after the write; then the
// model takes what it read.
const (
	partitions    = 8 // regular partitions per client: K<client>#<p>
	ttlPartitions = 4 // partitions of TTL items per client: T<client>#<p>
	sortKeys      = 8 // items per partition: SK 0..7
	liveWait      = 5 * time.Second
)

// entry is the model of one owned key.
type entry struct {
	pk, sk string
	ttl    bool   // a key of TTL items
	states []item // the states it may be in; nil is no item
}

func (e *entry) id() string { return keyID(e.pk, e.sk) }

// exact reports whether the model knows the one state of the key.
func (e *entry) exact() bool { return len(e.states) == 1 }

func expired(m item) bool {
	exp, ok := num(m, ttlAttr)
	return ok && exp <= time.Now().Unix()
}

// statesOf returns the states a key is in after a write of m: m, or
// also no item when m is expired.
func statesOf(m item) []item {
	if m != nil && expired(m) {
		return []item{m, nil}
	}
	return []item{m}
}

func matches(obs item, states []item) bool {
	c := canonItem(obs)
	for _, s := range states {
		if canonItem(s) == c {
			return true
		}
	}
	return false
}

func showStates(states []item) string {
	parts := make([]string, len(states))
	for i, s := range states {
		if s == nil {
			parts[i] = "(no item)"
		} else {
			parts[i] = "{" + canonItem(s) + "}"
		}
	}
	return strings.Join(parts, " or ")
}

func showItem(m item) string {
	if m == nil {
		return "(no item)"
	}
	return "{" + canonItem(m) + "}"
}

type worker struct {
	id    int
	cfg   *config
	ctx   context.Context // ends at the end of the run's grace period
	db    *dynamodb.Client
	srv   *server
	rng   *rand.Rand
	st    *stats
	viol  *violations
	seq   int
	keys  []*entry // regular keys
	ttls  []*entry // TTL keys
	parts map[string][]*entry
	xfers []*xfer
	scan  item // the Scan cursor (LastEvaluatedKey)
}

func newWorker(id int, cfg *config, ctx context.Context, db *dynamodb.Client, srv *server, viol *violations) *worker {
	w := &worker{id: id, cfg: cfg, ctx: ctx, db: db, srv: srv, viol: viol, st: newStats(),
		rng: rand.New(rand.NewPCG(cfg.seed, uint64(id))), parts: map[string][]*entry{}}
	for p := 0; p < partitions+ttlPartitions; p++ {
		pk := fmt.Sprintf("K%02d#%d", id, p)
		if p >= partitions {
			pk = fmt.Sprintf("T%02d#%d", id, p-partitions)
		}
		for s := 0; s < sortKeys; s++ {
			e := &entry{pk: pk, sk: fmt.Sprint(s), ttl: p >= partitions, states: []item{nil}}
			if e.ttl {
				w.ttls = append(w.ttls, e)
			} else {
				w.keys = append(w.keys, e)
			}
			w.parts[pk] = append(w.parts[pk], e)
		}
	}
	return w
}

// ops and their weights.
var ops = []struct {
	name   string
	weight int
	run    func(*worker)
}{
	{"PutItem", 16, (*worker).put},
	{"UpdateItem", 16, (*worker).update},
	{"DeleteItem", 5, (*worker).delete},
	{"BatchWriteItem", 5, (*worker).batch},
	{"PutItem (TTL)", 10, (*worker).ttlWrite},
	{"TransactWriteItems", 16, (*worker).transfer},
	{"Query", 10, (*worker).query},
	{"Query LSI1", 4, (*worker).queryLSI},
	{"Query GSI1", 4, (*worker).queryGSI},
	{"Scan", 5, (*worker).scanPage},
	{"TransactGetItems", 3, (*worker).audit},
}

// run issues operations until stop is set.
func (w *worker) run(stop *atomic.Bool) {
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	for !stop.Load() && w.ctx.Err() == nil {
		r := w.rng.IntN(total)
		for _, o := range ops {
			if r < o.weight {
				o.run(w)
				break
			}
			r -= o.weight
		}
	}
}

func (w *worker) nextWID() string {
	w.seq++
	return fmt.Sprintf("%d.%d", w.id, w.seq)
}

func (w *worker) randString(lo, hi int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, lo+w.rng.IntN(hi-lo+1))
	for i := range b {
		b[i] = letters[w.rng.IntN(len(letters))]
	}
	return string(b)
}

// newItem returns a new item for e with a unique write id w. Attributes
// come and go so that items enter and leave every (sparse) index.
func (w *worker) newItem(e *entry) item {
	m := keyOf(e.pk, e.sk)
	m["w"] = sv(w.nextWID())
	m["d"] = sv(w.randString(1, 48))
	if e.ttl {
		if w.rng.IntN(10) < 7 {
			m[ttlAttr] = nv(time.Now().Unix() - 60) // expired: the sweep deletes it
		} else {
			m[ttlAttr] = nv(time.Now().Unix() + 86400)
		}
		if w.rng.IntN(2) == 0 {
			m["g"], m["gs"] = sv(fmt.Sprintf("g%d", w.rng.IntN(8))), nv(int64(w.rng.IntN(1000)))
		}
		return m
	}
	if w.rng.IntN(10) < 7 {
		m["g"] = sv(fmt.Sprintf("g%d", w.rng.IntN(8)))
		if w.rng.IntN(10) < 8 {
			m["gs"] = nv(int64(w.rng.IntN(1000)))
		}
	}
	if w.rng.IntN(10) < 3 {
		m["cat"] = sv(fmt.Sprintf("c%d", w.rng.IntN(4)))
	}
	if w.rng.IntN(10) < 6 {
		m["v"] = nv(int64(w.rng.IntN(100)))
		m["c"] = nv(int64(w.rng.IntN(101) - 50))
	}
	if w.rng.IntN(10) < 2 {
		m["m"] = &types.AttributeValueMemberM{Value: item{
			"x": nv(int64(w.rng.IntN(10))),
			"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{sv(w.randString(0, 8)), nv(7)}},
		}}
	}
	return m
}

// setState makes the model of e the state after a write of m.
func (w *worker) setState(e *entry, m item) { e.states = statesOf(m) }

// send runs call until it reaches a server: while the connection is
// refused (the server is down) it waits and calls again, since nothing
// was sent. It returns the class of the last attempt's error, the server
// generation that attempt may have reached, and the error.
func (w *worker) send(op string, call func(ctx context.Context) error) (class, int, error) {
	for {
		g0 := w.srv.generation()
		ctx, cancel := context.WithTimeout(w.ctx, w.cfg.reqTimeout)
		err := call(ctx)
		cancel()
		if err == nil {
			return definite, g0, nil
		}
		cls, kind := classify(err)
		w.st.errs[op+": "+kind]++
		if cls != notSent {
			return cls, g0, err
		}
		if w.ctx.Err() != nil {
			return notSent, g0, err
		}
		_ = w.srv.waitUp(w.ctx)
		time.Sleep(20 * time.Millisecond)
	}
}

// readCall runs a read until it is answered; reads are safe to repeat.
// It returns a definite error (which no read of the soak should get) or
// the error of the last attempt when the run's grace period ended.
func (w *worker) readCall(op string, call func(ctx context.Context) error) error {
	for {
		ctx, cancel := context.WithTimeout(w.ctx, w.cfg.reqTimeout)
		err := call(ctx)
		cancel()
		if err == nil {
			return nil
		}
		cls, kind := classify(err)
		w.st.errs[op+": "+kind]++
		if cls == definite || w.ctx.Err() != nil {
			return err
		}
		_ = w.srv.waitUp(w.ctx)
		time.Sleep(20 * time.Millisecond)
	}
}

// getItem reads e with a strongly consistent GetItem.
func (w *worker) getItem(e *entry) (item, error) {
	var out *dynamodb.GetItemOutput
	err := w.readCall("GetItem", func(ctx context.Context) error {
		var err error
		out, err = w.db.GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(tableName), Key: keyOf(e.pk, e.sk), ConsistentRead: aws.Bool(true),
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(out.Item) == 0 {
		return nil, nil
	}
	return out.Item, nil
}

// change is one key of a write whose outcome is unknown: post are the
// states after the write.
type change struct {
	e    *entry
	post []item
}

// resolve learns the outcome of a write whose answer was lost: it waits
// until a newer server than g0 is up, then reads each key.
func (w *worker) resolve(op string, g0 int, changes []change) {
	w.st.unknown[op]++
	if err := w.srv.waitNewer(w.ctx, g0, liveWait); err != nil {
		for _, c := range changes {
			w.st.unresolved[op]++
			c.e.states = append(c.e.states, c.post...)
		}
		return
	}
	if w.srv.generation() == g0 {
		w.st.liveLost++
	}
	for _, c := range changes {
		obs, err := w.getItem(c.e)
		if err != nil {
			w.st.unresolved[op]++
			c.e.states = append(c.e.states, c.post...)
			continue
		}
		after, before := matches(obs, c.post), matches(obs, c.e.states)
		switch {
		case after && before:
			w.st.resEither[op]++
		case after:
			w.st.resApplied[op]++
		case before:
			w.st.resNot[op]++
		default:
			w.viol.add(2, "%s %s: its answer was lost (server generation %d); then a consistent GetItem reads %s, want the state before, %s, or after, %s",
				op, showKey(c.e.id()), g0, showItem(obs), showStates(c.e.states), showStates(c.post))
		}
		w.setState(c.e, obs)
	}
}

// failed handles a failed single-key write of e whose states after it
// would be post.
func (w *worker) failed(op string, e *entry, post []item, err error, cls class, g0 int) {
	switch cls {
	case unknown:
		w.resolve(op, g0, []change{{e, post}})
	case notSent: // the run ended before the server came back: not applied
	default:
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			w.viol.add(2, "%s %s: its condition failed: the model holds %s, the item is %s",
				op, showKey(e.id()), showStates(e.states), showItem(ccf.Item))
			w.setState(e, ccf.Item)
			return
		}
		w.unexpected(op, err)
	}
}

func (w *worker) unexpected(op string, err error) {
	_, kind := classify(err)
	msg := err.Error()
	if i := strings.LastIndex(msg, "api error "); i >= 0 {
		msg = msg[i+len("api error "):]
	}
	if len(msg) > 160 {
		msg = msg[:160]
	}
	w.st.unexpected[op+": "+kind+": "+msg]++
}

// checkOld compares the old item a write returned with the model.
func (w *worker) checkOld(op string, e *entry, old item) {
	if len(old) == 0 {
		old = nil
	}
	w.st.readChecks++
	if !matches(old, e.states) {
		w.viol.add(2, "%s %s: ReturnValues ALL_OLD gives %s, the model holds %s", op, showKey(e.id()), showItem(old), showStates(e.states))
	}
}

func (w *worker) pick(keys []*entry) *entry { return keys[w.rng.IntN(len(keys))] }

// put is a PutItem of an owned key, half the time with a condition that
// the model says holds (no item, or the item's write id).
func (w *worker) put() {
	const op = "PutItem"
	e := w.pick(w.keys)
	m := w.newItem(e)
	in := &dynamodb.PutItemInput{
		TableName: aws.String(tableName), Item: m,
		ReturnValues:                        types.ReturnValueAllOld,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	if e.exact() && w.rng.IntN(2) == 0 {
		if prev := e.states[0]; prev == nil {
			in.ConditionExpression = aws.String("attribute_not_exists(PK)")
		} else {
			in.ConditionExpression = aws.String("#w = :w")
			in.ExpressionAttributeNames = map[string]string{"#w": "w"}
			in.ExpressionAttributeValues = item{":w": prev["w"]}
		}
	}
	w.putItem(op, e, in)
}

// putItem sends in, a PutItem of e's new state in.Item with ReturnValues
// ALL_OLD, and records its outcome against the model.
func (w *worker) putItem(op string, e *entry, in *dynamodb.PutItemInput) {
	var out *dynamodb.PutItemOutput
	cls, g0, err := w.send(op, func(ctx context.Context) error {
		var err error
		out, err = w.db.PutItem(ctx, in)
		return err
	})
	if err != nil {
		w.failed(op, e, statesOf(in.Item), err, cls, g0)
		return
	}
	w.checkOld(op, e, out.Attributes)
	w.st.ok[op]++
	progress.Add(1)
	w.setState(e, in.Item)
}

// update is a conditional UpdateItem: the version v must be the model's
// (or absent), it becomes v+1, the counter c gets ADD d, and index
// attributes are set or removed.
func (w *worker) update() {
	const op = "UpdateItem"
	e := w.pick(w.keys)
	if !e.exact() {
		w.put()
		return
	}
	prev := e.states[0]
	wid := w.nextWID()
	d := int64(w.rng.IntN(201) - 100)
	want := copyItem(prev)
	if want == nil {
		want = keyOf(e.pk, e.sk)
	}
	names := map[string]string{"#w": "w", "#v": "v", "#c": "c"}
	vals := item{":w": sv(wid), ":d": nv(d)}
	set := []string{"#w = :w", "#v = :nv"}
	var remove []string
	var cond string
	ver := int64(1)
	if pv, ok := num(prev, "v"); ok {
		ver = pv + 1
		cond = "#v = :v"
		vals[":v"] = nv(pv)
	} else if prev != nil {
		cond = "attribute_exists(PK) AND attribute_not_exists(#v)"
	} else {
		cond = "attribute_not_exists(PK)"
	}
	vals[":nv"] = nv(ver)
	c0, _ := num(prev, "c")
	want["w"], want["v"], want["c"] = sv(wid), nv(ver), nv(c0+d)
	switch r := w.rng.IntN(10); {
	case r < 3:
		g, gs := sv(fmt.Sprintf("g%d", w.rng.IntN(8))), nv(int64(w.rng.IntN(1000)))
		names["#g"], names["#gs"] = "g", "gs"
		vals[":g"], vals[":gs"] = g, gs
		set = append(set, "#g = :g", "#gs = :gs")
		want["g"], want["gs"] = g, gs
	case r < 5:
		names["#g"] = "g"
		remove = append(remove, "#g")
		delete(want, "g")
	case r < 6:
		cat := sv(fmt.Sprintf("c%d", w.rng.IntN(4)))
		names["#cat"], vals[":cat"] = "cat", cat
		set = append(set, "#cat = :cat")
		want["cat"] = cat
	case r < 7:
		names["#cat"] = "cat"
		remove = append(remove, "#cat")
		delete(want, "cat")
	}
	expr := "SET " + strings.Join(set, ", ") + " ADD #c :d"
	if len(remove) > 0 {
		expr += " REMOVE " + strings.Join(remove, ", ")
	}
	in := &dynamodb.UpdateItemInput{
		TableName: aws.String(tableName), Key: keyOf(e.pk, e.sk),
		UpdateExpression: aws.String(expr), ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: vals,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	var out *dynamodb.UpdateItemOutput
	cls, g0, err := w.send(op, func(ctx context.Context) error {
		var err error
		out, err = w.db.UpdateItem(ctx, in)
		return err
	})
	if err != nil {
		w.failed(op, e, []item{want}, err, cls, g0)
		return
	}
	w.st.readChecks++
	if canonItem(out.Attributes) != canonItem(want) {
		w.viol.add(2, "UpdateItem %s: ReturnValues ALL_NEW gives %s, want %s (from %s)", showKey(e.id()), showItem(out.Attributes), showItem(want), showItem(prev))
	}
	w.st.ok[op]++
	progress.Add(1)
	w.setState(e, want)
}

// delete is a DeleteItem, half the time with the condition that the item
// has the model's write id.
func (w *worker) delete() {
	const op = "DeleteItem"
	e := w.pick(w.keys)
	in := &dynamodb.DeleteItemInput{
		TableName: aws.String(tableName), Key: keyOf(e.pk, e.sk),
		ReturnValues:                        types.ReturnValueAllOld,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	if e.exact() && e.states[0] != nil && w.rng.IntN(2) == 0 {
		in.ConditionExpression = aws.String("#w = :w")
		in.ExpressionAttributeNames = map[string]string{"#w": "w"}
		in.ExpressionAttributeValues = item{":w": e.states[0]["w"]}
	}
	w.deleteKey(op, e, in)
}

func (w *worker) deleteKey(op string, e *entry, in *dynamodb.DeleteItemInput) {
	var out *dynamodb.DeleteItemOutput
	cls, g0, err := w.send(op, func(ctx context.Context) error {
		var err error
		out, err = w.db.DeleteItem(ctx, in)
		return err
	})
	if err != nil {
		w.failed(op, e, []item{nil}, err, cls, g0)
		return
	}
	w.checkOld(op, e, out.Attributes)
	w.st.ok[op]++
	progress.Add(1)
	w.setState(e, nil)
}

// ttlWrite writes a TTL key: mostly a PutItem of an item that expired a
// minute ago (the sweep deletes it), or that expires tomorrow; sometimes
// a DeleteItem. No conditions: the sweep may have deleted the item.
func (w *worker) ttlWrite() {
	e := w.pick(w.ttls)
	if w.rng.IntN(100) < 15 {
		w.deleteKey("DeleteItem (TTL)", e, &dynamodb.DeleteItemInput{
			TableName: aws.String(tableName), Key: keyOf(e.pk, e.sk), ReturnValues: types.ReturnValueAllOld,
		})
		return
	}
	w.putItem("PutItem (TTL)", e, &dynamodb.PutItemInput{
		TableName: aws.String(tableName), Item: w.newItem(e), ReturnValues: types.ReturnValueAllOld,
	})
}

// batch is a BatchWriteItem of 2 to 10 distinct owned keys (regular and
// TTL), puts and deletes; unprocessed items are sent again.
func (w *worker) batch() {
	const op = "BatchWriteItem"
	type pendingWrite struct {
		e    *entry
		req  types.WriteRequest
		post item
	}
	n := 2 + w.rng.IntN(9)
	pending := map[string]*pendingWrite{}
	for len(pending) < n {
		e := w.pick(w.keys)
		if w.rng.IntN(4) == 0 {
			e = w.pick(w.ttls)
		}
		if pending[e.id()] != nil {
			continue
		}
		p := &pendingWrite{e: e}
		if w.rng.IntN(10) < 3 {
			p.req = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: keyOf(e.pk, e.sk)}}
		} else {
			p.post = w.newItem(e)
			p.req = types.WriteRequest{PutRequest: &types.PutRequest{Item: p.post}}
		}
		pending[e.id()] = p
	}
	w.st.pages[op+" items"] += int64(n)
	backoff := 10 * time.Millisecond
	for len(pending) > 0 {
		reqs := make([]types.WriteRequest, 0, len(pending))
		for _, p := range pending {
			reqs = append(reqs, p.req)
		}
		var out *dynamodb.BatchWriteItemOutput
		cls, g0, err := w.send(op, func(ctx context.Context) error {
			var err error
			out, err = w.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{tableName: reqs},
			})
			return err
		})
		if err != nil {
			switch cls {
			case unknown:
				var changes []change
				for _, p := range pending {
					changes = append(changes, change{p.e, statesOf(p.post)})
				}
				w.resolve(op, g0, changes)
			case definite:
				w.unexpected(op, err)
			}
			return
		}
		left := map[string]*pendingWrite{}
		for _, r := range out.UnprocessedItems[tableName] {
			var k item
			if r.PutRequest != nil {
				k = r.PutRequest.Item
			} else if r.DeleteRequest != nil {
				k = r.DeleteRequest.Key
			}
			if p := pending[itemKey(k)]; p != nil {
				left[p.e.id()] = p
			}
		}
		for id, p := range pending {
			if left[id] == nil {
				w.setState(p.e, p.post)
			}
		}
		pending = left
		if len(pending) > 0 {
			w.st.errs[op+": UnprocessedItems"]++
			time.Sleep(backoff)
			backoff = min(2*backoff, time.Second)
		}
	}
	w.st.ok[op]++
	progress.Add(1)
}
