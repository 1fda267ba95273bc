"""TransactWriteItems and TransactGetItems through the low-level boto3 client.

Expected answers are real DynamoDB's: the API reference for TransactWriteItems,
TransactGetItems and TransactionCanceledException, the developer guide's
"Amazon DynamoDB Transactions" page (capacity: two reads/writes per item), and
docs/research-transactions.md (which cites captures from real DynamoDB).

Request validation is checked with a client whose client-side parameter
validation is off, so the request reaches the server exactly as written
(botocore itself refuses an empty TransactItems list or a ConditionCheck
without ConditionExpression before sending anything).
"""

import random
import threading
import time
import uuid

from botocore.config import Config
from botocore.exceptions import ClientError

import boto3

from compat_support import REGION, DynamoTestCase, endpoint, unique_name

CCF_MSG = "The conditional request failed"
CANCEL_PREFIX = "Transaction cancelled, please refer cancellation reasons for specific reasons ["


def S(v):
    return {"S": v}


def N(v):
    return {"N": str(v)}


def BOOL(v):
    return {"BOOL": v}


def raw_client():
    """A client that sends whatever it is given (no client-side validation)."""
    cfg = Config(region_name=REGION, retries={"total_max_attempts": 1, "mode": "standard"},
                 connect_timeout=5, read_timeout=30, parameter_validation=False)
    return boto3.session.Session(
        aws_access_key_id="dummy", aws_secret_access_key="dummy", region_name=REGION,
    ).client("dynamodb", endpoint_url=endpoint(), config=cfg)


def reason_codes(exc):
    return [r.get("Code") for r in exc.response.get("CancellationReasons", [])]


class TransactTestBase(DynamoTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table("tx")
        cls.raw = raw_client()
        cls.run_id = uuid.uuid4().hex[:8]

    def k(self, pk, sk="ITEM"):
        return {"PK": S("%s#%s" % (self.run_id, pk)), "SK": S(sk)}

    def put(self, pk, sk="ITEM", **attrs):
        item = dict(self.k(pk, sk), **attrs)
        self.client.put_item(TableName=self.table, Item=item)
        return item

    def get(self, pk, sk="ITEM"):
        return self.client.get_item(TableName=self.table, Key=self.k(pk, sk),
                                    ConsistentRead=True).get("Item")

    def cancelled(self, fn=None, **kw):
        """Run transact_write_items(**kw); it must be cancelled. Returns the error."""
        fn = fn or self.client.transact_write_items
        with self.assertRaises(ClientError) as cm:
            fn(**kw)
        e = cm.exception
        self.assertClientError(e, "TransactionCanceledException")
        return e


class TransactValidationTest(TransactTestBase):
    """Whole-request ValidationExceptions (research §3)."""

    def put_action(self, pk, sk="ITEM"):
        return {"Put": {"TableName": self.table, "Item": dict(self.k(pk, sk), v=N(1))}}

    def test_empty_transact_items(self):
        # "Member must have length greater than or equal to 1" on TransactItems; the
        # older cohort names the member 'transactItems', the newer 'TransactItems'.
        e = self.expectError("ValidationException", "Member must have length greater than or equal to 1",
                             self.raw.transact_write_items, TransactItems=[])
        self.assertRegex(e.response["Error"]["Message"], "[tT]ransactItems")
        e = self.expectError("ValidationException", "Member must have length greater than or equal to 1",
                             self.raw.transact_get_items, TransactItems=[])
        self.assertRegex(e.response["Error"]["Message"], "[tT]ransactItems")

    def test_more_than_100_items(self):
        items = [self.put_action("many%d" % i) for i in range(101)]
        e = self.expectError("ValidationException", "Member must have length less than or equal to 100",
                             self.raw.transact_write_items, TransactItems=items)
        self.assertRegex(e.response["Error"]["Message"], "[tT]ransactItems")
        self.assertIsNone(self.get("many0"), "a rejected request must write nothing")
        gets = [{"Get": {"TableName": self.table, "Key": self.k("many%d" % i)}} for i in range(101)]
        e = self.expectError("ValidationException", "Member must have length less than or equal to 100",
                             self.raw.transact_get_items, TransactItems=gets)
        self.assertRegex(e.response["Error"]["Message"], "[tT]ransactItems")

    def test_exactly_100_items_is_allowed(self):
        items = [self.put_action("hundred%d" % i) for i in range(100)]
        self.client.transact_write_items(TransactItems=items)
        gets = [{"Get": {"TableName": self.table, "Key": self.k("hundred%d" % i)}} for i in range(100)]
        resp = self.client.transact_get_items(TransactItems=gets)
        self.assertEqual(len(resp["Responses"]), 100)
        self.assertTrue(all(r["Item"]["v"] == N(1) for r in resp["Responses"]))

    def test_two_actions_on_one_item(self):
        msg = "Transaction request cannot include multiple operations on one item"
        self.expectError("ValidationException", msg, self.client.transact_write_items, TransactItems=[
            self.put_action("dup"), self.put_action("dup")])
        # ConditionCheck + Put on the same item, with the key attributes in another order.
        self.expectError("ValidationException", msg, self.client.transact_write_items, TransactItems=[
            {"ConditionCheck": {"TableName": self.table, "Key": {"SK": S("ITEM"), "PK": self.k("dup")["PK"]},
                                "ConditionExpression": "attribute_not_exists(PK)"}},
            self.put_action("dup")])
        self.expectError("ValidationException", msg, self.client.transact_write_items, TransactItems=[
            {"Update": {"TableName": self.table, "Key": self.k("dup"), "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": N(2)}}},
            {"Delete": {"TableName": self.table, "Key": self.k("dup")}}])
        self.assertIsNone(self.get("dup"))
        # TransactGetItems with the same key twice is a ValidationException too.
        with self.assertRaises(ClientError) as cm:
            self.client.transact_get_items(TransactItems=[
                {"Get": {"TableName": self.table, "Key": self.k("dup")}},
                {"Get": {"TableName": self.table, "Key": self.k("dup")}}])
        self.assertClientError(cm.exception, "ValidationException")

    def test_condition_check_without_condition_expression(self):
        e = self.expectError("ValidationException", None, self.raw.transact_write_items, TransactItems=[
            {"ConditionCheck": {"TableName": self.table, "Key": self.k("cc")}},
            self.put_action("cc2")])
        self.assertRegex(e.response["Error"]["Message"], "[cC]onditionExpression")
        self.assertIsNone(self.get("cc2"))

    def test_entry_with_two_actions(self):
        # One TransactWriteItem may hold only one of ConditionCheck, Put, Update, Delete.
        self.expectError("ValidationException", None, self.raw.transact_write_items, TransactItems=[
            {"Put": {"TableName": self.table, "Item": dict(self.k("two1"), v=N(1))},
             "Delete": {"TableName": self.table, "Key": self.k("two2")}}])
        self.assertIsNone(self.get("two1"))
        # ... and at least one of them.
        self.expectError("ValidationException", None, self.raw.transact_write_items, TransactItems=[
            {}, self.put_action("two3")])
        self.assertIsNone(self.get("two3"))

    def test_client_request_token_longer_than_36(self):
        e = self.expectError("ValidationException", "Member must have length less than or equal to 36",
                             self.client.transact_write_items, ClientRequestToken="x" * 37,
                             TransactItems=[self.put_action("tok")])
        self.assertRegex(e.response["Error"]["Message"], "[cC]lientRequestToken")
        self.assertIsNone(self.get("tok"))
        # 36 characters is fine.
        self.client.transact_write_items(ClientRequestToken=uuid.uuid4().hex[:32] + "abcd",
                                         TransactItems=[self.put_action("tok")])
        self.assertEqual(self.get("tok")["v"], N(1))

    def test_missing_table(self):
        missing = unique_name("missing")
        self.expectError("ResourceNotFoundException", "Requested resource not found",
                         self.client.transact_write_items, TransactItems=[
                             self.put_action("rnf"),
                             {"Put": {"TableName": missing, "Item": self.k("rnf")}}])
        self.assertIsNone(self.get("rnf"), "nothing written when a table is missing")
        self.expectError("ResourceNotFoundException", "Requested resource not found",
                         self.client.transact_get_items, TransactItems=[
                             {"Get": {"TableName": self.table, "Key": self.k("rnf")}},
                             {"Get": {"TableName": missing, "Key": self.k("rnf")}}])


