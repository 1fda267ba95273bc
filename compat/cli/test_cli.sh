#!/usr/bin/env bash
# DynamoDB compatibility checks driven through the unmodified AWS CLI (v1 or v2):
#   DYNAGO_ENDPOINT=http://127.0.0.1:8000 bash compat/cli/test_cli.sh
# Prints "ok"/"FAIL" per check, a list of failed checks and a closing
# "cli: N passed, N failed" line; exits non-zero if any check failed.
# Every table is uniquely named (compat-cli-<random>...) and deleted on exit.
set -u -o pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
EP="${DYNAGO_ENDPOINT:-}"
if [ -z "$EP" ]; then
  echo "DYNAGO_ENDPOINT is not set (e.g. http://127.0.0.1:8000)" >&2
  exit 2
fi
command -v aws >/dev/null || { echo "aws CLI not found" >&2; exit 2; }
# The real interpreter, not a version-manager shim: it runs ~80 times.
PY=$(python3 -c 'import sys; print(sys.executable)') || { echo "python3 not found" >&2; exit 2; }

# Only ever talk to a loopback endpoint.
if ! "$PY" - "$EP" <<'EOF'
import ipaddress, os, sys
from urllib.parse import urlparse
host = urlparse(sys.argv[1]).hostname or ""
try:
    ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
except ValueError:
    ok = False
sys.exit(0 if ok or os.environ.get("DYNAGO_ALLOW_NON_LOOPBACK") == "1" else 1)
EOF
then
  echo "DYNAGO_ENDPOINT=$EP is not a loopback address; refusing (DYNAGO_ALLOW_NON_LOOPBACK=1 overrides)" >&2
  exit 2
fi

# Dummy credentials; never read a developer's real AWS config.
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN
export AWS_ACCESS_KEY_ID=dummy AWS_SECRET_ACCESS_KEY=dummy
export AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
export AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
# No retries: a 5xx or throttle from the server under test must surface.
export AWS_MAX_ATTEMPTS=1 AWS_RETRY_MODE=standard

TMP=$(mktemp -d)
RUN=$("$PY" -c 'import uuid; print(uuid.uuid4().hex[:12])')
PASS=0
FAIL=0
FAILED=()
TABLES=()

# drop_table NAME : delete NAME if it exists; a table still CREATING answers
# ResourceInUseException, so retry (up to ~30s) until it can be deleted.
drop_table() {
  local i err
  for i in $(seq 1 150); do
    err=$(aws dynamodb delete-table --table-name "$1" --endpoint-url "$EP" 2>&1 >/dev/null) && return 0
    case "$err" in *ResourceInUseException*) sleep 0.2 ;; *) return 0 ;; esac
  done
}

cleanup() {
  local t
  # Tables the checks already deleted just answer ResourceNotFoundException here.
  for t in "${TABLES[@]}"; do drop_table "$t" & done
  wait
  rm -rf "$TMP"
}
trap cleanup EXIT

pass() { PASS=$((PASS + 1)); echo "ok   - $1"; }
fail() {
  FAIL=$((FAIL + 1)); FAILED+=("$1")
  echo "FAIL - $1"
  if [ -n "${2:-}" ]; then printf '%s\n' "$2" | sed 's/^/       /'; fi
}

# SVC=dynamodbstreams before a helper calls "aws dynamodbstreams" instead.
ddb() { aws "${SVC:-dynamodb}" "$@" --endpoint-url "$EP" --output json; }

# call NAME ARGS... : run `aws dynamodb ARGS`, keep stdout in $OUT. A failing
# call is recorded as a failed check named NAME and returns 1.
call() {
  local name=$1; shift
  OUT=$(ddb "$@" 2>"$TMP/err")
  local rc=$?
  if [ $rc -ne 0 ]; then
    fail "$name" "aws dynamodb $1 exited $rc: $(cat "$TMP/err")"
    return 1
  fi
}

# check NAME PYTHON : run PYTHON (assert statements) with r = JSON of $OUT.
check() {
  local name=$1 code=$2 msg
  if msg=$(printf '%s' "$OUT" | CHECK_CODE="$code" "$PY" "$HERE/jcheck.py" 2>&1); then
    pass "$name"
  else
    fail "$name" "$msg"
  fi
}

# call_check NAME PYTHON ARGS... : call + check in one step.
call_check() {
  local name=$1 code=$2; shift 2
  call "$name" "$@" && check "$name" "$code"
}

# expect_error NAME CODE MESSAGE ARGS... : the call must fail with DynamoDB error
# CODE and (if MESSAGE is non-empty) a message containing MESSAGE.
# The CLI prints: "An error occurred (CODE) when calling the OP operation...: MESSAGE".
expect_error() {
  local name=$1 code=$2 msg=$3; shift 3
  OUT=$(ddb "$@" 2>"$TMP/err")
  local rc=$? err
  err=$(cat "$TMP/err")
  if [ $rc -eq 0 ]; then
    fail "$name" "expected $code, but the call succeeded: ${OUT:0:300}"
  elif [[ "$err" != *"An error occurred ($code)"* ]]; then
    fail "$name" "expected error $code, got: $err"
  elif [ -n "$msg" ] && [[ "$err" != *"$msg"* ]]; then
    fail "$name" "expected a message containing '$msg', got: $err"
  else
    pass "$name"
  fi
}

wait_active() {
  local t=$1 i st
  for i in $(seq 1 150); do
    st=$(aws dynamodb describe-table --table-name "$t" --endpoint-url "$EP" --query Table.TableStatus --output text 2>/dev/null)
    [ "$st" = "ACTIVE" ] && return 0
    sleep 0.2
  done
  return 1
}

wait_gone() {
  local t=$1 i
  for i in $(seq 1 150); do
    if ! ddb describe-table --table-name "$t" >/dev/null 2>"$TMP/err"; then
      grep -q ResourceNotFoundException "$TMP/err" && return 0
    fi
    sleep 0.2
  done
  return 1
}

KS_PK_SK='[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}]'
AD_PK_SK='[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"}]'

T="compat-cli-$RUN"
export EP
USER_ID="u-$RUN"
PK="USER#$USER_ID"
export T PK

echo "# AWS CLI suite against $EP (table prefix compat-cli-$RUN)"
CLI_VERSION=$(aws --version 2>&1)
echo "# $CLI_VERSION"
# CLI v2 reads binary input as base64 by default; make it read raw text like v1.
BINFMT=()
case "$CLI_VERSION" in aws-cli/1.*) ;; *) BINFMT=(--cli-binary-format raw-in-base64-out) ;; esac

# ------------------------------------------------------------------ CreateTable
TABLES+=("$T")
call_check "create-table returns TableStatus CREATING" '
td = r["TableDescription"]
# API reference: CreateTable "immediately returns a response with a TableStatus of CREATING".
assert td["TableStatus"] == "CREATING", td["TableStatus"]
assert td["TableName"] == environ["T"]
assert td["KeySchema"] == [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]
assert td["TableArn"].endswith(":table/" + environ["T"]), td["TableArn"]
' create-table --table-name "$T" --key-schema "$KS_PK_SK" --attribute-definitions "$AD_PK_SK" \
  --billing-mode PAY_PER_REQUEST

if wait_active "$T"; then pass "table becomes ACTIVE"; else fail "table becomes ACTIVE" "still not ACTIVE after 30s"; fi

call_check "describe-table" '
t = r["Table"]
assert t["TableStatus"] == "ACTIVE"
assert t["TableName"] == environ["T"]
assert t["KeySchema"] == [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]
assert sorted(t["AttributeDefinitions"], key=lambda a: a["AttributeName"]) == [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}]
assert t["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
assert t["ItemCount"] == 0 and t["TableSizeBytes"] == 0
assert re.match(r"^arn:aws:dynamodb:us-east-1:\d{12}:table/" + re.escape(environ["T"]) + "$", t["TableArn"]), t["TableArn"]
assert isinstance(t["CreationDateTime"], (int, float, str))
' describe-table --table-name "$T"

# "Table already exists: <name>"
expect_error "create-table duplicate -> ResourceInUseException" ResourceInUseException "Table already exists" \
  create-table --table-name "$T" --key-schema "$KS_PK_SK" --attribute-definitions "$AD_PK_SK" \
  --billing-mode PAY_PER_REQUEST
expect_error "describe-table missing -> ResourceNotFoundException" ResourceNotFoundException \
  "Requested resource not found" describe-table --table-name "compat-cli-$RUN-missing"

# ------------------------------------------------------------------ ListTables
LA="compat-cli-$RUN-list-a"; LB="compat-cli-$RUN-list-b"; LC="compat-cli-$RUN-list-c"
export LA LB LC
for t in "$LA" "$LB" "$LC"; do
  TABLES+=("$t")
  call "create-table $t" create-table --table-name "$t" \
    --key-schema '[{"AttributeName":"Id","KeyType":"HASH"}]' \
    --attribute-definitions '[{"AttributeName":"Id","AttributeType":"N"}]' \
    --provisioned-throughput ReadCapacityUnits=1,WriteCapacityUnits=1
done
for t in "$LA" "$LB" "$LC"; do wait_active "$t" || fail "table $t becomes ACTIVE"; done

# ExclusiveStartTableName is exclusive; Limit caps the page; LastEvaluatedTableName is
# the last name of a page cut by Limit.
call_check "list-tables --limit 1 --exclusive-start-table-name" '
assert r["TableNames"] == [environ["LB"]], r["TableNames"]
assert r["LastEvaluatedTableName"] == environ["LB"]
' list-tables --no-paginate --limit 1 --exclusive-start-table-name "$LA"
call_check "list-tables --limit 2 --exclusive-start-table-name" '
assert r["TableNames"] == [environ["LB"], environ["LC"]], r["TableNames"]
' list-tables --no-paginate --limit 2 --exclusive-start-table-name "$LA"
# The CLI follows LastEvaluatedTableName itself with --page-size.
call_check "list-tables auto-pagination (--page-size 2): complete, sorted" '
names = r["TableNames"]
for n in (environ["T"], environ["LA"], environ["LB"], environ["LC"]):
    assert n in names, n
assert names == sorted(names), "not in ascending order"
assert len(names) == len(set(names)), "duplicates"
' list-tables --page-size 2

call_check "provisioned table: describe-table ProvisionedThroughput" '
pt = r["Table"]["ProvisionedThroughput"]
assert (pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]) == (1, 1), pt
assert r["Table"]["AttributeDefinitions"] == [{"AttributeName": "Id", "AttributeType": "N"}]
' describe-table --table-name "$LA"

