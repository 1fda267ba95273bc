#!/usr/bin/env bash
# The auth suite: "dynago serve --credentials FILE --tls-cert C --tls-key K"
# through the AWS CLI, boto3 and the JS SDK v3 (aws-sdk-go-v2 is in
# compat/gosdk/auth_test.go):
#
#   DYNAGO_BIN=/tmp/dynago compat/auth/run.sh
#
# It makes a self-signed certificate for 127.0.0.1 and localhost with openssl
# and a shared-credentials file with two profiles in a temporary directory,
# starts $DYNAGO_BIN (a built dynago; this script builds nothing) on a free
# loopback port with both, waits for GET / over https, and runs the suites
# auth-cli, auth-boto3 and auth-js through compat/run.sh, which prints their
# output and summary; the last line is "compat: N passed, N failed". The
# suites find the files in DYNAGO_AUTH_CA (cert.pem) and
# DYNAGO_AUTH_CREDENTIALS. The server is stopped on every exit (its log is
# printed when something failed). COMPAT_SERIAL, COMPAT_LOG_DIR and
# COMPAT_SUITE_TIMEOUT work as for compat/run.sh; with COMPAT_LOG_DIR the
# server's log is kept there as auth-server.log.
set -u -o pipefail

AUTH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
COMPAT=$(dirname "$AUTH")

die() { echo "auth: $*" >&2; echo "compat: 0 passed, 1 failed"; exit 2; }

[ -n "${DYNAGO_BIN:-}" ] && [ -x "$DYNAGO_BIN" ] ||
  die "DYNAGO_BIN must name a built dynago (go build -o /tmp/dynago ./cmd/dynago)"
for tool in openssl curl python3; do
  command -v "$tool" >/dev/null || die "$tool not found"
done

WORK=$(mktemp -d)
SERVER_LOG=$WORK/server.log
if [ -n "${COMPAT_LOG_DIR:-}" ]; then
  mkdir -p "$COMPAT_LOG_DIR" && SERVER_LOG=$COMPAT_LOG_DIR/auth-server.log
fi
SERVER_PID=
stop_server() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=
  fi
}
# descendants PID: the processes under PID, deepest first. (timeout(1), which
# compat/run.sh runs each suite under, puts it in a process group of its own.)
descendants() {
  local c
  for c in $(cat /proc/"$1"/task/*/children 2>/dev/null || pgrep -P "$1"); do
    descendants "$c"
    echo "$c"
  done
}
# on_signal STATUS: stop the suites (and the server), then exit.
on_signal() {
  trap '' INT TERM
  kill $(descendants $$) 2>/dev/null
  exit "$1"
}
trap 'stop_server; rm -rf "$WORK"' EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

# The certificate, as README.md "Authentication and TLS" makes it.
(cd "$WORK" && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
  -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
  -keyout key.pem -out cert.pem) >"$WORK/openssl.log" 2>&1 ||
  { cat "$WORK/openssl.log" >&2; die "openssl req failed"; }

# Two profiles: keys that never leave this machine. The secrets hold / and +,
# which a signer must not encode.
cat >"$WORK/credentials" <<'EOF'
# dynago compat/auth: two profiles
[default]
aws_access_key_id = AKIDDYNAGOAUTH1
aws_secret_access_key = wJalrXUtnFEMI/K7MDENG+bPxRfiCYAUTHONE

[ci]
aws_access_key_id=AKIDDYNAGOAUTH2
aws_secret_access_key=secret-two
EOF

# start PORT: start the server; 0 once GET / answers 200 over https, 1 if it
# exited (the port may have been taken meanwhile), 2 if it never answered.
start() {
  "$DYNAGO_BIN" serve --addr "127.0.0.1:$1" --in-memory --credentials "$WORK/credentials" \
    --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" >>"$SERVER_LOG" 2>&1 &
  SERVER_PID=$!
  local i
  for i in $(seq 1 150); do
    curl -fsS --cacert "$WORK/cert.pem" "https://127.0.0.1:$1/" >/dev/null 2>&1 && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || { wait "$SERVER_PID" 2>/dev/null; SERVER_PID=; return 1; }
    sleep 0.1
  done
  return 2
}

started=
for attempt in 1 2 3; do
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  start "$port"
  case $? in
    0) started=1; break ;;
    1) continue ;;
    *) break ;;
  esac
done
if [ -z "$started" ]; then
  cat "$SERVER_LOG" >&2
  die "dynago serve --credentials --tls-cert did not answer GET / over https"
fi

export DYNAGO_ENDPOINT="https://127.0.0.1:$port"
export DYNAGO_AUTH_CA="$WORK/cert.pem" DYNAGO_AUTH_CREDENTIALS="$WORK/credentials"
echo "# auth suite: $DYNAGO_BIN serve --in-memory --credentials (2 profiles) --tls-cert (self-signed) on $DYNAGO_ENDPOINT"
# In the background, so that a signal is handled at once (bash runs traps
# only between foreground commands).
{ "$COMPAT/run.sh" auth-cli auth-boto3 auth-js; echo $? >"$WORK/rc"; } | tee "$WORK/run.out" &
wait $! # tee, done once the suites are
rc=$(cat "$WORK/rc" 2>/dev/null || echo 1)
stop_server
if [ "$rc" -ne 0 ]; then
  echo "# server log ($SERVER_LOG), last 50 lines:"
  tail -50 "$SERVER_LOG"
  tail -1 "$WORK/run.out" # compat/run.sh's summary line stays the last one
fi
exit "$rc"
