#!/usr/bin/env bash
# bench/run.sh — one benchmark run of dynago and its peers.
#
# Builds and starts each server in turn on its own free loopback port, runs
# the same loadgen matrix (ops x concurrency) against it, stops it, and
# prints one combined table, also written to $BENCH_OUT. A server that fails
# to build, install or start is skipped with a message; the run goes on.
# This is a measurement, not a test: it exits 0 whatever the numbers are.
#
# Environment (defaults in brackets):
#   BENCH_DURATION     measured window per run [8s]
#   BENCH_WARMUP       unmeasured warm-up per run [2s]
#   BENCH_OPS          operations, in order ["get query put"]
#   BENCH_CONCURRENCY  concurrency levels ["1 16"]
#   BENCH_SERVERS      servers, in order
#                      ["dynago ceiling ceiling-pebble dynalite dynalite-disk moto"]
#   BENCH_QUIET_WAIT   before each row, wait up to this long for the machine
#                      to be idle, keeping other jobs out of the window [15s]
#   BENCH_OUT          table file [bench/results/<date>.txt]; the raw JSON
#                      lines go next to it as <same name>.jsonl
#   BENCH_NODE_DIR     where dynalite is npm-installed [bench/.node]
#   BENCH_KEEP_TMP=1   keep the temp dir (binaries, data dirs, server logs)
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD

DURATION=${BENCH_DURATION:-8s}
WARMUP=${BENCH_WARMUP:-2s}
OPS=${BENCH_OPS:-"get query put"}
CONCS=${BENCH_CONCURRENCY:-"1 16"}
SERVERS=${BENCH_SERVERS:-"dynago ceiling ceiling-pebble dynalite dynalite-disk moto"}
QUIET_WAIT=${BENCH_QUIET_WAIT:-15s}
OUT=${BENCH_OUT:-bench/results/$(date +%Y%m%d-%H%M%S).txt}
NODE_DIR=${BENCH_NODE_DIR:-bench/.node}
DYNALITE_VERSION=4.0.0
CEILING_SRC=../shared/bench-ceiling

mkdir -p "$(dirname "$OUT")"
OUT=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")
JSONL=${OUT%.txt}.jsonl
: >"$JSONL"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/dynago-bench.XXXXXX")
SERVER_PID=""

log() { printf '== %s\n' "$*" >&2; }

# stop_server ends the current server (TERM, then KILL after 5 s).
stop_server() {
	[ -n "$SERVER_PID" ] || return 0
	if kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -TERM "$SERVER_PID" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$SERVER_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$SERVER_PID" 2>/dev/null || true
	fi
	wait "$SERVER_PID" 2>/dev/null || true
	SERVER_PID=""
}

cleanup() {
	stop_server
	if [ "${BENCH_KEEP_TMP:-}" = 1 ]; then
		log "kept $TMP"
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# free_port prints a TCP port that is free on 127.0.0.1.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_ready PORT WANT waits up to 30 s for GET / to answer; WANT is a
# status code, or "any" for any HTTP answer.
wait_ready() {
	local port=$1 want=$2 code
	for _ in $(seq 300); do
		kill -0 "$SERVER_PID" 2>/dev/null || return 1
		code=$(curl -s -o /dev/null -m 1 -w '%{http_code}' "http://127.0.0.1:$port/" || true)
		if [ "$want" = any ] && [ "$code" != 000 ] && [ -n "$code" ]; then return 0; fi
		[ "$code" = "$want" ] && return 0
		sleep 0.1
	done
	return 1
}

# build NAME prepares what server NAME needs; non-zero means skip it.
build() {
	case $1 in
	dynago-throttle | dynago-design)
		[ -x "$TMP/dynago" ] || build dynago ;;
	dynago-tikv | dynago-tikv-mock)
		if [ "$1" = dynago-tikv ] && [ -z "${BENCH_TIKV_PD:-}" ]; then
			log "SKIP dynago-tikv: set BENCH_TIKV_PD to a TiKV cluster's PD endpoints"; return 1
		fi
		[ -x "$TMP/dynago-with-tikv" ] && return 0
		# The TiKV backend is in builds with -tags tikv only.
		go build -tags tikv -o "$TMP/dynago-with-tikv" ./cmd/dynago >"$TMP/build-dynago-tikv.log" 2>&1 ||
			{ log "SKIP $1: go build -tags tikv ./cmd/dynago failed (see below)"; tail -5 "$TMP/build-dynago-tikv.log" >&2; return 1; } ;;
	dynago-prev)
		[ -x "${BENCH_PREV_BIN:-}" ] || { log "SKIP dynago-prev: set BENCH_PREV_BIN to an earlier dynago binary"; return 1; } ;;
	dynago)
		[ -x "$TMP/dynago" ] && return 0
		go build -o "$TMP/dynago" ./cmd/dynago >"$TMP/build-dynago.log" 2>&1 ||
			{ log "SKIP dynago: go build ./cmd/dynago failed (see below)"; tail -5 "$TMP/build-dynago.log" >&2; return 1; } ;;
	ceiling | ceiling-pebble)
		[ -x "$TMP/ceiling" ] && return 0
		(cd "$CEILING_SRC" && go build -o "$TMP/ceiling" .) >"$TMP/build-ceiling.log" 2>&1 ||
			{ log "SKIP $1: build of $CEILING_SRC failed"; tail -5 "$TMP/build-ceiling.log" >&2; return 1; } ;;
	dynalite | dynalite-disk)
		command -v node >/dev/null || { log "SKIP $1: node not found"; return 1; }
		if [ ! -f "$NODE_DIR/node_modules/dynalite/cli.js" ]; then
			mkdir -p "$NODE_DIR"
			npm install --no-audit --no-fund --prefix "$NODE_DIR" "dynalite@$DYNALITE_VERSION" >"$TMP/npm.log" 2>&1 ||
				{ log "SKIP $1: npm install dynalite@$DYNALITE_VERSION failed"; tail -5 "$TMP/npm.log" >&2; return 1; }
		fi ;;
	moto)
		python3 -c 'import moto.server' 2>/dev/null || { log "SKIP moto: python3 cannot import moto.server"; return 1; } ;;
	*)
		log "SKIP $1: unknown server"; return 1 ;;
	esac
}

