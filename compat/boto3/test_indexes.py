"""Secondary indexes through the low-level boto3 client: a table with three
global and two local secondary indexes (ALL, KEYS_ONLY and INCLUDE
projections; S and N index keys; a hash-only GSI).

Reference: DynamoDB developer guide ("Improving data access with secondary
indexes", "Read consistency") and API reference (Query, Scan, CreateTable,
DescribeTable, UpdateTable). Expected answers are computed here from the items
written:
- an index holds only the items that have all of its key attributes (sparse);
- a KEYS_ONLY index returns the table key and the index key, an INCLUDE index
  also the listed non-key attributes, an ALL index whole items;
- a Query returns an index partition in index sort-key order; the order of
  items with equal index keys is not specified, so those are compared as sets;
- LastEvaluatedKey of an index query is the table key plus the index key;
- strongly consistent reads work on LSIs and are rejected on GSIs.
GSI reads are eventually consistent, so reads that follow writes retry for a
few seconds (eventually()).
"""

import os
import sys
import time
import unittest
from decimal import Decimal

# Also runnable as "python3 -m unittest compat/boto3/test_indexes.py" from the repo root.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import compat_support  # noqa: E402
from compat_support import DynamoTestCase, batch_put, unique_name  # noqa: E402

S = lambda v: {"S": v}  # noqa: E731
N = lambda v: {"N": str(v)}  # noqa: E731

ATTRS = [("PK", "S"), ("SK", "S"), ("GSI1PK", "S"), ("GSI1SK", "S"), ("Category", "S"),
         ("Score", "N"), ("LSISK", "S")]


def key_schema(h, r=None):
    ks = [{"AttributeName": h, "KeyType": "HASH"}]
    if r:
        ks.append({"AttributeName": r, "KeyType": "RANGE"})
    return ks


GSIS = [
    {"IndexName": "GSI_ALL", "KeySchema": key_schema("GSI1PK", "GSI1SK"),
     "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "GSI_KEYS", "KeySchema": key_schema("Category", "Score"),
     "Projection": {"ProjectionType": "KEYS_ONLY"}},
    {"IndexName": "GSI_INC", "KeySchema": key_schema("Category"),
     "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["Title", "Tags"]}},
]
LSIS = [
    {"IndexName": "LSI_ALL", "KeySchema": key_schema("PK", "LSISK"),
     "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "LSI_KEYS", "KeySchema": key_schema("PK", "Score"),
     "Projection": {"ProjectionType": "KEYS_ONLY"}},
]
# Attributes of each index's key (hash, range-or-None) and what it projects.
INDEX_KEYS = {"GSI_ALL": ("GSI1PK", "GSI1SK"), "GSI_KEYS": ("Category", "Score"),
              "GSI_INC": ("Category", None), "LSI_ALL": ("PK", "LSISK"), "LSI_KEYS": ("PK", "Score")}


def table_params(name):
    return dict(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in ATTRS],
        KeySchema=key_schema("PK", "SK"), GlobalSecondaryIndexes=GSIS, LocalSecondaryIndexes=LSIS)


def make_items():
    """24 items in 4 partitions, each index key present on some of them only."""
    items = []
    for i in range(24):
        it = {"PK": S("P#%d" % (i % 4)), "SK": S("I#%02d" % i), "Title": S("title %d" % i),
              "Body": S("body %d" % i), "Num": N(i)}
        if i % 3 != 2:
            it["GSI1PK"] = S("G#%d" % (i % 2))
            if i % 5 != 4:  # GSI1PK without GSI1SK: not in GSI_ALL either
                it["GSI1SK"] = S("S#%02d" % (23 - i))
        if i % 4 != 3:
            it["Category"] = S(["alpha", "beta"][i % 2])
            if i % 6 != 1:
                # Distinct numbers whose string order is not their numeric order (9 < 10).
                v = (i * 7) % 24 - 10
                it["Score"] = N("%d.5" % v if i % 5 == 0 else v)
        if i % 3 == 0:
            it["Tags"] = {"SS": ["x", "y%d" % i]}
        if i % 7 != 0:
            it["LSISK"] = S("L#%02d" % ((i * 5) % 24))
        items.append(it)
    return items


def tkey(it):
    return (it["PK"]["S"], it["SK"]["S"])


def sort_value(av):
    return Decimal(av["N"]) if "N" in av else av["S"].encode("utf-8")