call_check "delete-table returns TableStatus DELETING" '
assert r["TableDescription"]["TableName"] == environ["LC"]
assert r["TableDescription"]["TableStatus"] == "DELETING", r["TableDescription"]["TableStatus"]
' delete-table --table-name "$LC"
ddb delete-table --table-name "$LA" >/dev/null 2>&1
ddb delete-table --table-name "$LB" >/dev/null 2>&1
if wait_gone "$LC"; then pass "deleted table disappears"; else fail "deleted table disappears" "describe-table still succeeds after 30s"; fi
call_check "list-tables no longer lists the deleted table" '
assert environ["LC"] not in r["TableNames"]
' list-tables

# ------------------------------------------------------------------ PutItem / GetItem
KEY_PROFILE=$(printf '{"PK":{"S":"%s"},"SK":{"S":"PROFILE"}}' "$PK")
PROFILE=$(printf '{"PK":{"S":"%s"},"SK":{"S":"PROFILE"},"EntityType":{"S":"User"},"GSI1PK":{"S":"USER#%s@example.com"},"GSI1SK":{"S":"USER#%s@example.com"},"Email":{"S":"%s@example.com"},"Name":{"S":"John Doe"},"CreatedAt":{"S":"2024-01-01T00:00:00Z"},"UpdatedAt":{"S":"2024-01-01T00:00:00Z"}}' \
  "$PK" "$USER_ID" "$USER_ID" "$USER_ID")
export PROFILE
call_check "put-item (seed User item) returns nothing" '
assert r == {}, r
' put-item --table-name "$T" --item "$PROFILE"
call_check "get-item returns the item exactly" '
assert r["Item"] == json.loads(environ["PROFILE"]), r
' get-item --table-name "$T" --key "$KEY_PROFILE"
call_check "get-item --consistent-read" '
assert r["Item"] == json.loads(environ["PROFILE"])
' get-item --table-name "$T" --key "$KEY_PROFILE" --consistent-read
call_check "get-item --projection-expression with #name" '
# Only the projected attributes are returned (not even the key).
assert r["Item"] == {"Email": {"S": environ["PK"][5:] + "@example.com"}, "Name": {"S": "John Doe"}}, r
' get-item --table-name "$T" --key "$KEY_PROFILE" --projection-expression "Email, #n" \
  --expression-attribute-names '{"#n":"Name"}'
call_check "get-item of a missing item has no Item" '
# GetItem: "If there is no matching item, GetItem does not return any data and there
# will be no Item element in the response."
assert "Item" not in r, r
' get-item --table-name "$T" --key "$(printf '{"PK":{"S":"%s"},"SK":{"S":"NOPE"}}' "$PK")"

# All ten attribute types (see types_item.py for how binary goes through the CLI).
"$PY" "$HERE/types_item.py" "$RUN" "$TMP/types"
TYPES_EXPECT=$(cat "$TMP/types.out")
export TYPES_EXPECT
call "put-item all ten attribute types" put-item --table-name "$T" --item "file://$TMP/types.in" "${BINFMT[@]}" \
  && pass "put-item all ten attribute types"
call_check "get-item: all ten types round-trip (numbers exact, bytes exact)" '
want = json.loads(environ["TYPES_EXPECT"])
got = r["Item"]
assert set(got) == set(want), sorted(set(got) ^ set(want))
for k in want:
    assert setlike(got[k]) == setlike(want[k]), (k, got[k], want[k])
assert base64.b64decode(got["Bin"]["B"]).decode("utf-8") == "".join(chr(i) for i in range(256))
' get-item --table-name "$T" --key "$(printf '{"PK":{"S":"TYPES#%s"},"SK":{"S":"TYPES"}}' "$RUN")"

# Developer guide, Number type: "Leading and trailing zeroes are trimmed."
call "put-item numbers with leading/trailing zeroes" put-item --table-name "$T" --item \
  "$(printf '{"PK":{"S":"TYPES#%s"},"SK":{"S":"NORM"},"a":{"N":"8.30"},"b":{"N":"008.300"},"c":{"N":"-0.50"}}' "$RUN")" \
  && call_check "numbers come back normalised (8.30 -> 8.3)" '
i = r["Item"]
assert (i["a"]["N"], i["b"]["N"], i["c"]["N"]) == ("8.3", "8.3", "-0.5"), i
' get-item --table-name "$T" --key "$(printf '{"PK":{"S":"TYPES#%s"},"SK":{"S":"NORM"}}' "$RUN")"

expect_error "get-item key of the wrong type -> ValidationException" ValidationException \
  "The provided key element does not match the schema" \
  get-item --table-name "$T" --key '{"PK":{"N":"1"},"SK":{"S":"PROFILE"}}'
expect_error "get-item without the sort key -> ValidationException" ValidationException \
  "The provided key element does not match the schema" \
  get-item --table-name "$T" --key "$(printf '{"PK":{"S":"%s"}}' "$PK")"
expect_error "put-item missing the sort key -> ValidationException" ValidationException \
  "One or more parameter values were invalid: Missing the key SK in the item" \
  put-item --table-name "$T" --item "$(printf '{"PK":{"S":"%s"},"Name":{"S":"x"}}' "$PK")"
expect_error "put-item 39 significant digits -> ValidationException" ValidationException \
  "38 significant digits" \
  put-item --table-name "$T" --item "$(printf '{"PK":{"S":"%s"},"SK":{"S":"N39"},"n":{"N":"1234567890123456789012345678901234567891"}}' "$PK")"
expect_error "put-item into a missing table -> ResourceNotFoundException" ResourceNotFoundException \
  "Requested resource not found" put-item --table-name "compat-cli-$RUN-missing" --item "$PROFILE"

# ------------------------------------------------------------------ BatchWriteItem
REQS=$("$PY" - "$PK" "$USER_ID" <<'EOF'
import json, sys
pk, uid = sys.argv[1], sys.argv[2]
reqs = []
for i in range(1, 6):
    ts = "2024-01-0%dT00:00:00Z" % i
    reqs.append({"PutRequest": {"Item": {
        "PK": {"S": pk}, "SK": {"S": "POST#%s#p%d" % (ts, i)}, "EntityType": {"S": "Post"},
        "PostId": {"S": "p%d" % i}, "Title": {"S": "Post title %d" % i},
        "Content": {"S": "Post content %d" % i}, "CreatedAt": {"S": ts},
        "LikeCount": {"N": str(i * 10)}}}})
for i in (1, 2):
    reqs.append({"PutRequest": {"Item": {
        "PK": {"S": pk}, "SK": {"S": "LIKE#POST#p%d" % i}, "EntityType": {"S": "Like"},
        "PostId": {"S": "p%d" % i}, "UserId": {"S": uid}}}})
print(json.dumps(reqs))
EOF
)
call_check "batch-write-item 5 posts + 2 likes: nothing unprocessed" '
assert r.get("UnprocessedItems", {}) == {}, r
' batch-write-item --request-items "{\"$T\": $REQS}"

P1="POST#2024-01-01T00:00:00Z#p1"; P2="POST#2024-01-02T00:00:00Z#p2"; P3="POST#2024-01-03T00:00:00Z#p3"
P4="POST#2024-01-04T00:00:00Z#p4"; P5="POST#2024-01-05T00:00:00Z#p5"
export P1 P2 P3 P4 P5

# ------------------------------------------------------------------ Query
# vals JSON-OBJECT-BODY : ExpressionAttributeValues with :pk plus the given entries.
vals() { printf '{":pk":{"S":"%s"}%s}' "$PK" "${1:+,$1}"; }

call_check "query PK only: every item, ascending sort key" '
P = [environ["P%d" % i] for i in range(1, 6)]
assert sks(r) == ["LIKE#POST#p1", "LIKE#POST#p2"] + P + ["PROFILE"], sks(r)
assert r["Count"] == 8 and r["ScannedCount"] == 8
assert "LastEvaluatedKey" not in r
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk" \
  --expression-attribute-values "$(vals)"
call_check "query begins_with(SK, POST#)" '
assert sks(r) == [environ["P%d" % i] for i in range(1, 6)], sks(r)
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk AND begins_with(SK, :p)" \
  --expression-attribute-values "$(vals '":p":{"S":"POST#"}')"
call_check "query --no-scan-index-forward: descending" '
assert sks(r) == [environ["P%d" % i] for i in range(5, 0, -1)], sks(r)
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk AND begins_with(SK, :p)" \
  --expression-attribute-values "$(vals '":p":{"S":"POST#"}')" --no-scan-index-forward
call_check "query SK = :v" '
assert sks(r) == [environ["P3"]], sks(r)
assert r["Items"][0]["Title"] == {"S": "Post title 3"} and r["Items"][0]["LikeCount"] == {"N": "30"}
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk AND SK = :v" \
  --expression-attribute-values "$(vals "\":v\":{\"S\":\"$P3\"}")"
