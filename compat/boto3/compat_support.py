"""Shared helpers for the boto3 compatibility suite.

Everything here talks only to $DYNAGO_ENDPOINT (a loopback address) with
dummy credentials; no real AWS account is ever involved.
"""

import ipaddress
import os
import time
import unittest
import uuid
from urllib.parse import urlparse

# Never pick up a developer's real AWS profile / credentials.
for _var in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
    os.environ.pop(_var, None)
os.environ["AWS_ACCESS_KEY_ID"] = "dummy"
os.environ["AWS_SECRET_ACCESS_KEY"] = "dummy"
os.environ["AWS_DEFAULT_REGION"] = "us-east-1"
os.environ["AWS_REGION"] = "us-east-1"
os.environ["AWS_CONFIG_FILE"] = os.devnull
os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"

import boto3  # noqa: E402  (after the environment is pinned)
from botocore.config import Config  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

REGION = "us-east-1"


def endpoint():
    ep = os.environ.get("DYNAGO_ENDPOINT")
    if not ep:
        # Fail loudly rather than skip: a run that tests nothing must not look green.
        raise RuntimeError("DYNAGO_ENDPOINT is not set (e.g. http://127.0.0.1:8000)")
    host = urlparse(ep).hostname or ""
    ok = host == "localhost"
    try:
        ok = ok or ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    if not ok and os.environ.get("DYNAGO_ALLOW_NON_LOOPBACK") != "1":
        raise RuntimeError(
            "DYNAGO_ENDPOINT=%r is not a loopback address; refusing to send traffic there "
            "(set DYNAGO_ALLOW_NON_LOOPBACK=1 to override)" % ep)
    return ep


_CONFIG = Config(
    region_name=REGION,
    # No retries: a 5xx or throttle from the server under test must surface.
    retries={"total_max_attempts": 1, "mode": "standard"},
    connect_timeout=5,
    read_timeout=30,
)


def _session():
    return boto3.session.Session(
        aws_access_key_id="dummy", aws_secret_access_key="dummy", region_name=REGION)


def client():
    return _session().client("dynamodb", endpoint_url=endpoint(), config=_CONFIG)


def streams_client():
    """A DynamoDB Streams client: dynago serves it on the same endpoint."""
    return _session().client("dynamodbstreams", endpoint_url=endpoint(), config=_CONFIG)


def resource():
    return _session().resource("dynamodb", endpoint_url=endpoint(), config=_CONFIG)


def unique_name(purpose):
    """compat-py-<purpose>-<random>: unique per run so suites can run in parallel."""
    return "compat-py-%s-%s" % (purpose, uuid.uuid4().hex[:12])


