"""PartiQL through boto3: execute_statement, batch_execute_statement and
execute_transaction (issue 23).

Expected answers are real DynamoDB's, as the conformance suite captured them
(../shared/conformance/tests/tier2/partiql and tests/tier3/error-messages/
partiql*.test.ts, October 2026), and the API references of ExecuteStatement,
BatchExecuteStatement and ExecuteTransaction.
"""

import uuid

from botocore.exceptions import ClientError

from compat_support import DynamoTestCase

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
