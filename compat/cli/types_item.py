"""Writes the all-ten-types item for test_cli.sh: PREFIX.in (what the CLI is given)
and PREFIX.out (what get-item must print).

Binary through the AWS CLI: the value in the JSON input is raw text whose UTF-8
bytes are stored (CLI v1, and v2 with --cli-binary-format raw-in-base64-out);
output shows the stored bytes base64-encoded. The text used here covers
U+0000..U+00FF, so the stored bytes include 0x00 and multi-byte sequences.

usage: types_item.py RUN_ID PREFIX
"""

import base64
import json
import sys


def binary(text):
    return text, base64.b64encode(text.encode("utf-8")).decode()


def main():
    run, prefix = sys.argv[1], sys.argv[2]
    item_in, item_out = {}, {}

    def put(name, v_in, v_out=None):
        item_in[name] = v_in
        item_out[name] = v_in if v_out is None else v_out

    raw = "".join(chr(i) for i in range(256))
    put("PK", {"S": "TYPES#" + run})
    put("SK", {"S": "TYPES"})
    put("Str", {"S": "h\u00e9llo \u2713 \u65e5\u672c \U0001F600"})
    put("EmptyStr", {"S": ""})
    put("Num", {"N": "8.3"})
    put("Big", {"N": "12345678901234567890123456789012345678"})
    put("Frac", {"N": "0.12345678901234567890123456789012345678"})
    put("Neg", {"N": "-42"})
    put("Bin", {"B": binary(raw)[0]}, {"B": binary(raw)[1]})
    put("Bool", {"BOOL": True})
    put("BoolF", {"BOOL": False})
    put("Nul", {"NULL": True})
    put("Map", {"M": {"a": {"S": "x"}, "n": {"N": "1"},
                      "inner": {"M": {"l": {"L": [{"S": "deep"}]}}}, "empty": {"M": {}}}})
    head = [{"S": "a"}, {"N": "2"}, {"BOOL": False}, {"NULL": True}, {"L": []}]
    put("List", {"L": head + [{"B": binary("\u00ff")[0]}]},
        {"L": head + [{"B": binary("\u00ff")[1]}]})
    put("SS", {"SS": ["b", "a", "c"]})
    put("NS", {"NS": ["1", "2.5", "-3", "10"]})
    bs = ["\u0001", "\u0002\u0000", "\u00ff\u00fe"]
    put("BS", {"BS": [binary(x)[0] for x in bs]}, {"BS": [binary(x)[1] for x in bs]})

    with open(prefix + ".in", "w") as f:
        json.dump(item_in, f)
    with open(prefix + ".out", "w") as f:
        json.dump(item_out, f)


if __name__ == "__main__":
    main()
