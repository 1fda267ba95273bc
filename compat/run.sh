#!/usr/bin/env bash
# Runs the DynamoDB compatibility suites against a running endpoint:
#
#   DYNAGO_ENDPOINT=http://127.0.0.1:8000 compat/run.sh [cli] [boto3] [js] [admin] [console]
#
# With no suite names, all five run. console (dynago's web console in headless
# Chromium, compat/console) starts servers of its own from DYNAGO_BIN, as admin does;
# its screenshots go to DYNAGO_ARTIFACTS/console. admin (dynamodb-admin in headless
# Chromium) talks only to dynago servers of its own (default flags, and
# --accept-string-numbers), started from DYNAGO_BIN, a built dynago, and needs Chromium (Debian's chromium, or CHROMIUM=path);
# its screenshots go to DYNAGO_ARTIFACTS/admin (default: artifacts/admin). By default they run in parallel (they
# only use their own uniquely named tables) and each suite's output is printed
# when it finishes; COMPAT_SERIAL=1 runs them one after another, streaming.
# COMPAT_LOG_DIR=dir keeps the per-suite logs there. COMPAT_SUITE_TIMEOUT
# (seconds, default 600: the CLI suite takes about 2.5 min on a busy 2-core machine) bounds each suite.
# auth-cli, auth-boto3 and auth-js (never run by default) want a server started
# with --credentials and TLS: compat/auth/run.sh starts one and runs them.
# Exits non-zero if any suite fails; the last line is
#   "compat: N passed, N failed"  (checks/tests summed over the suites).
set -u -o pipefail

COMPAT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$COMPAT")

if [ -z "${DYNAGO_ENDPOINT:-}" ]; then
  echo "DYNAGO_ENDPOINT is not set (e.g. DYNAGO_ENDPOINT=http://127.0.0.1:8000 $0)" >&2
  exit 2
fi
export DYNAGO_ENDPOINT

# Dummy credentials for every suite; never a real AWS account.
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN
export AWS_ACCESS_KEY_ID=dummy AWS_SECRET_ACCESS_KEY=dummy
export AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true
export PYTHONDONTWRITEBYTECODE=1

# Refuse anything but loopback (the suites check this too), and fail fast if
# nothing listens there.
if ! python3 - "$DYNAGO_ENDPOINT" <<'EOF'
import ipaddress, os, socket, sys
from urllib.parse import urlparse
u = urlparse(sys.argv[1])
host = u.hostname or ""
try:
    loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
except ValueError:
    loopback = False
if not loopback and os.environ.get("DYNAGO_ALLOW_NON_LOOPBACK") != "1":
    sys.exit("DYNAGO_ENDPOINT=%s is not a loopback address; refusing "
             "(DYNAGO_ALLOW_NON_LOOPBACK=1 overrides)" % sys.argv[1])
port = u.port or (443 if u.scheme == "https" else 80)
try:
    socket.create_connection((host, port), timeout=5).close()
except OSError as e:
    sys.exit("cannot connect to %s: %s" % (sys.argv[1], e))
EOF
then
  exit 2
fi

SUITES=("$@")
[ ${#SUITES[@]} -eq 0 ] && SUITES=(cli boto3 js admin console)
for s in "${SUITES[@]}"; do
  case "$s" in cli|boto3|js|admin|console|auth-cli|auth-boto3|auth-js) ;; *) echo "unknown suite: $s (cli, boto3, js, admin, console; auth-cli, auth-boto3, auth-js through compat/auth/run.sh)" >&2; exit 2 ;; esac
done

LOGS=${COMPAT_LOG_DIR:-$(mktemp -d)}
mkdir -p "$LOGS"
TIMEOUT=${COMPAT_SUITE_TIMEOUT:-600}

# Install the JS suite's exact, locked dependencies if they are not there yet.
js_deps() {
  if [ ! -d "$COMPAT/js/node_modules/@aws-sdk/lib-dynamodb" ] || [ ! -d "$COMPAT/js/node_modules/@aws-sdk/client-dynamodb-streams" ]; then
    echo "# npm ci in compat/js"
    (cd "$COMPAT/js" && npm ci --no-audit --no-fund --loglevel=error) || return 1
  fi
}

# The admin suite's locked dependencies (dynamodb-admin, playwright-core),
# and a Chromium for playwright-core to drive (it never downloads one).
admin_deps() {
  local chromium=${CHROMIUM:-/usr/bin/chromium}
  if [ ! -x "$chromium" ]; then
    echo "admin: no Chromium at $chromium: apt-get install chromium (or set CHROMIUM=path)" >&2
    return 1
  fi
  if [ -z "${DYNAGO_BIN:-}" ]; then
    echo "admin: DYNAGO_BIN is not set (a built dynago: go build -o /tmp/dynago ./cmd/dynago)" >&2
    return 1
  fi
  if [ ! -d "$COMPAT/admin/node_modules/dynamodb-admin" ] || [ ! -d "$COMPAT/admin/node_modules/playwright-core" ]; then
    echo "# npm ci in compat/admin"
    (cd "$COMPAT/admin" && npm ci --no-audit --no-fund --loglevel=error) || return 1
  fi
}