call_check "query SK < :v" '
assert sks(r) == ["LIKE#POST#p1", "LIKE#POST#p2", environ["P1"], environ["P2"]], sks(r)
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk AND SK < :v" \
  --expression-attribute-values "$(vals "\":v\":{\"S\":\"$P3\"}")"
call_check "query SK <= :v" '
assert sks(r) == ["LIKE#POST#p1", "LIKE#POST#p2", environ["P1"], environ["P2"], environ["P3"]], sks(r)
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk AND SK <= :v" \
  --expression-attribute-values "$(vals "\":v\":{\"S\":\"$P3\"}")"
call_check "query SK > :v" '
assert sks(r) == [environ["P4"], environ["P5"], "PROFILE"], sks(r)
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk AND SK > :v" \
  --expression-attribute-values "$(vals "\":v\":{\"S\":\"$P3\"}")"
call_check "query SK >= :v" '
assert sks(r) == [environ["P3"], environ["P4"], environ["P5"], "PROFILE"], sks(r)
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk AND SK >= :v" \
  --expression-attribute-values "$(vals "\":v\":{\"S\":\"$P3\"}")"
call_check "query SK BETWEEN :a AND :b (inclusive)" '
assert sks(r) == [environ["P2"], environ["P3"], environ["P4"]], sks(r)
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk AND SK BETWEEN :a AND :b" \
  --expression-attribute-values "$(vals "\":a\":{\"S\":\"$P2\"},\":b\":{\"S\":\"$P4\"}")"
call_check "query --select COUNT: Count, no Items" '
assert r["Count"] == 5 and r["ScannedCount"] == 5, r
assert "Items" not in r, r
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk AND begins_with(SK, :p)" \
  --expression-attribute-values "$(vals '":p":{"S":"POST#"}')" --select COUNT
call_check "query --projection-expression + --expression-attribute-names" '
assert r["Items"] == [{"SK": {"S": environ["P%d" % i]}, "Title": {"S": "Post title %d" % i}} for i in range(1, 6)], r["Items"]
' query --no-paginate --table-name "$T" --key-condition-expression "#pk = :pk AND begins_with(#sk, :p)" \
  --expression-attribute-values "$(vals '":p":{"S":"POST#"}')" \
  --expression-attribute-names '{"#pk":"PK","#sk":"SK"}' --projection-expression "#sk, Title"

# Limit + ExclusiveStartKey: 5 posts, Limit 2 -> pages of 2, 2, 1; LastEvaluatedKey is the
# primary key of the last item on a page cut by Limit, and absent on the last page.
PAGE_ARGS=(query --no-paginate --table-name "$T" --limit 2 --key-condition-expression "PK = :pk AND begins_with(SK, :p)"
           --expression-attribute-values "$(vals '":p":{"S":"POST#"}')")
call_check "query page 1 (--limit 2)" '
assert sks(r) == [environ["P1"], environ["P2"]], sks(r)
assert r["Count"] == 2
assert r["LastEvaluatedKey"] == {"PK": {"S": environ["PK"]}, "SK": {"S": environ["P2"]}}, r.get("LastEvaluatedKey")
' "${PAGE_ARGS[@]}"
LEK=$(printf '%s' "$OUT" | "$PY" -c 'import json,sys; print(json.dumps(json.load(sys.stdin).get("LastEvaluatedKey", {})))' 2>/dev/null)
call_check "query page 2 (--exclusive-start-key)" '
assert sks(r) == [environ["P3"], environ["P4"]], sks(r)
assert r["LastEvaluatedKey"]["SK"] == {"S": environ["P4"]}
' "${PAGE_ARGS[@]}" --exclusive-start-key "$LEK"
LEK=$(printf '%s' "$OUT" | "$PY" -c 'import json,sys; print(json.dumps(json.load(sys.stdin).get("LastEvaluatedKey", {})))' 2>/dev/null)
call_check "query page 3: last page has no LastEvaluatedKey" '
assert sks(r) == [environ["P5"]], sks(r)
assert "LastEvaluatedKey" not in r, r
' "${PAGE_ARGS[@]}" --exclusive-start-key "$LEK"
call_check "query descending page (--limit 2 --no-scan-index-forward)" '
assert sks(r) == [environ["P5"], environ["P4"]], sks(r)
assert r["LastEvaluatedKey"]["SK"] == {"S": environ["P4"]}
' "${PAGE_ARGS[@]}" --no-scan-index-forward
call_check "query auto-pagination (--page-size 3)" '
assert len(r["Items"]) == 8, len(r["Items"])
assert sks(r)[0] == "LIKE#POST#p1" and sks(r)[-1] == "PROFILE"
' query --table-name "$T" --page-size 3 --key-condition-expression "PK = :pk" --expression-attribute-values "$(vals)"

expect_error "query without a partition-key condition -> ValidationException" ValidationException \
  "Query condition missed key schema element" \
  query --no-paginate --table-name "$T" --key-condition-expression "SK = :s" \
  --expression-attribute-values '{":s":{"S":"PROFILE"}}'

# ------------------------------------------------------------------ Scan
# The table now holds: profile, 5 posts, 2 likes (user partition) + TYPES, NORM = 10.
call_check "scan: every item" '
assert r["Count"] == 10 and len(r["Items"]) == 10, r["Count"]
' scan --table-name "$T"
ALL=()
START=""
for page in 1 2 3 4 5 6; do
  if [ -n "$START" ]; then call "scan page $page" scan --no-paginate --table-name "$T" --limit 3 --exclusive-start-key "$START" || break
  else call "scan page $page" scan --no-paginate --table-name "$T" --limit 3 || break; fi
  printf '%s\n' "$OUT" > "$TMP/scan-page-$page.json"
  START=$(printf '%s' "$OUT" | "$PY" -c 'import json,sys; k=json.load(sys.stdin).get("LastEvaluatedKey"); print(json.dumps(k) if k else "")')
  [ -z "$START" ] && break
done
OUT=$("$PY" - "$TMP"/scan-page-*.json <<'EOF'
import json, sys
pages = [json.load(open(p)) for p in sys.argv[1:]]
print(json.dumps({"pages": [[[i["PK"]["S"], i["SK"]["S"]] for i in p["Items"]] for p in pages]}))
EOF
)
check "scan --limit 3 pagination: each item exactly once" '
pages = r["pages"]
assert all(len(p) <= 3 for p in pages), [len(p) for p in pages]
keys = [tuple(k) for p in pages for k in p]
assert len(keys) == 10 and len(set(keys)) == 10, keys
'
for seg in 0 1 2; do
  call "scan segment $seg/3" scan --table-name "$T" --segment "$seg" --total-segments 3 --page-size 2 \
    && printf '%s\n' "$OUT" > "$TMP/seg-$seg.json"
done
OUT=$("$PY" - "$TMP"/seg-*.json <<'EOF'
import json, sys
print(json.dumps({"segs": [[[i["PK"]["S"], i["SK"]["S"]] for i in json.load(open(p))["Items"]] for p in sys.argv[1:]]}))
EOF
)
# Parallel scan: the segments are disjoint and together cover the whole table.
check "parallel scan (3 segments): every item exactly once" '
assert len(r["segs"]) == 3
keys = [tuple(k) for s in r["segs"] for k in s]
assert len(keys) == 10 and len(set(keys)) == 10, keys
'
call_check "scan --select COUNT" '
assert r["Count"] == 10 and "Items" not in r, r
' scan --no-paginate --table-name "$T" --select COUNT
expect_error "scan --segment >= --total-segments -> ValidationException" ValidationException "" \
  scan --no-paginate --table-name "$T" --segment 3 --total-segments 3
expect_error "scan missing table -> ResourceNotFoundException" ResourceNotFoundException \
  "Requested resource not found" scan --table-name "compat-cli-$RUN-missing"

# ------------------------------------------------------------------ BatchGetItem
BG=$(printf '{"%s":{"Keys":[{"PK":{"S":"%s"},"SK":{"S":"PROFILE"}},{"PK":{"S":"%s"},"SK":{"S":"%s"}},{"PK":{"S":"%s"},"SK":{"S":"%s"}},{"PK":{"S":"%s"},"SK":{"S":"POST#missing"}}],"ProjectionExpression":"SK, EntityType"}}' \
  "$T" "$PK" "$PK" "$P1" "$PK" "$P5" "$PK")
call_check "batch-get-item: found items only, projected, nothing unprocessed" '
items = r["Responses"][environ["T"]]
got = sorted((i["SK"]["S"], i["EntityType"]["S"]) for i in items)
assert got == sorted([(environ["P1"], "Post"), (environ["P5"], "Post"), ("PROFILE", "User")]), got
assert all(set(i) == {"SK", "EntityType"} for i in items), items
assert r.get("UnprocessedKeys", {}) == {}, r
' batch-get-item --request-items "$BG"
expect_error "batch-get-item duplicate keys -> ValidationException" ValidationException \
  "Provided list of item keys contains duplicates" \
  batch-get-item --request-items "$(printf '{"%s":{"Keys":[%s,%s]}}' "$T" "$KEY_PROFILE" "$KEY_PROFILE")"

# ------------------------------------------------------------------ DeleteItem
call_check "delete-item --return-values ALL_OLD returns the old item" '
assert r["Attributes"] == json.loads(environ["PROFILE"]), r
' delete-item --table-name "$T" --key "$KEY_PROFILE" --return-values ALL_OLD
call_check "deleted item is gone" '
assert "Item" not in r, r
' get-item --table-name "$T" --key "$KEY_PROFILE" --consistent-read
call_check "delete-item of a missing item: no error, no Attributes" '
assert "Attributes" not in r, r
' delete-item --table-name "$T" --key "$KEY_PROFILE" --return-values ALL_OLD
call_check "batch-write-item DeleteRequests" '
assert r.get("UnprocessedItems", {}) == {}, r
' batch-write-item --request-items "$(printf '{"%s":[{"DeleteRequest":{"Key":{"PK":{"S":"%s"},"SK":{"S":"LIKE#POST#p1"}}}},{"DeleteRequest":{"Key":{"PK":{"S":"%s"},"SK":{"S":"LIKE#POST#p2"}}}}]}' "$T" "$PK" "$PK")"
call_check "likes are gone" '
assert r["Count"] == 0 and r["Items"] == [], r
' query --no-paginate --table-name "$T" --key-condition-expression "PK = :pk AND begins_with(SK, :p)" \
  --expression-attribute-values "$(vals '":p":{"S":"LIKE#"}')"

# ------------------------------------------------------------------ UpdateItem
KEY_COUNTER=$(printf '{"PK":{"S":"%s"},"SK":{"S":"COUNTER"}}' "$PK")
call_check "update-item creates the item: SET with if_not_exists" '
assert r["Attributes"]["LikeCount"] == {"N": "1"}, r
' update-item --table-name "$T" --key "$KEY_COUNTER" \
  --update-expression "SET LikeCount = if_not_exists(LikeCount, :zero) + :inc" \
  --expression-attribute-values '{":zero":{"N":"0"},":inc":{"N":"1"}}' --return-values UPDATED_NEW
call_check "update-item optimistic lock: ConditionExpression on the counter" '
assert r["Attributes"] == {"LikeCount": {"N": "2"}}, r
' update-item --table-name "$T" --key "$KEY_COUNTER" \
  --update-expression "SET LikeCount = LikeCount + :inc" --condition-expression "LikeCount = :v" \
  --expression-attribute-values '{":inc":{"N":"1"},":v":{"N":"1"}}' --return-values UPDATED_NEW
expect_error "update-item with a stale version -> ConditionalCheckFailedException" ConditionalCheckFailedException \
  "The conditional request failed" update-item --table-name "$T" --key "$KEY_COUNTER" \
  --update-expression "SET LikeCount = LikeCount + :inc" --condition-expression "LikeCount = :v" \
  --expression-attribute-values '{":inc":{"N":"1"},":v":{"N":"1"}}'
expect_error "update-item of a key attribute -> ValidationException" ValidationException \
  "Cannot update attribute SK. This attribute is part of the key" update-item --table-name "$T" --key "$KEY_COUNTER" \
  --update-expression "SET SK = :v" --expression-attribute-values '{":v":{"S":"other"}}'
call_check "delete-item the counter" '
assert r["Attributes"]["LikeCount"] == {"N": "2"}, r
' delete-item --table-name "$T" --key "$KEY_COUNTER" --return-values ALL_OLD

# ------------------------------------------------------------------ Secondary indexes
# The seed's GSI1 (GSI1PK/GSI1SK, ALL) and a KEYS_ONLY GSI2 on GSI2PK/GSI2SK, on a
# table of its own; then a third index created online with update-table and deleted.
GT="compat-cli-$RUN-gsi"
export GT
TABLES+=("$GT")
GSI_AD='[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"GSI1PK","AttributeType":"S"},{"AttributeName":"GSI1SK","AttributeType":"S"},{"AttributeName":"GSI2PK","AttributeType":"S"},{"AttributeName":"GSI2SK","AttributeType":"S"}]'
GSI_DEF='[{"IndexName":"GSI1","KeySchema":[{"AttributeName":"GSI1PK","KeyType":"HASH"},{"AttributeName":"GSI1SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}},{"IndexName":"GSI2","KeySchema":[{"AttributeName":"GSI2PK","KeyType":"HASH"},{"AttributeName":"GSI2SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]'
call_check "create-table --global-secondary-indexes: indexes CREATING" '
td = r["TableDescription"]
g = {x["IndexName"]: x for x in td["GlobalSecondaryIndexes"]}
assert sorted(g) == ["GSI1", "GSI2"], sorted(g)
assert all(x["IndexStatus"] == "CREATING" for x in g.values()), g
assert g["GSI1"]["KeySchema"] == [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}]
assert g["GSI2"]["Projection"] == {"ProjectionType": "KEYS_ONLY"}
' create-table --table-name "$GT" --key-schema "$KS_PK_SK" --attribute-definitions "$GSI_AD" \
  --global-secondary-indexes "$GSI_DEF" --billing-mode PAY_PER_REQUEST