class TransactStaticChecksTest(TransactTestBase):
    """Per-action static checks are whole-request ValidationExceptions, made before
    any table lookup or duplicate check (research §2, captured from DynamoDB)."""

    def test_condition_syntax_error_beats_missing_table(self):
        missing = unique_name("missing")
        self.expectError("ValidationException", "Invalid ConditionExpression: Syntax error",
                         self.client.transact_write_items, TransactItems=[
                             {"Put": {"TableName": missing, "Item": self.k("st1")}},
                             {"Put": {"TableName": self.table, "Item": self.k("st2"),
                                      "ConditionExpression": "attribute_not_exists("}}])
        self.assertIsNone(self.get("st2"))

    def test_unused_value_beats_missing_table_and_duplicates(self):
        missing = unique_name("missing")
        self.expectError("ValidationException",
                         "Value provided in ExpressionAttributeValues unused in expressions: keys: {:v}",
                         self.client.transact_write_items, TransactItems=[
                             {"Put": {"TableName": missing, "Item": self.k("st3")}},
                             {"Put": {"TableName": self.table, "Item": self.k("st3")}},
                             {"Delete": {"TableName": self.table, "Key": self.k("st3"),
                                         "ConditionExpression": "attribute_exists(PK)",
                                         "ExpressionAttributeValues": {":v": N(1)}}}])
        e = self.expectError("ValidationException", "unused", self.client.transact_write_items, TransactItems=[
            {"Put": {"TableName": self.table, "Item": self.k("st4"),
                     "ConditionExpression": "attribute_not_exists(PK)", "ExpressionAttributeNames": {"#xyz": "x"}}}])
        self.assertIn("#xyz", e.response["Error"]["Message"])
        self.assertIsNone(self.get("st3"))
        self.assertIsNone(self.get("st4"))

    def test_missing_name_or_value(self):
        e = self.expectError("ValidationException", None, self.client.transact_write_items, TransactItems=[
            {"Update": {"TableName": self.table, "Key": self.k("st5"), "UpdateExpression": "SET #xyz = :v",
                        "ExpressionAttributeValues": {":v": N(1)}}}])
        self.assertIn("#xyz", e.response["Error"]["Message"])
        e = self.expectError("ValidationException", None, self.client.transact_write_items, TransactItems=[
            {"Update": {"TableName": self.table, "Key": self.k("st5"), "UpdateExpression": "SET a = :xyz"}}])
        self.assertIn(":xyz", e.response["Error"]["Message"])

    def test_empty_expression_attribute_values(self):
        self.expectError("ValidationException", "ExpressionAttributeValues must not be empty",
                         self.client.transact_write_items, TransactItems=[
                             {"Put": {"TableName": self.table, "Item": self.k("st6"),
                                      "ConditionExpression": "attribute_not_exists(PK)",
                                      "ExpressionAttributeValues": {}}}])

    def test_two_set_clauses(self):
        self.expectError("ValidationException",
                         'Invalid UpdateExpression: The "SET" section can only be used once in an update expression;',
                         self.client.transact_write_items, TransactItems=[
                             {"Update": {"TableName": self.table, "Key": self.k("st7"),
                                         "UpdateExpression": "SET a = :v SET b = :v",
                                         "ExpressionAttributeValues": {":v": N(1)}}}])

    def test_empty_string_key(self):
        self.expectError("ValidationException",
                         "One or more parameter values are not valid. The AttributeValue for a key attribute "
                         "cannot contain an empty string value. Key: PK",
                         self.client.transact_write_items, TransactItems=[
                             {"Put": {"TableName": self.table, "Item": {"PK": S(""), "SK": S("x")}}}])
        self.expectError("ValidationException",
                         "One or more parameter values are not valid. The AttributeValue for a key attribute "
                         "cannot contain an empty string value. Key: SK",
                         self.client.transact_write_items, TransactItems=[
                             {"Delete": {"TableName": self.table, "Key": {"PK": S("x"), "SK": S("")}}}])

    def test_item_size_limits(self):
        # Put of an item over 400 KB: whole request. An update that grows an item past
        # 400 KB: a ValidationError reason.
        self.expectError("ValidationException", "Item size has exceeded the maximum allowed size",
                         self.client.transact_write_items, TransactItems=[
                             {"Put": {"TableName": self.table, "Item": dict(self.k("big"), b=S("x" * 410000))}}])
        self.put("grow", b=S("x" * 300000))
        e = self.cancelled(TransactItems=[
            {"Update": {"TableName": self.table, "Key": self.k("grow"), "UpdateExpression": "SET c = :c",
                        "ExpressionAttributeValues": {":c": S("y" * 150000)}}},
            {"Put": {"TableName": self.table, "Item": dict(self.k("grow2"), v=N(1))}}])
        self.assertEqual(e.response["CancellationReasons"], [
            {"Code": "ValidationError", "Message": "Item size to update has exceeded the maximum allowed size"},
            {"Code": "None"}])
        self.assertNotIn("c", self.get("grow"))

    def test_request_payload_over_4mb(self):
        # The 4 MB limit is on the request's size, not on the stored items.
        items = [{"Put": {"TableName": self.table, "Item": dict(self.k("mb%d" % i), b=S("x" * 390000))}}
                 for i in range(13)]
        e = self.expectError("ValidationException", None, self.client.transact_write_items, TransactItems=items)
        self.assertRegex(e.response["Error"]["Message"], "size cannot exceed")
        self.assertIsNone(self.get("mb0"))
        # 3.5 MB of Puts is fine; deleting those items in a small request is fine too.
        self.client.transact_write_items(TransactItems=items[:9])
        self.client.transact_write_items(TransactItems=[
            {"Delete": {"TableName": self.table, "Key": self.k("mb%d" % i)}} for i in range(9)])
        self.assertIsNone(self.get("mb0"))

    def test_member_errors_are_reported_together(self):
        # Member constraints are checked first, before the request is read further.
        # Captured on DynamoDB (research §2, paritysuite validation-ordering): the
        # too-long token comes first, either alone in the newer cohort's generic
        # sentence, or echoed and combined with the enum error.
        token = "x" * 37
        enum = ("Value 'BOGUS' at 'returnConsumedCapacity' failed to satisfy constraint: "
                "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]")
        e = self.expectError("ValidationException", None, self.raw.transact_write_items,
                             ClientRequestToken=token, ReturnConsumedCapacity="BOGUS",
                             TransactItems=[{"Put": {"TableName": self.table, "Item": self.k("st8")}}])
        self.assertIn(e.response["Error"]["Message"], [
            "1 validation error detected: Value at 'ClientRequestToken' failed to satisfy constraint: "
            "Member must have length less than or equal to 36",
            "2 validation errors detected: Value '%s' at 'clientRequestToken' failed to satisfy constraint: "
            "Member must have length less than or equal to 36; %s" % (token, enum)])
        # An enum error is reported ahead of a missing table and of a duplicate target.
        self.expectError("ValidationException", "1 validation error detected: " + enum,
                         self.raw.transact_write_items, ReturnConsumedCapacity="BOGUS", TransactItems=[
                             {"Put": {"TableName": unique_name("missing"), "Item": self.k("st8")}}])
        self.expectError("ValidationException", "1 validation error detected: " + enum,
                         self.raw.transact_get_items, ReturnConsumedCapacity="BOGUS", TransactItems=[
                             {"Get": {"TableName": self.table, "Key": self.k("st8")}},
                             {"Get": {"TableName": self.table, "Key": self.k("st8")}}])

    def test_too_deep_item_versus_syntax_error(self):
        # Per-action static checks run in request order; the first failing action wins.
        deep = S("leaf")
        for _ in range(32):
            deep = {"M": {"n": deep}}
        nest = ("Nesting Levels have exceeded supported limits: Attributes in the item have "
                "nested levels beyond supported limit")
        bad_cc = {"ConditionCheck": {"TableName": self.table, "Key": self.k("st9"),
                                     "ConditionExpression": "attribute_not_exists("}}
        deep_put = {"Put": {"TableName": self.table, "Item": dict(self.k("st10"), data=deep)}}
        e = self.expectError("ValidationException", None, self.client.transact_write_items,
                             TransactItems=[deep_put, bad_cc])
        self.assertEqual(e.response["Error"]["Message"], nest)
        e = self.expectError("ValidationException", None, self.client.transact_write_items,
                             TransactItems=[bad_cc, deep_put])
        self.assertEqual(e.response["Error"]["Message"],
                         'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("')

    def test_token_replay_ignores_key_order(self):
        # DynamoDB compares the request, not its JSON bytes: the same request with its
        # keys in another order is a replay (verified against AWS in localstack#6529,
        # fixed with an AWS-validated test in localstack PR #6596).
        token = str(uuid.uuid4())
        self.put("kord", n=N(0))
        upd = {"TableName": self.table, "Key": self.k("kord"), "UpdateExpression": "SET n = n + :one",
               "ExpressionAttributeValues": {":one": N(1)}}
        self.client.transact_write_items(ClientRequestToken=token, TransactItems=[{"Update": upd}])
        reordered = dict(reversed(list(upd.items())))
        try:
            self.client.transact_write_items(TransactItems=[{"Update": reordered}], ClientRequestToken=token)
        except ClientError as e:
            self.fail("replay with the keys in another order was refused: %r" % (e.response["Error"],))
        self.assertEqual(self.get("kord")["n"], N(1))
        self.expectError("IdempotentParameterMismatchException", None, self.client.transact_write_items,
                         ClientRequestToken=token, TransactItems=[{"Update": dict(upd, ExpressionAttributeValues={":one": N(2)})}])
        self.assertEqual(self.get("kord")["n"], N(1))