# start NAME PORT starts server NAME in the background and sets SERVER_PID
# to the process to measure (loadgen adds its descendants).
start() {
	local name=$1 port=$2 addr=127.0.0.1:$2 logf=$TMP/$1.log
	case $name in
	dynago) "$TMP/dynago" serve --addr "$addr" --data-dir "$TMP/dynago-data" >"$logf" 2>&1 & ;;
	dynago-throttle) "$TMP/dynago" serve --addr "$addr" --data-dir "$TMP/dynago-throttle-data" --throttle >"$logf" 2>&1 & ;;
	dynago-design) "$TMP/dynago" serve --addr "$addr" --data-dir "$TMP/dynago-design-data" --design bench/bench.design.yaml >"$logf" 2>&1 & ;;
	dynago-tikv) "$TMP/dynago-with-tikv" serve --addr "$addr" --storage tikv --pd "$BENCH_TIKV_PD" --tikv-namespace "bench-$$-$port" >"$logf" 2>&1 & ;;
	dynago-tikv-mock) "$TMP/dynago-with-tikv" serve --addr "$addr" --storage tikv --pd mock >"$logf" 2>&1 & ;;
	dynago-prev) "$BENCH_PREV_BIN" serve --addr "$addr" --data-dir "$TMP/dynago-prev-data" >"$logf" 2>&1 & ;;
	ceiling) "$TMP/ceiling" -addr "$addr" >"$logf" 2>&1 & ;;
	ceiling-pebble) "$TMP/ceiling" -addr "$addr" -pebble "$TMP/ceil-pebble" >"$logf" 2>&1 & ;;
	dynalite) node "$NODE_DIR/node_modules/dynalite/cli.js" --host 127.0.0.1 --port "$port" >"$logf" 2>&1 & ;;
	dynalite-disk)
		mkdir -p "$TMP/dynalite-data"
		node "$NODE_DIR/node_modules/dynalite/cli.js" --host 127.0.0.1 --port "$port" --path "$TMP/dynalite-data" >"$logf" 2>&1 & ;;
	moto) python3 -m moto.server -H 127.0.0.1 -p "$port" >"$logf" 2>&1 & ;;
	esac
	SERVER_PID=$!
	local want=any
	case $name in dynago*) want=200 ;; esac
	if ! wait_ready "$port" "$want"; then
		log "SKIP $name: not ready on $addr within 30 s; last log lines:"
		tail -5 "$logf" >&2 || true
		stop_server
		return 1
	fi
}

log "building loadgen"
go build -o "$TMP/loadgen" ./bench/loadgen

{
	echo "# dynago benchmark $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(uname -sr)"
	echo "# $(go version); node $(node --version 2>/dev/null || echo none); moto $(python3 -c 'import moto; print(moto.__version__)' 2>/dev/null || echo none); dynalite $DYNALITE_VERSION"
	echo "# duration $DURATION after warm-up $WARMUP per row; ops: $OPS; concurrency: $CONCS"
	echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other busy processes on this machine skew every number)"
	echo "# srv us/op = server CPU (utime+stime of the server pid and descendants) / ops; x base = srv us/op / ceiling's"
} >"$TMP/head.txt"
cat "$TMP/head.txt" >&2

"$TMP/loadgen" -header >&2
skipped=()
for name in $SERVERS; do
	if ! build "$name"; then skipped+=("$name"); continue; fi
	port=$(free_port)
	if ! start "$name" "$port"; then skipped+=("$name"); continue; fi
	for op in $OPS; do
		for c in $CONCS; do
			"$TMP/loadgen" -endpoint "http://127.0.0.1:$port" -op "$op" -c "$c" \
				-duration "$DURATION" -warmup "$WARMUP" -quiet-wait "$QUIET_WAIT" -server-pid "$SERVER_PID" \
				-label "$name" -out "$JSONL" >&2 ||
				log "loadgen failed for $name $op c=$c (row missing)"
		done
	done
	stop_server
done

{
	cat "$TMP/head.txt"
	echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
	[ ${#skipped[@]} -eq 0 ] || echo "# skipped: ${skipped[*]}"
	echo
	"$TMP/loadgen" -report "$JSONL" -baseline ceiling
} >"$OUT"
echo
cat "$OUT"
log "table: ${OUT#"$ROOT"/}  raw: ${JSONL#"$ROOT"/}"
