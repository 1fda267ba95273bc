"""Assertion helper for test_cli.sh.

Reads the JSON printed by an `aws dynamodb ...` call on stdin, binds it to `r`
and runs the Python statements in $CHECK_CODE (usually `assert ...` lines).
Exits 0 if they all hold; otherwise prints the failing line, the reason and an
excerpt of the JSON, and exits 1.
"""

import base64  # noqa: F401  (available to checks)
import json
import os
import re  # noqa: F401
import sys
import traceback


def sks(resp):
    """Sort-key strings of resp['Items'], in response order."""
    return [it["SK"]["S"] for it in resp.get("Items", [])]


def setlike(av):
    """Normalise an AttributeValue for comparison: SS/NS/BS are unordered sets."""
    if isinstance(av, dict):
        out = {}
        for k, v in av.items():
            if k in ("SS", "NS", "BS"):
                out[k] = sorted(v)
            elif k == "M":
                out[k] = {kk: setlike(vv) for kk, vv in v.items()}
            elif k == "L":
                out[k] = [setlike(x) for x in v]
            else:
                out[k] = v
        return out
    return av


def same_item(a, b):
    return {k: setlike(v) for k, v in a.items()} == {k: setlike(v) for k, v in b.items()}


def main():
    code = os.environ["CHECK_CODE"]
    raw = sys.stdin.read()
    try:
        r = json.loads(raw) if raw.strip() else {}
    except ValueError as e:
        print("output is not JSON (%s): %s" % (e, raw[:500]))
        return 1
    env = {"r": r, "sks": sks, "setlike": setlike, "same_item": same_item,
           "json": json, "base64": base64, "re": re, "environ": os.environ}
    try:
        exec(compile(code, "<check>", "exec"), env)
    except Exception as e:  # noqa: BLE001 - report any failure of the check
        lines = code.splitlines()
        where = ""
        for fr in traceback.extract_tb(e.__traceback__):
            if fr.filename == "<check>" and 0 < fr.lineno <= len(lines):
                where = lines[fr.lineno - 1].strip()
        print("check failed: %s" % (where or code.strip()))
        print("  %s: %s" % (type(e).__name__, e))
        text = json.dumps(r, sort_keys=True)
        print("  response: %s%s" % (text[:800], "..." if len(text) > 800 else ""))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