class TransactCancellationTest(TransactTestBase):
    """TransactionCanceledException and its CancellationReasons (research §1, §2)."""

    def test_conditional_check_failed_without_item(self):
        self.put("ccf", v=N(1))
        e = self.cancelled(TransactItems=[
            {"Put": {"TableName": self.table, "Item": dict(self.k("ccf-new"), v=N(1))}},
            {"Update": {"TableName": self.table, "Key": self.k("ccf"), "UpdateExpression": "SET v = :n",
                        "ConditionExpression": "v = :old",
                        "ExpressionAttributeValues": {":n": N(5), ":old": N(2)}}}])
        reasons = e.response["CancellationReasons"]
        self.assertEqual(reasons, [{"Code": "None"},
                                   {"Code": "ConditionalCheckFailed", "Message": CCF_MSG}])
        self.assertEqual(e.response["Error"]["Message"], CANCEL_PREFIX + "None, ConditionalCheckFailed]")
        self.assertEqual(self.get("ccf")["v"], N(1))
        self.assertIsNone(self.get("ccf-new"))

    def test_conditional_check_failed_return_values_all_old(self):
        old = self.put("old", v=N(1), tag=S("orig"))
        e = self.cancelled(TransactItems=[
            {"ConditionCheck": {"TableName": self.table, "Key": self.k("old"),
                                "ConditionExpression": "attribute_not_exists(PK)",
                                "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
            {"Put": {"TableName": self.table, "Item": dict(self.k("old2"), v=N(9)),
                     "ConditionExpression": "attribute_exists(PK)",
                     "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
            {"Delete": {"TableName": self.table, "Key": self.k("old3"),
                        "ConditionExpression": "attribute_exists(PK)",
                        "ReturnValuesOnConditionCheckFailure": "NONE"}}])
        reasons = e.response["CancellationReasons"]
        self.assertEqual(reason_codes(e), ["ConditionalCheckFailed"] * 3)
        # ALL_OLD on an existing item: the full old item in the reason.
        self.assertEqual(reasons[0], {"Code": "ConditionalCheckFailed", "Message": CCF_MSG, "Item": old})
        # ALL_OLD when the item does not exist: no Item; NONE: no Item.
        self.assertNotIn("Item", reasons[1])
        self.assertEqual(reasons[2], {"Code": "ConditionalCheckFailed", "Message": CCF_MSG})
        self.assertEqual(e.response["Error"]["Message"],
                         CANCEL_PREFIX + "ConditionalCheckFailed, ConditionalCheckFailed, ConditionalCheckFailed]")

    def test_all_old_on_update_and_delete(self):
        a = self.put("ao-a", v=N(1))
        b = self.put("ao-b", v=N(2), extra=S("x"))
        e = self.cancelled(TransactItems=[
            {"Update": {"TableName": self.table, "Key": self.k("ao-a"), "UpdateExpression": "SET v = v + :one",
                        "ConditionExpression": "v > :ten",
                        "ExpressionAttributeValues": {":one": N(1), ":ten": N(10)},
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
            {"Delete": {"TableName": self.table, "Key": self.k("ao-b"),
                        "ConditionExpression": "extra = :y", "ExpressionAttributeValues": {":y": S("y")},
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}])
        self.assertEqual(e.response["CancellationReasons"], [
            {"Code": "ConditionalCheckFailed", "Message": CCF_MSG, "Item": a},
            {"Code": "ConditionalCheckFailed", "Message": CCF_MSG, "Item": b}])
        self.assertEqual(self.get("ao-a"), a)
        self.assertEqual(self.get("ao-b"), b)

    def test_invalid_return_values_on_condition_check_failure(self):
        # An enum violation is a whole-request ValidationException, not a reason.
        e = self.expectError("ValidationException", None, self.raw.transact_write_items, TransactItems=[
            {"Put": {"TableName": self.table, "Item": self.k("rv"), "ConditionExpression": "attribute_not_exists(PK)",
                     "ReturnValuesOnConditionCheckFailure": "dog"}}])
        self.assertRegex(e.response["Error"]["Message"], "[rR]eturnValuesOnConditionCheckFailure")
        self.assertIsNone(self.get("rv"))

    def test_every_failed_condition_is_reported(self):
        self.put("many-a", v=N(1))
        self.put("many-b", v=N(1))
        e = self.cancelled(TransactItems=[
            {"Put": {"TableName": self.table, "Item": dict(self.k("many-new"), v=N(1))}},
            {"ConditionCheck": {"TableName": self.table, "Key": self.k("many-a"),
                                "ConditionExpression": "v = :one", "ExpressionAttributeValues": {":one": N(1)}}},
            {"ConditionCheck": {"TableName": self.table, "Key": self.k("many-b"),
                                "ConditionExpression": "attribute_not_exists(v)"}},
            {"Delete": {"TableName": self.table, "Key": self.k("many-missing"),
                        "ConditionExpression": "attribute_exists(PK)"}}])
        self.assertEqual(e.response["CancellationReasons"], [
            {"Code": "None"}, {"Code": "None"},
            {"Code": "ConditionalCheckFailed", "Message": CCF_MSG},
            {"Code": "ConditionalCheckFailed", "Message": CCF_MSG}])
        self.assertEqual(e.response["Error"]["Message"],
                         CANCEL_PREFIX + "None, None, ConditionalCheckFailed, ConditionalCheckFailed]")
        self.assertIsNone(self.get("many-new"))

    def test_validation_error_key_of_wrong_type_on_update(self):
        self.put("ve", v=N(1))
        e = self.cancelled(TransactItems=[
            {"Put": {"TableName": self.table, "Item": dict(self.k("ve-new"), v=N(1))}},
            {"Update": {"TableName": self.table, "Key": {"PK": N(1), "SK": S("ITEM")},
                        "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": N(2)}}},
            # Would fail its condition, but after a ValidationError later actions report None.
            {"ConditionCheck": {"TableName": self.table, "Key": self.k("ve"),
                                "ConditionExpression": "attribute_not_exists(PK)"}},
            {"Delete": {"TableName": self.table, "Key": self.k("ve-other"),
                        "ConditionExpression": "attribute_exists(PK)"}}])
        reasons = e.response["CancellationReasons"]
        self.assertEqual(reasons, [
            {"Code": "None"},
            {"Code": "ValidationError", "Message": "The provided key element does not match the schema"},
            {"Code": "None"}, {"Code": "None"}])
        self.assertEqual(e.response["Error"]["Message"], CANCEL_PREFIX + "None, ValidationError, None, None]")
        self.assertIsNone(self.get("ve-new"))
        self.assertEqual(self.get("ve")["v"], N(1))

    def test_validation_error_put_key_type_mismatch(self):
        e = self.cancelled(TransactItems=[
            {"Put": {"TableName": self.table, "Item": {"PK": N(7), "SK": S("ITEM")}}}])
        self.assertEqual(e.response["CancellationReasons"], [
            {"Code": "ValidationError",
             "Message": "One or more parameter values were invalid: Type mismatch for key PK expected: S actual: N"}])

    def test_passing_actions_report_none(self):
        self.put("pass-a", v=N(1))
        e = self.cancelled(TransactItems=[
            {"ConditionCheck": {"TableName": self.table, "Key": self.k("pass-a"),
                                "ConditionExpression": "attribute_exists(PK)"}},
            {"Update": {"TableName": self.table, "Key": self.k("pass-a2"), "UpdateExpression": "SET v = :v",
                        "ExpressionAttributeValues": {":v": N(1)}}},
            {"Put": {"TableName": self.table, "Item": self.k("pass-a3"), "ConditionExpression": "attribute_exists(PK)"}}])
        reasons = e.response["CancellationReasons"]
        # "None" reasons carry no Message key at all.
        self.assertEqual(reasons[0], {"Code": "None"})
        self.assertEqual(reasons[1], {"Code": "None"})
        self.assertEqual(reasons[2], {"Code": "ConditionalCheckFailed", "Message": CCF_MSG})
        self.assertIsNone(self.get("pass-a2"))

    def test_cancelled_transaction_writes_nothing(self):
        self.put("atom-b", bal=N(10))
        self.put("atom-d", bal=N(1))
        self.put("atom-c", locked=BOOL(True))
        before = {p: self.get(p) for p in ("atom-b", "atom-c", "atom-d")}
        e = self.cancelled(TransactItems=[
            {"Put": {"TableName": self.table, "Item": dict(self.k("atom-a"), v=N(1))}},
            {"Update": {"TableName": self.table, "Key": self.k("atom-b"), "UpdateExpression": "SET bal = bal - :x",
                        "ExpressionAttributeValues": {":x": N(5)}}},
            {"Delete": {"TableName": self.table, "Key": self.k("atom-d")}},
            {"ConditionCheck": {"TableName": self.table, "Key": self.k("atom-c"),
                                "ConditionExpression": "locked = :f", "ExpressionAttributeValues": {":f": BOOL(False)}}}])
        self.assertEqual(reason_codes(e), ["None", "None", "None", "ConditionalCheckFailed"])
        self.assertIsNone(self.get("atom-a"))
        for p, item in before.items():
            self.assertEqual(self.get(p), item, p)
        # The same transaction with a passing check applies every action.
        self.client.transact_write_items(TransactItems=[
            {"Put": {"TableName": self.table, "Item": dict(self.k("atom-a"), v=N(1))}},
            {"Update": {"TableName": self.table, "Key": self.k("atom-b"), "UpdateExpression": "SET bal = bal - :x",
                        "ExpressionAttributeValues": {":x": N(5)}}},
            {"Delete": {"TableName": self.table, "Key": self.k("atom-d")}},
            {"ConditionCheck": {"TableName": self.table, "Key": self.k("atom-c"),
                                "ConditionExpression": "locked = :t", "ExpressionAttributeValues": {":t": BOOL(True)}}}])
        self.assertEqual(self.get("atom-a")["v"], N(1))
        self.assertEqual(self.get("atom-b")["bal"], N(5))
        self.assertIsNone(self.get("atom-d"))
        self.assertEqual(self.get("atom-c"), before["atom-c"])

    def test_successful_write_response_shape(self):
        resp = self.client.transact_write_items(TransactItems=[
            {"Put": {"TableName": self.table, "Item": dict(self.k("shape"), v=N(1))}}])
        body = {k: v for k, v in resp.items() if k != "ResponseMetadata"}
        # ConsumedCapacity and ItemCollectionMetrics only when asked for.
        self.assertEqual(body, {})


class TransactCapacityTest(TransactTestBase):
    """ConsumedCapacity: a list with one entry per table; transactional writes cost
    2 WCU per item per 1 KB, transactional reads 2 RCU per item per 4 KB
    (developer guide, "Capacity management for transactions"; research §7)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table2 = cls.make_table("tx2")

    def cap_by_table(self, resp):
        cc = resp["ConsumedCapacity"]
        self.assertIsInstance(cc, list)
        self.assertEqual(len(cc), len({c["TableName"] for c in cc}), "one entry per table: %r" % cc)
        return {c["TableName"]: c["CapacityUnits"] for c in cc}

    def test_write_capacity(self):
        resp = self.client.transact_write_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
            {"Put": {"TableName": self.table, "Item": dict(self.k("cap1"), v=N(1))}},
            {"Put": {"TableName": self.table, "Item": dict(self.k("cap2"), v=N(1))}},
            {"Put": {"TableName": self.table2, "Item": dict(self.k("cap3"), v=N(1))}}])
        self.assertEqual(self.cap_by_table(resp), {self.table: 4.0, self.table2: 2.0})
        # An item between 1 KB and 2 KB is 2 WCU, so 4 in a transaction.
        resp = self.client.transact_write_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
            {"Put": {"TableName": self.table, "Item": dict(self.k("cap4"), blob=S("x" * 1500))}}])
        self.assertEqual(self.cap_by_table(resp), {self.table: 4.0})
        # Without ReturnConsumedCapacity there is none.
        resp = self.client.transact_write_items(TransactItems=[
            {"Put": {"TableName": self.table, "Item": dict(self.k("cap5"), v=N(1))}}])
        self.assertNotIn("ConsumedCapacity", resp)

    def test_read_capacity_counts_missing_items(self):
        self.put("rcap1", v=N(1))
        self.put("rcap2", blob=S("y" * 5000))  # 5 KB: 2 RCU, so 4 in a transaction
        resp = self.client.transact_get_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
            {"Get": {"TableName": self.table, "Key": self.k("rcap1")}},
            {"Get": {"TableName": self.table, "Key": self.k("rcap-missing")}},
            {"Get": {"TableName": self.table2, "Key": self.k("rcap-missing")}}])
        self.assertEqual(self.cap_by_table(resp), {self.table: 4.0, self.table2: 2.0})
        resp = self.client.transact_get_items(ReturnConsumedCapacity="TOTAL", TransactItems=[
            {"Get": {"TableName": self.table, "Key": self.k("rcap2")}}])
        self.assertEqual(self.cap_by_table(resp), {self.table: 4.0})
        resp = self.client.transact_get_items(TransactItems=[
            {"Get": {"TableName": self.table, "Key": self.k("rcap1")}}])
        self.assertNotIn("ConsumedCapacity", resp)


class TransactGetTest(TransactTestBase):
    """TransactGetItems: Responses in request order, {} for a missing item, projections."""

    def test_responses_in_order_with_missing(self):
        a = self.put("g-a", v=N(1), name=S("alpha"))
        c = self.put("g-c", v=N(3), name=S("gamma"))
        resp = self.client.transact_get_items(TransactItems=[
            {"Get": {"TableName": self.table, "Key": self.k("g-c")}},
            {"Get": {"TableName": self.table, "Key": self.k("g-b")}},
            {"Get": {"TableName": self.table, "Key": self.k("g-a")}}])
        self.assertEqual(resp["Responses"], [{"Item": c}, {}, {"Item": a}])

    def test_projection(self):
        self.put("g-p", x=N(1), y=N(2), z={"M": {"deep": S("d"), "other": S("o")}}, **{"Name": S("n")})
        resp = self.client.transact_get_items(TransactItems=[
            {"Get": {"TableName": self.table, "Key": self.k("g-p"), "ProjectionExpression": "x, z.deep, #n",
                     "ExpressionAttributeNames": {"#n": "Name"}}},
            {"Get": {"TableName": self.table, "Key": self.k("g-p-missing"), "ProjectionExpression": "x"}}])
        # Key attributes are not added to a projection.
        self.assertEqual(resp["Responses"], [
            {"Item": {"x": N(1), "z": {"M": {"deep": S("d")}}, "Name": S("n")}}, {}])

    def test_projection_errors_are_whole_request(self):
        self.put("g-e", x=N(1))
        e = self.expectError("ValidationException", "Invalid ProjectionExpression",
                             self.client.transact_get_items, TransactItems=[
                                 {"Get": {"TableName": self.table, "Key": self.k("g-e"), "ProjectionExpression": "x,,"}}])
        self.assertIn("Syntax error", e.response["Error"]["Message"])
        e = self.expectError("ValidationException", "unused", self.client.transact_get_items, TransactItems=[
            {"Get": {"TableName": self.table, "Key": self.k("g-e"), "ProjectionExpression": "x",
                     "ExpressionAttributeNames": {"#qq": "x"}}}])
        self.assertIn("#qq", e.response["Error"]["Message"])

    def test_key_of_wrong_type_is_a_validation_error_reason(self):
        with self.assertRaises(ClientError) as cm:
            self.client.transact_get_items(TransactItems=[
                {"Get": {"TableName": self.table, "Key": self.k("g-a")}},
                {"Get": {"TableName": self.table, "Key": {"PK": N(1), "SK": S("ITEM")}}}])
        e = cm.exception
        self.assertClientError(e, "TransactionCanceledException")
        self.assertEqual(reason_codes(e), ["None", "ValidationError"])
        # A Key without the key attributes is a ValidationError reason too.
        with self.assertRaises(ClientError) as cm:
            self.client.transact_get_items(TransactItems=[{"Get": {"TableName": self.table, "Key": {}}}])
        self.assertClientError(cm.exception, "TransactionCanceledException")
        self.assertEqual(reason_codes(cm.exception), ["ValidationError"])


class TransactConcurrencyTest(TransactTestBase):
    """Serializability under load: conditional transfers never lose or create money,
    and readers using TransactGetItems always see a consistent total."""

    ACCOUNTS = 50
    START = 1000

    def test_bank_transfers_keep_the_total(self):
        tbl = self.make_test_table("bank")
        accts = ["A%02d" % i for i in range(self.ACCOUNTS)]
        key = lambda a: {"PK": S("ACCT#" + a), "SK": S("BAL")}  # noqa: E731
        for a in accts:
            self.client.put_item(TableName=tbl, Item=dict(key(a), bal=N(self.START)))
        total = self.START * self.ACCOUNTS
        stop = threading.Event()
        errors = []
        stats = {"ok": 0, "cancelled": 0, "reads": 0, "read_conflicts": 0}
        lock = threading.Lock()

        def transfer(seed):
            cl = raw_client()
            rnd = random.Random(seed)
            while not stop.is_set():
                src, dst = rnd.sample(accts, 2)
                amt = rnd.randint(1, 400)
                try:
                    cl.transact_write_items(TransactItems=[
                        {"Update": {"TableName": tbl, "Key": key(src), "UpdateExpression": "SET bal = bal - :a",
                                    "ConditionExpression": "bal >= :a", "ExpressionAttributeValues": {":a": N(amt)}}},
                        {"Update": {"TableName": tbl, "Key": key(dst), "UpdateExpression": "SET bal = bal + :a",
                                    "ExpressionAttributeValues": {":a": N(amt)}}}])
                    with lock:
                        stats["ok"] += 1
                except ClientError as e:
                    code = e.response["Error"]["Code"]
                    reasons = set(reason_codes(e)) - {"None"}
                    if code == "TransactionCanceledException" and reasons <= {"TransactionConflict",
                                                                               "ConditionalCheckFailed"}:
                        with lock:
                            stats["cancelled"] += 1
                        continue
                    errors.append("transfer: %s %r" % (code, e.response.get("CancellationReasons")))
                    return
                except Exception as e:  # noqa: BLE001
                    errors.append("transfer: %r" % (e,))
                    return

        def reader():
            cl = raw_client()
            while not stop.is_set():
                try:
                    resp = cl.transact_get_items(TransactItems=[
                        {"Get": {"TableName": tbl, "Key": key(a)}} for a in accts])
                except ClientError as e:
                    if (e.response["Error"]["Code"] == "TransactionCanceledException"
                            and set(reason_codes(e)) - {"None"} <= {"TransactionConflict"}):
                        with lock:
                            stats["read_conflicts"] += 1
                        continue
                    errors.append("reader: %s %r" % (e.response["Error"]["Code"], e.response.get("CancellationReasons")))
                    return
                bals = [int(r["Item"]["bal"]["N"]) for r in resp["Responses"]]
                if sum(bals) != total:
                    errors.append("reader saw total %d, want %d" % (sum(bals), total))
                if min(bals) < 0:
                    errors.append("reader saw a negative balance: %r" % bals)
                with lock:
                    stats["reads"] += 1

        threads = [threading.Thread(target=transfer, args=(i,)) for i in range(8)]
        threads.append(threading.Thread(target=reader))
        for t in threads:
            t.start()
        time.sleep(3)
        stop.set()
        for t in threads:
            t.join(30)
        self.assertEqual(errors[:5], [])
        self.assertGreater(stats["ok"], 0, stats)
        self.assertGreater(stats["reads"], 0, stats)
        final = [int(self.client.get_item(TableName=tbl, Key=key(a), ConsistentRead=True)["Item"]["bal"]["N"])
                 for a in accts]
        self.assertEqual(sum(final), total, stats)
        self.assertGreaterEqual(min(final), 0)

    def test_username_race_exactly_one_winner(self):
        # Seed 001's uniqueness pattern: USERNAME#<name> plus the user's profile,
        # both Put with attribute_not_exists(PK).
        tbl = self.make_test_table("uname")
        name = "asha-" + self.run_id
        barrier = threading.Barrier(16)
        results = [None] * 16

        def claim(i):
            cl = raw_client()
            barrier.wait()
            try:
                cl.transact_write_items(TransactItems=[
                    {"Put": {"TableName": tbl, "Item": {"PK": S("USERNAME#" + name), "SK": S("USERNAME"),
                                                        "owner": S("USER#%d" % i)},
                             "ConditionExpression": "attribute_not_exists(PK)"}},
                    {"Put": {"TableName": tbl, "Item": {"PK": S("USER#%d" % i), "SK": S("PROFILE"),
                                                        "username": S(name)},
                             "ConditionExpression": "attribute_not_exists(PK)"}}])
                results[i] = "won"
            except ClientError as e:
                reasons = reason_codes(e)
                if (e.response["Error"]["Code"] == "TransactionCanceledException" and len(reasons) == 2
                        and reasons[0] in ("ConditionalCheckFailed", "TransactionConflict")
                        and reasons[1] in ("None", "TransactionConflict")):
                    results[i] = "lost"
                else:
                    results[i] = "unexpected %s %r" % (e.response["Error"]["Code"], reasons)
            except Exception as e:  # noqa: BLE001
                results[i] = "unexpected %r" % (e,)

        threads = [threading.Thread(target=claim, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        self.assertEqual([r for r in results if r not in ("won", "lost")], [])
        winners = [i for i, r in enumerate(results) if r == "won"]
        self.assertEqual(len(winners), 1, results)
        owner = self.client.get_item(TableName=tbl, Key={"PK": S("USERNAME#" + name), "SK": S("USERNAME")},
                                     ConsistentRead=True)["Item"]["owner"]["S"]
        self.assertEqual(owner, "USER#%d" % winners[0])
        # Losers' profiles were never written.
        for i in range(16):
            got = self.client.get_item(TableName=tbl, Key={"PK": S("USER#%d" % i), "SK": S("PROFILE")},
                                       ConsistentRead=True).get("Item")
            self.assertEqual(got is not None, i == winners[0], i)


if __name__ == "__main__":
    import unittest
    unittest.main()