def normalize(it):
    """Order-insensitive form of an item (SS values are unordered)."""
    return {k: (sorted(v["SS"]) if "SS" in v else v) for k, v in it.items()}


def eventually(fn, timeout=5.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            return fn()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.1)


class IndexTest(DynamoTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = unique_name("idx")
        cls.client.create_table(**table_params(cls.table))
        cls.addClassCleanup(compat_support.delete_table_quietly, cls.client, cls.table)
        compat_support.wait_active(cls.client, cls.table)
        cls.items = make_items()
        # 45 items in 5 partitions with one and the same GSI_ALL key (and 9 per
        # partition with one LSISK): for paging through equal index keys.
        cls.same = [{"PK": S("EQ#%d" % (k % 5)), "SK": S("%03d" % k), "GSI1PK": S("G#same"),
                     "GSI1SK": S("same"), "LSISK": S("same"), "Num": N(k)} for k in range(45)]
        batch_put(cls.client, cls.table, cls.items + cls.same)
        expected = len([it for it in cls.items + cls.same if "GSI1PK" in it and "GSI1SK" in it])

        def caught_up():
            got = cls.client.scan(TableName=cls.table, IndexName="GSI_ALL", Select="COUNT")["Count"]
            assert got == expected, (got, expected)
        eventually(caught_up, 15)

    # ---- helpers ----------------------------------------------------------------

    def query_all(self, **kw):
        """Every page of a Query; returns (items, pages)."""
        kw.setdefault("TableName", self.table)
        items, pages = [], []
        while True:
            resp = self.client.query(**kw)
            pages.append(resp)
            items.extend(resp.get("Items", []))
            if "LastEvaluatedKey" not in resp:
                return items, pages
            self.assertLess(len(pages), 500, "query does not end")
            kw["ExclusiveStartKey"] = resp["LastEvaluatedKey"]

    def scan_all(self, **kw):
        kw.setdefault("TableName", self.table)
        items = []
        while True:
            resp = self.client.scan(**kw)
            items.extend(resp.get("Items", []))
            if "LastEvaluatedKey" not in resp:
                return items
            kw["ExclusiveStartKey"] = resp["LastEvaluatedKey"]

    def in_index(self, index, items=None):
        h, r = INDEX_KEYS[index]
        return [it for it in (self.items if items is None else items) if h in it and (r is None or r in it)]

    def assertIndexAnswer(self, got, want, index, desc=False):
        """Same items; in index sort-key order where the index sort keys differ."""
        _, r = INDEX_KEYS[index]
        if r is not None:
            self.assertEqual([sort_value(it[r]) for it in got],
                             sorted((sort_value(it[r]) for it in want), reverse=desc))
        canon = lambda it: repr(sorted(it.items()))  # noqa: E731
        self.assertEqual(sorted((normalize(it) for it in got), key=canon),
                         sorted((normalize(it) for it in want), key=canon))

    # ---- DescribeTable / CreateTable ----------------------------------------------

    def test_create_and_describe_indexes(self):
        name = unique_name("idxdesc")
        created = self.client.create_table(**table_params(name))["TableDescription"]
        self.addCleanup(compat_support.delete_table_quietly, self.client, name)
        self.assertEqual(created["TableStatus"], "CREATING")
        self.assertEqual(sorted(g["IndexName"] for g in created["GlobalSecondaryIndexes"]),
                         ["GSI_ALL", "GSI_INC", "GSI_KEYS"])
        for g in created["GlobalSecondaryIndexes"]:
            self.assertEqual(g["IndexStatus"], "CREATING", g)
        self.assertEqual(sorted(l["IndexName"] for l in created["LocalSecondaryIndexes"]),
                         ["LSI_ALL", "LSI_KEYS"])

        t = compat_support.wait_active(self.client, name)
        arn = t["TableArn"]
        gsis = {g["IndexName"]: g for g in t["GlobalSecondaryIndexes"]}
        self.assertEqual(sorted(gsis), ["GSI_ALL", "GSI_INC", "GSI_KEYS"])
        for want in GSIS:
            g = gsis[want["IndexName"]]
            with self.subTest(index=want["IndexName"]):
                self.assertEqual(g["KeySchema"], want["KeySchema"])
                proj = dict(g["Projection"])
                if "NonKeyAttributes" in proj:
                    proj["NonKeyAttributes"] = sorted(proj["NonKeyAttributes"])
                wproj = dict(want["Projection"])
                if "NonKeyAttributes" in wproj:
                    wproj["NonKeyAttributes"] = sorted(wproj["NonKeyAttributes"])
                self.assertEqual(proj, wproj)
                self.assertEqual(g["IndexStatus"], "ACTIVE")
                self.assertEqual(g["IndexArn"], arn + "/index/" + want["IndexName"])
                self.assertEqual(g["ItemCount"], 0)
                self.assertEqual(g["IndexSizeBytes"], 0)
                # On-demand table: the index reports 0 read and write capacity.
                self.assertEqual(g["ProvisionedThroughput"]["ReadCapacityUnits"], 0)
                self.assertEqual(g["ProvisionedThroughput"]["WriteCapacityUnits"], 0)
        lsis = {l["IndexName"]: l for l in t["LocalSecondaryIndexes"]}
        self.assertEqual(sorted(lsis), ["LSI_ALL", "LSI_KEYS"])
        for want in LSIS:
            l = lsis[want["IndexName"]]
            with self.subTest(index=want["IndexName"]):
                self.assertEqual(l["KeySchema"], want["KeySchema"])
                self.assertEqual(l["Projection"], want["Projection"])
                self.assertEqual(l["IndexArn"], arn + "/index/" + want["IndexName"])
                self.assertEqual(l["ItemCount"], 0)
                self.assertEqual(l["IndexSizeBytes"], 0)
                # LocalSecondaryIndexDescription has no IndexStatus.
                self.assertNotIn("IndexStatus", l)
        self.assertEqual(sorted((a["AttributeName"], a["AttributeType"]) for a in t["AttributeDefinitions"]),
                         sorted(ATTRS))

    def test_describe_populated_table(self):
        t = self.client.describe_table(TableName=self.table)["Table"]
        for g in t["GlobalSecondaryIndexes"] + t["LocalSecondaryIndexes"]:
            # DynamoDB refreshes ItemCount / IndexSizeBytes about every six hours,
            # so only their presence and type are certain here.
            self.assertIsInstance(g["ItemCount"], int)
            self.assertIsInstance(g["IndexSizeBytes"], int)
            self.assertGreaterEqual(g["ItemCount"], 0)
            self.assertEqual(g["IndexArn"], t["TableArn"] + "/index/" + g["IndexName"])
        for g in t["GlobalSecondaryIndexes"]:
            self.assertEqual(g["IndexStatus"], "ACTIVE")

    # ---- sparse indexes, projections ---------------------------------------------

    def test_sparse_gsi(self):
        for pk in ("G#0", "G#1"):
            with self.subTest(GSI1PK=pk):
                got, _ = self.query_all(IndexName="GSI_ALL", KeyConditionExpression="GSI1PK = :p",
                                        ExpressionAttributeValues={":p": S(pk)})
                want = [it for it in self.in_index("GSI_ALL") if it["GSI1PK"]["S"] == pk]
                self.assertTrue(any("GSI1PK" in it and "GSI1SK" not in it and it["GSI1PK"]["S"] == pk
                                    for it in self.items), "the data has items with only the hash key")
                self.assertIndexAnswer(got, want, "GSI_ALL")
        # Scan of an index: exactly the items that have its keys.
        for index in INDEX_KEYS:
            with self.subTest(scan=index):
                got = self.scan_all(IndexName=index, Limit=5)
                want = self.in_index(index, self.items + self.same)
                self.assertEqual(sorted(map(tkey, got)), sorted(map(tkey, want)))

    def test_keys_only_projection(self):
        for cat in ("alpha", "beta"):
            with self.subTest(Category=cat):
                got, _ = self.query_all(IndexName="GSI_KEYS", KeyConditionExpression="Category = :c",
                                        ExpressionAttributeValues={":c": S(cat)})
                want = [{k: it[k] for k in ("PK", "SK", "Category", "Score")}
                        for it in self.in_index("GSI_KEYS") if it["Category"]["S"] == cat]
                self.assertIndexAnswer(got, want, "GSI_KEYS")
        # Select ALL_PROJECTED_ATTRIBUTES is the same answer.
        got, _ = self.query_all(IndexName="GSI_KEYS", KeyConditionExpression="Category = :c",
                                ExpressionAttributeValues={":c": S("alpha")}, Select="ALL_PROJECTED_ATTRIBUTES")
        self.assertTrue(got and all(set(it) == {"PK", "SK", "Category", "Score"} for it in got), got)
        # LSI KEYS_ONLY: table key + the LSI sort key.
        got, _ = self.query_all(IndexName="LSI_KEYS", KeyConditionExpression="PK = :p",
                                ExpressionAttributeValues={":p": S("P#0")})
        want = [{k: it[k] for k in ("PK", "SK", "Score")} for it in self.in_index("LSI_KEYS")
                if it["PK"]["S"] == "P#0"]
        self.assertIndexAnswer(got, want, "LSI_KEYS")

    def test_include_projection(self):
        for cat in ("alpha", "beta"):
            with self.subTest(Category=cat):
                got, _ = self.query_all(IndexName="GSI_INC", KeyConditionExpression="Category = :c",
                                        ExpressionAttributeValues={":c": S(cat)}, Limit=4)
                want = [{k: it[k] for k in ("PK", "SK", "Category", "Title", "Tags") if k in it}
                        for it in self.in_index("GSI_INC") if it["Category"]["S"] == cat]
                # A hash-only index: every item has the same index key; compare as sets.
                self.assertIndexAnswer(got, want, "GSI_INC")
                self.assertTrue(any("Tags" in it for it in got) and any("Tags" not in it for it in got))

    def test_select_all_attributes(self):
        # Not on a GSI that does not project ALL...
        for index in ("GSI_KEYS", "GSI_INC"):
            with self.subTest(index=index):
                self.expectError(
                    "ValidationException",
                    "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not supported "
                    "for global secondary index %s because its projection type is not ALL" % index,
                    self.client.query, TableName=self.table, IndexName=index,
                    KeyConditionExpression="Category = :c", ExpressionAttributeValues={":c": S("alpha")},
                    Select="ALL_ATTRIBUTES")
        # ...fine on an ALL GSI...
        got, _ = self.query_all(IndexName="GSI_ALL", KeyConditionExpression="GSI1PK = :p",
                                ExpressionAttributeValues={":p": S("G#0")}, Select="ALL_ATTRIBUTES")
        self.assertIndexAnswer(got, [it for it in self.in_index("GSI_ALL") if it["GSI1PK"]["S"] == "G#0"],
                               "GSI_ALL")
        # ...and on a KEYS_ONLY LSI, where DynamoDB fetches the other attributes
        # from the table: whole items.
        got, _ = self.query_all(IndexName="LSI_KEYS", KeyConditionExpression="PK = :p",
                                ExpressionAttributeValues={":p": S("P#2")}, Select="ALL_ATTRIBUTES")
        self.assertIndexAnswer(got, [it for it in self.in_index("LSI_KEYS") if it["PK"]["S"] == "P#2"],
                               "LSI_KEYS")

    # ---- consistency --------------------------------------------------------------

    def test_consistent_read_on_lsi_allowed(self):
        for p in ("P#0", "P#1", "P#3"):
            with self.subTest(PK=p):
                got, _ = self.query_all(IndexName="LSI_ALL", KeyConditionExpression="PK = :p",
                                        ExpressionAttributeValues={":p": S(p)}, ConsistentRead=True)
                self.assertIndexAnswer(got, [it for it in self.in_index("LSI_ALL") if it["PK"]["S"] == p],
                                       "LSI_ALL")
        resp = self.client.scan(TableName=self.table, IndexName="LSI_ALL", ConsistentRead=True)
        self.assertEqual(resp["Count"], len(self.in_index("LSI_ALL", self.items + self.same)))

    def test_consistent_read_on_gsi_rejected(self):
        msg = "Consistent reads are not supported on global secondary indexes"
        self.expectError("ValidationException", msg, self.client.query, TableName=self.table,
                         IndexName="GSI_ALL", KeyConditionExpression="GSI1PK = :p",
                         ExpressionAttributeValues={":p": S("G#0")}, ConsistentRead=True)
        self.expectError("ValidationException", msg, self.client.scan, TableName=self.table,
                         IndexName="GSI_KEYS", ConsistentRead=True)

    # ---- ordering and paging ------------------------------------------------------

    def test_numeric_index_sort_key(self):
        for desc in (False, True):
            with self.subTest(descending=desc):
                got, pages = self.query_all(IndexName="GSI_KEYS", KeyConditionExpression="Category = :c",
                                            ExpressionAttributeValues={":c": S("beta")},
                                            ScanIndexForward=not desc, Limit=3)
                want = [it for it in self.in_index("GSI_KEYS") if it["Category"]["S"] == "beta"]
                scores = [Decimal(it["Score"]["N"]) for it in got]
                self.assertEqual(scores, sorted((Decimal(it["Score"]["N"]) for it in want), reverse=desc))
                self.assertEqual(len(got), len(want))
                for p in pages[:-1]:
                    self.assertEqual(len(p["Items"]), 3)
                    last = p["Items"][-1]
                    self.assertEqual(p["LastEvaluatedKey"], {k: last[k] for k in ("PK", "SK", "Category", "Score")})
        got, _ = self.query_all(IndexName="GSI_KEYS", KeyConditionExpression="Category = :c AND Score BETWEEN :a AND :b",
                                ExpressionAttributeValues={":c": S("alpha"), ":a": N(-2), ":b": N("10.5")})
        want = [it for it in self.in_index("GSI_KEYS") if it["Category"]["S"] == "alpha"
                and Decimal(-2) <= Decimal(it["Score"]["N"]) <= Decimal("10.5")]
        self.assertTrue(want)
        self.assertEqual([it["Score"] for it in got],
                         [it["Score"] for it in sorted(want, key=lambda it: Decimal(it["Score"]["N"]))])

    def test_pagination_with_equal_gsi_keys(self):
        # 45 items share GSI1PK/GSI1SK; Limit 7 cuts that run into 7 pages. Each
        # LastEvaluatedKey is the table key + index key of the page's last item,
        # and resuming from it neither repeats nor skips an item.
        got, pages = self.query_all(IndexName="GSI_ALL", KeyConditionExpression="GSI1PK = :p",
                                    ExpressionAttributeValues={":p": S("G#same")}, Limit=7)
        self.assertEqual(sorted(map(tkey, got)), sorted(map(tkey, self.same)))
        self.assertEqual(len(got), len(set(map(tkey, got))), "an item came back twice")
        self.assertIn(len(pages), (7, 8))
        for p in pages[:-1]:
            self.assertEqual(p["Count"], 7)
            last = p["Items"][-1]
            self.assertEqual(p["LastEvaluatedKey"], {k: last[k] for k in ("PK", "SK", "GSI1PK", "GSI1SK")})
        self.assertNotIn("LastEvaluatedKey", pages[-1])
        # The same backwards.
        back, _ = self.query_all(IndexName="GSI_ALL", KeyConditionExpression="GSI1PK = :p",
                                 ExpressionAttributeValues={":p": S("G#same")}, Limit=4, ScanIndexForward=False)
        self.assertEqual(sorted(map(tkey, back)), sorted(map(tkey, self.same)))
        self.assertEqual(len(back), 45)

    def test_pagination_with_equal_lsi_keys(self):
        got, pages = self.query_all(IndexName="LSI_ALL", KeyConditionExpression="PK = :p",
                                    ExpressionAttributeValues={":p": S("EQ#3")}, Limit=2, ConsistentRead=True)
        want = [it for it in self.same if it["PK"]["S"] == "EQ#3"]
        self.assertEqual(sorted(map(tkey, got)), sorted(map(tkey, want)))
        self.assertEqual(len(got), 9)
        for p in pages[:-1]:
            last = p["Items"][-1]
            # An LSI's LastEvaluatedKey: table key + LSI sort key.
            self.assertEqual(p["LastEvaluatedKey"], {k: last[k] for k in ("PK", "SK", "LSISK")})

    # ---- index maintenance ------------------------------------------------------------

    def test_index_follows_writes(self):
        pk = S("M#" + unique_name("m"))
        key = {"PK": pk, "SK": S("one")}

        def gsi(p):
            return self.client.query(TableName=self.table, IndexName="GSI_ALL", KeyConditionExpression="GSI1PK = :p",
                                     ExpressionAttributeValues={":p": S(p)})["Items"]
        ga, gb = "G#" + pk["S"] + "a", "G#" + pk["S"] + "b"
        item = dict(key, GSI1PK=S(ga), GSI1SK=S("1"), Body=S("v1"))
        self.client.put_item(TableName=self.table, Item=item)
        eventually(lambda: self.assertEqual(gsi(ga), [item]))
        # Overwrite with another index key: the item moves.
        item2 = dict(key, GSI1PK=S(gb), GSI1SK=S("1"), Body=S("v2"))
        self.client.put_item(TableName=self.table, Item=item2)

        def moved():
            self.assertEqual(gsi(ga), [])
            self.assertEqual(gsi(gb), [item2])
        eventually(moved)
        # UpdateItem of a non-key attribute: the projection follows.
        self.client.update_item(TableName=self.table, Key=key, UpdateExpression="SET Body = :b",
                                ExpressionAttributeValues={":b": S("v3")})
        eventually(lambda: self.assertEqual(gsi(gb)[0]["Body"], S("v3")))
        # REMOVE the index sort key: out of the index.
        self.client.update_item(TableName=self.table, Key=key, UpdateExpression="REMOVE GSI1SK")
        eventually(lambda: self.assertEqual(gsi(gb), []))
        # Back in, then DeleteItem: out again.
        self.client.update_item(TableName=self.table, Key=key, UpdateExpression="SET GSI1SK = :s",
                                ExpressionAttributeValues={":s": S("2")})
        eventually(lambda: self.assertEqual(len(gsi(gb)), 1))
        self.client.delete_item(TableName=self.table, Key=key)
        eventually(lambda: self.assertEqual(gsi(gb), []))
        # The LSI follows too (strongly consistent read).
        self.client.put_item(TableName=self.table, Item=dict(key, LSISK=S("x")))
        got = self.client.query(TableName=self.table, IndexName="LSI_ALL", KeyConditionExpression="PK = :p",
                                ExpressionAttributeValues={":p": pk}, ConsistentRead=True)["Items"]
        self.assertEqual(got, [dict(key, LSISK=S("x"))])
        self.client.delete_item(TableName=self.table, Key=key)
        got = self.client.query(TableName=self.table, IndexName="LSI_ALL", KeyConditionExpression="PK = :p",
                                ExpressionAttributeValues={":p": pk}, ConsistentRead=True)["Items"]
        self.assertEqual(got, [])

    def test_parallel_scan_of_gsi(self):
        # Segments of an index scan are disjoint and together cover the index.
        seen = []
        for seg in range(3):
            kw = dict(TableName=self.table, IndexName="GSI_ALL", Segment=seg, TotalSegments=3, Limit=4)
            while True:
                r = self.client.scan(**kw)
                seen += [tkey(it) for it in r["Items"]]
                if "LastEvaluatedKey" not in r:
                    break
                kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]
        self.assertEqual(sorted(seen), sorted(map(tkey, self.in_index("GSI_ALL", self.items + self.same))))

    # ---- consumed capacity ----------------------------------------------------------

    def test_consumed_capacity_indexes(self):
        # Developer guide, "Provisioned throughput considerations" for global and for
        # local secondary indexes: a table write also writes each index whose key
        # attributes the item has - 1 write to put a new item into an index, 2 when an
        # index key value changes (delete the old entry, put the new one), 1 when only
        # projected attributes change, 1 to delete an entry. Reads of an index are
        # charged to that index. ReturnConsumedCapacity INDEXES reports the table and
        # every index touched; CapacityUnits is the total.
        pk = S("CC#" + unique_name("c"))
        key = {"PK": pk, "SK": S("1")}

        def capacity(resp):
            cc = resp["ConsumedCapacity"]
            return (cc.get("CapacityUnits"), (cc.get("Table") or {}).get("CapacityUnits"),
                    {k: v.get("CapacityUnits") for k, v in (cc.get("GlobalSecondaryIndexes") or {}).items()},
                    {k: v.get("CapacityUnits") for k, v in (cc.get("LocalSecondaryIndexes") or {}).items()})

        # The item is in GSI_ALL and LSI_ALL only (no Category, no Score).
        with self.subTest("PutItem of a new item"):
            r = self.client.put_item(TableName=self.table, ReturnConsumedCapacity="INDEXES",
                                     Item=dict(key, GSI1PK=S("cc"), GSI1SK=S("s"), LSISK=S("l")))
            self.assertEqual(capacity(r), (3, 1, {"GSI_ALL": 1}, {"LSI_ALL": 1}))
        with self.subTest("UpdateItem changing the GSI key"):
            r = self.client.update_item(TableName=self.table, Key=key, ReturnConsumedCapacity="INDEXES",
                                        UpdateExpression="SET GSI1PK = :v", ExpressionAttributeValues={":v": S("cc2")})
            # GSI_ALL: delete + put; LSI_ALL (projects ALL, key unchanged): 1 update.
            self.assertEqual(capacity(r), (4, 1, {"GSI_ALL": 2}, {"LSI_ALL": 1}))
        with self.subTest("UpdateItem of a projected non-key attribute"):
            r = self.client.update_item(TableName=self.table, Key=key, ReturnConsumedCapacity="INDEXES",
                                        UpdateExpression="SET Body = :v", ExpressionAttributeValues={":v": S("b")})
            self.assertEqual(capacity(r), (3, 1, {"GSI_ALL": 1}, {"LSI_ALL": 1}))
        with self.subTest("PutItem TOTAL"):
            r = self.client.put_item(TableName=self.table, ReturnConsumedCapacity="TOTAL",
                                     Item=dict(key, GSI1PK=S("cc2"), GSI1SK=S("s"), LSISK=S("l"), Body=S("c")))
            self.assertEqual(r["ConsumedCapacity"]["CapacityUnits"], 3)
        with self.subTest("Query of a GSI"):
            r = eventually(lambda: self._one(self.client.query(
                TableName=self.table, IndexName="GSI_ALL", KeyConditionExpression="GSI1PK = :p",
                ExpressionAttributeValues={":p": S("cc2")}, ReturnConsumedCapacity="INDEXES")))
            total, table, gsis, lsis = capacity(r)
            self.assertEqual((total, gsis, lsis), (0.5, {"GSI_ALL": 0.5}, {}))
            self.assertIn(table, (None, 0))
        with self.subTest("Query of an LSI"):
            r = self.client.query(TableName=self.table, IndexName="LSI_ALL", KeyConditionExpression="PK = :p",
                                  ExpressionAttributeValues={":p": pk}, ReturnConsumedCapacity="INDEXES")
            total, table, gsis, lsis = capacity(r)
            self.assertEqual((total, gsis, lsis), (0.5, {}, {"LSI_ALL": 0.5}))
            self.assertIn(table, (None, 0))
        with self.subTest("DeleteItem"):
            r = self.client.delete_item(TableName=self.table, Key=key, ReturnConsumedCapacity="INDEXES")
            self.assertEqual(capacity(r), (3, 1, {"GSI_ALL": 1}, {"LSI_ALL": 1}))
        self.client.delete_item(TableName=self.table, Key=key)

    def _one(self, resp):
        self.assertEqual(resp["Count"], 1)
        return resp

    # ---- errors -------------------------------------------------------------------

    def test_index_errors(self):
        self.expectError("ValidationException", "The table does not have the specified index: NOPE",
                         self.client.query, TableName=self.table, IndexName="NOPE",
                         KeyConditionExpression="GSI1PK = :p", ExpressionAttributeValues={":p": S("x")})
        self.expectError("ValidationException", "The table does not have the specified index: NOPE",
                         self.client.scan, TableName=self.table, IndexName="NOPE")
        # The key condition must use the index's partition key.
        self.expectError("ValidationException", "Query condition missed key schema element: GSI1PK",
                         self.client.query, TableName=self.table, IndexName="GSI_ALL",
                         KeyConditionExpression="PK = :p", ExpressionAttributeValues={":p": S("P#0")})
        # Index key attributes must have their defined type, and may not be empty.
        self.expectError("ValidationException",
                         "One or more parameter values were invalid: Type mismatch for Index Key GSI1PK "
                         "Expected: S Actual: N IndexName: GSI_ALL",
                         self.client.put_item, TableName=self.table,
                         Item={"PK": S("BAD"), "SK": S("1"), "GSI1PK": N(1)})
        self.expectError("ValidationException",
                         "One or more parameter values were invalid: Type mismatch for Index Key LSISK "
                         "Expected: S Actual: N IndexName: LSI_ALL",
                         self.client.put_item, TableName=self.table,
                         Item={"PK": S("BAD"), "SK": S("1"), "LSISK": N(1)})
        self.expectError("ValidationException",
                         "One or more parameter values are not valid. A value specified for a secondary index "
                         "key is not supported. The AttributeValue for a key attribute cannot contain an empty "
                         "string value. IndexName: GSI_ALL, IndexKey: GSI1SK",
                         self.client.put_item, TableName=self.table,
                         Item={"PK": S("BAD"), "SK": S("1"), "GSI1PK": S("g"), "GSI1SK": S("")})
        self.assertNotIn("Item", self.client.get_item(TableName=self.table,
                                                       Key={"PK": S("BAD"), "SK": S("1")}, ConsistentRead=True))