def wait_active(c, name, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        desc = c.describe_table(TableName=name)["Table"]
        if desc["TableStatus"] == "ACTIVE":
            return desc
        if time.monotonic() > deadline:
            raise AssertionError("table %s not ACTIVE after %ss (status %s)"
                                 % (name, timeout, desc["TableStatus"]))
        time.sleep(0.1)


def wait_gone(c, name, timeout=30.0):
    deadline = time.monotonic() + timeout
    while True:
        try:
            c.describe_table(TableName=name)
        except ClientError as e:
            if e.response["Error"]["Code"] == "ResourceNotFoundException":
                return
            raise
        if time.monotonic() > deadline:
            raise AssertionError("table %s still exists %ss after DeleteTable" % (name, timeout))
        time.sleep(0.1)


def create_table(c, name, hash_key=("PK", "S"), range_key=("SK", "S"), wait=True, **extra):
    attrs = [{"AttributeName": hash_key[0], "AttributeType": hash_key[1]}]
    schema = [{"AttributeName": hash_key[0], "KeyType": "HASH"}]
    if range_key:
        attrs.append({"AttributeName": range_key[0], "AttributeType": range_key[1]})
        schema.append({"AttributeName": range_key[0], "KeyType": "RANGE"})
    params = dict(TableName=name, AttributeDefinitions=attrs, KeySchema=schema)
    if "ProvisionedThroughput" not in extra:
        params["BillingMode"] = "PAY_PER_REQUEST"
    params.update(extra)
    resp = c.create_table(**params)
    if wait:
        wait_active(c, name)
    return resp


def delete_table_quietly(c, name, timeout=30.0):
    """Delete a table if it exists. A table still CREATING cannot be deleted yet
    (ResourceInUseException), so retry until it can."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            c.delete_table(TableName=name)
            return
        except ClientError as e:
            code = e.response["Error"]["Code"]
            if code == "ResourceNotFoundException":
                return
            if code != "ResourceInUseException" or time.monotonic() > deadline:
                raise
        time.sleep(0.2)


class DynamoTestCase(unittest.TestCase):
    """Base class: a low-level client, and helpers to create self-deleting tables."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.client = client()

    @classmethod
    def make_table(cls, purpose, **kw):
        """Create a table for the whole class; deleted in class cleanup."""
        name = unique_name(purpose)
        create_table(cls.client, name, **kw)
        cls.addClassCleanup(delete_table_quietly, cls.client, name)
        return name

    def make_test_table(self, purpose, **kw):
        """Create a table for one test; deleted in test cleanup."""
        name = unique_name(purpose)
        create_table(self.client, name, **kw)
        self.addCleanup(delete_table_quietly, self.client, name)
        return name

    def assertClientError(self, exc, code, message=None, status=400):
        """Assert a botocore ClientError has the DynamoDB error code, HTTP status
        and (optionally) contains the given message text."""
        err = exc.response["Error"]
        self.assertEqual(err.get("Code"), code, "wrong error code, full error: %r" % (err,))
        self.assertEqual(exc.response["ResponseMetadata"]["HTTPStatusCode"], status)
        if message is not None:
            self.assertIn(message, err.get("Message", ""), "error message mismatch: %r" % (err,))

    def expectError(self, code, message, fn, *args, **kwargs):
        with self.assertRaises(ClientError) as cm:
            fn(*args, **kwargs)
        self.assertClientError(cm.exception, code, message)
        return cm.exception


# Seed-document single-table data (see /work/shared/seeds/000_*.txt):
#   USER#<id> / PROFILE, USER#<id> / POST#<timestamp>#<postId>, USER#<id> / LIKE#POST#<postId>
def seed_user_items(user_id):
    """Low-level AttributeValue items for one user partition:
    1 profile, 5 posts (2024-01-01..05), 2 likes -> 8 items.
    Sort-key order: LIKE#POST#p1, LIKE#POST#p2, POST#...01, ..., POST#...05, PROFILE."""
    pk = "USER#%s" % user_id
    items = [{
        "PK": {"S": pk}, "SK": {"S": "PROFILE"}, "EntityType": {"S": "User"},
        "GSI1PK": {"S": "USER#%s@example.com" % user_id},
        "GSI1SK": {"S": "USER#%s@example.com" % user_id},
        "Email": {"S": "%s@example.com" % user_id}, "Name": {"S": "John Doe"},
        "CreatedAt": {"S": "2024-01-01T00:00:00Z"}, "UpdatedAt": {"S": "2024-01-01T00:00:00Z"},
    }]
    for i in range(1, 6):
        ts = "2024-01-0%dT00:00:00Z" % i
        items.append({
            "PK": {"S": pk}, "SK": {"S": "POST#%s#p%d" % (ts, i)}, "EntityType": {"S": "Post"},
            "GSI1PK": {"S": "POST#p%d" % i}, "GSI1SK": {"S": "POST#p%d" % i},
            "GSI2PK": {"S": "ALL_POSTS"}, "GSI2SK": {"S": "POST#%s" % ts},
            "PostId": {"S": "p%d" % i}, "Title": {"S": "Post title %d" % i},
            "Content": {"S": "Post content %d" % i}, "CreatedAt": {"S": ts},
            "LikeCount": {"N": str(i * 10)},
        })
    for i in (1, 2):
        items.append({
            "PK": {"S": pk}, "SK": {"S": "LIKE#POST#p%d" % i}, "EntityType": {"S": "Like"},
            "GSI1PK": {"S": "POST#p%d" % i}, "GSI1SK": {"S": "LIKE#USER#%s" % user_id},
            "PostId": {"S": "p%d" % i}, "UserId": {"S": user_id},
            "CreatedAt": {"S": "2024-02-0%dT00:00:00Z" % i},
        })
    return items


def batch_put(c, table, items):
    """BatchWriteItem in chunks of 25, asserting nothing is left unprocessed."""
    for i in range(0, len(items), 25):
        resp = c.batch_write_item(RequestItems={
            table: [{"PutRequest": {"Item": it}} for it in items[i:i + 25]]})
        left = resp.get("UnprocessedItems") or {}
        if left:
            raise AssertionError("BatchWriteItem left unprocessed items: %r" % (left,))