if wait_active "$GT"; then pass "index table becomes ACTIVE"; else fail "index table becomes ACTIVE" "still not ACTIVE after 30s"; fi
call_check "describe-table: GSIs ACTIVE with IndexArn" '
t = r["Table"]
g = {x["IndexName"]: x for x in t["GlobalSecondaryIndexes"]}
for name in ("GSI1", "GSI2"):
    assert g[name]["IndexStatus"] == "ACTIVE", g[name]
    assert g[name]["IndexArn"] == t["TableArn"] + "/index/" + name, g[name]
    assert g[name]["ItemCount"] == 0, g[name]
' describe-table --table-name "$GT"

GUSER=$(printf '{"PK":{"S":"USER#%s"},"SK":{"S":"PROFILE"},"EntityType":{"S":"User"},"GSI1PK":{"S":"USER#%s@example.com"},"GSI1SK":{"S":"USER#%s@example.com"},"Email":{"S":"%s@example.com"},"Name":{"S":"John Doe"}}' \
  "$USER_ID" "$USER_ID" "$USER_ID" "$USER_ID")
export GUSER
call "put-item user with GSI1 keys" put-item --table-name "$GT" --item "$GUSER" && pass "put-item user with GSI1 keys"
for i in 1 2 3; do
  call "put-item post $i" put-item --table-name "$GT" --item "$(printf '{"PK":{"S":"USER#%s"},"SK":{"S":"POST#2024-01-0%dT00:00:00Z#p%d"},"EntityType":{"S":"Post"},"GSI1PK":{"S":"POST#p%d"},"GSI1SK":{"S":"POST#p%d"},"GSI2PK":{"S":"ALL_POSTS"},"GSI2SK":{"S":"POST#2024-01-0%dT00:00:00Z"},"Title":{"S":"Post title %d"}}' "$USER_ID" $i $i $i $i $i $i)" \
    || true
done
# A post without GSI2 keys: absent from the sparse GSI2.
call "put-item post without GSI2 keys" put-item --table-name "$GT" --item "$(printf '{"PK":{"S":"USER#%s"},"SK":{"S":"POST#2024-01-09T00:00:00Z#p9"},"EntityType":{"S":"Post"},"Title":{"S":"Draft"}}' "$USER_ID")" || true

call_check "query --index-name GSI1: user by email" '
assert r["Items"] == [json.loads(environ["GUSER"])], r["Items"]
assert r["Count"] == 1
' query --no-paginate --table-name "$GT" --index-name GSI1 --key-condition-expression "GSI1PK = :e" \
  --expression-attribute-values "$(printf '{":e":{"S":"USER#%s@example.com"}}' "$USER_ID")"
call_check "query --index-name GSI2 (KEYS_ONLY, sparse): newest first, keys only" '
want = ["POST#2024-01-0%dT00:00:00Z" % i for i in (3, 2, 1)]
assert [i["GSI2SK"]["S"] for i in r["Items"]] == want, r["Items"]
assert all(set(i) == {"PK", "SK", "GSI2PK", "GSI2SK"} for i in r["Items"]), r["Items"]
' query --no-paginate --table-name "$GT" --index-name GSI2 --key-condition-expression "GSI2PK = :p" \
  --expression-attribute-values '{":p":{"S":"ALL_POSTS"}}' --no-scan-index-forward
call_check "query --index-name GSI2 --limit 2: LastEvaluatedKey = table key + index key" '
last = r["Items"][-1]
assert r["LastEvaluatedKey"] == {k: last[k] for k in ("PK", "SK", "GSI2PK", "GSI2SK")}, r
' query --no-paginate --table-name "$GT" --index-name GSI2 --key-condition-expression "GSI2PK = :p" \
  --expression-attribute-values '{":p":{"S":"ALL_POSTS"}}' --limit 2
expect_error "query --index-name GSI1 --consistent-read -> ValidationException" ValidationException \
  "Consistent reads are not supported on global secondary indexes" \
  query --no-paginate --table-name "$GT" --index-name GSI1 --key-condition-expression "GSI1PK = :p" \
  --expression-attribute-values '{":p":{"S":"POST#p1"}}' --consistent-read
expect_error "query --index-name of a missing index -> ValidationException" ValidationException \
  "The table does not have the specified index: GSI9" \
  query --no-paginate --table-name "$GT" --index-name GSI9 --key-condition-expression "GSI1PK = :p" \
  --expression-attribute-values '{":p":{"S":"POST#p1"}}'

# update-table: a new GSI on EntityType + SK, created online and backfilled.
# API reference, UpdateTable: "If you are adding a new global secondary index to the
# table, AttributeDefinitions must include the key element(s) of the new index" -
# both of them, even SK, which the table already defines.
BYTYPE='[{"Create":{"IndexName":"ByType","KeySchema":[{"AttributeName":"EntityType","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}}]'
expect_error "update-table Create without all the new index's keys in --attribute-definitions -> ValidationException" \
  ValidationException "" update-table --table-name "$GT" \
  --attribute-definitions '[{"AttributeName":"EntityType","AttributeType":"S"}]' --global-secondary-index-updates "$BYTYPE"
call_check "update-table --global-secondary-index-updates Create: index CREATING" '
g = {x["IndexName"]: x for x in r["TableDescription"]["GlobalSecondaryIndexes"]}
assert g["ByType"]["IndexStatus"] == "CREATING", g["ByType"]
' update-table --table-name "$GT" \
  --attribute-definitions '[{"AttributeName":"EntityType","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"}]' \
  --global-secondary-index-updates "$BYTYPE"
