"""DynamoDB fidelity details through boto3 (issue 19): legacy AttributeUpdates
without an Action, updates of missing items that only remove, KeyConditions
with expression parameters, DeleteTable's TableDescription, key attributes as
document paths, set ordering, multi-attribute GSI key conditions, expression
and number limits, paging keys, Scan/Query capacity rounding, tag ARNs,
ShardFilter validation, unsupported operations and the HTTP edge (GET /,
Server header).

Each test cites where DynamoDB's answer comes from: the API reference and
developer guide, ScyllaDB Alternator's tests (test/alternator/, written to pass
against DynamoDB), dynalite's tests (checked against DynamoDB;
../shared/cases/behaviour.jsonl), the conformance suite in ../shared/conformance
(passes against real DynamoDB) and docs/research-*.md (live captures)."""

import os
import sys
import unittest
import urllib.request
from urllib.parse import urlparse

# Also runnable as "python3 -m unittest compat/boto3/test_fidelity.py" from the repo root.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compat_support  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402
from compat_support import DynamoTestCase, batch_put, streams_client, unique_name  # noqa: E402
from test_streams import read_stream  # noqa: E402

S = lambda v: {"S": v}  # noqa: E731
N = lambda v: {"N": str(v)}  # noqa: E731

INVALID_PATH = "The document path provided in the update expression is invalid for update"
MIXED = "Can not use both expression and non-expression parameters in the same request: "
NON_SCALAR = "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: "


