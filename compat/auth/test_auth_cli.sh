#!/usr/bin/env bash
# "dynago serve --credentials FILE" over TLS through the unmodified AWS CLI
# (v1 or v2). compat/auth/run.sh starts the server and runs this with
#   DYNAGO_ENDPOINT=https://127.0.0.1:PORT DYNAGO_AUTH_CA=cert.pem DYNAGO_AUTH_CREDENTIALS=FILE
# (the credentials file the server reads, with profiles default and ci).
# Prints "ok"/"FAIL" per check and a closing "auth-cli: N passed, N failed";
# exits non-zero if any check failed.
#
# Messages (internal/auth/SOURCES.md, table "Messages"):
#   row 11 UnrecognizedClientException "The security token included in the
#     request is invalid." (dynalite index.js; DynamoDB Scan quoted in
#     yegor256/s3auth#237 and edasque/DynamoDBtoCSV#36)
#   row 12 InvalidSignatureException "The request signature we calculated
#     does not match ..." (DynamoDB quoted in boto/boto#1552,
#     awslabs/dynamodb-cross-region-library#34; dynalite index.js)
# The CLI prints a service error as "An error occurred (CODE) when calling
# the OP operation: MESSAGE" on stderr.
set -u -o pipefail

for v in DYNAGO_ENDPOINT DYNAGO_AUTH_CA DYNAGO_AUTH_CREDENTIALS; do
  if [ -z "${!v:-}" ]; then
    echo "$v is not set: run compat/auth/run.sh" >&2
    exit 2
  fi
done
EP=$DYNAGO_ENDPOINT CA=$DYNAGO_AUTH_CA CREDS=$DYNAGO_AUTH_CREDENTIALS
command -v aws >/dev/null || { echo "aws CLI not found" >&2; exit 2; }
if ! python3 - "$EP" <<'EOF'
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

# The keys of a profile of the credentials file, read as botocore reads it.
key_of() {
  python3 -c 'import configparser, sys
c = configparser.RawConfigParser(); c.read(sys.argv[1])
print(c[sys.argv[2]][sys.argv[3]])' "$CREDS" "$1" "$2"
}
CI_ID=$(key_of ci aws_access_key_id) || exit 2

# Never a developer's AWS configuration: only the suite's credentials file,
# and credentials from the environment only where a check sets them.
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_CA_BUNDLE
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=$CREDS
export AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true AWS_PAGER=""
unset AWS_MAX_ATTEMPTS AWS_RETRY_MODE
# The calls that must succeed make one attempt, so that a 5xx of the server
# surfaces. Those that must fail run with the CLI's own retry settings: they
# make one attempt too (these errors are not retried), and print the line a
# user sees; with AWS_MAX_ATTEMPTS=1 in standard mode the CLI would add
# " (reached max retries: 0)" after the operation's name.
ONE_ATTEMPT=(env AWS_MAX_ATTEMPTS=1 AWS_RETRY_MODE=standard)

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PASS=0
FAIL=0
FAILED=()
pass() { PASS=$((PASS + 1)); echo "ok   - $1"; }
fail() {
  FAIL=$((FAIL + 1)); FAILED+=("$1")
  echo "FAIL - $1"
  if [ -n "${2:-}" ]; then printf '%s\n' "$2" | sed 's/^/       /'; fi
}

# works NAME ARGS... : `aws ARGS --endpoint-url EP --output json` succeeds and
# prints JSON with the member the operation returns ($MEMBER).
works() {
  local name=$1; shift
  local out
  if out=$("${ONE_ATTEMPT[@]}" aws "$@" --endpoint-url "$EP" --output json 2>"$TMP/err") &&
    printf '%s' "$out" | python3 -c 'import json, sys; assert sys.argv[1] in json.load(sys.stdin)' "$MEMBER" 2>/dev/null; then
    pass "$name"
  else
    fail "$name" "$(cat "$TMP/err") ${out:0:300}"
  fi
}

# refused NAME WANT ARGS... : the call fails, and its stderr, stripped of
# surrounding blank lines, starts with WANT (is WANT when EXACT=1). AWS_*
# variables set before it reach the CLI.
refused() {
  local name=$1 want=$2; shift 2
  local out err
  if out=$(aws "$@" --endpoint-url "$EP" --output json 2>"$TMP/err"); then
    fail "$name" "the call succeeded: ${out:0:300}"
    return
  fi
  err=$(sed -e '/./,$!d' "$TMP/err")   # leading blank lines dropped; $( ) drops trailing ones
  if [ "${EXACT:-0}" = 1 ] && [ "$err" = "$want" ]; then
    pass "$name"
  elif [ "${EXACT:-0}" != 1 ] && [[ "$err" == "$want"* ]]; then
    pass "$name"
  else
    fail "$name" "want: $want
got:  $err"
  fi
}

echo "# AWS CLI auth checks against $EP ($(aws --version 2>&1))"

MEMBER=TableNames works "list-tables with --profile ci and --ca-bundle" \
  --profile ci --ca-bundle "$CA" dynamodb list-tables
MEMBER=TableNames AWS_CA_BUNDLE=$CA works "list-tables with the default profile and AWS_CA_BUNDLE" \
  dynamodb list-tables
MEMBER=Streams works "dynamodbstreams list-streams with --profile ci (Streams sign as dynamodb)" \
  --profile ci --ca-bundle "$CA" dynamodbstreams list-streams

# SOURCES.md row 11: an access key the server does not know.
EXACT=1 AWS_ACCESS_KEY_ID=AKIDDYNAGOUNKNOWN AWS_SECRET_ACCESS_KEY=secret-two \
  refused "unknown access key -> UnrecognizedClientException (SOURCES.md row 11)" \
  "An error occurred (UnrecognizedClientException) when calling the ListTables operation: The security token included in the request is invalid." \
  --ca-bundle "$CA" dynamodb list-tables
# SOURCES.md row 12: the ci key with another secret. The message goes on with
# the canonical request and the string to sign the server computed.
AWS_ACCESS_KEY_ID=$CI_ID AWS_SECRET_ACCESS_KEY=not-the-secret \
  refused "wrong secret -> InvalidSignatureException (SOURCES.md row 12)" \
  "An error occurred (InvalidSignatureException) when calling the ListTables operation: The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.

The Canonical String for this request should have been" \
  --ca-bundle "$CA" dynamodb list-tables
AWS_ACCESS_KEY_ID=$CI_ID AWS_SECRET_ACCESS_KEY=not-the-secret \
  refused "dynamodbstreams list-streams, wrong secret -> InvalidSignatureException (SOURCES.md row 12)" \
  "An error occurred (InvalidSignatureException) when calling the ListStreams operation: The request signature we calculated does not match the signature you provided." \
  --ca-bundle "$CA" dynamodbstreams list-streams
# The certificate is not trusted without --ca-bundle: verification is on
# ("self-signed certificate" in OpenSSL 3, "self signed" before).
# One attempt: by default the CLI retries this error, with backoff (26 s with CLI v1).
AWS_MAX_ATTEMPTS=1 refused "no --ca-bundle: the self-signed certificate is refused" \
  "SSL validation failed for $EP/ [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self" \
  --profile ci dynamodb list-tables

echo
if [ "$FAIL" -gt 0 ]; then
  echo "# failed checks:"
  printf '#   %s\n' "${FAILED[@]}"
fi
echo "auth-cli: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