# wait_index NAME STATUS : until the index has STATUS (or is gone, for STATUS=GONE)
# and the table is ACTIVE; up to ~120s.
wait_index() {
  local i st
  for i in $(seq 1 600); do
    st=$(ddb describe-table --table-name "$GT" 2>/dev/null | "$PY" -c '
import json, sys
t = json.load(sys.stdin)["Table"]
g = {x["IndexName"]: x.get("IndexStatus") for x in t.get("GlobalSecondaryIndexes", [])}
print("%s/%s" % (g.get(sys.argv[1], "GONE"), t["TableStatus"]))' "$1")
    [ "$st" = "$2/ACTIVE" ] && return 0
    sleep 0.2
  done
  return 1
}
if wait_index ByType ACTIVE; then pass "new index becomes ACTIVE"; else fail "new index becomes ACTIVE" "not ACTIVE after 120s"; fi
call_check "query the new index: backfilled posts" '
assert [i["SK"]["S"] for i in r["Items"]] == ["POST#2024-01-0%dT00:00:00Z#p%d" % (i, i) for i in (1, 2, 3, 9)], r["Items"]
' query --no-paginate --table-name "$GT" --index-name ByType --key-condition-expression "EntityType = :t" \
  --expression-attribute-values '{":t":{"S":"Post"}}'
call_check "update-table --global-secondary-index-updates Delete" '
g = {x["IndexName"]: x for x in r["TableDescription"].get("GlobalSecondaryIndexes", [])}
assert "ByType" not in g or g["ByType"]["IndexStatus"] == "DELETING", g
' update-table --table-name "$GT" --global-secondary-index-updates '[{"Delete":{"IndexName":"ByType"}}]'
if wait_index ByType GONE; then pass "deleted index disappears"; else fail "deleted index disappears" "still described after 120s"; fi
call_check "delete-table (with indexes)" '
assert r["TableDescription"]["TableStatus"] == "DELETING", r["TableDescription"]["TableStatus"]
' delete-table --table-name "$GT"
if wait_gone "$GT"; then pass "index table is gone"; else fail "index table is gone"; fi

# ------------------------------------------------------------------ Transactions
# Seed 001 (shared/seeds/001_*.txt), "create username only if not taken
# (uniqueness via a separate item)": its transact-write-items command, run as the
# seed prints it. The only changes: --endpoint-url, and the seed's table "app"
# becomes this run's own table (created here, PK/SK strings as in the seed's
# single-table design), so parallel runs cannot collide.
AT="compat-cli-$RUN-app"
export AT
TABLES+=("$AT")
call "create-table for seed 001's app table" create-table --table-name "$AT" --key-schema "$KS_PK_SK" \
  --attribute-definitions "$AD_PK_SK" --billing-mode PAY_PER_REQUEST \
  && { if wait_active "$AT"; then pass "seed 001 app table becomes ACTIVE"; else fail "seed 001 app table becomes ACTIVE" "still not ACTIVE after 30s"; fi; }

SEED001_ITEMS='[
  {"Put": {"TableName": "app", "Item": {"PK": {"S": "USERNAME#asha"}, "SK": {"S": "USERNAME"}},
           "ConditionExpression": "attribute_not_exists(PK)"}},
  {"Put": {"TableName": "app", "Item": {"PK": {"S": "USER#42"}, "SK": {"S": "PROFILE"},
           "username": {"S": "asha"}},
           "ConditionExpression": "attribute_not_exists(PK)"}}
]'
SEED001_ITEMS=${SEED001_ITEMS//\"TableName\": \"app\"/\"TableName\": \"$AT\"}

# First run: both items are created; TransactWriteItems returns an empty body.
call_check "seed 001 transact-write-items (first run) succeeds" '
assert r == {}, r
' transact-write-items --transact-items "$SEED001_ITEMS"

# Second run: the username is taken and so is the profile. API reference,
# TransactionCanceledException: one reason per action, in request order; the
# message lists the codes: "Transaction cancelled, please refer cancellation
# reasons for specific reasons [ConditionalCheckFailed, ConditionalCheckFailed]".
expect_error "seed 001 transact-write-items (second run) -> TransactionCanceledException [ConditionalCheckFailed, ConditionalCheckFailed]" \
  TransactionCanceledException \
  "Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed, ConditionalCheckFailed]" \
  transact-write-items --transact-items "$SEED001_ITEMS"

# The same failure seen on the wire (--debug logs the response body): the
# CancellationReasons list itself.
aws dynamodb transact-write-items --transact-items "$SEED001_ITEMS" --endpoint-url "$EP" --debug \
  >/dev/null 2>"$TMP/txdebug"
OUT=$("$PY" - "$TMP/txdebug" <<'EOF'
import ast, json, re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
bodies = re.findall(r"Response body:\n(b'.*')", text)
print(ast.literal_eval(bodies[-1]).decode() if bodies else "{}")
EOF
)
check "seed 001 second run: CancellationReasons on the wire" '
assert r.get("__type", "").endswith("#TransactionCanceledException"), r
ccf = {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}
assert r["CancellationReasons"] == [ccf, ccf], r["CancellationReasons"]
'

call_check "transact-get-items of the two seed 001 items, in request order" '
assert r["Responses"] == [
    {"Item": {"PK": {"S": "USERNAME#asha"}, "SK": {"S": "USERNAME"}}},
    {"Item": {"PK": {"S": "USER#42"}, "SK": {"S": "PROFILE"}, "username": {"S": "asha"}}},
], r
' transact-get-items --transact-items "$(printf '[{"Get":{"TableName":"%s","Key":{"PK":{"S":"USERNAME#asha"},"SK":{"S":"USERNAME"}}}},{"Get":{"TableName":"%s","Key":{"PK":{"S":"USER#42"},"SK":{"S":"PROFILE"}}}}]' "$AT" "$AT")"

# A free username for a user who already has a profile: only the second action
# fails, so the reasons are [None, ConditionalCheckFailed] and nothing is written.
SEED001_OTHER=${SEED001_ITEMS//USERNAME#asha/USERNAME#asha2}
expect_error "transact-write-items, new username for an existing profile -> [None, ConditionalCheckFailed]" \
  TransactionCanceledException "specific reasons [None, ConditionalCheckFailed]" \
  transact-write-items --transact-items "$SEED001_OTHER"
call_check "transact-get-items: the cancelled transaction wrote nothing (missing item is {})" '
assert r["Responses"] == [{}, {"Item": {"PK": {"S": "USER#42"}, "SK": {"S": "PROFILE"}}}], r
' transact-get-items --transact-items "$(printf '[{"Get":{"TableName":"%s","Key":{"PK":{"S":"USERNAME#asha2"},"SK":{"S":"USERNAME"}}}},{"Get":{"TableName":"%s","Key":{"PK":{"S":"USER#42"},"SK":{"S":"PROFILE"}},"ProjectionExpression":"PK, SK"}}]' "$AT" "$AT")"
call_check "transact-get-items --return-consumed-capacity TOTAL: 2 RCU per item, one entry per table" '
# The missing item is charged too (developer guide, "Capacity management for transactions").
cc = r["ConsumedCapacity"]
assert isinstance(cc, list) and [(c["TableName"], c["CapacityUnits"]) for c in cc] == [(environ["AT"], 4.0)], r
' transact-get-items --return-consumed-capacity TOTAL --transact-items "$(printf '[{"Get":{"TableName":"%s","Key":{"PK":{"S":"USERNAME#asha"},"SK":{"S":"USERNAME"}}}},{"Get":{"TableName":"%s","Key":{"PK":{"S":"USERNAME#nobody"},"SK":{"S":"USERNAME"}}}}]' "$AT" "$AT")"
call_check "delete-table seed 001 app table" '
assert r["TableDescription"]["TableStatus"] == "DELETING", r
' delete-table --table-name "$AT"

# ------------------------------------------------------------------ Time to Live
# UpdateTimeToLive / DescribeTimeToLive (API reference); messages in
# docs/research-ttl.md.
call_check "describe-time-to-live of a new table: DISABLED" '
assert r == {"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}}, r
' describe-time-to-live --table-name "$T"
call_check "update-time-to-live enables TTL on expiresAt" '
assert r == {"TimeToLiveSpecification": {"AttributeName": "expiresAt", "Enabled": True}}, r
' update-time-to-live --table-name "$T" --time-to-live-specification "Enabled=true,AttributeName=expiresAt"
call_check "describe-time-to-live: ENABLED on expiresAt" '
assert r == {"TimeToLiveDescription": {"TimeToLiveStatus": "ENABLED", "AttributeName": "expiresAt"}}, r
' describe-time-to-live --table-name "$T"
expect_error "update-time-to-live twice -> ValidationException" ValidationException \
  "TimeToLive is already enabled" update-time-to-live --table-name "$T" --time-to-live-specification "Enabled=true,AttributeName=expiresAt"
call_check "update-time-to-live disables TTL" '
assert r["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": False}, r
' update-time-to-live --table-name "$T" --time-to-live-specification "Enabled=false,AttributeName=expiresAt"

# ------------------------------------------------------------------ Streams
# StreamSpecification through update-table, and the aws dynamodbstreams
# commands (same endpoint). Messages: docs/research-streams.md.
call_check "update-table enables a NEW_AND_OLD_IMAGES stream" '
d = r["TableDescription"]
assert d["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}, d
assert d["LatestStreamArn"].endswith(":table/" + environ["T"] + "/stream/" + d["LatestStreamLabel"]), d
' update-table --table-name "$T" --stream-specification StreamEnabled=true,StreamViewType=NEW_AND_OLD_IMAGES
expect_error "update-table enabling a second stream -> ValidationException" ValidationException \
  "Table already has an enabled stream: TableName: $T" update-table --table-name "$T" --stream-specification StreamEnabled=true,StreamViewType=KEYS_ONLY
STREAM_ARN=$(ddb describe-table --table-name "$T" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["Table"]["LatestStreamArn"])')
export STREAM_ARN
SKEY='{"PK":{"S":"STREAM#1"},"SK":{"S":"A"}}'
ddb put-item --table-name "$T" --item '{"PK":{"S":"STREAM#1"},"SK":{"S":"A"},"n":{"N":"1"}}' >/dev/null
ddb put-item --table-name "$T" --item '{"PK":{"S":"STREAM#1"},"SK":{"S":"A"},"n":{"N":"1"}}' >/dev/null
ddb update-item --table-name "$T" --key "$SKEY" --update-expression "SET n = n + :one" \
  --expression-attribute-values '{":one":{"N":"1"}}' >/dev/null
ddb delete-item --table-name "$T" --key "$SKEY" >/dev/null
SVC=dynamodbstreams call_check "dynamodbstreams list-streams --table-name" '
assert r["Streams"] == [{"StreamArn": environ["STREAM_ARN"], "TableName": environ["T"], "StreamLabel": environ["STREAM_ARN"].rsplit("/", 1)[1]}], r
' list-streams --table-name "$T"
SVC=dynamodbstreams call_check "dynamodbstreams describe-stream" '
d = r["StreamDescription"]
assert d["StreamStatus"] == "ENABLED" and d["StreamViewType"] == "NEW_AND_OLD_IMAGES" and d["TableName"] == environ["T"], d
assert d["KeySchema"] == [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}], d
assert d["Shards"] and all(re.match(r"^shardId-\d{20}-[0-9a-f]{8}$", s["ShardId"]) for s in d["Shards"]), d["Shards"]
' describe-stream --stream-arn "$STREAM_ARN"
# Every shard in listed (creation) order, parents before children.
: >"$TMP/records"
for shard in $(printf '%s' "$OUT" | "$PY" -c 'import json,sys; print(" ".join(s["ShardId"] for s in json.load(sys.stdin)["StreamDescription"]["Shards"]))'); do
  it=$(SVC=dynamodbstreams ddb get-shard-iterator --stream-arn "$STREAM_ARN" --shard-id "$shard" --shard-iterator-type TRIM_HORIZON |
    "$PY" -c 'import json,sys; print(json.load(sys.stdin)["ShardIterator"])')
  SVC=dynamodbstreams ddb get-records --shard-iterator "$it" >>"$TMP/records"
done
OUT=$("$PY" -c 'import json,sys; dec=json.JSONDecoder(); s=open(sys.argv[1]).read(); i=0; recs=[]
while i < len(s):
    if s[i].isspace(): i += 1; continue
    o, i = dec.raw_decode(s, i); recs += o["Records"]
print(json.dumps(recs))' "$TMP/records")
check "dynamodbstreams get-records: INSERT, MODIFY, REMOVE with their images (no record for the unchanged put)" '
mine = [x for x in r if x["dynamodb"]["Keys"]["PK"]["S"] == "STREAM#1"]
assert [x["eventName"] for x in mine] == ["INSERT", "MODIFY", "REMOVE"], mine
ins, mod, rem = mine
assert ins["dynamodb"]["NewImage"]["n"] == {"N": "1"} and "OldImage" not in ins["dynamodb"], ins
assert mod["dynamodb"]["OldImage"]["n"] == {"N": "1"} and mod["dynamodb"]["NewImage"]["n"] == {"N": "2"}, mod
assert rem["dynamodb"]["OldImage"]["n"] == {"N": "2"} and "NewImage" not in rem["dynamodb"], rem
assert all(x["eventSource"] == "aws:dynamodb" and x["eventVersion"] == "1.1" for x in mine), mine
assert int(ins["dynamodb"]["SequenceNumber"]) < int(mod["dynamodb"]["SequenceNumber"]) < int(rem["dynamodb"]["SequenceNumber"]), mine
'
SVC=dynamodbstreams expect_error "dynamodbstreams get-records with a bad iterator -> ValidationException" ValidationException \
  "Invalid ShardIterator" get-records --shard-iterator nonsense
# The live stream is a resource of its own for tags (docs/research-tags.md §2).
ddb tag-resource --resource-arn "$STREAM_ARN" --tags Key=pipeline,Value=orders >/dev/null 2>&1
call_check "tag-resource on the stream ARN: the stream's own tags" '
assert r == {"Tags": [{"Key": "pipeline", "Value": "orders"}]}, r
' list-tags-of-resource --resource-arn "$STREAM_ARN"
call_check "update-table disables the stream: StreamSpecification gone, LatestStreamArn kept" '
d = r["TableDescription"]
assert "StreamSpecification" not in d and d["LatestStreamArn"] == environ["STREAM_ARN"], d
' update-table --table-name "$T" --stream-specification StreamEnabled=false
expect_error "list-tags-of-resource on a disabled stream -> ResourceNotFoundException" ResourceNotFoundException \
  "Requested resource not found: ResourceArn: $STREAM_ARN not found" list-tags-of-resource --resource-arn "$STREAM_ARN"

# ------------------------------------------------------------------- Tags
# tag-resource, list-tags-of-resource, untag-resource on the table's ARN.
# Messages: docs/research-tags.md (live DynamoDB).
ARN=$(ddb describe-table --table-name "$T" 2>/dev/null | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["Table"]["TableArn"])')
export ARN
if ddb tag-resource --resource-arn "$ARN" --tags Key=team,Value=core Key=env,Value=dev >/dev/null 2>"$TMP/err"; then
  pass "tag-resource"
else
  fail "tag-resource" "$(cat "$TMP/err")"
fi
call_check "list-tags-of-resource: both tags, no NextToken" '
assert r == {"Tags": [{"Key": "team", "Value": "core"}, {"Key": "env", "Value": "dev"}]}, r
' list-tags-of-resource --resource-arn "$ARN"
ddb untag-resource --resource-arn "$ARN" --tag-keys team absent >/dev/null 2>&1
call_check "untag-resource removes team (and ignores a key the table lacks)" '
assert r == {"Tags": [{"Key": "env", "Value": "dev"}]}, r
' list-tags-of-resource --resource-arn "$ARN"
expect_error "tag-resource with an aws: key -> ValidationException" ValidationException \
  "Tag Key cannot be prefixed with aws:, Key: aws:x" tag-resource --resource-arn "$ARN" --tags Key=aws:x,Value=y
expect_error "list-tags-of-resource on a table name -> ValidationException" ValidationException \
  "ARNs must start with 'arn:': $T" list-tags-of-resource --resource-arn "$T"
expect_error "list-tags-of-resource on a missing table -> ResourceNotFoundException" ResourceNotFoundException \
  "Requested resource not found: ResourceArn: ${ARN}-nope not found" list-tags-of-resource --resource-arn "${ARN}-nope"

# --------------------------------------------------------- Control plane
# What Terraform and GUIs call after CreateTable: limits, endpoints,
# continuous backups, Kinesis destinations. docs/research-control-plane.md.
call_check "describe-limits: DynamoDB's default quotas" '
assert r == {"AccountMaxReadCapacityUnits": 80000, "AccountMaxWriteCapacityUnits": 80000,
             "TableMaxReadCapacityUnits": 40000, "TableMaxWriteCapacityUnits": 40000}, r
' describe-limits
call_check "describe-endpoints: this server, cached a day" '
from urllib.parse import urlparse
assert r == {"Endpoints": [{"Address": urlparse(environ["EP"]).netloc, "CachePeriodInMinutes": 1440}]}, r
' describe-endpoints
call_check "describe-continuous-backups: PITR off" '
assert r == {"ContinuousBackupsDescription": {"ContinuousBackupsStatus": "ENABLED",
             "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"}}}, r
' describe-continuous-backups --table-name "$T"
call_check "update-continuous-backups enables PITR: 35 days" '
d = r["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
assert d["PointInTimeRecoveryStatus"] == "ENABLED" and d["RecoveryPeriodInDays"] == 35, d
assert d["EarliestRestorableDateTime"] <= d["LatestRestorableDateTime"], d
' update-continuous-backups --table-name "$T" --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true
expect_error "update-continuous-backups disabling with a period -> ValidationException" ValidationException \
  "Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery." \
  update-continuous-backups --table-name "$T" --point-in-time-recovery-specification PointInTimeRecoveryEnabled=false,RecoveryPeriodInDays=7
expect_error "describe-continuous-backups on a missing table -> TableNotFoundException" TableNotFoundException \
  "Table not found: $T-nope" describe-continuous-backups --table-name "$T-nope"
call_check "describe-kinesis-streaming-destination: none" '
assert r == {"TableName": environ["T"], "KinesisDataStreamDestinations": []}, r
' describe-kinesis-streaming-destination --table-name "$T"
expect_error "describe-table-replica-auto-scaling on a regional table -> ResourceNotFoundException" ResourceNotFoundException \
  "Global table with name: '$T' does not exist." describe-table-replica-auto-scaling --table-name "$T"

call_check "update-table --deletion-protection-enabled: applied at once, ACTIVE" '
d = r["TableDescription"]
assert d["DeletionProtectionEnabled"] is True and d["TableStatus"] == "ACTIVE", d
' update-table --table-name "$T" --deletion-protection-enabled
expect_error "delete-table of a protected table -> ValidationException" ValidationException \
  "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first." delete-table --table-name "$T"
call_check "update-table --no-deletion-protection-enabled" '
assert r["TableDescription"]["DeletionProtectionEnabled"] is False, r
' update-table --table-name "$T" --no-deletion-protection-enabled

call_check "update-table --on-demand-throughput: caps merged, ACTIVE" '
d = r["TableDescription"]
assert d["TableStatus"] == "ACTIVE" and d["OnDemandThroughput"]["MaxReadRequestUnits"] == 2000, d
' update-table --table-name "$T" --on-demand-throughput MaxReadRequestUnits=2000
expect_error "update-table --on-demand-throughput 0 -> ValidationException" ValidationException \
  "Requested MaxWriteRequestUnits for OnDemandThroughput for table is outside of valid range" \
  update-table --table-name "$T" --on-demand-throughput MaxWriteRequestUnits=0
ddb update-table --table-name "$T" --on-demand-throughput MaxReadRequestUnits=-1 >/dev/null 2>&1

call_check "update-table --billing-mode PROVISIONED: switched, UPDATING" '
d = r["TableDescription"]
assert d["TableStatus"] == "UPDATING" and d["BillingModeSummary"]["BillingMode"] == "PROVISIONED", d
' update-table --table-name "$T" --billing-mode PROVISIONED --provisioned-throughput ReadCapacityUnits=5,WriteCapacityUnits=5
expect_error "update-table with the same throughput -> ValidationException" ValidationException \
  "The provisioned throughput for the table will not change. The requested value equals the current value." \
  update-table --table-name "$T" --provisioned-throughput ReadCapacityUnits=5,WriteCapacityUnits=5
call_check "update-table lowering the throughput: the response shows the old units and no decrease yet" '
pt = r["TableDescription"]["ProvisionedThroughput"]
assert pt["ReadCapacityUnits"] == 5 and pt["NumberOfDecreasesToday"] == 0 and "LastDecreaseDateTime" in pt, pt
' update-table --table-name "$T" --provisioned-throughput ReadCapacityUnits=4,WriteCapacityUnits=5
call_check "describe-table: NumberOfDecreasesToday 1 and LastDecreaseDateTime" '
pt = r["Table"]["ProvisionedThroughput"]
assert pt["ReadCapacityUnits"] == 4 and pt["NumberOfDecreasesToday"] == 1 and "LastDecreaseDateTime" in pt, pt
' describe-table --table-name "$T"
call_check "update-table --billing-mode PAY_PER_REQUEST: back to on-demand" '
assert r["TableDescription"]["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST", r
' update-table --table-name "$T" --billing-mode PAY_PER_REQUEST

call_check "update-table --table-class STANDARD_INFREQUENT_ACCESS: UPDATING, then the new class" '
assert r["TableDescription"]["TableStatus"] == "UPDATING", r
' update-table --table-name "$T" --table-class STANDARD_INFREQUENT_ACCESS
call_check "describe-table: TableClassSummary STANDARD_INFREQUENT_ACCESS" '
assert r["Table"]["TableClassSummary"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS", r["Table"].get("TableClassSummary")
' describe-table --table-name "$T"

# ------------------------------------------------------ Contributor Insights
# update/describe/list-contributor-insights, then `dynago insights` naming
# the hot partition key. States, rule names and messages:
# docs/research-contributor-insights.md.
call_check "update-contributor-insights ENABLE -> ENABLING, mode ACCESSED_AND_THROTTLED_KEYS" '
assert r == {"TableName": environ["T"], "ContributorInsightsStatus": "ENABLING", "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"}, r
' update-contributor-insights --table-name "$T" --contributor-insights-action ENABLE
call_check "describe-contributor-insights: ENABLED with the PKC, PKT, SKC, SKT rules" '
assert r["ContributorInsightsStatus"] == "ENABLED", r
rules = r["ContributorInsightsRuleList"]
assert [x.split("-")[1] for x in rules] == ["PKC", "PKT", "SKC", "SKT"], rules
assert all(x.startswith("DynamoDBContributorInsights-") and environ["T"] in x for x in rules), rules
' describe-contributor-insights --table-name "$T"
call_check "list-contributor-insights --table-name: the table, ENABLED" '
assert r["ContributorInsightsSummaries"] == [{"TableName": environ["T"], "ContributorInsightsStatus": "ENABLED", "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"}], r
' list-contributor-insights --table-name "$T"
expect_error "describe-contributor-insights on a missing index -> ResourceNotFoundException" ResourceNotFoundException \
  "Requested resource not found: Index: nope not found for table: $T" describe-contributor-insights --table-name "$T" --index-name nope
expect_error "update-contributor-insights with a bad action -> ValidationException" ValidationException \
  "Member must satisfy enum value set: [ENABLE, DISABLE]" update-contributor-insights --table-name "$T" --contributor-insights-action START
for i in 1 2 3 4 5; do
  ddb put-item --table-name "$T" --item "{\"PK\":{\"S\":\"HOT\"},\"SK\":{\"S\":\"$i\"}}" >/dev/null 2>&1
done
if [ -z "${DYNAGO_BIN:-}" ]; then
  DYNAGO_BIN="$TMP/dynago"
  (cd "$HERE/../.." && go build -o "$DYNAGO_BIN" ./cmd/dynago)
fi
if OUT=$("$DYNAGO_BIN" insights "$T" --endpoint "$EP" --format json 2>"$TMP/err"); then
  check "dynago insights --format json: HOT is the most accessed partition key, 5 write units" '
t = r["keySpaces"][0]
assert r["table"] == environ["T"] and t["contributorInsights"] == "ENABLED", r
top = t["mostAccessedPartitionKeys"][0]
assert top["key"] == {"PK": {"S": "HOT"}}, top
assert abs(top["writeUnitsPerSecond"] * r["windowSeconds"] - 5) < 1e-6, (top, r["windowSeconds"])
'
else
  fail "dynago insights --format json" "$(cat "$TMP/err")"
fi
if OUT=$("$DYNAGO_BIN" insights "$T" --endpoint "$EP" 2>"$TMP/err") && [[ "$OUT" == *'most accessed partition keys:'*'PK="HOT"'* ]]; then
  pass "dynago insights: text names PK=\"HOT\""
else
  fail "dynago insights: text names PK=\"HOT\"" "$OUT $(cat "$TMP/err")"
fi
call_check "update-contributor-insights DISABLE -> DISABLING" '
assert r["ContributorInsightsStatus"] == "DISABLING", r
' update-contributor-insights --table-name "$T" --contributor-insights-action DISABLE

# ------------------------------------------------------------------ Fidelity, second pass (issue 19)
# Sources in each check's name; details in docs/dynamodb-behaviour.md §9a.
F="compat-cli-fid-$RUN"
TABLES+=("$F")
call "create-table $F" create-table --table-name "$F" --billing-mode PAY_PER_REQUEST \
  --attribute-definitions AttributeName=pk,AttributeType=S AttributeName=h,AttributeType=S \
    AttributeName=a,AttributeType=S AttributeName=b,AttributeType=S AttributeName=c,AttributeType=S \
  --key-schema AttributeName=pk,KeyType=HASH \
  --global-secondary-indexes '[{"IndexName":"mkey","KeySchema":[{"AttributeName":"h","KeyType":"HASH"},{"AttributeName":"a","KeyType":"RANGE"},{"AttributeName":"b","KeyType":"RANGE"},{"AttributeName":"c","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}}]'
wait_active "$F"
call_check "update-item AttributeUpdates without Action is PUT (API reference AttributeValueUpdate)" '
assert r["Attributes"]["b"] == {"S": "x"}, r
' update-item --table-name "$F" --key '{"pk":{"S":"k1"}}' --attribute-updates '{"b":{"Value":{"S":"x"}}}' --return-values ALL_NEW
call_check "update-item REMOVE x.y on a missing item writes nothing (Alternator test_update_expression.py)" '
assert "Attributes" not in r, r
' update-item --table-name "$F" --key '{"pk":{"S":"none"}}' --update-expression 'REMOVE x.y' --return-values ALL_NEW
call_check "get-item after the REMOVE-only update: no item" '
assert "Item" not in r, r
' get-item --table-name "$F" --key '{"pk":{"S":"none"}}'
call_check "scan with legacy --scan-filter and --return-consumed-capacity: one rounding (developer guide, Scan)" '
assert r["ConsumedCapacity"]["CapacityUnits"] == 0.5, r["ConsumedCapacity"]
' scan --table-name "$F" --return-consumed-capacity TOTAL --scan-filter '{"b":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"nothing"}]}}'
call_check "query --key-conditions with --filter-expression is accepted (developer guide, KeyConditions)" '
assert r["Count"] == 1 and r["Items"] == [{"b": {"S": "x"}}], r
' query --table-name "$F" --key-conditions '{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"k1"}]}}' \
  --filter-expression 'b = :x' --projection-expression b --expression-attribute-values '{":x":{"S":"x"}}'
