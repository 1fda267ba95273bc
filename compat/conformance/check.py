"""Checks a vitest JSON report of ../shared/conformance against divergences.txt.

usage: check.py REPORT.json divergences.txt

Every failed test must be listed in divergences.txt (with its reason), and
every listed test must still fail; anything else fails the run. Prints the
totals and each unexpected result.
"""
import json
import sys


def main(report_path, list_path):
    listed = {}
    for line in open(list_path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test, _, reason = line.partition(" # ")
        listed[test.strip()] = reason.strip()
    report = json.load(open(report_path, encoding="utf-8"))
    failed, passed = set(), set()
    for f in report["testResults"]:
        name = f["name"].split("/tests/", 1)[-1]
        if not f["assertionResults"] and f.get("status") == "failed":
            failed.add(name + " :: (file failed to run) " + f.get("message", "")[:200])
        for t in f["assertionResults"]:
            key = name + " :: " + t["fullName"]
            if t["status"] == "failed":
                failed.add(key)
            elif t["status"] == "passed":
                passed.add(key)
    unexpected = sorted(failed - set(listed))
    stale = sorted(t for t in listed if t in passed)
    print("conformance: %d passed, %d failed (%d known divergences), %d skipped" % (
        report["numPassedTests"], report["numFailedTests"], len(failed & set(listed)),
        report["numPendingTests"] + report.get("numTodoTests", 0)))
    for t in unexpected:
        print("UNEXPECTED FAILURE:", t)
    for t in stale:
        print("LISTED AS DIVERGENT BUT PASSES (remove it from divergences.txt):", t)
    return 1 if unexpected or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