class FidelityTest(DynamoTestCase):
    """Items on one PK/SK table shared by the class; tests that need another
    shape create (and delete) their own table."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table("fid")

    def key(self, pk, sk="X"):
        return {"PK": S(pk), "SK": S(sk)}

    def get(self, key, table=None, **kw):
        return self.client.get_item(TableName=table or self.table, Key=key, ConsistentRead=True, **kw)

    def update(self, key, **kw):
        return self.client.update_item(TableName=self.table, Key=key, **kw)

    # A.1
    def test_attribute_updates_default_action_is_put(self):
        # Source: API reference AttributeValueUpdate, Action "PUT (default)";
        # ../shared/cases/behaviour.jsonl dl-updateitem-js-* (AttributeUpdates entries
        # with only a Value, checked against DynamoDB).
        key = self.key("A1")
        self.client.put_item(TableName=self.table, Item={**key, "b": S("old"), "c": N(1)})
        out = self.update(key, AttributeUpdates={"b": {"Value": S("x")}}, ReturnValues="ALL_NEW")
        self.assertEqual(out["Attributes"], {**key, "b": S("x"), "c": N(1)})
        self.assertEqual(self.get(key)["Item"], {**key, "b": S("x"), "c": N(1)})
        # On a missing item the PUT creates it.
        key2 = self.key("A1-new")
        out = self.update(key2, AttributeUpdates={"b": {"Value": S("x")}}, ReturnValues="ALL_NEW")
        self.assertEqual(out["Attributes"], {**key2, "b": S("x")})

    # A.2
    def test_remove_only_update_of_missing_item_writes_nothing(self):
        # Source: Alternator test_item.py::test_update_item_non_existent,
        # test_returnvalues.py, test_update_expression.py::
        # test_nested_attribute_remove_from_missing_item (all pass against DynamoDB).
        cases = [
            ("remove-top", dict(UpdateExpression="REMOVE a")),
            ("remove-map", dict(UpdateExpression="REMOVE x.y")),
            ("remove-list", dict(UpdateExpression="REMOVE x[0]")),
            ("attr-delete", dict(AttributeUpdates={"a": {"Action": "DELETE"}})),
        ]
        for sk, kw in cases:
            with self.subTest(sk):
                key = self.key("A2-missing", sk)
                out = self.update(key, ReturnValues="ALL_NEW", **kw)
                self.assertNotIn("Attributes", out)
                self.assertNotIn("Item", self.get(key))

    def test_empty_attribute_updates_creates_key_only_item(self):
        # Source: Alternator test_item.py::test_update_item_non_existent (an
        # UpdateItem with nothing to do still creates the key-only item).
        key = self.key("A2-empty")
        out = self.update(key, AttributeUpdates={}, ReturnValues="ALL_NEW")
        self.assertEqual(out.get("Attributes"), key)
        self.assertEqual(self.get(key).get("Item"), key)

    def test_invalid_path_on_existing_item(self):
        # Source: dynalite updateItem.js "should return ValidationException if trying to
        # update non-existent nested attribute in existing item" (behaviour.jsonl);
        # Alternator test_update_expression.py (nested remove from a missing attribute).
        key = self.key("A2-existing")
        self.client.put_item(TableName=self.table, Item={**key, "b": S("str")})
        self.expectError("ValidationException", INVALID_PATH, self.update, key, UpdateExpression="REMOVE y.a")
        self.expectError("ValidationException", INVALID_PATH, self.update, key,
                         UpdateExpression="DELETE b.a :ss", ExpressionAttributeValues={":ss": {"SS": ["x"]}})
        self.assertEqual(self.get(key)["Item"], {**key, "b": S("str")})

    # A.3
    def test_remove_only_update_of_missing_item_has_no_stream_record(self):
        # Source: as A.2 (Alternator test_item.py::test_update_item_non_existent: no item
        # is written, so DynamoDB Streams has no record of it); developer guide "Change
        # data capture for DynamoDB Streams" (records only for item-level modifications).
        name = self.make_test_table("fidstream", hash_key=("pk", "S"), range_key=None, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        c = self.client
        c.put_item(TableName=name, Item={"pk": S("real1"), "a": S("1")})
        c.update_item(TableName=name, Key={"pk": S("ghost1")}, UpdateExpression="REMOVE a", ReturnValues="ALL_NEW")
        c.update_item(TableName=name, Key={"pk": S("ghost2")}, UpdateExpression="REMOVE x.y")
        c.update_item(TableName=name, Key={"pk": S("ghost3")}, AttributeUpdates={"a": {"Action": "DELETE"}})
        c.put_item(TableName=name, Item={"pk": S("real2"), "a": S("2")})
        arn = c.describe_table(TableName=name)["Table"]["LatestStreamArn"]
        got = sorted((r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in read_stream(streams_client(), arn))
        self.assertEqual(got, [("INSERT", "real1"), ("INSERT", "real2")])

    # A.4
    def test_key_conditions_with_expression_parameters(self):
        # Source: developer guide LegacyConditionalParameters.KeyConditions ("If a
        # FilterExpression or QueryFilter is present, it will be applied after the items
        # are retrieved"); Alternator test_query.py::test_query_filter_expression,
        # test_query_filter.py::test_query_filter_and_projection_expression.
        pk = "A4"
        batch_put(self.client, self.table, [
            {**self.key(pk, str(i)), "x": S("keep" if i % 2 else "drop"), "y": N(i)} for i in range(1, 6)])
        kc = {"PK": {"AttributeValueList": [S(pk)], "ComparisonOperator": "EQ"}}
        out = self.client.query(TableName=self.table, KeyConditions=kc, FilterExpression="x = :k",
                                ExpressionAttributeValues={":k": S("keep")}, ConsistentRead=True)
        self.assertEqual([it["SK"]["S"] for it in out["Items"]], ["1", "3", "5"])
        self.assertEqual((out["Count"], out["ScannedCount"]), (3, 5))
        out = self.client.query(TableName=self.table, KeyConditions=kc, ProjectionExpression="SK, y",
                                ConsistentRead=True)
        self.assertEqual(out["Items"], [{"SK": S(str(i)), "y": N(i)} for i in range(1, 6)])
        self.expectError(
            "ValidationException",
            MIXED + "Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}",
            self.client.query, TableName=self.table, KeyConditions=kc, KeyConditionExpression="PK = :p",
            ExpressionAttributeValues={":p": S(pk)})
        self.expectError(
            "ValidationException",
            MIXED + "Non-expression parameters: {QueryFilter} Expression parameters: {ProjectionExpression}",
            self.client.query, TableName=self.table, KeyConditions=kc, ProjectionExpression="SK",
            QueryFilter={"x": {"AttributeValueList": [S("keep")], "ComparisonOperator": "EQ"}})

    # A.5
    def test_batch_get_mixed_projection_styles_across_tables(self):
        # Source: conformance tests/tier3/error-messages/batchGetItem.test.ts
        # "mixing ProjectionExpression on one table and AttributesToGet on another is rejected".
        other = self.make_test_table("fidbg", hash_key=("pk", "S"), range_key=None)
        self.expectError("ValidationException", None, self.client.batch_get_item, RequestItems={
            self.table: {"Keys": [self.key("A5")], "ProjectionExpression": "PK"},
            other: {"Keys": [{"pk": S("A5")}], "AttributesToGet": ["pk"]},
        })

    # A.6
    def test_delete_table_description(self):
        # Source: Alternator test_table.py::test_delete_table_description,
        # test_delete_table_description_with_si.
        want = {"TableName", "TableStatus", "TableId", "TableArn", "ProvisionedThroughput",
                "TableSizeBytes", "ItemCount", "BillingModeSummary"}
        plain = self.make_test_table("fiddel")
        si = self.make_test_table(
            "fiddelsi", AttributeDefinitions=[
                {"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                {"AttributeName": "G", "AttributeType": "S"}, {"AttributeName": "L", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "ALL"}}],
            LocalSecondaryIndexes=[{"IndexName": "lsi", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                                                                      {"AttributeName": "L", "KeyType": "RANGE"}],
                                    "Projection": {"ProjectionType": "KEYS_ONLY"}}])
        for name in (plain, si):
            with self.subTest(name):
                d = self.client.delete_table(TableName=name)["TableDescription"]
                self.assertEqual(set(d), want, d)
                self.assertEqual(d["TableName"], name)
                self.assertEqual(d["TableStatus"], "DELETING")

    # A.7
    def test_key_attributes_as_document_paths(self):
        # Source: dynalite getItem.js / scan.js / updateItem.js "non-scalar key access"
        # tests (checked against DynamoDB; ../shared/cases/behaviour.jsonl
        # dl-getitem-js-*-non-scalar-*, dl-scan-js-*-non-scalar-*); Alternator test_gsi.py
        # comment quoting DynamoDB's IndexKey message.
        name = self.make_test_table(
            "fidkeys", hash_key=("a", "S"), range_key=("r", "S"),
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("a", "r", "d")],
            LocalSecondaryIndexes=[{"IndexName": "lsi", "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"},
                                                                      {"AttributeName": "d", "KeyType": "RANGE"}],
                                    "Projection": {"ProjectionType": "ALL"}}],
            GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": [{"AttributeName": "d", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "ALL"}}])
        key = {"a": S("k"), "r": S("r")}
        c = self.client
        self.expectError("ValidationException", NON_SCALAR + "Key: a",
                         c.get_item, TableName=name, Key=key, ProjectionExpression="a.b")
        self.expectError("ValidationException", NON_SCALAR + "IndexKey: d",
                         c.get_item, TableName=name, Key=key, ProjectionExpression="d[0]")
        self.expectError("ValidationException", NON_SCALAR + "Key: a",
                         c.scan, TableName=name, FilterExpression="attribute_exists(a.b)")
        self.expectError("ValidationException", NON_SCALAR + "IndexKey: d",
                         c.update_item, TableName=name, Key=key, UpdateExpression="SET d.x = :v",
                         ExpressionAttributeValues={":v": S("v")})

    # A.8
    def test_set_member_order(self):
        # Source: conformance tests/tier1/updateItem/basic.test.ts (eu-west-2,
        # 2026-10-09): string (and binary) sets come back bytewise, number sets by value,
        # the empty string first.
        key = self.key("A8")
        self.client.put_item(TableName=self.table, Item={
            **key, "ss": {"SS": ["b", "a", ""]}, "ns": {"NS": ["10", "9", "-1"]}, "tags": {"SS": ["a"]}})
        item = self.get(key)["Item"]
        self.assertEqual(item["ss"], {"SS": ["", "a", "b"]})
        self.assertEqual(item["ns"], {"NS": ["-1", "9", "10"]})
        self.update(key, UpdateExpression="ADD tags :e", ExpressionAttributeValues={":e": {"SS": [""]}})
        self.assertEqual(self.get(key)["Item"]["tags"], {"SS": ["", "a"]})

    # A.9
    def test_multi_attribute_gsi_key_conditions(self):
        # Source: conformance tests/tier1/query/multiAttributeGsiKey.test.ts ("a gap in the
        # RANGE attributes is refused", "skipping the first RANGE attribute is refused");
        # Alternator test_gsi_composite_keys.py::test_gsi_composite_keyconditions_blocked.
        name = self.make_test_table(
            "fidmulti", hash_key=("pk", "S"), range_key=None,
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("pk", "h", "a", "b", "c")],
            GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": [
                {"AttributeName": "h", "KeyType": "HASH"}, {"AttributeName": "a", "KeyType": "RANGE"},
                {"AttributeName": "b", "KeyType": "RANGE"}, {"AttributeName": "c", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "ALL"}}])
        vals = {":h": S("o1"), ":a": S("T"), ":b": S("live"), ":c": S("x")}

        def query(kce):
            return self.client.query(TableName=name, IndexName="gsi", KeyConditionExpression=kce,
                                     ExpressionAttributeValues={k: v for k, v in vals.items() if k in kce})
        query("h = :h AND a = :a AND b = :b AND c = :c")  # a full prefix is fine
        self.expectError("ValidationException",
                         "RANGE key attributes b must have equality conditions specified in the query because "
                         "a condition is present on key attribute c",
                         query, "h = :h AND a = :a AND c = :c")
        self.expectError("ValidationException",
                         "RANGE key attributes a must have equality conditions specified in the query because "
                         "a condition is present on key attribute b",
                         query, "h = :h AND b = :b")
        self.expectError("ValidationException", None, self.client.query, TableName=name, IndexName="gsi",
                         KeyConditions={"h": {"AttributeValueList": [S("o1")], "ComparisonOperator": "EQ"},
                                        "a": {"AttributeValueList": [S("T")], "ComparisonOperator": "EQ"}})

    # A.10
    def test_projection_nesting_limit(self):
        # Source: Alternator test_projection_expression.py::test_projection_expression_path_nesting_levels.
        key = self.key("A10-nest")
        self.get(key, ProjectionExpression="a" + ".b" * 31)  # 32 levels: fine
        self.expectError("ValidationException",
                         "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33",
                         self.get, key, ProjectionExpression="a" + ".b" * 32)

    def test_update_expression_functions(self):
        # Source: Alternator test_update_expression.py (list_append nesting,
        # if_not_exists inside list_append, unknown functions).
        key = self.key("A10-fn")
        self.client.put_item(TableName=self.table, Item={**key, "a": S("x")})
        lst = lambda *v: {"L": [N(x) for x in v]}  # noqa: E731
        self.expectError("ValidationException",
                         "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; "
                         "function: list_append",
                         self.update, key, UpdateExpression="SET l = list_append(list_append(:a, :b), :c)",
                         ExpressionAttributeValues={":a": lst(1), ":b": lst(2), ":c": lst(3)})
        out = self.update(key, UpdateExpression="SET l = list_append(if_not_exists(l, :e), :v)",
                          ExpressionAttributeValues={":e": lst(), ":v": lst(1, 2)}, ReturnValues="UPDATED_NEW")
        self.assertEqual(out["Attributes"], {"l": lst(1, 2)})
        self.expectError("ValidationException", "Invalid UpdateExpression: Invalid function name; function: nosuchfn",
                         self.update, key, UpdateExpression="SET b = nosuchfn(a)")

    def test_update_expression_paths(self):
        # Source: conformance tests/tier1/updateItem/paths.test.ts (SET past the end of a
        # list appends; a missing intermediate map is an invalid path); Alternator
        # test_projection_expression.py::test_projection_expression_path (a list index
        # into a map projects nothing).
        key = self.key("A10-path")
        self.client.put_item(TableName=self.table, Item={
            **key, "l": {"L": [S("a"), S("b"), S("c")]}, "m": {"M": {"k": S("v")}}})
        self.update(key, UpdateExpression="SET l[5] = :v", ExpressionAttributeValues={":v": S("d")})
        self.assertEqual(self.get(key)["Item"]["l"], {"L": [S("a"), S("b"), S("c"), S("d")]})
        self.expectError("ValidationException", INVALID_PATH, self.update, key,
                         UpdateExpression="SET m.x.y = :v", ExpressionAttributeValues={":v": S("v")})
        out = self.get(key, ProjectionExpression="m[0]")
        self.assertEqual(out.get("Item"), {})

    # A.11
    def test_number_overflow_and_exact_list_numbers(self):
        # Source: Alternator test_number.py::test_update_expression_plus_imprecise;
        # docs/dynamodb-behaviour.md (Number overflow text).
        key = self.key("A11")
        self.expectError("ValidationException",
                         "Number overflow. Attempting to store a number with magnitude larger than supported range",
                         self.update, key, UpdateExpression="SET n = :a + :b",
                         ExpressionAttributeValues={":a": N("1e50"), ":b": N("1")})
        big = "12345678901234567890123456789012345678"
        self.client.put_item(TableName=self.table, Item={
            **key, "l": {"L": [N("1"), N("2.50"), N("-3e2"), N(big)]}})
        self.update(key, UpdateExpression="REMOVE l[1]")
        self.assertEqual(self.get(key)["Item"]["l"], {"L": [N("1"), N("-300"), N(big)]})

    # A.12
    def test_exclusive_start_key_validation(self):
        # Source: dynalite scan.js / query.js ExclusiveStartKey validations (checked
        # against DynamoDB); scylladb/scylladb#9270 quoting DynamoDB's Segment message.
        name = self.make_test_table("fidesk", hash_key=("pk", "S"), range_key=None)
        batch_put(self.client, name, [{"pk": S("k%02d" % i)} for i in range(40)])
        seg1 = self.client.scan(TableName=name, Segment=1, TotalSegments=2, ConsistentRead=True)["Items"]
        self.assertTrue(seg1, "segment 1 of 2 is empty with 40 items")
        err = self.expectError(
            "ValidationException", None, self.client.scan, TableName=name, Segment=0, TotalSegments=2,
            ExclusiveStartKey={"pk": seg1[0]["pk"]})
        msg = err.response["Error"]["Message"]
        self.assertTrue(msg.startswith(
            "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey "
            "with correct Segment. TotalSegments: 2 Segment: 0"), msg)
        self.expectError("ValidationException",
                         "The provided starting key is invalid: The provided key element does not match the schema",
                         self.client.query, TableName=name, KeyConditionExpression="pk = :p",
                         ExpressionAttributeValues={":p": S("k01")},
                         ExclusiveStartKey={"pk": S("k01"), "sk": S("x")})

    # A.13
    def test_scan_and_query_capacity_rounding(self):
        # Source: developer guide "Read consumption for Scan/Query" (the sum of the
        # item sizes read, rounded up to 4 KB, once per page); nubo-db conformance
        # tier1/scan/consumedCapacity.test.ts (a filter or projection changes nothing).
        name = self.make_test_table("fidcap")
        batch_put(self.client, name, [{"PK": S("p"), "SK": S("s%d" % i), "v": S("x" * 100)} for i in range(5)])
        q = dict(KeyConditionExpression="PK = :p", ExpressionAttributeValues={":p": S("p")})
        for op, base in (("scan", {}), ("query", q)):
            fn = getattr(self.client, op)
            for label, kw in (("plain", {}),
                              ("filter", {"FilterExpression": "v = :none",
                                          "ExpressionAttributeValues": {**base.get("ExpressionAttributeValues", {}),
                                                                        ":none": S("none")}}),
                              ("projection", {"ProjectionExpression": "SK"})):
                for consistent, units in ((False, 0.5), (True, 1.0)):
                    with self.subTest(op=op, kind=label, consistent=consistent):
                        args = {**base, **kw}
                        out = fn(TableName=name, ReturnConsumedCapacity="TOTAL", ConsistentRead=consistent, **args)
                        self.assertEqual(out["ScannedCount"], 5)
                        self.assertEqual(out["Count"], 0 if label == "filter" else 5)
                        self.assertEqual(out["ConsumedCapacity"]["TableName"], name)
                        self.assertEqual(out["ConsumedCapacity"]["CapacityUnits"], units)

    # A.14
    def test_tag_arn_of_other_account_and_missing_table(self):
        # Source: docs/research-tags.md (live captures 2026-10-09): another account's ARN
        # -> AccessDeniedException "Access is denied"; this account's ARN naming no
        # table -> ResourceNotFoundException.
        self.expectError("AccessDeniedException", "Access is denied", self.client.list_tags_of_resource,
                         ResourceArn="arn:aws:dynamodb:us-east-1:111111111111:table/x")
        arn = "arn:aws:dynamodb:us-east-1:000000000000:table/%s" % unique_name("nosuch")
        self.expectError("ResourceNotFoundException", "Requested resource not found: ResourceArn: %s not found" % arn,
                         self.client.list_tags_of_resource, ResourceArn=arn)

    # A.15
    def test_describe_stream_shard_filter_validation(self):
        # Source: Alternator PR scylladb/scylladb#28189 shard-filter tests (a filter
        # without Type, and CHILD_SHARDS without ShardId, are ValidationException).
        name = self.make_test_table("fidshard", hash_key=("pk", "S"), range_key=None, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
        arn = self.client.describe_table(TableName=name)["Table"]["LatestStreamArn"]
        sc = streams_client()
        shards = sc.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
        self.assertTrue(shards, "a new stream has no shard")
        shard = shards[0]["ShardId"]
        self.expectError("ValidationException", None, sc.describe_stream, StreamArn=arn,
                         ShardFilter={"ShardId": shard})
        self.expectError("ValidationException", None, sc.describe_stream, StreamArn=arn,
                         ShardFilter={"Type": "CHILD_SHARDS"})
        # The complete filter is accepted.
        sc.describe_stream(StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": shard})

    # A.16
    def test_unsupported_operation(self):
        # Source: docs/operations.md (an unsupported DynamoDB operation answers
        # UnknownOperationException naming it); issue 19.
        err = self.expectError("UnknownOperationException", "CreateBackup",
                               self.client.create_backup, TableName="xyz", BackupName="bkp")
        self.assertIn("dynago does not support", err.response["Error"]["Message"])

    # A.18
    def test_health_check_and_server_header(self):
        # Source: dynalite connection tests (GET / answers "healthy: <host> ");
        # Alternator test_health.py, test_http_headers.py::test_server_header.
        ep = compat_support.endpoint()
        with urllib.request.urlopen(ep.rstrip("/") + "/", timeout=10) as resp:
            self.assertEqual(resp.status, 200)
            self.assertEqual(resp.read().decode(), "healthy: %s " % urlparse(ep).netloc)
        out = self.client.list_tables(Limit=1)
        self.assertEqual(out["ResponseMetadata"]["HTTPHeaders"].get("server"), "Server")
        with self.assertRaises(ClientError) as cm:
            self.client.describe_table(TableName=unique_name("nosuch"))
        self.assertEqual(cm.exception.response["ResponseMetadata"]["HTTPHeaders"].get("server"), "Server")


if __name__ == "__main__":
    unittest.main()
