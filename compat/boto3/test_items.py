"""Item operations through the low-level boto3 client: PutItem, GetItem, DeleteItem,
attribute-type round trips and the validation errors DynamoDB gives for them."""

import unittest

from botocore.exceptions import ClientError

from compat_support import DynamoTestCase, unique_name

ALL_BYTES = bytes(range(256))
BIG38 = "12345678901234567890123456789012345678"          # 38 significant digits
FRAC38 = "0.12345678901234567890123456789012345678"       # 38 significant digits
NEG38 = "-9.9999999999999999999999999999999999999"        # 38 significant digits


def _setlike(av):
    """Sets have no order in DynamoDB: compare SS/NS/BS as sets."""
    if isinstance(av, dict):
        out = {}
        for k, v in av.items():
            if k in ("SS", "NS", "BS"):
                out[k] = frozenset(v)
            elif k == "M":
                out[k] = {kk: _setlike(vv) for kk, vv in v.items()}
            elif k == "L":
                out[k] = [_setlike(x) for x in v]
            else:
                out[k] = v
        return out
    return av


def normalize_item(item):
    return {k: _setlike(v) for k, v in item.items()}


class ItemTest(DynamoTestCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.table = cls.make_table("items")
        cls.uid = unique_name("u")

    def key(self, sk):
        return {"PK": {"S": "USER#" + self.uid}, "SK": {"S": sk}}

    def put(self, item, **kw):
        return self.client.put_item(TableName=self.table, Item=item, **kw)

    def get(self, key, **kw):
        return self.client.get_item(TableName=self.table, Key=key, **kw)

    # ---------------------------------------------------------------- round trips

    def test_all_ten_attribute_types_round_trip(self):
        item = dict(self.key("TYPES"), **{
            "S": {"S": "h\u00e9llo \u2713 \u65e5\u672c \U0001F600"},
            "N": {"N": "8.3"},
            "B": {"B": ALL_BYTES},
            "BOOL_T": {"BOOL": True},
            "BOOL_F": {"BOOL": False},
            "NULL": {"NULL": True},
            "M": {"M": {
                "s": {"S": "x"}, "n": {"N": "-1.5"}, "b": {"B": b"\x00\x01"},
                "empty_m": {"M": {}}, "empty_l": {"L": []},
                "deep": {"M": {"l": {"L": [{"M": {"z": {"NULL": True}}}, {"SS": ["q"]}]}}},
            }},
            "L": {"L": [{"S": "a"}, {"N": "2"}, {"BOOL": False}, {"NULL": True},
                        {"B": b"\xff"}, {"L": []}, {"M": {}}, {"NS": ["1", "2"]}]},
            "SS": {"SS": ["b", "a", "c"]},
            "NS": {"NS": ["1", "2.5", "-3", "10", BIG38]},
            "BS": {"BS": [b"\x01", b"\x02\x00", b"\xff\xfe"]},
        })
        self.put(item)
        got = self.get(self.key("TYPES"), ConsistentRead=True)["Item"]
        self.assertEqual(normalize_item(got), normalize_item(item))
        self.assertEqual(got["B"]["B"], ALL_BYTES)  # every byte value survives

    def test_numbers_are_exact(self):
        nums = {"a": "8.3", "big": BIG38, "frac": FRAC38, "neg": NEG38, "zero": "0",
                "int": "100", "neg_int": "-42"}
        self.put(dict(self.key("NUMS"), **{k: {"N": v} for k, v in nums.items()}))
        got = self.get(self.key("NUMS"))["Item"]
        for k, v in nums.items():
            self.assertEqual(got[k], {"N": v}, k)

    def test_number_normalisation(self):
        # Developer guide, Data types / Number: "Leading and trailing zeroes are trimmed."
        cases = {"a": ("8.30", "8.3"), "b": ("008.300", "8.3"), "c": ("-0.50", "-0.5"),
                 "d": ("1.0", "1"), "e": ("007", "7")}
        self.put(dict(self.key("NORM"), **{k: {"N": v[0]} for k, v in cases.items()},
                      NS={"NS": ["01", "2.50"]}))
        got = self.get(self.key("NORM"))["Item"]
        for k, (_, want) in cases.items():
            self.assertEqual(got[k], {"N": want}, k)
        self.assertEqual(set(got["NS"]["NS"]), {"1", "2.5"})

    def test_more_than_38_digits_rejected(self):
        # "Numbers can have up to 38 digits of precision" - more is a ValidationException
        # ("Attempting to store more than 38 significant digits in a Number").
        self.expectError("ValidationException", "38 significant digits", self.put,
                         dict(self.key("N39"), n={"N": "1234567890123456789012345678901234567891"}))

    def test_number_range(self):
        # Numbers: "Positive range: 1E-130 to 9.9999999999999999999999999999999999999E+125",
        # same for negatives; beyond that, "Number overflow" / "Number underflow"
        # ValidationExceptions.
        self.put(dict(self.key("RANGE"), hi={"N": "9.9999999999999999999999999999999999999E+125"},
                      lo={"N": "1E-130"}, neg={"N": "-1E-130"}))
        got = self.get(self.key("RANGE"))["Item"]
        self.assertEqual(set(got), {"PK", "SK", "hi", "lo", "neg"})
        for bad in ("1E+126", "-1E+126", "1E-131"):
            with self.subTest(n=bad):
                with self.assertRaises(ClientError) as cm:
                    self.put(dict(self.key("RANGE2"), n={"N": bad}))
                self.assertClientError(cm.exception, "ValidationException")

    def test_key_size_limits(self):
        # Partition key value: at most 2048 bytes; sort key value: at most 1024 bytes.
        self.put({"PK": {"S": "p" * 2048}, "SK": {"S": "s" * 1024}})
        self.assertIn("Item", self.get({"PK": {"S": "p" * 2048}, "SK": {"S": "s" * 1024}}))
        for item in ({"PK": {"S": "p" * 2049}, "SK": {"S": "s"}},
                     {"PK": {"S": "p"}, "SK": {"S": "s" * 1025}}):
            with self.subTest(sizes=(len(item["PK"]["S"]), len(item["SK"]["S"]))):
                with self.assertRaises(ClientError) as cm:
                    self.put(item)
                self.assertClientError(cm.exception, "ValidationException")

    def test_empty_string_and_binary_non_key_attributes(self):
        # Since 2020 DynamoDB accepts empty String and Binary values for non-key
        # attributes (including inside M and L).
        item = dict(self.key("EMPTY"), s={"S": ""}, b={"B": b""},
                    m={"M": {"e": {"S": ""}}}, l={"L": [{"S": ""}, {"B": b""}]})
        self.put(item)
        self.assertEqual(self.get(self.key("EMPTY"))["Item"], item)

    def test_empty_string_key_rejected(self):
        # "The AttributeValue for a key attribute cannot contain an empty string value."
        self.expectError("ValidationException",
                         "The AttributeValue for a key attribute cannot contain an empty string value",
                         self.put, {"PK": {"S": "USER#" + self.uid}, "SK": {"S": ""}})

    def test_invalid_attribute_values_rejected(self):
        for bad in ({"SS": []}, {"NS": []}, {"BS": []}, {"SS": ["a", "a"]},
                    {"NULL": False}, {"N": "not-a-number"}):
            with self.subTest(bad=bad):
                with self.assertRaises(ClientError) as cm:
                    self.put(dict(self.key("BAD"), attr=bad))
                self.assertClientError(cm.exception, "ValidationException")
        self.assertNotIn("Item", self.get(self.key("BAD")))

    def test_item_size_limit(self):
        # Maximum item size is 400 KB: "Item size has exceeded the maximum allowed size".
        self.expectError("ValidationException", "Item size has exceeded the maximum allowed size",
                         self.put, dict(self.key("HUGE"), blob={"S": "x" * (401 * 1024)}))
        # ~100 KB item is fine.
        self.put(dict(self.key("LARGE"), blob={"S": "y" * (100 * 1024)}))
        self.assertEqual(len(self.get(self.key("LARGE"))["Item"]["blob"]["S"]), 100 * 1024)

    # ------------------------------------------------------------ put/get/delete

    def test_get_missing_item_has_no_item_key(self):
        # GetItem: "If there is no matching item, GetItem does not return any data and
        # there will be no Item element in the response."
        resp = self.get(self.key("NOPE"))
        self.assertNotIn("Item", resp)

    def test_put_overwrites_and_return_values(self):
        first = dict(self.key("OVER"), v={"N": "1"}, only_first={"S": "x"})
        resp = self.put(first, ReturnValues="ALL_OLD")
        self.assertNotIn("Attributes", resp)  # nothing was overwritten
        second = dict(self.key("OVER"), v={"N": "2"})
        resp = self.put(second, ReturnValues="ALL_OLD")
        self.assertEqual(resp["Attributes"], first)
        # PutItem replaces the whole item (no merge).
        self.assertEqual(self.get(self.key("OVER"))["Item"], second)
        # PutItem only supports ReturnValues NONE and ALL_OLD.
        with self.assertRaises(ClientError) as cm:
            self.put(second, ReturnValues="ALL_NEW")
        self.assertClientError(cm.exception, "ValidationException")

    def test_get_projection_expression(self):
        item = dict(self.key("PROJ"), Email={"S": "e@x"}, Name={"S": "John Doe"},
                    Address={"M": {"City": {"S": "Paris"}, "Zip": {"S": "75001"}}},
                    Tags={"L": [{"S": "t0"}, {"S": "t1"}, {"S": "t2"}]}, Misc={"N": "1"})
        self.put(item)
        resp = self.get(self.key("PROJ"), ProjectionExpression="Email, #n, Address.City, Tags[1]",
                        ExpressionAttributeNames={"#n": "Name"})
        # Only the projected attributes come back (not even the key), nested paths keep
        # their document structure.
        self.assertEqual(resp["Item"], {"Email": {"S": "e@x"}, "Name": {"S": "John Doe"},
                                        "Address": {"M": {"City": {"S": "Paris"}}},
                                        "Tags": {"L": [{"S": "t1"}]}})
        resp = self.get(self.key("PROJ"), ProjectionExpression="PK, Ghost, Misc")
        # An attribute that the item lacks is simply left out.
        self.assertEqual(resp["Item"], {"PK": item["PK"], "Misc": {"N": "1"}})

    def test_reserved_word_needs_attribute_name_placeholder(self):
        # "Name" is a DynamoDB reserved word: using it directly in an expression is a
        # ValidationException ("Attribute name is a reserved keyword; reserved keyword: Name").
        self.expectError("ValidationException", "reserved keyword", self.get, self.key("PROJ"),
                         ProjectionExpression="Name")

    def test_unused_expression_attribute_names(self):
        # "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}"
        self.expectError("ValidationException", "unused", self.get, self.key("PROJ"),
                         ProjectionExpression="Email",
                         ExpressionAttributeNames={"#x": "Name"})

    def test_delete_item_return_values(self):
        item = dict(self.key("DEL"), a={"S": "x"}, n={"N": "8.3"}, b={"B": b"\x00"})
        self.put(item)
        resp = self.client.delete_item(TableName=self.table, Key=self.key("DEL"),
                                       ReturnValues="ALL_OLD")
        self.assertEqual(resp["Attributes"], item)
        self.assertNotIn("Item", self.get(self.key("DEL"), ConsistentRead=True))
        # Deleting a missing item succeeds and returns no Attributes.
        resp = self.client.delete_item(TableName=self.table, Key=self.key("DEL"),
                                       ReturnValues="ALL_OLD")
        self.assertNotIn("Attributes", resp)
        # DeleteItem only supports ReturnValues NONE and ALL_OLD.
        with self.assertRaises(ClientError) as cm:
            self.client.delete_item(TableName=self.table, Key=self.key("DEL"), ReturnValues="ALL_NEW")
        self.assertClientError(cm.exception, "ValidationException")
        # Default ReturnValues is NONE.
        self.put(item)
        resp = self.client.delete_item(TableName=self.table, Key=self.key("DEL"))
        self.assertNotIn("Attributes", resp)
        self.assertNotIn("Item", self.get(self.key("DEL")))

    def test_consumed_capacity(self):
        # Capacity units: a write of an item up to 1 KB = 1 WCU; a read up to 4 KB = 1 RCU
        # strongly consistent, 0.5 RCU eventually consistent.
        self.put(dict(self.key("CAP"), v={"S": "small"}))
        resp = self.put(dict(self.key("CAP"), v={"S": "small"}), ReturnConsumedCapacity="TOTAL")
        self.assertEqual(resp["ConsumedCapacity"]["TableName"], self.table)
        self.assertEqual(resp["ConsumedCapacity"]["CapacityUnits"], 1.0)
        resp = self.get(self.key("CAP"), ReturnConsumedCapacity="TOTAL")
        self.assertEqual(resp["ConsumedCapacity"]["CapacityUnits"], 0.5)
        resp = self.get(self.key("CAP"), ReturnConsumedCapacity="TOTAL", ConsistentRead=True)
        self.assertEqual(resp["ConsumedCapacity"]["CapacityUnits"], 1.0)
        resp = self.get(self.key("CAP"))
        self.assertNotIn("ConsumedCapacity", resp)  # default ReturnConsumedCapacity NONE

    # ------------------------------------------------------------------ key errors

    def test_key_does_not_match_schema(self):
        msg = "The provided key element does not match the schema"
        pk = {"S": "USER#" + self.uid}
        for key in ({"PK": {"N": "1"}, "SK": {"S": "PROFILE"}},      # wrong type
                    {"PK": pk},                                      # missing sort key
                    {"PK": pk, "SK": {"S": "PROFILE"}, "X": {"S": "y"}},  # extra attribute
                    {"PK": pk, "SK": {"B": b"PROFILE"}}):            # wrong sort key type
            with self.subTest(key=key):
                self.expectError("ValidationException", msg, self.get, key)
        self.expectError("ValidationException", msg, self.client.delete_item,
                         TableName=self.table, Key={"PK": {"N": "1"}, "SK": {"S": "x"}})

    def test_put_missing_key(self):
        self.expectError("ValidationException",
                         "One or more parameter values were invalid: Missing the key SK in the item",
                         self.put, {"PK": {"S": "USER#" + self.uid}, "v": {"S": "x"}})
        self.expectError("ValidationException",
                         "One or more parameter values were invalid: Missing the key PK in the item",
                         self.put, {"SK": {"S": "PROFILE"}, "v": {"S": "x"}})

    def test_put_key_type_mismatch(self):
        self.expectError("ValidationException",
                         "One or more parameter values were invalid: Type mismatch for key PK "
                         "expected: S actual: N",
                         self.put, {"PK": {"N": "1"}, "SK": {"S": "PROFILE"}})

    def test_missing_table(self):
        name = unique_name("absent")
        key = {"PK": {"S": "a"}, "SK": {"S": "b"}}
        for fn, kw in ((self.client.get_item, {"Key": key}),
                       (self.client.put_item, {"Item": key}),
                       (self.client.delete_item, {"Key": key})):
            with self.subTest(op=fn.__name__):
                self.expectError("ResourceNotFoundException", "Requested resource not found",
                                 fn, TableName=name, **kw)


if __name__ == "__main__":
    unittest.main()
