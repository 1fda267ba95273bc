"""UpdateItem through boto3: the client API and the resource Table API, with
the seed documents' practices (optimistic locking, counters, create-if-absent)
and DynamoDB's update semantics and errors."""

import unittest
from decimal import Decimal

from boto3.dynamodb.conditions import Attr
from botocore.exceptions import ClientError

import compat_support
from compat_support import DynamoTestCase, unique_name


class UpdateItemTest(DynamoTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.name = unique_name("upd")
        cls.ddb = compat_support.resource()
        cls.ddb.create_table(
            TableName=cls.name, BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"},
                       {"AttributeName": "SK", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                  {"AttributeName": "SK", "AttributeType": "S"}])
        cls.addClassCleanup(compat_support.delete_table_quietly, cls.client, cls.name)
        compat_support.wait_active(cls.client, cls.name)
        cls.table = cls.ddb.Table(cls.name)

    def test_optimistic_locking(self):
        key = {"PK": "USER#lock", "SK": "PROFILE"}
        self.table.put_item(Item={**key, "version": 1})
        out = self.table.update_item(
            Key=key, UpdateExpression="SET version = version + :one",
            ConditionExpression=Attr("version").eq(1),
            ExpressionAttributeValues={":one": 1}, ReturnValues="UPDATED_NEW")
        self.assertEqual(out["Attributes"], {"version": Decimal(2)})
        with self.assertRaises(ClientError) as cm:
            self.table.update_item(
                Key=key, UpdateExpression="SET version = version + :one",
                ConditionExpression=Attr("version").eq(1),
                ExpressionAttributeValues={":one": 1})
        self.assertEqual(cm.exception.response["Error"]["Code"], "ConditionalCheckFailedException")

    def test_counter_and_exact_decimals(self):
        key = {"PK": "COUNTER#c", "SK": "X"}
        for _ in range(3):
            self.table.update_item(Key=key, UpdateExpression="ADD hits :inc",
                                   ExpressionAttributeValues={":inc": Decimal("0.1")})
        item = self.table.get_item(Key=key, ConsistentRead=True)["Item"]
        self.assertEqual(item["hits"], Decimal("0.3"))  # exact, not 0.30000000000000004

    def test_key_attributes_cannot_change(self):
        with self.assertRaises(ClientError) as cm:
            self.table.update_item(Key={"PK": "A", "SK": "B"}, UpdateExpression="SET SK = :v",
                                   ExpressionAttributeValues={":v": "C"})
        err = cm.exception.response["Error"]
        self.assertEqual(err["Code"], "ValidationException")
        self.assertEqual(err["Message"], "One or more parameter values were invalid: Cannot update attribute SK. This attribute is part of the key")

    def test_legacy_attribute_updates(self):
        key = {"PK": {"S": "LEGACY"}, "SK": {"S": "X"}}
        self.client.put_item(TableName=self.name, Item={**key, "n": {"N": "10"}})
        out = self.client.update_item(TableName=self.name, Key=key,
                                      AttributeUpdates={"n": {"Action": "ADD", "Value": {"N": "5"}}},
                                      ReturnValues="UPDATED_OLD")
        self.assertEqual(out["Attributes"], {"n": {"N": "10"}})

    def test_syntax_error_message(self):
        with self.assertRaises(ClientError) as cm:
            self.client.update_item(TableName=self.name, Key={"PK": {"S": "A"}, "SK": {"S": "B"}},
                                    UpdateExpression="SET a = = :v", ExpressionAttributeValues={":v": {"S": "x"}})
        self.assertEqual(cm.exception.response["Error"]["Message"],
                         '1 validation error detected: Invalid UpdateExpression: Syntax error; token: "=", near: "= = :v"')


if __name__ == "__main__":
    unittest.main()
