"""The high-level boto3.resource('dynamodb').Table API: Python types (Decimal, set,
Binary), Key conditions from boto3.dynamodb.conditions, batch_writer, paginated scans."""

import unittest
from decimal import Decimal

from boto3.dynamodb.conditions import Key
from boto3.dynamodb.types import Binary
from botocore.exceptions import ClientError

import compat_support
from compat_support import DynamoTestCase, unique_name


class TableResourceTest(DynamoTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.name = unique_name("res")
        cls.ddb = compat_support.resource()
        table = cls.ddb.create_table(
            TableName=cls.name, BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                       {"AttributeName": "SK", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                  {"AttributeName": "SK", "AttributeType": "S"}])
        cls.addClassCleanup(compat_support.delete_table_quietly, cls.client, cls.name)
        compat_support.wait_active(cls.client, cls.name)
        table.reload()
        # Read now: other tests of this class add items, and dynago reports
        # ItemCount live (DynamoDB refreshes it about every six hours).
        cls.initial_item_count = table.item_count
        cls.table = table

    def setUp(self):
        self.uid = unique_name("u")
        self.pk = "USER#" + self.uid

    def test_table_attributes(self):
        self.assertEqual(self.table.table_status, "ACTIVE")
        self.assertEqual(self.table.key_schema, [{"AttributeName": "PK", "KeyType": "HASH"},
                                                 {"AttributeName": "SK", "KeyType": "RANGE"}])
        self.assertEqual(self.initial_item_count, 0)
        self.assertIn(self.name, [t.name for t in self.ddb.tables.all()])

    def test_python_types_round_trip(self):
        item = {
            "PK": self.pk, "SK": "PROFILE", "EntityType": "User", "Name": "John Doe",
            "Price": Decimal("8.3"),
            "Big": Decimal("12345678901234567890123456789012345678"),
            "Frac": Decimal("0.12345678901234567890123456789012345678"),
            "Neg": Decimal("-42"),
            "Bin": Binary(bytes(range(256))),
            "Raw": b"\x00\xff",
            "Active": True, "Deleted": False, "Nothing": None,
            "Address": {"City": "Paris", "Geo": {"Lat": Decimal("48.8566")}, "Empty": {}},
            "Tags": ["a", Decimal("1"), False, None, [], {"k": "v"}],
            "Roles": {"admin", "user"},
            "Scores": {Decimal("1"), Decimal("2.5"), Decimal("-3")},
            "Blobs": {Binary(b"\x01"), Binary(b"\x02\x03")},
            "EmptyStr": "",
        }
        self.table.put_item(Item=item)
        got = self.table.get_item(Key={"PK": self.pk, "SK": "PROFILE"}, ConsistentRead=True)["Item"]
        expected = dict(item, Raw=Binary(b"\x00\xff"))
        self.assertEqual(got, expected)
        # Numbers come back as Decimal with the exact digits.
        self.assertIsInstance(got["Price"], Decimal)
        self.assertEqual(str(got["Price"]), "8.3")
        self.assertEqual(str(got["Big"]), "12345678901234567890123456789012345678")
        self.assertEqual(got["Bin"].value, bytes(range(256)))

    def test_get_with_projection(self):
        self.table.put_item(Item={"PK": self.pk, "SK": "PROFILE", "Email": "e@x",
                                  "Name": "N", "Address": {"City": "Paris", "Zip": "1"}})
        got = self.table.get_item(Key={"PK": self.pk, "SK": "PROFILE"},
                                  ProjectionExpression="#n, Address.City",
                                  ExpressionAttributeNames={"#n": "Name"})["Item"]
        self.assertEqual(got, {"Name": "N", "Address": {"City": "Paris"}})
        self.assertNotIn("Item", self.table.get_item(Key={"PK": self.pk, "SK": "NOPE"}))

    def _put_posts(self):
        with self.table.batch_writer() as bw:
            bw.put_item(Item={"PK": self.pk, "SK": "PROFILE", "EntityType": "User"})
            for i in range(1, 10):
                bw.put_item(Item={"PK": self.pk, "SK": "POST#2024-01-0%dT00:00:00Z#p%d" % (i, i),
                                  "EntityType": "Post", "PostId": "p%d" % i,
                                  "LikeCount": Decimal(i)})
        return ["POST#2024-01-0%dT00:00:00Z#p%d" % (i, i) for i in range(1, 10)]

    def test_query_with_key_conditions(self):
        posts = self._put_posts()
        pk = Key("PK").eq(self.pk)

        def sks(cond, **kw):
            return [it["SK"] for it in self.table.query(KeyConditionExpression=cond, **kw)["Items"]]
        self.assertEqual(sks(pk), posts + ["PROFILE"])
        self.assertEqual(sks(pk & Key("SK").begins_with("POST#")), posts)
        self.assertEqual(sks(pk & Key("SK").begins_with("POST#"), ScanIndexForward=False),
                         posts[::-1])
        self.assertEqual(sks(pk & Key("SK").eq("PROFILE")), ["PROFILE"])
        self.assertEqual(sks(pk & Key("SK").lt(posts[2])), posts[:2])
        self.assertEqual(sks(pk & Key("SK").lte(posts[2])), posts[:3])
        self.assertEqual(sks(pk & Key("SK").gt(posts[7])), posts[8:] + ["PROFILE"])
        self.assertEqual(sks(pk & Key("SK").gte(posts[7])), posts[7:] + ["PROFILE"])
        self.assertEqual(sks(pk & Key("SK").between(posts[3], posts[5])), posts[3:6])
        resp = self.table.query(KeyConditionExpression=pk & Key("SK").begins_with("POST#"),
                                Select="COUNT")
        self.assertEqual(resp["Count"], 9)
        self.assertNotIn("Items", resp)
        resp = self.table.query(KeyConditionExpression=pk & Key("SK").begins_with("POST#"),
                                ProjectionExpression="PostId, LikeCount", Limit=1)
        self.assertEqual(resp["Items"], [{"PostId": "p1", "LikeCount": Decimal(1)}])
        self.assertEqual(resp["LastEvaluatedKey"], {"PK": self.pk, "SK": posts[0]})

    def test_query_pagination(self):
        posts = self._put_posts()
        got, start, pages = [], None, 0
        while True:
            kw = {"ExclusiveStartKey": start} if start else {}
            resp = self.table.query(KeyConditionExpression=Key("PK").eq(self.pk)
                                    & Key("SK").begins_with("POST#"),
                                    ScanIndexForward=False, Limit=4, **kw)
            pages += 1
            got += [it["SK"] for it in resp["Items"]]
            start = resp.get("LastEvaluatedKey")
            if not start:
                break
        self.assertEqual(got, posts[::-1])
        self.assertEqual(pages, 3)  # 4 + 4 + 1

    def test_batch_writer_and_batch_get(self):
        # batch_writer buffers and sends BatchWriteItem calls of up to 25 requests.
        with self.table.batch_writer() as bw:
            for i in range(60):
                bw.put_item(Item={"PK": self.pk, "SK": "ITEM#%03d" % i, "n": Decimal(i)})
            for i in range(0, 60, 2):
                bw.delete_item(Key={"PK": self.pk, "SK": "ITEM#%03d" % i})
        resp = self.table.query(KeyConditionExpression=Key("PK").eq(self.pk))
        self.assertEqual([it["n"] for it in resp["Items"]], [Decimal(i) for i in range(1, 60, 2)])
        resp = self.ddb.batch_get_item(RequestItems={self.name: {
            "Keys": [{"PK": self.pk, "SK": "ITEM#%03d" % i} for i in range(10)],
            "ProjectionExpression": "n"}})
        self.assertEqual(sorted(it["n"] for it in resp["Responses"][self.name]),
                         [Decimal(i) for i in range(1, 10, 2)])

    def test_scan_paginated(self):
        with self.table.batch_writer() as bw:
            for i in range(12):
                bw.put_item(Item={"PK": self.pk, "SK": "S#%02d" % i})
        seen, start = [], None
        while True:
            kw = {"ExclusiveStartKey": start} if start else {}
            resp = self.table.scan(Limit=5, **kw)
            seen += [(it["PK"], it["SK"]) for it in resp["Items"]]
            start = resp.get("LastEvaluatedKey")
            if not start:
                break
        mine = [k for k in seen if k[0] == self.pk]
        self.assertEqual(sorted(mine), [(self.pk, "S#%02d" % i) for i in range(12)])
        self.assertEqual(len(seen), len(set(seen)))

    def test_delete_item_all_old(self):
        item = {"PK": self.pk, "SK": "LIKE#POST#p1", "EntityType": "Like", "n": Decimal("8.3")}
        self.table.put_item(Item=item)
        resp = self.table.delete_item(Key={"PK": self.pk, "SK": "LIKE#POST#p1"},
                                      ReturnValues="ALL_OLD")
        self.assertEqual(resp["Attributes"], item)
        resp = self.table.delete_item(Key={"PK": self.pk, "SK": "LIKE#POST#p1"},
                                      ReturnValues="ALL_OLD")
        self.assertNotIn("Attributes", resp)

    def test_errors(self):
        with self.assertRaises(ClientError) as cm:
            self.table.put_item(Item={"PK": self.pk, "Name": "no sort key"})
        self.assertClientError(cm.exception, "ValidationException",
                               "One or more parameter values were invalid: Missing the key SK in the item")
        with self.assertRaises(ClientError) as cm:
            self.table.get_item(Key={"PK": Decimal(1), "SK": "x"})
        self.assertClientError(cm.exception, "ValidationException",
                               "The provided key element does not match the schema")
        # The modeled exception class is raised for a missing table.
        missing = self.ddb.Table(unique_name("absent"))
        with self.assertRaises(self.ddb.meta.client.exceptions.ResourceNotFoundException):
            missing.get_item(Key={"PK": "a", "SK": "b"})
        with self.assertRaises(self.ddb.meta.client.exceptions.ResourceInUseException):
            self.ddb.create_table(
                TableName=self.name, BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}])


if __name__ == "__main__":
    unittest.main()
