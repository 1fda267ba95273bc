#!/usr/bin/env bash
# bench/scale.sh: GetItem and Query latency at growing table sizes, on disk.
#
# For each size in $SCALE_SIZES (items of ~1 KB in one table) it starts a
# fresh `dynago serve --data-dir` on 127.0.0.1, loads the table through
# loadgen's BatchWriteItem preload (8 in flight; the load rate is printed),
# waits $SCALE_SETTLE (30s: the load's compactions settle, so that they
# are not measured), then measures GetItem of random keys and Query of
# one 20-item partition at concurrency 16. A measurement, not a test: it never fails on the
# numbers. On disk a million items took 373 MB, ten million 1.5 GB (and 8.5
# minutes to load on the 2-core machine).
#
#   SCALE_SIZES="10000 1000000" bench/scale.sh      # the default
#   SCALE_BIN=/tmp/dynago SCALE_DURATION=8s bench/scale.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SIZES=${SCALE_SIZES:-"10000 1000000"}
DURATION=${SCALE_DURATION:-8s}
SETTLE=${SCALE_SETTLE:-30s}
TMP=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
BIN=${SCALE_BIN:-}
if [ -z "$BIN" ]; then BIN=$TMP/dynago; go build -o "$BIN" ./cmd/dynago; fi
go build -o "$TMP/loadgen" ./bench/loadgen
"$TMP/loadgen" -header
for n in $SIZES; do
	port=$((8700 + RANDOM % 200))
	"$BIN" serve --addr 127.0.0.1:$port --data-dir "$TMP/data-$n" --log-level warn >"$TMP/server-$n.log" 2>&1 &
	pid=$!
	until curl -sf -o /dev/null "http://127.0.0.1:$port/"; do sleep 0.05; done
	# The load (loadgen's setup), unmeasured; then the compactions settle.
	"$TMP/loadgen" -endpoint "http://127.0.0.1:$port" -op get -items "$n" -c 1 -duration 1s -warmup 0s >/dev/null
	sleep "$SETTLE"
	for op in get query; do
		"$TMP/loadgen" -endpoint "http://127.0.0.1:$port" -op "$op" -items "$n" -c 16 -duration "$DURATION" \
			-warmup 2s -server-pid "$pid" -label "items=$n"
	done
	du -sh "$TMP/data-$n" | sed "s|$TMP/||; s|^|# on disk: |"
	kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
	rm -rf "$TMP/data-$n"
done
