"""ConsumedCapacity to the unit through boto3: the 4 KB read and 1 KB write
boundaries, a Query summing sizes before rounding, GSI writes per entry, an
LSI read fetching from the table, and transactions' doubled units with
their ReadCapacityUnits/WriteCapacityUnits split. Rules and numbers:
docs/research-capacity.md (AWS developer guide "Read/write capacity
mode", LSI.ThroughputConsiderations, transaction-apis capacity)."""

import unittest

from compat_support import DynamoTestCase


class CapacityTest(DynamoTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table(
            "cap", hash_key=("pk", "S"), range_key=("sk", "S"),
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "lk", "gk")],
            GlobalSecondaryIndexes=[{"IndexName": "gix", "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "KEYS_ONLY"}}],
            LocalSecondaryIndexes=[{"IndexName": "lix", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                                       {"AttributeName": "lk", "KeyType": "RANGE"}],
                                    "Projection": {"ProjectionType": "KEYS_ONLY"}}])

    def cc(self, resp):
        return resp["ConsumedCapacity"]

    def test_read_and_write_boundaries(self):
        # {"pk","sk","d"}: 2+len(pk) + 2+len(sk) + 1+len(d) bytes: 8 + len(d) here.
        item = lambda pk, n: {"pk": {"S": pk}, "sk": {"S": "s"}, "d": {"S": "x" * n}}
        c = self.client
        self.assertEqual(self.cc(c.put_item(TableName=self.table, Item=item("w1", 1024 - 8), ReturnConsumedCapacity="TOTAL"))["CapacityUnits"], 1.0)
        self.assertEqual(self.cc(c.put_item(TableName=self.table, Item=item("w2", 1025 - 8), ReturnConsumedCapacity="TOTAL"))["CapacityUnits"], 2.0)
        c.put_item(TableName=self.table, Item=item("r1", 4096 - 8))
        c.put_item(TableName=self.table, Item=item("r2", 4097 - 8))
        get = lambda pk, **kw: self.cc(c.get_item(TableName=self.table, Key={"pk": {"S": pk}, "sk": {"S": "s"}},
                                               ReturnConsumedCapacity="TOTAL", **kw))
        self.assertEqual(get("r1", ConsistentRead=True), {"TableName": self.table, "CapacityUnits": 1.0})
        self.assertEqual(get("r2", ConsistentRead=True)["CapacityUnits"], 2.0)
        self.assertEqual(get("r2")["CapacityUnits"], 1.0)
        self.assertEqual(get("missing")["CapacityUnits"], 0.5)
        # A Query charges the bytes read: the 4097-byte item, 2 units strong.
        q = c.query(TableName=self.table, KeyConditionExpression="pk = :p",
                    ExpressionAttributeValues={":p": {"S": "r2"}}, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
        self.assertEqual(self.cc(q)["CapacityUnits"], 2.0)

    def test_index_writes_and_lsi_fetch(self):
        c = self.client
        r = c.put_item(TableName=self.table, Item={"pk": {"S": "f"}, "sk": {"S": "1"}, "lk": {"S": "a"}, "gk": {"S": "G"}},
                       ReturnConsumedCapacity="INDEXES")
        self.assertEqual(self.cc(r), {"TableName": self.table, "CapacityUnits": 3.0, "Table": {"CapacityUnits": 1.0},
                                      "LocalSecondaryIndexes": {"lix": {"CapacityUnits": 1.0}},
                                      "GlobalSecondaryIndexes": {"gix": {"CapacityUnits": 1.0}}})
        for sk, lk in (("2", "b"), ("3", "c")):
            c.put_item(TableName=self.table, Item={"pk": {"S": "f"}, "sk": {"S": sk}, "lk": {"S": lk}})
        q = lambda **kw: self.cc(c.query(TableName=self.table, IndexName="lix", KeyConditionExpression="pk = :p",
                                         ExpressionAttributeValues={":p": {"S": "f"}}, ConsistentRead=True,
                                         ReturnConsumedCapacity="INDEXES", **kw))
        self.assertEqual(q(), {"TableName": self.table, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 0.0},
                               "LocalSecondaryIndexes": {"lix": {"CapacityUnits": 1.0}}})
        self.assertEqual(q(Select="ALL_ATTRIBUTES"), {"TableName": self.table, "CapacityUnits": 4.0, "Table": {"CapacityUnits": 3.0},
                                                      "LocalSecondaryIndexes": {"lix": {"CapacityUnits": 1.0}}})

    def test_transactions(self):
        c = self.client
        r = c.transact_write_items(TransactItems=[{"Put": {"TableName": self.table, "Item": {"pk": {"S": "t"}, "sk": {"S": s}}}} for s in "12"],
                                   ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"], [{"TableName": self.table, "CapacityUnits": 4.0, "WriteCapacityUnits": 4.0}])
        r = c.transact_get_items(TransactItems=[{"Get": {"TableName": self.table, "Key": {"pk": {"S": "t"}, "sk": {"S": s}}}} for s in "19"],
                                 ReturnConsumedCapacity="TOTAL")
        self.assertEqual(r["ConsumedCapacity"], [{"TableName": self.table, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0}])


if __name__ == "__main__":
    unittest.main()