# The console suite's locked dependencies (playwright-core, the JS SDK);
# it starts dynago servers of its own from DYNAGO_BIN and drives Chromium.
console_deps() {
  local chromium=${CHROMIUM:-/usr/bin/chromium}
  [ -x "$chromium" ] || { echo "console: no Chromium at $chromium: apt-get install chromium (or set CHROMIUM=path)" >&2; return 1; }
  [ -n "${DYNAGO_BIN:-}" ] || { echo "console: DYNAGO_BIN is not set (a built dynago: go build -o /tmp/dynago ./cmd/dynago)" >&2; return 1; }
  if [ ! -d "$COMPAT/console/node_modules/playwright-core" ] || [ ! -d "$COMPAT/console/node_modules/@aws-sdk/lib-dynamodb" ]; then
    echo "# npm ci in compat/console"
    (cd "$COMPAT/console" && npm ci --no-audit --no-fund --loglevel=error) || return 1
  fi
}

run_suite() {
  case "$1" in
    cli) timeout "$TIMEOUT" bash "$COMPAT/cli/test_cli.sh" ;;
    boto3) cd "$ROOT" && timeout "$TIMEOUT" python3 -m unittest discover -s compat/boto3 -v ;;
    js) js_deps && cd "$COMPAT/js" && timeout "$TIMEOUT" node --test --test-reporter=spec ;;
    admin) admin_deps && cd "$COMPAT/admin" && timeout "$TIMEOUT" node --test --test-reporter=spec ;;
    console) console_deps && cd "$COMPAT/console" && timeout "$TIMEOUT" node --test --test-concurrency=2 --test-reporter=spec ;;
    auth-cli) timeout "$TIMEOUT" bash "$COMPAT/auth/test_auth_cli.sh" ;;
    auth-boto3) cd "$ROOT" && timeout "$TIMEOUT" python3 -m unittest discover -s compat/auth -p 'test_auth_boto3.py' -v ;;
    # The JS SDK trusts the certificate through Node's NODE_EXTRA_CA_CERTS, read at start.
    auth-js) js_deps && cd "$COMPAT/auth" && NODE_EXTRA_CA_CERTS=${DYNAGO_AUTH_CA:-} timeout "$TIMEOUT" node --test --test-reporter=spec auth.test.mjs ;;
  esac
}

# counts SUITE LOG -> "passed failed" parsed from the suite's own summary.
counts() {
  local log=$2 p=0 f=0 ran
  case "$1" in
    cli|auth-cli)
      p=$(sed -n "s/^$1: \([0-9]*\) passed, \([0-9]*\) failed\$/\1/p" "$log" | tail -1)
      f=$(sed -n "s/^$1: \([0-9]*\) passed, \([0-9]*\) failed\$/\2/p" "$log" | tail -1) ;;
    boto3|auth-boto3)
      ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$log" | tail -1)
      local fl er sk
      fl=$(grep -E '^(FAILED|OK)' "$log" | tail -1 | grep -o 'failures=[0-9]*' | cut -d= -f2)
      er=$(grep -E '^(FAILED|OK)' "$log" | tail -1 | grep -o 'errors=[0-9]*' | cut -d= -f2)
      sk=$(grep -E '^(FAILED|OK)' "$log" | tail -1 | grep -o 'skipped=[0-9]*' | cut -d= -f2)
      f=$(( ${fl:-0} + ${er:-0} ))
      p=$(( ${ran:-0} - f - ${sk:-0} )); [ "$p" -lt 0 ] && p=0 ;;
    js|admin|console|auth-js)
      p=$(sed -n 's/^ℹ pass \([0-9]*\)$/\1/p' "$log" | tail -1)
      f=$(sed -n 's/^ℹ fail \([0-9]*\)$/\1/p' "$log" | tail -1) ;;
  esac
  echo "${p:-0} ${f:-0}"
}

# timed SUITE : run it, record its wall time in $LOGS/SUITE.time, keep its exit code.
timed() {
  local t0=$SECONDS rc
  (run_suite "$1")
  rc=$?
  echo $((SECONDS - t0)) >"$LOGS/$1.time"
  return $rc
}

declare -A RC
if [ "${COMPAT_SERIAL:-0}" = "1" ]; then
  for s in "${SUITES[@]}"; do
    echo "=================== $s ==================="
    timed "$s" 2>&1 | tee "$LOGS/$s.log"
    RC[$s]=$?
  done
else
  declare -A PIDS
  for s in "${SUITES[@]}"; do
    timed "$s" >"$LOGS/$s.log" 2>&1 &
    PIDS[$s]=$!
  done
  for s in "${SUITES[@]}"; do
    wait "${PIDS[$s]}"
    RC[$s]=$?
    echo "=================== $s ==================="
    cat "$LOGS/$s.log"
  done
fi

echo
echo "=================== summary ($DYNAGO_ENDPOINT) ==================="
TOTAL_P=0
TOTAL_F=0
BAD=0
W=6 # the width of the suite column
for s in "${SUITES[@]}"; do [ ${#s} -gt $W ] && W=${#s}; done
for s in "${SUITES[@]}"; do
  read -r p f < <(counts "$s" "$LOGS/$s.log")
  # A suite that failed without reporting a failed test (crash, timeout, npm
  # error) still counts as one failure.
  if [ "${RC[$s]}" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ "${RC[$s]}" -eq 0 ]; then status=PASS; else status="FAIL (exit ${RC[$s]})"; BAD=1; fi
  printf '%-*s %-16s %4d passed %4d failed  %3ds  log: %s\n' "$W" "$s" "$status" "$p" "$f" \
    "$(cat "$LOGS/$s.time" 2>/dev/null || echo 0)" "$LOGS/$s.log"
  TOTAL_P=$((TOTAL_P + p))
  TOTAL_F=$((TOTAL_F + f))
done
echo "compat: $TOTAL_P passed, $TOTAL_F failed"
exit $BAD