class UpdateTableIndexTest(DynamoTestCase):
    """UpdateTable GlobalSecondaryIndexUpdates: Create on a populated table
    (backfill), then Delete."""

    def wait_index(self, name, index, status, timeout=120.0):
        deadline = time.monotonic() + timeout
        while True:
            t = self.client.describe_table(TableName=name)["Table"]
            gsis = {g["IndexName"]: g for g in t.get("GlobalSecondaryIndexes", [])}
            if status is None and index not in gsis and t["TableStatus"] == "ACTIVE":
                return t
            if status is not None and gsis.get(index, {}).get("IndexStatus") == status \
                    and t["TableStatus"] == "ACTIVE":
                return t
            if time.monotonic() > deadline:
                raise AssertionError("index %s of %s not %s after %ss: %r" % (index, name, status, timeout, gsis))
            time.sleep(0.2)

    def test_create_gsi_online_then_delete(self):
        name = self.make_test_table("idxupd")
        items = [{"PK": S("U#%d" % (i % 6)), "SK": S("%03d" % i), "Owner": S("o%d" % (i % 4)),
                  "Rank": N(50 - i), "Body": S("b%d" % i)} for i in range(60)]
        items += [{"PK": S("U#x"), "SK": S("no-owner-%d" % i), "Rank": N(i)} for i in range(5)]
        batch_put(self.client, name, items)

        resp = self.client.update_table(
            TableName=name,
            AttributeDefinitions=[{"AttributeName": "Owner", "AttributeType": "S"},
                                  {"AttributeName": "Rank", "AttributeType": "N"}],
            GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "ByOwner", "KeySchema": key_schema("Owner", "Rank"),
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["Body"]}}}])
        td = resp["TableDescription"]
        gsis = {g["IndexName"]: g for g in td.get("GlobalSecondaryIndexes", [])}
        self.assertIn("ByOwner", gsis)
        # API reference, UpdateTable: a new index starts CREATING.
        self.assertEqual(gsis["ByOwner"]["IndexStatus"], "CREATING")
        self.assertEqual(gsis["ByOwner"]["KeySchema"], key_schema("Owner", "Rank"))

        t = self.wait_index(name, "ByOwner", "ACTIVE")
        g = {g["IndexName"]: g for g in t["GlobalSecondaryIndexes"]}["ByOwner"]
        self.assertEqual(g["IndexArn"], t["TableArn"] + "/index/ByOwner")
        self.assertEqual(g["Projection"], {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["Body"]})
        self.assertIn({"AttributeName": "Owner", "AttributeType": "S"}, t["AttributeDefinitions"])

        # The backfilled index answers for the items written before it existed.
        for owner in ("o0", "o3"):
            with self.subTest(Owner=owner):
                got = []
                kw = dict(TableName=name, IndexName="ByOwner", KeyConditionExpression="#o = :o",
                          ExpressionAttributeNames={"#o": "Owner"}, ExpressionAttributeValues={":o": S(owner)},
                          ScanIndexForward=False, Limit=4)
                while True:
                    r = self.client.query(**kw)
                    got.extend(r["Items"])
                    if "LastEvaluatedKey" not in r:
                        break
                    kw["ExclusiveStartKey"] = r["LastEvaluatedKey"]
                want = sorted((it for it in items if it.get("Owner") == S(owner)),
                              key=lambda it: Decimal(it["Rank"]["N"]), reverse=True)
                self.assertEqual(got, [{k: it[k] for k in ("PK", "SK", "Owner", "Rank", "Body")} for it in want])
        # New writes reach it too.
        self.client.put_item(TableName=name, Item={"PK": S("U#new"), "SK": S("1"), "Owner": S("o9"), "Rank": N(1)})
        eventually(lambda: self.assertEqual(self.client.query(
            TableName=name, IndexName="ByOwner", KeyConditionExpression="#o = :o",
            ExpressionAttributeNames={"#o": "Owner"}, ExpressionAttributeValues={":o": S("o9")})["Count"], 1))

        resp = self.client.update_table(TableName=name,
                                        GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "ByOwner"}}])
        gsis = {g["IndexName"]: g for g in resp["TableDescription"].get("GlobalSecondaryIndexes", [])}
        if "ByOwner" in gsis:
            self.assertEqual(gsis["ByOwner"]["IndexStatus"], "DELETING")
        self.wait_index(name, "ByOwner", None)
        self.expectError("ValidationException", "The table does not have the specified index: ByOwner",
                         self.client.query, TableName=name, IndexName="ByOwner",
                         KeyConditionExpression="#o = :o", ExpressionAttributeNames={"#o": "Owner"},
                         ExpressionAttributeValues={":o": S("o0")})
        # The table's items are untouched.
        self.assertEqual(self.client.scan(TableName=name, Select="COUNT")["Count"], len(items) + 1)


if __name__ == "__main__":
    unittest.main()
