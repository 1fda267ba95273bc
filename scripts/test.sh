#!/usr/bin/env bash
# Runs dynago's whole test suite: gofmt, go vet and staticcheck (a pinned
# version, installed when missing), Go tests (race detector on), the
# engine's and server's tests again on TiKV (client-go's mock cluster),
# the Go SDK suite again against in-process servers (dynagotest),
# then the end-to-end compatibility suites (AWS CLI, boto3, JavaScript SDK
# v3, dynamodb-admin and dynago's web console in headless Chromium), the ../shared/cases corpus and
# the ../shared/conformance suite (when present) against a freshly built "dynago serve --in-memory", the
# CLI, boto3 and JS SDK against one with --credentials and TLS (compat/auth/run.sh), and
# the same clients against "dynago serve --storage tikv --pd mock".
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt, go vet, staticcheck"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bench/.node/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed:" $unformatted >&2
  exit 1
fi
go vet ./...
# The files of the TiKV build (-tags tikv) too.
go vet -tags tikv ./internal/cli/
# staticcheck at a pinned version (its checks change between releases):
# v0.8.2 is release 2026.2.2. Installed with go install when the one in
# GOBIN is missing or another version; any finding fails the run (default
# checks, no staticcheck.conf).
staticcheck_version=v0.8.2
gobin=$(go env GOBIN)
gobin=${gobin:-$(go env GOPATH | cut -d: -f1)/bin}
if ! "$gobin/staticcheck" -version 2>/dev/null | grep -qF "(${staticcheck_version#v})"; then
  go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi
"$gobin/staticcheck" ./...
"$gobin/staticcheck" -tags tikv ./internal/cli/

echo "== go test -race ./..."
go test -race -count=1 ./...

echo "== the engine's and the server's tests again on TiKV (client-go's mock cluster)"
DYNAGO_TEST_STORAGE=tikv go test -race -count=1 ./internal/engine/ ./internal/server/
echo "== the CLI's tests in the build with the TiKV backend (-tags tikv)"
go test -race -count=1 -tags tikv ./internal/cli/

# The Go SDK suite once more with its in-memory servers inside the test
# process (dynagotest), so that the servers run under the race detector
# too; the tests that need a process (data directory, crash, TLS) repeat.
echo "== compat/gosdk again with in-process servers (DYNAGO_GOSDK_SERVER=inproc: dynagotest)"
DYNAGO_GOSDK_SERVER=inproc go test -race -count=1 ./compat/gosdk/

echo "== build dynago"
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/dynago" ./cmd/dynago
# The TiKV backend is in builds with -tags tikv only (docs/deployment.md).
go build -tags tikv -o "$tmp/dynago-with-tikv" ./cmd/dynago
export DYNAGO_BIN="$tmp/dynago"

echo "== soak (60 s: 16 clients, SIGKILL every 15 s)"
go run ./bench/soak -bin "$DYNAGO_BIN" -duration 60s -kill-every 15s

# start_server ARGS...: runs dynago serve on a free port with ARGS and sets
# DYNAGO_ENDPOINT once GET / answers.
# DYNAGO_SERVE_BIN picks the binary (default: the default build).
start_server() {
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  # Stream shards roll over every 2 s so that the suites read shard lineage.
  "${DYNAGO_SERVE_BIN:-$tmp/dynago}" serve --addr "127.0.0.1:$port" --log-level warn --stream-rollover 2s "$@" &
  pids+=($!)
  for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
    sleep 0.1
  done
  export DYNAGO_ENDPOINT="http://127.0.0.1:$port"
}

# run_cases: the ../shared/cases corpus against DYNAGO_ENDPOINT: the
# cases.jsonl ids listed in compat/cases.txt, and every behaviour.jsonl case.
run_cases() {
  if [ -f ../shared/cases/check_cases.py ]; then
    echo "== ../shared/cases against $DYNAGO_ENDPOINT (pending ones listed in compat/cases.txt)"
    grep '^pending' compat/cases.txt || true
    only=$(grep -v -e '^#' -e '^pending' -e '^$' compat/cases.txt | paste -sd, -)
    out=$(python3 ../shared/cases/check_cases.py --url "$DYNAGO_ENDPOINT" --only "$only" 2>&1) || true
    echo "$out"
    echo "$out" | tail -1 | grep -q ' 0 failed' || { echo "cases failed"; exit 1; }
    if [ -f ../shared/cases/behaviour.jsonl ]; then
      echo "== ../shared/cases/behaviour.jsonl against $DYNAGO_ENDPOINT"
      out=$(python3 ../shared/cases/check_cases.py --url "$DYNAGO_ENDPOINT" --cases ../shared/cases/behaviour.jsonl 2>&1) || true
      echo "$out"
      echo "$out" | tail -1 | grep -q ' 0 failed' || { echo "behaviour cases failed"; exit 1; }
    fi
  else
    echo "== ../shared/cases not found: skipped (compat/gosdk/cases_test.go keeps each case as a Go test)"
  fi
}

# run_conformance: ../shared/conformance (an AWS-validated suite, vitest and
# the JS SDK v3) against DYNAGO_ENDPOINT, all but vector search, which
# dynago does not have yet (docs/operations.md); any failure not
# listed with its reason in compat/conformance/divergences.txt fails the run.
run_conformance() {
  if [ -x ../shared/conformance/run.sh ]; then
    echo "== ../shared/conformance against $DYNAGO_ENDPOINT (known divergences: compat/conformance/divergences.txt)"
    CONFORMANCE_WORK="$tmp/conformance" ../shared/conformance/run.sh "$DYNAGO_ENDPOINT" \
      --exclude '**/vectorSearch/**' --exclude '**/searchVectors*' \
      --reporter=json --outputFile="$tmp/conformance.json" >"$tmp/conformance.log" 2>&1 || true
    [ -f "$tmp/conformance.json" ] || { tail -30 "$tmp/conformance.log"; echo "conformance suite did not run"; exit 1; }
    python3 compat/conformance/check.py "$tmp/conformance.json" compat/conformance/divergences.txt || { echo "conformance failed"; exit 1; }
  else
    echo "== ../shared/conformance not found: skipped"
  fi
}

start_server --in-memory
echo "== compat suites (AWS CLI, boto3, JS SDK v3, dynamodb-admin, the web console) against $DYNAGO_ENDPOINT (Pebble in memory)"
compat/run.sh
run_cases
run_conformance

# The CLI, boto3 and the JS SDK against a server of its own with --credentials and TLS.
echo "== auth suite (AWS CLI, boto3, JS SDK v3) against dynago serve --credentials --tls-cert"
compat/auth/run.sh

# The same clients against the TiKV backend: one node on an in-process
# mock cluster (dynamodb-admin starts its own server, so it runs once).
DYNAGO_SERVE_BIN="$tmp/dynago-with-tikv" start_server --storage tikv --pd mock
echo "== compat suites (AWS CLI, boto3, JS SDK v3) against $DYNAGO_ENDPOINT (TiKV, mock cluster)"
compat/run.sh cli boto3 js
run_cases
echo "== all tests passed"
