"""BatchWriteItem and BatchGetItem through the low-level boto3 client."""

import unittest

from botocore.exceptions import ClientError

from compat_support import DynamoTestCase, batch_put, seed_user_items, unique_name


class BatchTest(DynamoTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table("batch")
        cls.other = cls.make_table("batch2", hash_key=("Id", "S"), range_key=None)

    def setUp(self):
        self.uid = unique_name("u")
        self.pk = "USER#" + self.uid

    def test_batch_write_puts_and_deletes_across_tables(self):
        items = seed_user_items(self.uid)
        resp = self.client.batch_write_item(RequestItems={
            self.table: [{"PutRequest": {"Item": it}} for it in items],
            self.other: [{"PutRequest": {"Item": {"Id": {"S": self.uid}, "v": {"N": "1"}}}}],
        })
        # Everything processed: UnprocessedItems is empty.
        self.assertEqual(resp.get("UnprocessedItems", {}), {})
        for it in items:
            got = self.client.get_item(TableName=self.table,
                                       Key={"PK": it["PK"], "SK": it["SK"]})["Item"]
            self.assertEqual(got, it)
        # Mixed delete + put in one call.
        resp = self.client.batch_write_item(RequestItems={
            self.table: [
                {"DeleteRequest": {"Key": {"PK": {"S": self.pk}, "SK": {"S": "LIKE#POST#p1"}}}},
                {"DeleteRequest": {"Key": {"PK": {"S": self.pk}, "SK": {"S": "LIKE#POST#p2"}}}},
                # Deleting a key that does not exist is not an error.
                {"DeleteRequest": {"Key": {"PK": {"S": self.pk}, "SK": {"S": "LIKE#POST#zz"}}}},
                {"PutRequest": {"Item": {"PK": {"S": self.pk}, "SK": {"S": "PROFILE"},
                                         "Name": {"S": "Replaced"}}}},
            ],
            self.other: [{"DeleteRequest": {"Key": {"Id": {"S": self.uid}}}}],
        })
        self.assertEqual(resp.get("UnprocessedItems", {}), {})
        q = self.client.query(TableName=self.table, KeyConditionExpression="PK = :pk",
                              ExpressionAttributeValues={":pk": {"S": self.pk}})
        self.assertEqual([it["SK"]["S"] for it in q["Items"]],
                         ["POST#2024-01-0%dT00:00:00Z#p%d" % (i, i) for i in range(1, 6)] + ["PROFILE"])
        self.assertEqual(q["Items"][-1], {"PK": {"S": self.pk}, "SK": {"S": "PROFILE"},
                                          "Name": {"S": "Replaced"}})
        self.assertNotIn("Item", self.client.get_item(TableName=self.other,
                                                      Key={"Id": {"S": self.uid}}))

    def test_batch_write_25_is_the_limit(self):
        items = [{"PK": {"S": self.pk}, "SK": {"S": "ITEM#%03d" % i}} for i in range(26)]
        batch_put(self.client, self.table, items[:25])  # exactly 25 in one call is fine
        # More than 25 requests in one BatchWriteItem call is a ValidationException.
        with self.assertRaises(ClientError) as cm:
            self.client.batch_write_item(RequestItems={
                self.table: [{"PutRequest": {"Item": it}} for it in items]})
        self.assertClientError(cm.exception, "ValidationException")
        self.assertNotIn("Item", self.client.get_item(TableName=self.table, Key=items[25]))

    def test_batch_write_duplicate_keys(self):
        # "Provided list of item keys contains duplicates" - also for a Put and a Delete of
        # the same key in one call. The whole batch is rejected.
        key = {"PK": {"S": self.pk}, "SK": {"S": "DUP"}}
        for reqs in ([{"PutRequest": {"Item": dict(key, v={"N": "1"})}},
                      {"PutRequest": {"Item": dict(key, v={"N": "2"})}}],
                     [{"PutRequest": {"Item": key}}, {"DeleteRequest": {"Key": key}}]):
            with self.subTest(reqs=reqs):
                self.expectError("ValidationException",
                                 "Provided list of item keys contains duplicates",
                                 self.client.batch_write_item, RequestItems={self.table: reqs})
        self.assertNotIn("Item", self.client.get_item(TableName=self.table, Key=key))

    def test_batch_write_bad_key(self):
        with self.assertRaises(ClientError) as cm:
            self.client.batch_write_item(RequestItems={self.table: [
                {"PutRequest": {"Item": {"PK": {"S": self.pk}}}}]})
        self.assertClientError(cm.exception, "ValidationException")
        with self.assertRaises(ClientError) as cm:
            self.client.batch_write_item(RequestItems={self.table: [
                {"DeleteRequest": {"Key": {"PK": {"N": "1"}, "SK": {"S": "x"}}}}]})
        self.assertClientError(cm.exception, "ValidationException",
                               "The provided key element does not match the schema")

    def test_batch_get_across_tables(self):
        items = seed_user_items(self.uid)
        batch_put(self.client, self.table, items)
        self.client.put_item(TableName=self.other, Item={"Id": {"S": self.uid}, "v": {"N": "8.3"}})
        keys = [{"PK": it["PK"], "SK": it["SK"]} for it in items[:3]]
        missing = {"PK": {"S": self.pk}, "SK": {"S": "POST#missing"}}
        resp = self.client.batch_get_item(RequestItems={
            self.table: {"Keys": keys + [missing], "ConsistentRead": True},
            self.other: {"Keys": [{"Id": {"S": self.uid}}, {"Id": {"S": "nobody-" + self.uid}}]},
        })
        # Responses are keyed by table name; order within a table is not guaranteed; keys
        # with no item are simply absent; UnprocessedKeys is empty.
        self.assertCountEqual(resp["Responses"][self.table], items[:3])
        self.assertEqual(resp["Responses"][self.other], [{"Id": {"S": self.uid}, "v": {"N": "8.3"}}])
        self.assertEqual(resp.get("UnprocessedKeys", {}), {})

    def test_batch_get_projection(self):
        items = seed_user_items(self.uid)
        batch_put(self.client, self.table, items)
        resp = self.client.batch_get_item(RequestItems={self.table: {
            "Keys": [{"PK": it["PK"], "SK": it["SK"]} for it in items],
            "ProjectionExpression": "SK, #n, EntityType",
            "ExpressionAttributeNames": {"#n": "Name"}}})
        got = sorted(resp["Responses"][self.table], key=lambda it: it["SK"]["S"])
        self.assertEqual(len(got), len(items))
        want = sorted(({k: v for k, v in it.items() if k in ("SK", "Name", "EntityType")}
                       for it in items), key=lambda it: it["SK"]["S"])
        self.assertEqual(got, want)

    def test_batch_get_nothing_found(self):
        resp = self.client.batch_get_item(RequestItems={self.table: {
            "Keys": [{"PK": {"S": self.pk}, "SK": {"S": "NOPE"}}]}})
        self.assertEqual(resp["Responses"], {self.table: []})

    def test_batch_get_limits_and_duplicates(self):
        # At most 100 keys per BatchGetItem call ("Too many items requested for the
        # BatchGetItem call").
        keys = [{"PK": {"S": self.pk}, "SK": {"S": "K%03d" % i}} for i in range(101)]
        with self.assertRaises(ClientError) as cm:
            self.client.batch_get_item(RequestItems={self.table: {"Keys": keys}})
        self.assertClientError(cm.exception, "ValidationException")
        resp = self.client.batch_get_item(RequestItems={self.table: {"Keys": keys[:100]}})
        self.assertEqual(resp["Responses"][self.table], [])
        self.expectError("ValidationException", "Provided list of item keys contains duplicates",
                         self.client.batch_get_item,
                         RequestItems={self.table: {"Keys": [keys[0], keys[0]]}})
        self.expectError("ValidationException", "The provided key element does not match the schema",
                         self.client.batch_get_item,
                         RequestItems={self.table: {"Keys": [{"PK": {"S": self.pk}}]}})

    def test_batch_missing_table(self):
        name = unique_name("absent")
        self.expectError("ResourceNotFoundException", "Requested resource not found",
                         self.client.batch_get_item,
                         RequestItems={name: {"Keys": [{"PK": {"S": "a"}, "SK": {"S": "b"}}]}})
        self.expectError("ResourceNotFoundException", "Requested resource not found",
                         self.client.batch_write_item,
                         RequestItems={name: [{"PutRequest": {"Item": {"PK": {"S": "a"},
                                                                       "SK": {"S": "b"}}}}]})


if __name__ == "__main__":
    unittest.main()
