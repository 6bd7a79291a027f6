#!/usr/bin/env bash
# Interrupts a long 'gpuchar run' with SIGINT and checks that it stops with
# exit status 130, leaving a JSON file marked "complete": false and the CSV
# directory, in which at most the benchmark running at the signal is
# "interrupted" and every one after it is "skipped".
#
# usage: run_interrupt.sh GPUCHAR_BINARY
#
# Needs the device opencl:0 (PoCL in CI) and python3; exits 77 (skipped)
# without them. GPUCHAR_INTERRUPT_TIMEOUT (seconds, default 120) bounds the
# wait for the run to start and to stop.

set -u

usage() {
    echo "usage: $0 GPUCHAR_BINARY" >&2
    exit 2
}

[ $# -eq 1 ] || usage
bin=$1
if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
    echo "$0: '$bin' is not an executable file" >&2
    exit 2
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found"
    exit 77
fi
limit=${GPUCHAR_INTERRUPT_TIMEOUT:-120}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuchar-int.XXXXXX") || exit 2
pid=""
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
export GPUCHAR_CACHE_DIR="$tmp/cache"
json=$tmp/results.json
csv=$tmp/csv
err=$tmp/stderr

fail() {
    echo "FAIL: $*"
    if [ -s "$err" ]; then
        echo "stderr of gpuchar:"
        sed 's/^/  | /' "$err"
    fi
    exit 1
}

if ! "$bin" list 2>/dev/null | grep -Eq '^opencl:0[[:space:]]'; then
    echo "SKIP: no device opencl:0"
    exit 77
fi

# check_stop SIGNAL STATUS [LAUNCHER...]: runs gpuchar (under LAUNCHER), sends
# SIGNAL to the launched process once the measurements run, and checks the
# exit status and the partial results.
check_stop() {
    local sig=$1 want=$2
    shift 2
    local launcher="$*"
    rm -rf "$json" "$csv" "$err"
    # --verbose prints the "running" line once the signal handlers are in place;
    # the signal is sent some time after it, so it lands in the measurements.
    $launcher "$bin" run --device opencl:0 --json "$json" --csv "$csv" --repeat 10000 --no-progress \
        --min-time 500 --verbose </dev/null >"$tmp/stdout" 2>"$err" &
    pid=$!

    ticks=0
    until grep -q '^gpuchar: running ' "$err" 2>/dev/null; do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid"
            fail "gpuchar exited with status $? before the run started"
        fi
        if [ "$ticks" -ge $((limit * 10)) ]; then
            fail "the run did not start within ${limit}s"
        fi
        sleep 0.1
        ticks=$((ticks + 1))
    done
    sleep 1.5
    if ! kill "-$sig" "$pid" 2>/dev/null; then
        wait "$pid"
        fail "gpuchar exited with status $? before it was interrupted"
    fi

    ticks=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$ticks" -ge $((limit * 10)) ]; then
            fail "gpuchar did not stop within ${limit}s of SIG$sig"
        fi
        sleep 0.1
        ticks=$((ticks + 1))
    done
    wait "$pid"
    status=$?
    pid=""

    [ "$status" -eq "$want" ] || fail "exit status $status, expected $want"
    grep -q 'interrupted; partial results written to' "$err" ||
        fail "stderr does not say where the partial results are"
    [ -f "$json" ] || fail "$json was not written"
    [ -d "$csv" ] || fail "$csv was not written"
    python3 - "$json" <<'EOF' || fail "$json is not valid JSON marked \"complete\": false, with only skipped benchmarks after the interrupted one"
import json
import sys

with open(sys.argv[1]) as f:
    doc = json.load(f)
# The flag is a top-level key; one level down is accepted too, in case the
# schema groups it with the run metadata.
complete = doc.get("complete") if isinstance(doc, dict) else None
if complete is None and isinstance(doc, dict):
    for value in doc.values():
        if isinstance(value, dict) and "complete" in value:
            complete = value["complete"]
            break
if complete is not False:
    print('"complete" is %r, expected false' % (complete,))
    sys.exit(1)
# The benchmarks that finished, then at most one "interrupted" (the one
# running when the signal came), then only "skipped" ones, never started.
statuses = [b["status"] for b in doc["benchmarks"]]
first = next((i for i, s in enumerate(statuses) if s in ("interrupted", "skipped")), None)
if first is None:
    print("no benchmark is interrupted or skipped: %r" % (statuses,))
    sys.exit(1)
rest = statuses[first + 1 if statuses[first] == "interrupted" else first:]
if not rest or any(s != "skipped" for s in rest):
    print("after the interrupted benchmark, expected only skipped ones: %r" % (statuses,))
    sys.exit(1)
for b in doc["benchmarks"]:
    if b["status"] == "skipped" and "not run" not in b.get("error", ""):
        print("skipped benchmark %s does not say it was not run" % b["name"])
        sys.exit(1)
EOF
}

check_stop INT 130
echo "ok: interrupted run exited 130 with partial results marked incomplete"
# timeout(1) forwards its signal to gpuchar and to the process group, so
# gpuchar receives it twice at once: still one request to stop and write.
if command -v timeout >/dev/null 2>&1; then
    check_stop TERM 143 timeout -s TERM 3600
    echo "ok: SIGTERM through timeout(1) exited 143 with partial results marked incomplete"
fi