expect_error "query --key-conditions with --key-condition-expression conflicts" ValidationException \
  "Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}" \
  query --table-name "$F" --key-conditions '{"pk":{"ComparisonOperator":"EQ","AttributeValueList":[{"S":"k1"}]}}' \
  --key-condition-expression 'pk = :p' --expression-attribute-values '{":p":{"S":"k1"}}'
expect_error "multi-attribute GSI: a gap in the RANGE attributes (conformance multiAttributeGsiKey.test.ts)" ValidationException \
  "RANGE key attributes b must have equality conditions specified in the query because a condition is present on key attribute c" \
  query --table-name "$F" --index-name mkey --key-condition-expression 'h = :v AND a = :v AND c = :v' --expression-attribute-values '{":v":{"S":"x"}}'
expect_error "projection 33 levels deep (Alternator test_projection_expression.py)" ValidationException \
  "The document path has too many nesting levels; nesting levels: 33" \
  get-item --table-name "$F" --key '{"pk":{"S":"k1"}}' --projection-expression "a$(printf '.b%.0s' $(seq 32))"
expect_error "SET list_append(list_append(...)) (Alternator test_update_expression.py)" ValidationException \
  "The function is not allowed to be used this way in an expression; function: list_append" \
  update-item --table-name "$F" --key '{"pk":{"S":"k1"}}' --update-expression 'SET l = list_append(list_append(:l, :l), :l)' --expression-attribute-values '{":l":{"L":[]}}'
