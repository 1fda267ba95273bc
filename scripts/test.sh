#!/usr/bin/env bash
# Runs dynago's whole test suite: Go tests (race detector on), then the
# end-to-end compatibility suites (AWS CLI, boto3, JavaScript SDK v3,
# dynamodb-admin in headless Chromium)
# against a freshly built "dynago serve --in-memory", then the
# ../shared/cases corpus when it is present. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt, go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bench/.node/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed:" $unformatted >&2
  exit 1
fi
go vet ./...

echo "== go test -race ./..."
go test -race -count=1 ./...

echo "== build dynago"
tmp=$(mktemp -d)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/dynago" ./cmd/dynago
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
# Stream shards roll over every 2 s so that the suites read shard lineage.
"$tmp/dynago" serve --in-memory --addr "127.0.0.1:$port" --log-level warn --stream-rollover 2s &
pid=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/" >/dev/null 2>&1 && break
  sleep 0.1
done
export DYNAGO_ENDPOINT="http://127.0.0.1:$port" DYNAGO_BIN="$tmp/dynago"

echo "== compat suites (AWS CLI, boto3, JS SDK v3, dynamodb-admin) against $DYNAGO_ENDPOINT"
compat/run.sh

if [ -f ../shared/cases/check_cases.py ]; then
  echo "== ../shared/cases (pending ones listed in compat/cases.txt)"
  grep '^pending' compat/cases.txt || true
  only=$(grep -v -e '^#' -e '^pending' -e '^$' compat/cases.txt | paste -sd, -)
  out=$(python3 ../shared/cases/check_cases.py --url "$DYNAGO_ENDPOINT" --only "$only" 2>&1) || true
  echo "$out"
  echo "$out" | tail -1 | grep -q ' 0 failed' || { echo "cases failed"; exit 1; }
else
  echo "== ../shared/cases not found: skipped (compat/gosdk/cases_test.go keeps each case as a Go test)"
fi
echo "== all tests passed"
