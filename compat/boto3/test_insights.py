"""Contributor Insights through boto3: UpdateContributorInsights,
DescribeContributorInsights and ListContributorInsights on a table and a
GSI (states, rule names, modes, pagination, errors), and dynago's
insights report (GET /insights) naming the hot partition key. Shapes and
messages: docs/research-contributor-insights.md (live DynamoDB probes)."""

import json
import time
import unittest
import urllib.parse
import urllib.request

from compat_support import DynamoTestCase, endpoint


class ContributorInsightsTest(DynamoTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table(
            "ci", hash_key=("PK", "S"), range_key=("SK", "S"),
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in ("PK", "SK", "GSI1PK")],
            GlobalSecondaryIndexes=[{"IndexName": "GSI1", "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "KEYS_ONLY"}}])

    def settled(self, **kw):
        deadline = time.monotonic() + 10
        while True:
            d = self.client.describe_contributor_insights(TableName=self.table, **kw)
            if d["ContributorInsightsStatus"] in ("ENABLED", "DISABLED") or time.monotonic() > deadline:
                return d
            time.sleep(0.1)

    def test_lifecycle_table_and_gsi(self):
        c = self.client
        d = c.describe_contributor_insights(TableName=self.table, IndexName="GSI1")
        self.assertEqual(d["ContributorInsightsStatus"], "DISABLED")
        self.assertNotIn("ContributorInsightsRuleList", d)
        r = c.update_contributor_insights(TableName=self.table, IndexName="GSI1", ContributorInsightsAction="ENABLE",
                                          ContributorInsightsMode="THROTTLED_KEYS")
        self.assertEqual((r["TableName"], r["IndexName"], r["ContributorInsightsStatus"], r["ContributorInsightsMode"]),
                         (self.table, "GSI1", "ENABLING", "THROTTLED_KEYS"))
        d = self.settled(IndexName="GSI1")
        self.assertEqual(d["ContributorInsightsStatus"], "ENABLED")
        # A hash-only GSI in THROTTLED_KEYS mode has one rule, named <table>-<index>.
        self.assertEqual(len(d["ContributorInsightsRuleList"]), 1)
        self.assertRegex(d["ContributorInsightsRuleList"][0], r"^DynamoDBContributorInsights-PKT-%s-GSI1-\d{13}$" % self.table)
        self.assertEqual(d["ContributorInsightsMode"], "THROTTLED_KEYS")
        self.assertIsNotNone(d["LastUpdateDateTime"].tzinfo)  # boto3 parsed the epoch seconds
        c.update_contributor_insights(TableName=self.table, ContributorInsightsAction="ENABLE")
        self.settled()
        # The table comes before its GSI; one a page with NextToken.
        page = c.list_contributor_insights(TableName=self.table, MaxResults=1)
        self.assertEqual([s.get("IndexName") for s in page["ContributorInsightsSummaries"]], [None])
        page2 = c.list_contributor_insights(TableName=self.table, MaxResults=1, NextToken=page["NextToken"])
        self.assertEqual([s.get("IndexName") for s in page2["ContributorInsightsSummaries"]], ["GSI1"])
        self.assertNotIn("NextToken", page2)
        # Enabling again is a no-op answered with the settled status.
        r = c.update_contributor_insights(TableName=self.table, ContributorInsightsAction="ENABLE")
        self.assertEqual(r["ContributorInsightsStatus"], "ENABLED")
        r = c.update_contributor_insights(TableName=self.table, IndexName="GSI1", ContributorInsightsAction="DISABLE")
        self.assertEqual(r["ContributorInsightsStatus"], "DISABLING")
        self.assertEqual(self.settled(IndexName="GSI1")["ContributorInsightsStatus"], "DISABLED")
        listed = c.list_contributor_insights(TableName=self.table)["ContributorInsightsSummaries"]
        self.assertEqual([s.get("IndexName") for s in listed], [None])

    def test_errors(self):
        c = self.client
        self.expectError("ResourceNotFoundException", "Requested resource not found: Table: compat-py-nope not found",
                         c.describe_contributor_insights, TableName="compat-py-nope")
        self.expectError("ResourceNotFoundException", "Requested resource not found: Index: nope not found for table: " + self.table,
                         c.update_contributor_insights, TableName=self.table, IndexName="nope", ContributorInsightsAction="ENABLE")
        self.expectError("ValidationException",
                         "1 validation error detected: Value 'ALL' at 'contributorInsightsMode' failed to satisfy constraint: "
                         "Member must satisfy enum value set: [THROTTLED_KEYS, ACCESSED_AND_THROTTLED_KEYS]",
                         c.update_contributor_insights, TableName=self.table, ContributorInsightsAction="ENABLE",
                         ContributorInsightsMode="ALL")

    def test_insights_report_names_the_hot_key(self):
        c = self.client
        table = self.make_test_table("cihot", hash_key=("PK", "S"), range_key=("SK", "S"))
        c.update_contributor_insights(TableName=table, ContributorInsightsAction="ENABLE")
        for i in range(8):
            c.put_item(TableName=table, Item={"PK": {"S": "CUSTOMER#hot"}, "SK": {"S": "ORDER#%d" % i}})
        c.put_item(TableName=table, Item={"PK": {"S": "CUSTOMER#cold"}, "SK": {"S": "ORDER#1"}})
        c.get_item(TableName=table, Key={"PK": {"S": "CUSTOMER#cold"}, "SK": {"S": "ORDER#1"}}, ConsistentRead=True)
        url = endpoint() + "/insights?" + urllib.parse.urlencode({"table": table, "top": 5})
        with urllib.request.urlopen(url, timeout=10) as resp:
            rep = json.load(resp)
        t = rep["keySpaces"][0]
        self.assertEqual([k["key"] for k in t["mostAccessedPartitionKeys"]],
                         [{"PK": {"S": "CUSTOMER#hot"}}, {"PK": {"S": "CUSTOMER#cold"}}])
        hot, cold = t["mostAccessedPartitionKeys"]
        span = rep["windowSeconds"]
        self.assertAlmostEqual(hot["writeUnitsPerSecond"] * span, 8)
        self.assertAlmostEqual(hot["consumedThroughputUnits"] * span, 24)  # 3 per write unit
        self.assertAlmostEqual(cold["readUnitsPerSecond"] * span, 1)
        self.assertEqual(len(t["mostAccessedKeys"]), 5)
        self.assertGreater(t["cost"]["onDemandPerHour"], 0)


if __name__ == "__main__":
    unittest.main()