expect_error "SET n = 1e50 + 1: DynamoDB's overflow (Alternator test_number.py)" ValidationException \
  "Number overflow. Attempting to store a number with magnitude larger than supported range" \
  update-item --table-name "$F" --key '{"pk":{"S":"k1"}}' --update-expression 'SET n = :a + :b' --expression-attribute-values '{":a":{"N":"1e50"},":b":{"N":"1"}}'
expect_error "get-item projection into the partition key (dynalite getItem.js)" ValidationException \
  "Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: Key: pk" \
  get-item --table-name "$F" --key '{"pk":{"S":"k1"}}' --projection-expression 'pk.x'
call "put-item a string set written out of order" put-item --table-name "$F" --item '{"pk":{"S":"set"},"ss":{"SS":["b","a",""]},"ns":{"NS":["10","9","-1"]}}'
call_check "get-item: sets come back sorted (conformance updateItem/basic.test.ts)" '
assert r["Item"]["ss"]["SS"] == ["", "a", "b"] and r["Item"]["ns"]["NS"] == ["-1", "9", "10"], r["Item"]
' get-item --table-name "$F" --key '{"pk":{"S":"set"}}'
expect_error "list-tags-of-resource of another account's ARN (docs/research-tags.md)" AccessDeniedException "Access is denied" \
  list-tags-of-resource --resource-arn arn:aws:dynamodb:us-east-1:111111111111:table/x
