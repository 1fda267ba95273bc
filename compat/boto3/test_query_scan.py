"""Query and Scan through the low-level boto3 client."""

import unittest

from botocore.exceptions import ClientError

from compat_support import DynamoTestCase, batch_put, seed_user_items, unique_name

P = ["POST#2024-01-0%dT00:00:00Z#p%d" % (i, i) for i in range(1, 6)]
L = ["LIKE#POST#p1", "LIKE#POST#p2"]
ALL_SK = L + P + ["PROFILE"]   # ascending sort-key order of one seed user partition


class QueryTest(DynamoTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table("query")
        cls.uid = unique_name("u")
        cls.pk = "USER#" + cls.uid
        # Two other partitions whose keys sort right around ours must never leak in.
        batch_put(cls.client, cls.table, seed_user_items(cls.uid)
                  + seed_user_items(cls.uid + "0") + seed_user_items(cls.uid[:-1]))

    def q(self, cond, values, **kw):
        values = dict(values, **{":pk": {"S": self.pk}})
        return self.client.query(TableName=self.table, KeyConditionExpression=cond,
                                 ExpressionAttributeValues=values, **kw)

    def sks(self, resp):
        return [it["SK"]["S"] for it in resp["Items"]]

    def assertSKs(self, resp, expected):
        self.assertEqual(self.sks(resp), expected)
        self.assertEqual(resp["Count"], len(expected))
        self.assertEqual(resp["ScannedCount"], len(expected))
        self.assertNotIn("LastEvaluatedKey", resp)
        for it in resp["Items"]:
            self.assertEqual(it["PK"], {"S": self.pk})

    def test_partition_only_ascending(self):
        # Query returns items in ascending sort-key order by default (UTF-8 byte order).
        self.assertSKs(self.q("PK = :pk", {}), ALL_SK)

    def test_full_items_returned(self):
        resp = self.q("PK = :pk AND SK = :sk", {":sk": {"S": "PROFILE"}})
        expected = [it for it in seed_user_items(self.uid) if it["SK"]["S"] == "PROFILE"]
        self.assertEqual(resp["Items"], expected)

    def test_sort_key_operators(self):
        cases = [
            ("SK = :a", {":a": {"S": P[2]}}, [P[2]]),
            ("SK < :a", {":a": {"S": "POST#2024-01-03"}}, L + P[:2]),
            ("SK <= :a", {":a": {"S": P[2]}}, L + P[:3]),
            ("SK > :a", {":a": {"S": P[2]}}, P[3:] + ["PROFILE"]),
            ("SK >= :a", {":a": {"S": P[2]}}, P[2:] + ["PROFILE"]),
            # BETWEEN is inclusive on both ends.
            ("SK BETWEEN :a AND :b", {":a": {"S": P[1]}, ":b": {"S": P[3]}}, P[1:4]),
            # String comparison: "POST#2024-01-04T..." > "POST#2024-01-04".
            ("SK BETWEEN :a AND :b", {":a": {"S": "POST#2024-01-02"}, ":b": {"S": "POST#2024-01-04"}},
             P[1:3]),
            ("begins_with(SK, :a)", {":a": {"S": "POST#"}}, P),
            ("begins_with(SK, :a)", {":a": {"S": "LIKE#POST#"}}, L),
            ("begins_with(SK, :a)", {":a": {"S": "PROFILE"}}, ["PROFILE"]),
            ("begins_with(SK, :a)", {":a": {"S": "NOPE#"}}, []),
            ("SK = :a", {":a": {"S": "POST#"}}, []),
        ]
        for cond, values, expected in cases:
            with self.subTest(cond=cond, values=values):
                self.assertSKs(self.q("PK = :pk AND " + cond, values), expected)
        # Operand order of the AND does not matter.
        self.assertSKs(self.q("begins_with(SK, :a) AND PK = :pk", {":a": {"S": "POST#"}}), P)

    def test_descending(self):
        # ScanIndexForward=false returns items in descending sort-key order.
        self.assertSKs(self.q("PK = :pk AND begins_with(SK, :p)", {":p": {"S": "POST#"}},
                              ScanIndexForward=False), P[::-1])
        self.assertSKs(self.q("PK = :pk", {}, ScanIndexForward=False), ALL_SK[::-1])
        self.assertSKs(self.q("PK = :pk AND SK BETWEEN :a AND :b",
                              {":a": {"S": P[1]}, ":b": {"S": P[3]}}, ScanIndexForward=False),
                       P[3:0:-1])

    def test_missing_partition(self):
        resp = self.client.query(TableName=self.table, KeyConditionExpression="PK = :pk",
                                 ExpressionAttributeValues={":pk": {"S": "USER#nobody-" + self.uid}})
        self.assertEqual(resp["Items"], [])
        self.assertEqual(resp["Count"], 0)
        self.assertNotIn("LastEvaluatedKey", resp)

    def paginate(self, limit, **kw):
        pages, start = [], None
        while True:
            extra = dict(kw)
            if start:
                extra["ExclusiveStartKey"] = start
            resp = self.q("PK = :pk AND begins_with(SK, :p)", {":p": {"S": "POST#"}},
                          Limit=limit, **extra)
            pages.append(resp)
            start = resp.get("LastEvaluatedKey")
            if not start or len(pages) > 20:
                return pages

    def test_pagination_limit_exclusive_start_key(self):
        # Limit caps the number of items evaluated per page; a page cut by Limit carries
        # LastEvaluatedKey = the primary key (only) of the last item returned; passing it as
        # ExclusiveStartKey continues right after it. 5 items, Limit 2 -> 2, 2, 1.
        for forward, order in ((True, P), (False, P[::-1])):
            with self.subTest(ScanIndexForward=forward):
                pages = self.paginate(2, ScanIndexForward=forward)
                self.assertEqual([self.sks(p) for p in pages], [order[0:2], order[2:4], order[4:]])
                for page in pages[:2]:
                    self.assertEqual(page["Count"], 2)
                    last = page["Items"][-1]
                    self.assertEqual(page["LastEvaluatedKey"], {"PK": last["PK"], "SK": last["SK"]})
                self.assertNotIn("LastEvaluatedKey", pages[2])

    def test_boto3_paginator(self):
        items = []
        for page in self.client.get_paginator("query").paginate(
                TableName=self.table, KeyConditionExpression="PK = :pk",
                ExpressionAttributeValues={":pk": {"S": self.pk}},
                PaginationConfig={"PageSize": 3}):
            self.assertLessEqual(len(page["Items"]), 3)
            items.extend(page["Items"])
        self.assertEqual([it["SK"]["S"] for it in items], ALL_SK)

    def test_select_count(self):
        # Select=COUNT returns the number of matching items and no Items element.
        resp = self.q("PK = :pk AND begins_with(SK, :p)", {":p": {"S": "POST#"}}, Select="COUNT")
        self.assertEqual(resp["Count"], 5)
        self.assertEqual(resp["ScannedCount"], 5)
        self.assertNotIn("Items", resp)
        resp = self.q("PK = :pk AND begins_with(SK, :p)", {":p": {"S": "POST#"}},
                      Select="COUNT", Limit=2)
        self.assertEqual(resp["Count"], 2)
        self.assertIn("LastEvaluatedKey", resp)

    def test_projection_and_attribute_names(self):
        resp = self.client.query(
            TableName=self.table,
            KeyConditionExpression="#pk = :pk AND begins_with(#sk, :prefix)",
            ProjectionExpression="#sk, Title, #lc",
            ExpressionAttributeNames={"#pk": "PK", "#sk": "SK", "#lc": "LikeCount"},
            ExpressionAttributeValues={":pk": {"S": self.pk}, ":prefix": {"S": "POST#"}},
            ScanIndexForward=False, Limit=2)
        self.assertEqual(resp["Items"], [
            {"SK": {"S": P[4]}, "Title": {"S": "Post title 5"}, "LikeCount": {"N": "50"}},
            {"SK": {"S": P[3]}, "Title": {"S": "Post title 4"}, "LikeCount": {"N": "40"}},
        ])
        # LastEvaluatedKey is the full primary key even when not projected.
        self.assertEqual(resp["LastEvaluatedKey"], {"PK": {"S": self.pk}, "SK": {"S": P[3]}})

    def test_query_errors(self):
        def bad(cond, values, message=None, **kw):
            with self.subTest(cond=cond):
                with self.assertRaises(ClientError) as cm:
                    self.client.query(TableName=self.table, KeyConditionExpression=cond,
                                      ExpressionAttributeValues=values, **kw)
                self.assertClientError(cm.exception, "ValidationException", message)
        s = {"S": self.pk}
        # No equality condition on the partition key:
        # "Query condition missed key schema element: PK".
        bad("SK = :s", {":s": s}, "Query condition missed key schema element")
        bad("PK > :pk", {":pk": s})
        bad("begins_with(PK, :pk)", {":pk": s})
        # Only key attributes may appear in a KeyConditionExpression.
        bad("PK = :pk AND Title = :t", {":pk": s, ":t": {"S": "x"}})
        # Value of the wrong type for the key.
        bad("PK = :pk", {":pk": {"N": "1"}})
        # Placeholder not defined: "An expression attribute value used in expression is not
        # defined; attribute value: :nope".
        bad("PK = :nope", {":pk": s}, "not defined")
        # Value defined but unused: "Value provided in ExpressionAttributeValues unused in
        # expressions: keys: {:extra}".
        bad("PK = :pk", {":pk": s, ":extra": s}, "unused")
        # Syntax error.
        bad("PK = = :pk", {":pk": s})
        # OR is not allowed in a key condition.
        bad("PK = :pk OR SK = :pk", {":pk": s})
        # A filter may not name a key attribute (Query.FilterExpression.html).
        bad("PK = :pk", {":pk": s, ":t": {"S": "x"}},
            "Filter Expression can only contain non-primary key attributes: Primary key attribute: SK",
            FilterExpression="begins_with(SK, :t)")

    def test_legacy_query_filter_rules(self):
        key = {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": self.pk}]}}
        self.expectError("ValidationException",
                         "QueryFilter can only contain non-primary key attributes: Primary key attribute: SK",
                         self.client.query, TableName=self.table, KeyConditions=key,
                         QueryFilter={"SK": {"ComparisonOperator": "BEGINS_WITH",
                                             "AttributeValueList": [{"S": "POST"}]}})
        # KeyConditions combines with ProjectionExpression; it conflicts only
        # with KeyConditionExpression (developer guide, KeyConditions; Alternator's
        # test_query_filter.py::test_query_filter_and_projection_expression, against
        # DynamoDB; issue 19 reverses an earlier guess).
        out = self.client.query(TableName=self.table, KeyConditions=key, ProjectionExpression="SK")
        self.assertTrue(out["Items"] and all(set(i) == {"SK"} for i in out["Items"]), out["Items"])
        self.expectError("ValidationException",
                         "Can not use both expression and non-expression parameters in the same request: "
                         "Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}",
                         self.client.query, TableName=self.table, KeyConditions=key,
                         KeyConditionExpression="PK = :pk", ExpressionAttributeValues={":pk": {"S": self.pk}})

    def test_query_missing_table(self):
        self.expectError("ResourceNotFoundException", "Requested resource not found",
                         self.client.query, TableName=unique_name("absent"),
                         KeyConditionExpression="PK = :pk",
                         ExpressionAttributeValues={":pk": {"S": "x"}})


class TypedSortKeyTest(DynamoTestCase):
    """Sort-key ordering for Number (numeric) and Binary (unsigned byte-wise) keys."""

    def test_number_sort_key_numeric_order(self):
        table = self.make_test_table("nsort", range_key=("V", "N"))
        vals = ["10", "-5", "2.5", "1", "100", "2", "-0.5", "99.99"]
        batch_put(self.client, table, [{"PK": {"S": "p"}, "V": {"N": v}} for v in vals])

        def q(cond, values, **kw):
            resp = self.client.query(TableName=table, KeyConditionExpression="PK = :p" + cond,
                                     ExpressionAttributeValues=dict(values, **{":p": {"S": "p"}}),
                                     **kw)
            return [it["V"]["N"] for it in resp["Items"]]
        # Numbers sort numerically, not as strings.
        self.assertEqual(q("", {}), ["-5", "-0.5", "1", "2", "2.5", "10", "99.99", "100"])
        self.assertEqual(q(" AND V > :v", {":v": {"N": "2"}}), ["2.5", "10", "99.99", "100"])
        self.assertEqual(q(" AND V BETWEEN :a AND :b", {":a": {"N": "1"}, ":b": {"N": "10"}}),
                         ["1", "2", "2.5", "10"])
        self.assertEqual(q(" AND V < :v", {":v": {"N": "0"}}, ScanIndexForward=False), ["-0.5", "-5"])
        self.assertEqual(q(" AND V = :v", {":v": {"N": "2.50"}}), ["2.5"])
        # begins_with is only valid for String and Binary sort keys.
        with self.assertRaises(ClientError) as cm:
            q(" AND begins_with(V, :v)", {":v": {"N": "1"}})
        self.assertClientError(cm.exception, "ValidationException")

    def test_binary_sort_key_unsigned_byte_order(self):
        table = self.make_test_table("bsort", range_key=("R", "B"))
        vals = [b"\xff", b"\x00", b"\x80", b"\x7f", b"\x01", b"\xff\x00", b"\x00\x00"]
        batch_put(self.client, table, [{"PK": {"S": "p"}, "R": {"B": v}} for v in vals])

        def q(cond="", values=None, **kw):
            resp = self.client.query(TableName=table, KeyConditionExpression="PK = :p" + cond,
                                     ExpressionAttributeValues=dict(values or {}, **{":p": {"S": "p"}}),
                                     **kw)
            return [it["R"]["B"] for it in resp["Items"]]
        # Binary values compare as unsigned bytes.
        self.assertEqual(q(), sorted(vals))
        self.assertEqual(q(" AND begins_with(R, :b)", {":b": {"B": b"\xff"}}), [b"\xff", b"\xff\x00"])
        self.assertEqual(q(" AND R > :b", {":b": {"B": b"\x7f"}}), [b"\x80", b"\xff", b"\xff\x00"])

    def test_hash_only_table_query(self):
        table = self.make_test_table("honly", range_key=None)
        batch_put(self.client, table, [{"PK": {"S": "k%d" % i}, "v": {"N": str(i)}} for i in range(5)])
        resp = self.client.query(TableName=table, KeyConditionExpression="PK = :k",
                                 ExpressionAttributeValues={":k": {"S": "k3"}})
        self.assertEqual(resp["Items"], [{"PK": {"S": "k3"}, "v": {"N": "3"}}])


class ScanTest(DynamoTestCase):

    N_USERS = 8

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table("scan")
        cls.items = []
        for i in range(cls.N_USERS):
            cls.items += seed_user_items("%s-%d" % (unique_name("s"), i))
        batch_put(cls.client, cls.table, cls.items)
        cls.keys = {(it["PK"]["S"], it["SK"]["S"]) for it in cls.items}

    def scan_all(self, **kw):
        found, pages, start = [], 0, None
        while True:
            extra = dict(kw)
            if start:
                extra["ExclusiveStartKey"] = start
            resp = self.client.scan(TableName=self.table, **extra)
            pages += 1
            found.extend(resp["Items"])
            self.assertEqual(resp["Count"], len(resp["Items"]))
            if "Limit" in kw:
                self.assertLessEqual(len(resp["Items"]), kw["Limit"])
            start = resp.get("LastEvaluatedKey")
            if start:
                self.assertEqual(set(start), {"PK", "SK"})
            if not start:
                return found, pages
            self.assertLess(pages, 1000)

    def key_list(self, items):
        return [(it["PK"]["S"], it["SK"]["S"]) for it in items]

    def test_full_scan(self):
        found, _ = self.scan_all()
        self.assertEqual(len(found), len(self.items))
        self.assertCountEqual(found, self.items)

    def test_scan_pagination(self):
        found, pages = self.scan_all(Limit=7)
        keys = self.key_list(found)
        self.assertEqual(len(keys), len(set(keys)), "an item was returned twice")
        self.assertEqual(set(keys), self.keys)
        self.assertGreaterEqual(pages, len(self.items) // 7)

    def test_parallel_scan_covers_every_item_once(self):
        # Parallel scan: segments are disjoint and together cover the whole table.
        for total in (1, 2, 3, 4, 8, 16):
            with self.subTest(TotalSegments=total):
                keys = []
                for seg in range(total):
                    found, _ = self.scan_all(Segment=seg, TotalSegments=total, Limit=5)
                    keys += self.key_list(found)
                self.assertEqual(len(keys), len(set(keys)), "item in two segments")
                self.assertEqual(set(keys), self.keys)

    def test_scan_count_and_projection(self):
        resp = self.client.scan(TableName=self.table, Select="COUNT")
        self.assertEqual(resp["Count"], len(self.items))
        self.assertEqual(resp["ScannedCount"], len(self.items))
        self.assertNotIn("Items", resp)
        resp = self.client.scan(TableName=self.table, ProjectionExpression="#e, PK",
                                ExpressionAttributeNames={"#e": "EntityType"})
        self.assertEqual(len(resp["Items"]), len(self.items))
        for it in resp["Items"]:
            self.assertEqual(set(it), {"EntityType", "PK"})

    def test_scan_segment_validation(self):
        for kw in ({"Segment": 2, "TotalSegments": 2},     # Segment must be < TotalSegments
                   {"Segment": 1},                          # Segment requires TotalSegments
                   {"TotalSegments": 2},                    # TotalSegments requires Segment
                   {"Segment": 0, "TotalSegments": 1000001}):  # at most 1,000,000 segments
            with self.subTest(**kw):
                with self.assertRaises(ClientError) as cm:
                    self.client.scan(TableName=self.table, **kw)
                self.assertClientError(cm.exception, "ValidationException")

    def test_scan_missing_table(self):
        self.expectError("ResourceNotFoundException", "Requested resource not found",
                         self.client.scan, TableName=unique_name("absent"))


if __name__ == "__main__":
    unittest.main()
