"""Control-plane operations tools call after CreateTable, through boto3:
DescribeLimits, DescribeEndpoints, Describe/UpdateContinuousBackups,
DescribeKinesisStreamingDestination, DescribeTableReplicaAutoScaling
(docs/research-control-plane.md, live DynamoDB answers)."""

import datetime
import unittest
from urllib.parse import urlparse

from compat_support import DynamoTestCase, endpoint


class ControlPlaneTest(DynamoTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table("ctl")

    def test_limits_and_endpoints(self):
        c = self.client
        limits = c.describe_limits()
        self.assertEqual((limits["AccountMaxReadCapacityUnits"], limits["AccountMaxWriteCapacityUnits"],
                          limits["TableMaxReadCapacityUnits"], limits["TableMaxWriteCapacityUnits"]),
                         (80000, 80000, 40000, 40000))
        self.assertEqual(c.describe_endpoints()["Endpoints"],
                         [{"Address": urlparse(endpoint()).netloc, "CachePeriodInMinutes": 1440}])

    def test_continuous_backups(self):
        c = self.client
        d = c.describe_continuous_backups(TableName=self.table)["ContinuousBackupsDescription"]
        self.assertEqual(d, {"ContinuousBackupsStatus": "ENABLED",
                             "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"}})
        d = c.update_continuous_backups(TableName=self.table, PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True, "RecoveryPeriodInDays": 7})["ContinuousBackupsDescription"]
        p = d["PointInTimeRecoveryDescription"]
        self.assertEqual((p["PointInTimeRecoveryStatus"], p["RecoveryPeriodInDays"]), ("ENABLED", 7))
        self.assertIsInstance(p["EarliestRestorableDateTime"], datetime.datetime)
        self.assertEqual(c.describe_continuous_backups(TableName=self.table)["ContinuousBackupsDescription"], d)
        self.expectError("TableNotFoundException", "Table not found: compat-py-nope",
                         c.describe_continuous_backups, TableName="compat-py-nope")

    def test_features_off(self):
        c = self.client
        out = c.describe_kinesis_streaming_destination(TableName=self.table)
        self.assertEqual((out["TableName"], out["KinesisDataStreamDestinations"]), (self.table, []))
        self.expectError("ResourceNotFoundException", "Global table with name: '%s' does not exist." % self.table,
                         c.describe_table_replica_auto_scaling, TableName=self.table)


if __name__ == "__main__":
    unittest.main()