expect_error "create-backup names the operation dynago lacks (docs/operations.md)" UnknownOperationException \
  "CreateBackup is a DynamoDB operation (on-demand backups) that dynago does not support yet" \
  create-backup --table-name "$F" --backup-name bkp
call_check "execute-statement reads an item by its key (developer guide ql-reference.select.html)" '
assert r["Items"] == [{"pk": {"S": "set"}, "ss": {"SS": ["", "a", "b"]}, "ns": {"NS": ["-1", "9", "10"]}}], r
' execute-statement --statement "SELECT * FROM \"$F\" WHERE pk = 'set'"
call_check "delete-table: DynamoDB's DELETING description (Alternator test_table.py)" '
d = r["TableDescription"]
assert d["TableStatus"] == "DELETING" and d["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST", d
for m in ("KeySchema", "AttributeDefinitions", "CreationDateTime", "GlobalSecondaryIndexes"):
    assert m not in d, (m, d)
' delete-table --table-name "$F"

# ------------------------------------------------------------------ PartiQL
# execute-statement, batch-execute-statement and execute-transaction on movies
# from ../shared/data/moviedata.json (year, title). Sources: the developer
# guide's PartiQL pages (ql-reference.select.html, ql-reference.insert.html,
# ql-reference.multiplestatements.batching.html,
# ql-reference.multiplestatements.transactions.html), the API references of the
# three operations, and the captures in ../shared/conformance/tests/tier2/partiql.
MV="compat-cli-$RUN-movies"
TABLES+=("$MV")
call "create-table $MV" create-table --table-name "$MV" \
  --key-schema '[{"AttributeName":"year","KeyType":"HASH"},{"AttributeName":"title","KeyType":"RANGE"}]' \
  --attribute-definitions '[{"AttributeName":"year","AttributeType":"N"},{"AttributeName":"title","AttributeType":"S"}]' \
  --billing-mode PAY_PER_REQUEST && wait_active "$MV"
MOVIES_JSON=${MOVIES_JSON:-$HERE/../../../shared/data/moviedata.json}
if [ -f "$MOVIES_JSON" ]; then
  "$PY" - "$MOVIES_JSON" "$MV" >"$TMP/movies-1985.json" <<'EOF'
import json, sys
movies = [m for m in json.load(open(sys.argv[1])) if m["year"] == 1985][:25]
print(json.dumps({sys.argv[2]: [{"PutRequest": {"Item": {"year": {"N": str(m["year"])}, "title": {"S": m["title"]}}}}
                                 for m in movies]}))
EOF
else
  # Outside the project's work tree: three of the 1985 movies, by hand.
  printf '{"%s":[%s]}' "$MV" '{"PutRequest":{"Item":{"year":{"N":"1985"},"title":{"S":"Back to the Future"}}}},{"PutRequest":{"Item":{"year":{"N":"1985"},"title":{"S":"Brazil"}}}},{"PutRequest":{"Item":{"year":{"N":"1985"},"title":{"S":"The Breakfast Club"}}}}' >"$TMP/movies-1985.json"
fi
call "batch-write-item the 1985 movies" batch-write-item --request-items "file://$TMP/movies-1985.json"
call "query: 1985 titles starting with B" query --table-name "$MV" --key-condition-expression '#y = :y AND begins_with(title, :b)' \
  --expression-attribute-names '{"#y":"year"}' --expression-attribute-values '{":y":{"N":"1985"},":b":{"S":"B"}}' \
  && printf '%s' "$OUT" >"$TMP/pq-want.json"
export PQ_WANT="$TMP/pq-want.json"
call_check "execute-statement: SELECT by year and title prefix answers the Query's items (the issue's new-user statement)" '
want = json.load(open(environ["PQ_WANT"]))["Items"]
assert len(want) >= 2, want
assert r["Items"] == want, (r["Items"], want)
' execute-statement --statement "SELECT * FROM \"$MV\" WHERE \"year\" = 1985 AND begins_with(\"title\", 'B')"
call_check "execute-statement: parameters and a projection" '
assert r["Items"] == [{"title": {"S": "Back to the Future"}}], r
' execute-statement --statement "SELECT title FROM \"$MV\" WHERE \"year\" = ? AND title = ?" \
  --parameters '[{"N":"1985"},{"S":"Back to the Future"}]'
call "execute-statement: INSERT" execute-statement --statement "INSERT INTO \"$MV\" VALUE {'year': 1985, 'title': 'A New Film', 'rating': 7.5}"
expect_error "execute-statement: a second INSERT of the key (conformance executeStatement.test.ts)" DuplicateItemException "" \
  execute-statement --statement "INSERT INTO \"$MV\" VALUE {'year': 1985, 'title': 'A New Film'}"
call_check "execute-statement: UPDATE ... RETURNING MODIFIED NEW *" '
assert r["Items"] == [{"rating": {"N": "8"}}], r
' execute-statement --statement "UPDATE \"$MV\" SET rating = 8 WHERE \"year\" = 1985 AND title = 'A New Film' RETURNING MODIFIED NEW *"
expect_error "execute-statement: UPDATE of an absent movie is not an upsert (conformance fromFirstUpdate.test.ts)" ConditionalCheckFailedException "" \
  execute-statement --statement "UPDATE \"$MV\" SET rating = 1 WHERE \"year\" = 1985 AND title = 'No Such Film'"
printf '[{"Statement":"SELECT rating FROM \\"%s\\" WHERE \\"year\\" = 1985 AND title = ?","Parameters":[{"S":"A New Film"}]},{"Statement":"SELECT * FROM \\"%s-nope\\" WHERE \\"year\\" = 1985 AND title = ?","Parameters":[{"S":"x"}]}]' "$MV" "$MV" >"$TMP/pq-batch.json"
call_check "batch-execute-statement: an Item and a per-statement ResourceNotFound (conformance batchExecuteStatement.test.ts)" '
rs = r["Responses"]
assert len(rs) == 2 and rs[0]["Item"] == {"rating": {"N": "8"}}, rs
assert rs[1]["Error"]["Code"] == "ResourceNotFound", rs
' batch-execute-statement --statements "file://$TMP/pq-batch.json"
printf '[{"Statement":"DELETE FROM \\"%s\\" WHERE \\"year\\" = 1985 AND title = ?","Parameters":[{"S":"A New Film"}]},{"Statement":"UPDATE \\"%s\\" SET rating = 1 WHERE \\"year\\" = 1985 AND title = ?","Parameters":[{"S":"No Such Film"}]}]' "$MV" "$MV" >"$TMP/pq-tx.json"
expect_error "execute-transaction: cancelled as a whole" TransactionCanceledException "ConditionalCheckFailed" \
  execute-transaction --transact-statements "file://$TMP/pq-tx.json"
call_check "execute-transaction: the cancelled DELETE did not happen" '
assert len(r["Items"]) == 1, r
' execute-statement --statement "SELECT title FROM \"$MV\" WHERE \"year\" = 1985 AND title = 'A New Film'"

# ------------------------------------------------------------------ DeleteTable
call_check "delete-table" '
assert r["TableDescription"]["TableName"] == environ["T"]
assert r["TableDescription"]["TableStatus"] == "DELETING", r["TableDescription"]["TableStatus"]
' delete-table --table-name "$T"
if wait_gone "$T"; then pass "table is gone after delete-table"; else fail "table is gone after delete-table"; fi
expect_error "get-item on a deleted table -> ResourceNotFoundException" ResourceNotFoundException \
  "Requested resource not found" get-item --table-name "$T" --key "$KEY_PROFILE"
expect_error "delete-table missing -> ResourceNotFoundException" ResourceNotFoundException \
  "Requested resource not found" delete-table --table-name "$T"

echo
if [ "$FAIL" -gt 0 ]; then
  echo "# failed checks:"
  printf '#   %s\n' "${FAILED[@]}"
fi
echo "cli: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
