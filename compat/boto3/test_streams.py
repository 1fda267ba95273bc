"""DynamoDB Streams through boto3's "dynamodb" and "dynamodbstreams" clients:
StreamSpecification on CreateTable/UpdateTable, the records of each kind of
write, and a TTL deletion's REMOVE record by the service (../shared/cases
"ttl-expiry-hash-range-table", stream part). Sources: developer guide
"Change data capture for DynamoDB Streams", API_streams_*; messages in
docs/research-streams.md."""

import time
import unittest

from compat_support import DynamoTestCase, streams_client, unique_name


def read_stream(sc, arn):
    """Every record of a stream, shards read parents first, each from
    TRIM_HORIZON until a closed shard ends or an open one has nothing."""
    shards, start = [], None
    while True:
        kw = {"StreamArn": arn, "Limit": 2}
        if start:
            kw["ExclusiveStartShardId"] = start
        d = sc.describe_stream(**kw)["StreamDescription"]
        shards += d["Shards"]
        start = d.get("LastEvaluatedShardId")
        if not start:
            break
    listed = {s["ShardId"] for s in shards}
    done, records = set(), []
    while len(done) < len(shards):
        progress = False
        for s in shards:
            parent = s.get("ParentShardId")
            if s["ShardId"] in done or (parent in listed and parent not in done):
                continue
            it = sc.get_shard_iterator(StreamArn=arn, ShardId=s["ShardId"],
                                       ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
            while it:
                out = sc.get_records(ShardIterator=it, Limit=100)
                records += out["Records"]
                it = out.get("NextShardIterator")
                if not out["Records"] and "EndingSequenceNumber" not in s["SequenceNumberRange"]:
                    break
            done.add(s["ShardId"])
            progress = True
        assert progress, "shard lineage has a cycle"
    return records


class StreamsTest(DynamoTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.streams = streams_client()

    def test_specification(self):
        name = self.make_test_table("streamspec", hash_key=("pk", "S"), range_key=None)
        d = self.client.describe_table(TableName=name)["Table"]
        self.assertNotIn("StreamSpecification", d)
        self.assertNotIn("LatestStreamArn", d)
        self.expectError("ValidationException", "Table has no stream to disable: TableName: " + name,
                         self.client.update_table, TableName=name, StreamSpecification={"StreamEnabled": False})
        self.expectError("ValidationException", "If stream is being enabled then UpdateViewType is required",
                         self.client.update_table, TableName=name, StreamSpecification={"StreamEnabled": True})
        d = self.client.update_table(TableName=name, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})["TableDescription"]
        self.assertEqual(d["StreamSpecification"], {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
        first = d["LatestStreamArn"]
        self.assertRegex(first, r"^arn:aws:dynamodb:us-east-1:\d{12}:table/%s/stream/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$" % name)
        self.assertEqual(first.rsplit("/", 1)[1], d["LatestStreamLabel"])
        self.expectError("ValidationException", "Table already has an enabled stream: TableName: " + name,
                         self.client.update_table, TableName=name,
                         StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        self.client.update_table(TableName=name, StreamSpecification={"StreamEnabled": False})
        d = self.client.describe_table(TableName=name)["Table"]
        self.assertNotIn("StreamSpecification", d)
        self.assertEqual(d["LatestStreamArn"], first)
        time.sleep(0.002)
        self.client.update_table(TableName=name, StreamSpecification={
            "StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        second = self.client.describe_table(TableName=name)["Table"]["LatestStreamArn"]
        self.assertNotEqual(first, second)
        listed = self.streams.list_streams(TableName=name)["Streams"]
        self.assertEqual([s["StreamArn"] for s in listed], [first, second])
        self.assertEqual(self.streams.describe_stream(StreamArn=first)["StreamDescription"]["StreamStatus"], "DISABLED")
        self.assertEqual(self.streams.describe_stream(StreamArn=second)["StreamDescription"]["StreamStatus"], "ENABLED")

    def test_records_and_ttl(self):
        name = self.make_test_table("streamttl", hash_key=("pk", "S"), range_key=("sk", "S"),
                                    StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        self.client.update_time_to_live(TableName=name,
                                        TimeToLiveSpecification={"AttributeName": "expires", "Enabled": True})
        now = int(time.time())
        put = lambda sk, **attrs: self.client.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": sk}, **attrs})
        put("expired", expires={"N": str(now - 60)})
        put("future", expires={"N": "4102444800"})
        put("future", expires={"N": "4102444800"})  # unchanged: no record
        put("not-a-number", expires={"S": "1"})
        self.client.update_item(TableName=name, Key={"pk": {"S": "p"}, "sk": {"S": "future"}},
                                UpdateExpression="SET n = :one", ExpressionAttributeValues={":one": {"N": "1"}})
        self.client.delete_item(TableName=name, Key={"pk": {"S": "p"}, "sk": {"S": "not-a-number"}})
        self.client.delete_item(TableName=name, Key={"pk": {"S": "p"}, "sk": {"S": "ghost"}})  # absent: no record
        deadline = time.monotonic() + 30
        while "Item" in self.client.get_item(TableName=name, Key={"pk": {"S": "p"}, "sk": {"S": "expired"}},
                                             ConsistentRead=True):
            if time.monotonic() > deadline:
                self.fail("the expired item was not deleted within 30 s")
            time.sleep(0.2)
        arn = self.client.describe_table(TableName=name)["Table"]["LatestStreamArn"]
        got = [(r["eventName"], r["dynamodb"]["Keys"]["sk"]["S"], r.get("userIdentity"))
               for r in read_stream(self.streams, arn)]
        # Shards order records per item; compare per item.
        by_item = {}
        for ev, sk, who in got:
            by_item.setdefault(sk, []).append((ev, who))
        service = {"Type": "Service", "PrincipalId": "dynamodb.amazonaws.com"}
        self.assertEqual(by_item, {
            "expired": [("INSERT", None), ("REMOVE", service)],
            "future": [("INSERT", None), ("MODIFY", None)],
            "not-a-number": [("INSERT", None), ("REMOVE", None)],
        })
        for r in read_stream(self.streams, arn):
            d = r["dynamodb"]
            self.assertEqual((r["eventSource"], r["eventVersion"], r["awsRegion"]), ("aws:dynamodb", "1.1", "us-east-1"))
            self.assertEqual(d["StreamViewType"], "NEW_AND_OLD_IMAGES")
            self.assertEqual("NewImage" in d, r["eventName"] != "REMOVE")
            self.assertEqual("OldImage" in d, r["eventName"] != "INSERT")

    def test_errors(self):
        arn = "arn:aws:dynamodb:us-east-1:000000000000:table/%s/stream/2026-01-01T00:00:00.000" % unique_name("none")
        self.expectError("ResourceNotFoundException", "Requested resource not found: Stream: %s not found" % arn,
                         self.streams.describe_stream, StreamArn=arn)
        self.expectError("ValidationException", "Invalid StreamArn",
                         self.streams.describe_stream, StreamArn="this-is-not-an-arn-but-it-is-long-enough")
        self.expectError("ValidationException", "Invalid ShardIterator",
                         self.streams.get_records, ShardIterator="nonsense")


if __name__ == "__main__":
    unittest.main()
