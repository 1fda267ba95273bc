"""PartiQL through boto3: execute_statement, batch_execute_statement and
execute_transaction (issue 23).

Expected answers are real DynamoDB's, as the conformance suite captured them
(../shared/conformance/tests/tier2/partiql and tests/tier3/error-messages/
partiql*.test.ts, October 2026), and the API references of ExecuteStatement,
BatchExecuteStatement and ExecuteTransaction. Seed 000's access patterns
(../shared/seeds/000_*.txt) written as PartiQL SELECTs are held to answers
computed from the generated items (PartiQLSeed000Test), and a SELECT of a
partition to the Query of it (developer guide, ql-reference.select.html).
"""

import uuid

from botocore.exceptions import ClientError

from boto3.dynamodb.types import TypeSerializer

from compat_support import DynamoTestCase, batch_put, seed_user_items

NOT_WELL_FORMED = "Statement wasn't well formed, can't be processed: "


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


class PartiQLTest(DynamoTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table("pq")
        cls.run_id = uuid.uuid4().hex[:8]

    def pk(self, name):
        return "%s#%s" % (self.run_id, name)

    def stmt(self, text, *params, **kw):
        if params:
            kw["Parameters"] = list(params)
        return self.client.execute_statement(Statement=text, **kw)

    def get(self, pk, sk="A"):
        return self.client.get_item(TableName=self.table, Key={"PK": S(pk), "SK": S(sk)},
                                    ConsistentRead=True).get("Item")

    def test_insert_select_update_delete(self):
        # executeStatement.test.ts; writeResponses.test.ts (a write answers Items: []).
        t, pk = self.table, self.pk("crud")
        r = self.stmt('INSERT INTO "%s" VALUE {\'PK\': ?, \'SK\': \'a\', \'n\': 1, \'s\': <<\'x\'>>}' % t, S(pk))
        self.assertEqual(r["Items"], [])
        r = self.stmt('SELECT * FROM "%s" WHERE PK = ? AND SK = \'a\'' % t, S(pk))
        self.assertEqual(r["Items"], [{"PK": S(pk), "SK": S("a"), "n": N(1), "s": {"SS": ["x"]}}])
        r = self.stmt('UPDATE "%s" SET n = n + 1 SET s = set_add(s, <<\'y\'>>) WHERE PK = ? AND SK = \'a\' RETURNING MODIFIED NEW *' % t, S(pk))
        self.assertEqual(r["Items"], [{"n": N(2), "s": {"SS": ["x", "y"]}}])
        r = self.stmt('DELETE FROM "%s" WHERE PK = ? AND SK = \'a\' RETURNING ALL OLD *' % t, S(pk))
        self.assertEqual(r["Items"][0]["n"], N(2))
        self.assertNotIn("Item", self.client.get_item(TableName=t, Key={"PK": S(pk), "SK": S("a")}, ConsistentRead=True))

    def test_insert_of_an_existing_item(self):
        # executeStatement.test.ts: INSERT is not an upsert.
        t, pk = self.table, self.pk("dup")
        self.stmt('INSERT INTO "%s" VALUE {\'PK\': ?, \'SK\': \'a\'}' % t, S(pk))
        e = self.expectError("DuplicateItemException", "Duplicate primary key exists in table",
                             self.stmt, 'INSERT INTO "%s" VALUE {\'PK\': ?, \'SK\': \'a\'}' % t, S(pk))
        self.assertIsNotNone(e)

    def test_update_is_not_an_upsert(self):
        # fromFirstUpdate.test.ts: a key that matches no item fails its condition.
        self.expectError("ConditionalCheckFailedException", None, self.stmt,
                         'UPDATE "%s" SET a = 1 WHERE PK = ? AND SK = \'a\'' % self.table, S(self.pk("none")))

    def test_query_paging_and_order(self):
        # grammar.test.ts (ORDER BY ... DESC); API_ExecuteStatement.html (Limit, NextToken).
        t, pk = self.table, self.pk("page")
        for i in range(5):
            self.client.put_item(TableName=t, Item={"PK": S(pk), "SK": S("s%d" % i)})
        got, token = [], None
        while True:
            kw = {"Limit": 2}
            if token:
                kw["NextToken"] = token
            r = self.stmt('SELECT SK FROM "%s" WHERE PK = ? ORDER BY SK DESC' % t, S(pk), **kw)
            got += [i["SK"]["S"] for i in r["Items"]]
            token = r.get("NextToken")
            if not token:
                break
        self.assertEqual(got, ["s4", "s3", "s2", "s1", "s0"])

    def test_parse_error_message(self):
        # partiqlGrammar.test.ts.
        self.expectError("ValidationException", NOT_WELL_FORMED + "Unexpected term",
                         self.stmt, 'SELECT * FROM "%s" WHERE' % self.table)

    def test_batch_execute_statement(self):
        # batchExecuteStatement.test.ts, partiqlGrammar.test.ts: each statement answers on its own.
        t, pk = self.table, self.pk("batch")
        self.client.put_item(TableName=t, Item={"PK": S(pk), "SK": S("a"), "v": N(7)})
        r = self.client.batch_execute_statement(Statements=[
            {"Statement": 'SELECT v FROM "%s" WHERE PK = ? AND SK = \'a\'' % t, "Parameters": [S(pk)]},
            {"Statement": 'SELECT * FROM "%s" WHERE' % t},
        ])
        self.assertEqual(r["Responses"][0]["Item"], {"v": N(7)})
        self.assertEqual(r["Responses"][1]["Error"], {"Code": "ValidationError", "Message": NOT_WELL_FORMED + "Unexpected term"})

    def test_execute_transaction(self):
        # executeTransaction.test.ts; writeResponses.test.ts; API_CancellationReason.html.
        t, pk = self.table, self.pk("tx")
        r = self.client.execute_transaction(TransactStatements=[
            {"Statement": 'INSERT INTO "%s" VALUE {\'PK\': ?, \'SK\': \'a\'}' % t, "Parameters": [S(pk)]},
            {"Statement": 'INSERT INTO "%s" VALUE {\'PK\': ?, \'SK\': \'b\'}' % t, "Parameters": [S(pk)]},
        ])
        self.assertEqual(r["Responses"], [])
        with self.assertRaises(ClientError) as cm:
            self.client.execute_transaction(TransactStatements=[
                {"Statement": 'INSERT INTO "%s" VALUE {\'PK\': ?, \'SK\': \'c\'}' % t, "Parameters": [S(pk)]},
                {"Statement": 'INSERT INTO "%s" VALUE {\'PK\': ?, \'SK\': \'a\'}' % t, "Parameters": [S(pk)]},
            ])
        self.assertClientError(cm.exception, "TransactionCanceledException")
        self.assertEqual([x["Code"] for x in cm.exception.response["CancellationReasons"]], ["None", "DuplicateItem"])
        self.assertNotIn("Item", self.client.get_item(TableName=t, Key={"PK": S(pk), "SK": S("c")}, ConsistentRead=True))
        r = self.client.execute_transaction(TransactStatements=[
            {"Statement": 'SELECT SK FROM "%s" WHERE PK = ? AND SK = \'b\'' % t, "Parameters": [S(pk)]},
            {"Statement": 'SELECT SK FROM "%s" WHERE PK = ? AND SK = \'z\'' % t, "Parameters": [S(pk)]},
        ])
        self.assertEqual(r["Responses"], [{"Item": {"SK": S("b")}}, {}])

    def test_parameters_from_the_resource_serializer(self):
        # boto3's TypeSerializer turns Python values into the AttributeValues
        # that Parameters carries.
        ser = TypeSerializer()
        pk = self.pk("ser")
        params = [ser.serialize(v) for v in (pk, "A", 42, {"nested": [True, None]})]
        self.stmt('INSERT INTO "%s" VALUE {\'PK\': ?, \'SK\': ?, \'n\': ?, \'doc\': ?}' % self.table, *params)
        item = self.get(pk)
        self.assertEqual(item["n"], N(42))
        self.assertEqual(item["doc"], {"M": {"nested": {"L": [{"BOOL": True}, {"NULL": True}]}}})

    def test_select_of_a_partition_pages_like_query(self):
        # seed 000's USER#<id> partition: 8 items. A SELECT that fixes the
        # partition key is a Query; with Limit 3 it pages by NextToken and, in
        # all, returns the Query's items in sort-key order.
        user = self.pk("u1")
        items = seed_user_items(user)
        batch_put(self.client, self.table, items)
        want = self.client.query(TableName=self.table, KeyConditionExpression="PK = :pk",
                                 ExpressionAttributeValues={":pk": S("USER#" + user)},
                                 ConsistentRead=True)["Items"]
        self.assertEqual(len(want), 8)
        got, token, pages = [], None, 0
        while True:
            kw = {"Limit": 3, "ConsistentRead": True}
            if token:
                kw["NextToken"] = token
            res = self.stmt('SELECT * FROM "%s" WHERE PK = ?' % self.table, S("USER#" + user), **kw)
            got.extend(res["Items"])
            pages += 1
            token = res.get("NextToken")
            if not token:
                break
            self.assertLessEqual(pages, 10, "NextToken never ended")
        self.assertEqual(got, want)
        self.assertGreaterEqual(pages, 3)

        # begins_with on the sort key: the posts, newest first with ORDER BY ... DESC.
        res = self.stmt('SELECT SK, LikeCount FROM "%s" WHERE PK = ? AND begins_with(SK, \'POST#\') '
                                 'ORDER BY SK DESC' % self.table, S("USER#" + user), ConsistentRead=True)
        self.assertEqual([i["LikeCount"]["N"] for i in res["Items"]], ["50", "40", "30", "20", "10"])
        self.assertEqual(set(res["Items"][0]), {"SK", "LikeCount"})

    def test_client_request_token_makes_a_transaction_idempotent(self):
        a = self.pk("idem")
        self.client.put_item(TableName=self.table, Item={"PK": S(a), "SK": S("A"), "n": N(0)})
        stmts = [{"Statement": 'UPDATE "%s" SET n = 1 WHERE PK = ? AND SK = \'A\'' % self.table, "Parameters": [S(a)]}]
        token = uuid.uuid4().hex
        self.client.execute_transaction(TransactStatements=stmts, ClientRequestToken=token)
        self.assertEqual(self.get(a)["n"], N(1))
        self.client.put_item(TableName=self.table, Item={"PK": S(a), "SK": S("A"), "n": N(7)})
        # The same token again (within DynamoDB's 10 minutes) succeeds without
        # running the statements a second time.
        self.client.execute_transaction(TransactStatements=stmts, ClientRequestToken=token)
        self.assertEqual(self.get(a)["n"], N(7), "the same token runs once")

    def test_batch_of_writes_answers_each_statement(self):
        # BatchExecuteStatement: a statement's failure is its own Error
        # (Code DuplicateItem, API_BatchStatementError.html), and the
        # batch's other statements still run.
        a, b = self.pk("bwa"), self.pk("bwb")
        self.client.put_item(TableName=self.table, Item={"PK": S(a), "SK": S("A")})
        res = self.client.batch_execute_statement(Statements=[
            {"Statement": 'INSERT INTO "%s" VALUE {\'PK\': ?, \'SK\': \'A\'}' % self.table, "Parameters": [S(b)]},
            {"Statement": 'INSERT INTO "%s" VALUE {\'PK\': ?, \'SK\': \'A\'}' % self.table, "Parameters": [S(a)]},
        ])
        r = res["Responses"]
        self.assertNotIn("Error", r[0])
        self.assertEqual(r[1]["Error"]["Code"], "DuplicateItem")
        self.assertIn("Item", self.client.get_item(TableName=self.table, Key={"PK": S(b), "SK": S("A")}, ConsistentRead=True))


class PartiQLSeed000Test(DynamoTestCase):
    """Seed 000's access patterns (../shared/seeds/000_*.txt: users, posts and
    likes in one table, GSI1 and GSI2) written as PartiQL SELECTs. The expected
    answers are computed here from the generated items, by filtering and
    sorting, not by running the Query forms; items with equal index sort keys
    may come in any order (API reference, Query), so they are compared as sets
    where the sort keys tie."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        gsi = lambda n: {"IndexName": "GSI%d" % n, "Projection": {"ProjectionType": "ALL"},
                         "KeySchema": [{"AttributeName": "GSI%dPK" % n, "KeyType": "HASH"},
                                       {"AttributeName": "GSI%dSK" % n, "KeyType": "RANGE"}]}
        cls.table = cls.make_table(
            "pql0", AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in
                                          ("PK", "SK", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK")],
            GlobalSecondaryIndexes=[gsi(1), gsi(2)])
        cls.run_id = uuid.uuid4().hex[:8]
        cls.users = ["%s-u%d" % (cls.run_id, i) for i in range(3)]
        cls.items = [it for u in cls.users for it in seed_user_items(u)]
        batch_put(cls.client, cls.table, cls.items)

    def select(self, statement, *params):
        got, token = [], None
        for _ in range(50):
            kw = {"Statement": statement, "Parameters": list(params)} if params else {"Statement": statement}
            if token:
                kw["NextToken"] = token
            res = self.client.execute_statement(**kw)
            got.extend(res["Items"])
            token = res.get("NextToken")
            if not token:
                return got
        self.fail("NextToken never ended: " + statement)

    def where(self, keep):
        return [it for it in self.items if keep(it)]

    def assertSameOrder(self, got, want, sort_attr):
        self.assertEqual([g[sort_attr]["S"] for g in got], [w[sort_attr]["S"] for w in want])
        key = lambda it: (it["PK"]["S"], it["SK"]["S"])
        self.assertEqual(sorted(got, key=key), sorted(want, key=key))

    def test_get_user_by_id(self):
        u = self.users[1]
        got = self.select('SELECT * FROM "%s" WHERE PK = ? AND SK = ?' % self.table, S("USER#" + u), S("PROFILE"))
        self.assertEqual(got, self.where(lambda it: it["PK"]["S"] == "USER#" + u and it["SK"]["S"] == "PROFILE"))

    def test_get_user_by_email(self):
        email = "USER#%s@example.com" % self.users[2]
        got = self.select('SELECT * FROM "%s"."GSI1" WHERE GSI1PK = ?' % self.table, S(email))
        self.assertEqual(got, self.where(lambda it: it.get("GSI1PK") == S(email)))
        self.assertEqual(len(got), 1)

    def test_posts_of_a_user_newest_first(self):
        u = "USER#" + self.users[0]
        got = self.select('SELECT * FROM "%s" WHERE PK = ? AND begins_with(SK, \'POST#\') ORDER BY SK DESC' % self.table, S(u))
        want = sorted(self.where(lambda it: it["PK"]["S"] == u and it["SK"]["S"].startswith("POST#")),
                      key=lambda it: it["SK"]["S"], reverse=True)
        self.assertEqual(got, want)
        self.assertEqual(len(got), 5)

    def test_users_who_liked_a_post(self):
        got = self.select('SELECT * FROM "%s"."GSI1" WHERE GSI1PK = ? AND begins_with(GSI1SK, ?)' % self.table,
                          S("POST#p1"), S("LIKE#"))
        want = sorted(self.where(lambda it: it.get("GSI1PK") == S("POST#p1") and it["GSI1SK"]["S"].startswith("LIKE#")),
                      key=lambda it: it["GSI1SK"]["S"])
        self.assertSameOrder(got, want, "GSI1SK")
        self.assertEqual(len(got), len(self.users))

    def test_recent_posts_of_all_users(self):
        got = self.select('SELECT * FROM "%s"."GSI2" WHERE GSI2PK = \'ALL_POSTS\' ORDER BY GSI2SK DESC' % self.table)
        want = sorted(self.where(lambda it: it.get("GSI2PK") == S("ALL_POSTS")), key=lambda it: it["GSI2SK"]["S"], reverse=True)
        self.assertSameOrder(got, want, "GSI2SK")
        self.assertEqual(len(got), 5 * len(self.users))
