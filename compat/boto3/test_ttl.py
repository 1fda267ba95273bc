"""Time to Live through boto3: UpdateTimeToLive / DescribeTimeToLive, and
expiry by the server's sweeper (dynago serve sweeps every 5 s by default;
DynamoDB within days). Sources: API_UpdateTimeToLive, API_DescribeTimeToLive,
developer guide "Time to Live"; messages in docs/research-ttl.md."""

import time
import unittest

from compat_support import DynamoTestCase, create_table, delete_table_quietly, unique_name


class TimeToLiveTest(DynamoTestCase):
    def setUp(self):
        self.table = unique_name("ttl")
        create_table(self.client, self.table, hash_key=("pk", "S"), range_key=("sk", "S"))
        self.addCleanup(delete_table_quietly, self.client, self.table)

    def test_settings(self):
        d = self.client.describe_time_to_live(TableName=self.table)["TimeToLiveDescription"]
        self.assertEqual(d, {"TimeToLiveStatus": "DISABLED"})
        r = self.client.update_time_to_live(TableName=self.table,
                                            TimeToLiveSpecification={"AttributeName": "expires", "Enabled": True})
        self.assertEqual(r["TimeToLiveSpecification"], {"AttributeName": "expires", "Enabled": True})
        d = self.client.describe_time_to_live(TableName=self.table)["TimeToLiveDescription"]
        self.assertEqual(d, {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires"})
        self.expectError("ValidationException", "TimeToLive is already enabled", self.client.update_time_to_live,
                         TableName=self.table, TimeToLiveSpecification={"AttributeName": "expires", "Enabled": True})
        self.expectError("ValidationException",
                         "TimeToLive is active on a different AttributeName: current AttributeName is expires",
                         self.client.update_time_to_live,
                         TableName=self.table, TimeToLiveSpecification={"AttributeName": "other", "Enabled": True})
        self.client.update_time_to_live(TableName=self.table,
                                        TimeToLiveSpecification={"AttributeName": "expires", "Enabled": False})
        self.expectError("ValidationException", "TimeToLive is already disabled", self.client.update_time_to_live,
                         TableName=self.table, TimeToLiveSpecification={"AttributeName": "expires", "Enabled": False})
        self.expectError("ResourceNotFoundException", "Requested resource not found", self.client.describe_time_to_live,
                         TableName=unique_name("missing"))

    def test_expiry(self):
        # ../shared/cases "ttl-expiry-hash-range-table", without its stream:
        # an item whose TTL (epoch seconds) is past is deleted by the
        # background process and is readable until then; a future TTL, a
        # non-Number TTL and a value over five years old are never deleted.
        self.client.update_time_to_live(TableName=self.table,
                                        TimeToLiveSpecification={"AttributeName": "expires", "Enabled": True})
        now = int(time.time())
        items = {
            "expired": {"N": str(now - 60)},
            "future": {"N": "4102444800"},
            "not-a-number": {"S": str(now - 60)},
            "ancient": {"N": str(now - 6 * 366 * 86400)},
        }
        for sk, v in items.items():
            self.client.put_item(TableName=self.table, Item={"pk": {"S": "p"}, "sk": {"S": sk}, "expires": v})
        get = lambda sk: self.client.get_item(TableName=self.table, Key={"pk": {"S": "p"}, "sk": {"S": sk}},
                                              ConsistentRead=True)
        deadline = time.monotonic() + 30
        while "Item" in get("expired"):
            if time.monotonic() > deadline:
                self.fail("the expired item was not deleted within 30 s")
            time.sleep(0.25)
        for sk in ("future", "not-a-number", "ancient"):
            self.assertIn("Item", get(sk), sk)


if __name__ == "__main__":
    unittest.main()
