"""Control-plane compatibility: CreateTable, DescribeTable, ListTables, DeleteTable."""

import datetime
import re
import unittest

from botocore.exceptions import ClientError

from compat_support import (DynamoTestCase, create_table, delete_table_quietly, unique_name,
                            wait_active, wait_gone)

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class TableLifecycleTest(DynamoTestCase):

    def assertTableShape(self, desc, name, key_schema, attr_defs):
        self.assertEqual(desc["TableName"], name)
        self.assertEqual(desc["KeySchema"], key_schema)
        self.assertCountEqual(desc["AttributeDefinitions"], attr_defs)
        # ARN format: arn:aws:dynamodb:<region>:<12-digit account>:table/<name>; the
        # region is the one the request was signed for.
        self.assertRegex(desc["TableArn"],
                         r"^arn:aws:dynamodb:us-east-1:\d{12}:table/" + re.escape(name) + "$")
        self.assertIsInstance(desc["CreationDateTime"], datetime.datetime)
        now = datetime.datetime.now(datetime.timezone.utc)
        self.assertLess(abs((now - desc["CreationDateTime"]).total_seconds()), 600,
                        "CreationDateTime should be 'now' (epoch seconds)")

    def test_create_describe_delete_on_demand(self):
        name = unique_name("life")
        self.addCleanup(delete_table_quietly, self.client, name)
        key_schema = [{"AttributeName": "PK", "KeyType": "HASH"},
                      {"AttributeName": "SK", "KeyType": "RANGE"}]
        attr_defs = [{"AttributeName": "PK", "AttributeType": "S"},
                     {"AttributeName": "SK", "AttributeType": "S"}]
        resp = self.client.create_table(TableName=name, KeySchema=key_schema,
                                        AttributeDefinitions=attr_defs,
                                        BillingMode="PAY_PER_REQUEST")
        td = resp["TableDescription"]
        # API reference, CreateTable: "CreateTable is an asynchronous operation. Upon
        # receiving a CreateTable request, DynamoDB immediately returns a response with a
        # TableStatus of CREATING."
        self.assertEqual(td["TableStatus"], "CREATING")
        self.assertTableShape(td, name, key_schema, attr_defs)
        self.assertEqual(td["ItemCount"], 0)
        self.assertEqual(td["TableSizeBytes"], 0)

        desc = wait_active(self.client, name)
        self.assertTableShape(desc, name, key_schema, attr_defs)
        self.assertEqual(desc["TableArn"], td["TableArn"])
        self.assertEqual(desc["ItemCount"], 0)
        self.assertEqual(desc["BillingModeSummary"]["BillingMode"], "PAY_PER_REQUEST")
        # On-demand tables report ProvisionedThroughput with zero capacity units.
        self.assertEqual(desc["ProvisionedThroughput"]["ReadCapacityUnits"], 0)
        self.assertEqual(desc["ProvisionedThroughput"]["WriteCapacityUnits"], 0)

        resp = self.client.delete_table(TableName=name)
        # DeleteTable: "When DynamoDB receives a DeleteTable request ... the table is in
        # the DELETING state until DynamoDB completes the deletion."
        self.assertEqual(resp["TableDescription"]["TableName"], name)
        self.assertEqual(resp["TableDescription"]["TableStatus"], "DELETING")
        wait_gone(self.client, name)
        # After deletion every operation on the table gives ResourceNotFoundException.
        self.expectError("ResourceNotFoundException", "Requested resource not found",
                         self.client.get_item, TableName=name,
                         Key={"PK": {"S": "a"}, "SK": {"S": "b"}})
        self.expectError("ResourceNotFoundException", "Requested resource not found",
                         self.client.delete_table, TableName=name)

    def test_table_id_is_uuid(self):
        # TableDescription.TableId is a standard 36-character UUID (8-4-4-4-12 hex digits)
        # in real DynamoDB.
        name = self.make_test_table("tid", wait=False)
        desc = self.client.describe_table(TableName=name)["Table"]
        self.assertRegex(desc.get("TableId", ""), UUID_RE)

    def test_create_provisioned_hash_only_number_key(self):
        name = unique_name("prov")
        self.addCleanup(delete_table_quietly, self.client, name)
        create_table(self.client, name, hash_key=("Id", "N"), range_key=None,
                     ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 3})
        desc = self.client.describe_table(TableName=name)["Table"]
        self.assertEqual(desc["TableStatus"], "ACTIVE")
        self.assertEqual(desc["KeySchema"], [{"AttributeName": "Id", "KeyType": "HASH"}])
        self.assertEqual(desc["AttributeDefinitions"],
                         [{"AttributeName": "Id", "AttributeType": "N"}])
        self.assertEqual(desc["ProvisionedThroughput"]["ReadCapacityUnits"], 5)
        self.assertEqual(desc["ProvisionedThroughput"]["WriteCapacityUnits"], 3)
        # Number hash key round-trip on this table.
        self.client.put_item(TableName=name, Item={"Id": {"N": "42"}, "v": {"S": "x"}})
        got = self.client.get_item(TableName=name, Key={"Id": {"N": "42"}})
        self.assertEqual(got["Item"], {"Id": {"N": "42"}, "v": {"S": "x"}})

    def test_binary_keys(self):
        name = self.make_test_table("binkey", hash_key=("H", "B"), range_key=("R", "B"))
        desc = self.client.describe_table(TableName=name)["Table"]
        self.assertCountEqual(desc["AttributeDefinitions"],
                              [{"AttributeName": "H", "AttributeType": "B"},
                               {"AttributeName": "R", "AttributeType": "B"}])
        key = {"H": {"B": b"\x00\xffhash"}, "R": {"B": b"\x80\x00"}}
        self.client.put_item(TableName=name, Item=dict(key, v={"N": "1"}))
        self.assertEqual(self.client.get_item(TableName=name, Key=key)["Item"],
                         dict(key, v={"N": "1"}))

    def test_create_duplicate_table(self):
        name = self.make_test_table("dup")
        # CreateTable on an existing name: ResourceInUseException
        # ("Table already exists: <name>").
        self.expectError("ResourceInUseException", "Table already exists",
                         create_table, self.client, name, wait=False)

    def test_describe_missing_table(self):
        name = unique_name("missing")
        # DescribeTable on a missing table:
        # "Requested resource not found: Table: <name> not found".
        self.expectError("ResourceNotFoundException", "Requested resource not found",
                         self.client.describe_table, TableName=name)

    def test_delete_missing_table(self):
        self.expectError("ResourceNotFoundException", "Requested resource not found",
                         self.client.delete_table, TableName=unique_name("missing"))

    def test_create_table_validation(self):
        name = unique_name("bad")
        self.addCleanup(delete_table_quietly, self.client, name)
        # A KeySchema attribute that is not in AttributeDefinitions.
        with self.assertRaises(ClientError) as cm:
            self.client.create_table(
                TableName=name, BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "Other", "AttributeType": "S"}])
        self.assertClientError(cm.exception, "ValidationException")
        # AttributeDefinitions with an attribute not used by any key schema: "Number of
        # attributes in KeySchema does not exactly match number of attributes defined in
        # AttributeDefinitions".
        with self.assertRaises(ClientError) as cm:
            self.client.create_table(
                TableName=name, BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"},
                                      {"AttributeName": "Extra", "AttributeType": "S"}])
        self.assertClientError(cm.exception, "ValidationException")
        # Table names must match [a-zA-Z0-9_.-]+.
        with self.assertRaises(ClientError) as cm:
            self.client.create_table(
                TableName="compat py bad name!", BillingMode="PAY_PER_REQUEST",
                KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": "PK", "AttributeType": "S"}])
        self.assertClientError(cm.exception, "ValidationException")
        # Nothing was created by the failed calls.
        self.expectError("ResourceNotFoundException", None,
                         self.client.describe_table, TableName=name)


class ListTablesTest(DynamoTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # Three tables sharing a unique prefix so their relative order is known even
        # when other suites create tables on the same server concurrently.
        cls.prefix = unique_name("list")
        cls.names = [cls.prefix + "-a", cls.prefix + "-b", cls.prefix + "-c"]
        for n in cls.names:
            create_table(cls.client, n, range_key=None, wait=False)
            cls.addClassCleanup(delete_table_quietly, cls.client, n)
        for n in cls.names:
            wait_active(cls.client, n)

    def test_list_all_pages(self):
        # Walk every page with Limit=2 following LastEvaluatedTableName. Table names are
        # returned in ascending (lexicographic) order across pages.
        seen, start, pages = [], None, 0
        while True:
            kw = {"Limit": 2}
            if start:
                kw["ExclusiveStartTableName"] = start
            resp = self.client.list_tables(**kw)
            pages += 1
            self.assertLessEqual(len(resp["TableNames"]), 2)
            seen.extend(resp["TableNames"])
            start = resp.get("LastEvaluatedTableName")
            if not start:
                break
            self.assertEqual(start, resp["TableNames"][-1])
            self.assertLess(pages, 10000)
        for n in self.names:
            self.assertIn(n, seen)
        self.assertEqual(len(seen), len(set(seen)), "a table name was listed twice")
        self.assertEqual(seen, sorted(seen))

    def test_limit_and_exclusive_start(self):
        # ListTables: ExclusiveStartTableName is the first name NOT returned; Limit caps
        # the page; LastEvaluatedTableName is the last name on a page cut by Limit.
        resp = self.client.list_tables(ExclusiveStartTableName=self.names[0], Limit=1)
        self.assertEqual(resp["TableNames"], [self.names[1]])
        self.assertEqual(resp["LastEvaluatedTableName"], self.names[1])
        resp = self.client.list_tables(ExclusiveStartTableName=resp["LastEvaluatedTableName"],
                                       Limit=1)
        self.assertEqual(resp["TableNames"], [self.names[2]])
        resp = self.client.list_tables(ExclusiveStartTableName=self.names[0], Limit=2)
        self.assertEqual(resp["TableNames"], self.names[1:])

    def test_limit_range(self):
        # ListTables Limit: "Valid Range: Minimum value of 1. Maximum value of 100."
        resp = self.client.list_tables(Limit=100)
        self.assertLessEqual(len(resp["TableNames"]), 100)
        with self.assertRaises(ClientError) as cm:
            self.client.list_tables(Limit=101)
        self.assertClientError(cm.exception, "ValidationException")

    def test_paginator(self):
        # boto3's own paginator drives Limit/ExclusiveStartTableName.
        names = []
        for page in self.client.get_paginator("list_tables").paginate(
                PaginationConfig={"PageSize": 1}):
            names.extend(page["TableNames"])
        for n in self.names:
            self.assertIn(n, names)

    def test_deleted_table_disappears(self):
        name = unique_name("list-del")
        create_table(self.client, name, range_key=None)
        self.addCleanup(delete_table_quietly, self.client, name)
        self.assertIn(name, self.all_table_names())
        self.client.delete_table(TableName=name)
        wait_gone(self.client, name)
        self.assertNotIn(name, self.all_table_names())

    def all_table_names(self):
        names = []
        for page in self.client.get_paginator("list_tables").paginate():
            names.extend(page["TableNames"])
        return names


if __name__ == "__main__":
    unittest.main()
