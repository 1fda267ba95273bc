"""boto3 against "dynago serve --credentials FILE --tls-cert C --tls-key K".

compat/auth/run.sh starts the server and runs this with DYNAGO_ENDPOINT
(https on loopback), DYNAGO_AUTH_CA (its self-signed certificate) and
DYNAGO_AUTH_CREDENTIALS (the shared-credentials file the server reads, with
the profiles default and ci).

Messages, from internal/auth/SOURCES.md (table "Messages"):
  row 11: UnrecognizedClientException "The security token included in the
    request is invalid." for an unknown access key (dynalite index.js;
    DynamoDB Scan quoted in yegor256/s3auth#237 (2014) and
    edasque/DynamoDBtoCSV#36 (2018)).
  row 12: InvalidSignatureException "The request signature we calculated does
    not match the signature you provided. ..." for a wrong secret, followed by
    the canonical string and string to sign (DynamoDB quoted in boto/boto#1552,
    amazon-archives/dynamodb-janusgraph-storage-backend#14,
    awslabs/dynamodb-cross-region-library#34, vibe-aws/vibe-aws#1).
  row 13: UnrecognizedClientException "The security token included in the
    request is invalid" (no final period) for a session token sent with a key
    that has none (dynalite index.js; DynamoDB Scan quoted in
    baopham/laravel-dynamodb#228 (2020)).
"""

import configparser
import os
import sys
import unittest
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "boto3"))

import compat_support as cs  # noqa: E402  (pins a dummy AWS environment first)
import boto3  # noqa: E402
from botocore.config import Config  # noqa: E402
from botocore.exceptions import ClientError, SSLError  # noqa: E402
from urllib3.exceptions import InsecureRequestWarning  # noqa: E402

os.environ.pop("AWS_CA_BUNDLE", None)  # only where a test sets it

UNKNOWN_KEY = "The security token included in the request is invalid."  # row 11
BAD_TOKEN = "The security token included in the request is invalid"  # row 13
MISMATCH = ("The request signature we calculated does not match the signature you provided. "
            "Check your AWS Secret Access Key and signing method. "
            "Consult the service documentation for details.")  # row 12

CONFIG = Config(region_name="eu-west-1", retries={"total_max_attempts": 1, "mode": "standard"},
                connect_timeout=5, read_timeout=30)


def _env(name):
    value = os.environ.get(name)
    if not value:
        raise RuntimeError("%s is not set: run compat/auth/run.sh" % name)
    return value


def profiles():
    """{profile: (key id, secret)} of the server's credentials file."""
    parser = configparser.RawConfigParser()
    parser.read(_env("DYNAGO_AUTH_CREDENTIALS"))
    return {p: (parser[p]["aws_access_key_id"], parser[p]["aws_secret_access_key"])
            for p in parser.sections()}


def make(service, key_id, secret, token=None, verify=True):
    """A client with static keys; verify=True trusts DYNAGO_AUTH_CA."""
    session = boto3.session.Session(aws_access_key_id=key_id, aws_secret_access_key=secret,
                                    aws_session_token=token, region_name="eu-west-1")
    return session.client(service, endpoint_url=cs.endpoint(), config=CONFIG,
                          verify=_env("DYNAGO_AUTH_CA") if verify is True else verify)


class AuthTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.keys = profiles()
        assert set(cls.keys) == {"default", "ci"}, cls.keys
        cls.db = make("dynamodb", *cls.keys["default"])
        cls.table = cs.unique_name("auth")
        cs.create_table(cls.db, cls.table, range_key=None,
                        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_IMAGE"})
        cls.addClassCleanup(cs.delete_table_quietly, cls.db, cls.table)

    def assertRefused(self, call, code, message, exact=True):
        with self.assertRaises(ClientError) as cm:
            call()
        err = cm.exception.response["Error"]
        self.assertEqual(err.get("Code"), code, err)
        self.assertEqual(cm.exception.response["ResponseMetadata"]["HTTPStatusCode"], 400)
        if exact:
            self.assertEqual(err.get("Message"), message)
        else:
            self.assertTrue(err.get("Message", "").startswith(message), err)
        return err

    def test_both_profiles_keys_work(self):
        for profile, (key_id, secret) in sorted(self.keys.items()):
            with self.subTest(profile=profile):
                db = make("dynamodb", key_id, secret)
                db.put_item(TableName=self.table, Item={"PK": {"S": profile}, "v": {"S": "x" * 50_000}})
                got = db.get_item(TableName=self.table, Key={"PK": {"S": profile}}, ConsistentRead=True)
                self.assertEqual(got["Item"]["v"]["S"], "x" * 50_000)
                self.assertIn(self.table, db.list_tables()["TableNames"])
                # DynamoDB Streams clients sign with the service name dynamodb.
                streams = make("dynamodbstreams", key_id, secret)
                arns = [s["StreamArn"] for s in streams.list_streams(TableName=self.table)["Streams"]]
                self.assertEqual(len(arns), 1, arns)
                desc = streams.describe_stream(StreamArn=arns[0])["StreamDescription"]
                self.assertEqual(desc["TableName"], self.table)

    def test_unknown_access_key(self):
        # row 11
        secret = self.keys["ci"][1]
        self.assertRefused(lambda: make("dynamodb", "AKIDDYNAGOUNKNOWN", secret).get_item(
            TableName=self.table, Key={"PK": {"S": "ci"}}), "UnrecognizedClientException", UNKNOWN_KEY)
        self.assertRefused(lambda: make("dynamodbstreams", "AKIDDYNAGOUNKNOWN", secret).list_streams(),
                           "UnrecognizedClientException", UNKNOWN_KEY)

    def test_wrong_secret(self):
        # row 12: the first sentences, then the server's canonical request.
        key_id = self.keys["ci"][0]
        err = self.assertRefused(lambda: make("dynamodb", key_id, "not-the-secret").put_item(
            TableName=self.table, Item={"PK": {"S": "never"}}), "InvalidSignatureException", MISMATCH, exact=False)
        self.assertIn("\n\nThe Canonical String for this request should have been\n'POST\n/\n", err["Message"])
        self.assertIn("x-amz-target:DynamoDB_20120810.PutItem\n", err["Message"])
        self.assertRefused(lambda: make("dynamodbstreams", key_id, "not-the-secret").list_streams(),
                           "InvalidSignatureException", MISMATCH, exact=False)
        got = make("dynamodb", *self.keys["ci"]).get_item(TableName=self.table, Key={"PK": {"S": "never"}})
        self.assertNotIn("Item", got, "a refused PutItem wrote its item")

    def test_session_token_for_a_key_without_one(self):
        # row 13: no final period.
        key_id, secret = self.keys["ci"]
        self.assertRefused(lambda: make("dynamodb", key_id, secret, token="not-a-token").list_tables(),
                           "UnrecognizedClientException", BAD_TOKEN)

    def test_profile_by_name_from_the_servers_file(self):
        # The file the server reads is an ordinary shared-credentials file:
        # boto3 finds a profile in it by name, and AWS_CA_BUNDLE trusts the
        # certificate as verify= does.
        saved = {k: os.environ.get(k) for k in ("AWS_SHARED_CREDENTIALS_FILE", "AWS_CA_BUNDLE",
                                                "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}

        def restore():
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        self.addCleanup(restore)
        os.environ.pop("AWS_ACCESS_KEY_ID")
        os.environ.pop("AWS_SECRET_ACCESS_KEY")
        os.environ["AWS_SHARED_CREDENTIALS_FILE"] = _env("DYNAGO_AUTH_CREDENTIALS")
        os.environ["AWS_CA_BUNDLE"] = _env("DYNAGO_AUTH_CA")
        for profile in ("ci", "default"):
            with self.subTest(profile=profile):
                session = boto3.session.Session(profile_name=profile, region_name="us-east-1")
                self.assertEqual(session.get_credentials().access_key, self.keys[profile][0])
                db = session.client("dynamodb", endpoint_url=cs.endpoint(), config=CONFIG)
                self.assertIn(self.table, db.list_tables()["TableNames"])
                db.put_item(TableName=self.table, Item={"PK": {"S": "by-name-" + profile}})
                got = db.get_item(TableName=self.table, Key={"PK": {"S": "by-name-" + profile}})
                self.assertEqual(got["Item"], {"PK": {"S": "by-name-" + profile}})

    def test_certificate_is_verified(self):
        # Without the CA the self-signed certificate is refused; verify=False
        # (no verification) reaches the server, which still checks the key.
        with self.assertRaises(SSLError):
            make("dynamodb", *self.keys["ci"], verify=None).list_tables()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", InsecureRequestWarning)
            self.assertRefused(lambda: make("dynamodb", "AKIDDYNAGOUNKNOWN", "x", verify=False).list_tables(),
                               "UnrecognizedClientException", UNKNOWN_KEY)


if __name__ == "__main__":
    unittest.main()
