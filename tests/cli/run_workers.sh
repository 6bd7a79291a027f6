#!/usr/bin/env bash
# The compile plan's workers on a real driver (PoCL in CI): asked for with
# GPUCHAR_COMPILE_WORKERS, the workers compile every kernel the plan compiles
# and the benchmarks' results verify; workers that die (GPUCHAR_FAULT=worker,
# worker:2) leave their kernels to the process, which still builds every one
# and the run succeeds; a setting that is not a count is ignored with a note;
# without the setting the backend's choice stands: workers for PoCL and
# NVIDIA's OpenCL (one build at a time per process) and for CUDA (NVRTC's
# threads wait for each other), =0 none. Built with sanitizers the workers run
# under them too: a leak in a worker is its non-zero exit, a failed worker.
#
# usage: run_workers.sh GPUCHAR_BINARY
#
# Runs on GPUCHAR_WORKERS_TEST_DEVICE (default opencl:0; cuda:0 on a GPU
# machine); needs that device
# and python3, exits 77 (skipped) without them.

set -u

[ $# -eq 1 ] || {
    echo "usage: $0 GPUCHAR_BINARY" >&2
    exit 2
}
bin=$1
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 not found"
    exit 77
fi
dev=${GPUCHAR_WORKERS_TEST_DEVICE:-opencl:0}
if ! "$bin" list 2>/dev/null | grep -q "^$dev[[:space:]]"; then
    echo "SKIP: no device $dev"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuchar-workers.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
unset GPUCHAR_CACHE_DIR GPUCHAR_FAULT GPUCHAR_COMPILE_WORKERS
# shellcheck source=tests/cli/checks.sh
. "$(dirname "$0")/checks.sh"

# run NAME [VAR=VALUE...]: a quick run of two benchmarks that verify their
# kernels' results, every kernel compiled (an empty cache of its own).
run() {
    local name=$1
    shift
    env "$@" "$bin" run --device "$dev" --bench compute.fp32.fma,memory.constant --quick \
        --repeat 2 --min-time 1 --no-progress --quiet --cache-dir "$tmp/cache.$name" \
        --json "$tmp/$name.json" >"$tmp/$name.out" 2>&1
    echo $? >"$tmp/$name.rc"
}

# plan NAME EXPR...: each Python expression over the run's plan p (and the
# document d) must hold; prints the failing ones.
plan() {
    local name=$1
    shift
    python3 - "$tmp/$name.json" "$@" <<'PY'
import json
import sys

d = json.load(open(sys.argv[1]))
p = d["plan"]
bad = [e for e in sys.argv[2:] if not eval(e)]
for e in bad:
    print("not true: %s (plan: %s)" % (e, json.dumps(p)))
sys.exit(1 if bad else 0)
PY
}

# The workers' entry is hidden: no command, no word in the help.
check "the help does not offer the workers' entry" \
    bash -c '! "$1" --help 2>&1 | grep -qi worker' _ "$bin"

OK='d["complete"] and all(b["status"] == "ok" for b in d["benchmarks"])'
ALL='p["made"] and p["compiled"] == p["kernels"] > 0 and p["failed"] == 0 and p["on_demand"] == ""'

backend=${dev%%:*}
# OpenCL's plan threads load what they built (its load is thread-safe);
# CUDA loads on the thread that holds the context, after the plan.
LOADS='p["load_s"] > 0'
[ "$backend" = cuda ] && LOADS='p["load_s"] == 0'

run forced GPUCHAR_COMPILE_WORKERS=2
check "two workers: exit 0" test "$(cat "$tmp/forced.rc")" -eq 0
check "two workers: every kernel compiled by them, results verified" plan forced "$OK" "$ALL" \
    'p["workers"] == 2' 'p["worker_compiled"] == p["compiled"]' 'p["workers_failed"] == 0' \
    'p["worker_note"] == ""' '0 < p["worker_cpu_s"] <= p["cpu_s"]' "$LOADS" \
    'p["threads"] == 2'

run dead GPUCHAR_COMPILE_WORKERS=2 GPUCHAR_FAULT=worker
check "dead workers: exit 0" test "$(cat "$tmp/dead.rc")" -eq 0
check "dead workers: every kernel compiled in the process" plan dead "$OK" "$ALL" \
    'p["workers"] == 2' 'p["workers_failed"] == 2' 'p["worker_compiled"] == 0' \
    '"exit status 70" in p["worker_note"]'

run second GPUCHAR_COMPILE_WORKERS=2 GPUCHAR_FAULT=worker:2
check "workers dying at their second kernel: exit 0" test "$(cat "$tmp/second.rc")" -eq 0
check "workers dying at their second kernel: the rest compiled in the process" plan second \
    "$OK" "$ALL" 'p["workers_failed"] >= 1' '1 <= p["worker_compiled"] <= 2' \
    '"failed after 1 program" in p["worker_note"]'

run bogus GPUCHAR_COMPILE_WORKERS=many
check "a setting that is not a count: exit 0" test "$(cat "$tmp/bogus.rc")" -eq 0
# Ignored: the backend's own choice stands (workers).
check "a setting that is not a count: ignored, with a note" plan bogus "$OK" "$ALL" \
    'p["workers"] >= 1' '"ignored" in p["worker_note"]'

# By default the workers compile every kernel; GPUCHAR_COMPILE_WORKERS=0
# keeps the plan on threads.
run default
check "$backend by default: exit 0" test "$(cat "$tmp/default.rc")" -eq 0
check "$backend by default: workers compile every kernel" plan default "$OK" "$ALL" \
    'p["workers"] >= 1' 'p["worker_compiled"] == p["compiled"]' 'p["workers_failed"] == 0' \
    'p["worker_note"] == ""'
run none GPUCHAR_COMPILE_WORKERS=0
check "none asked for: exit 0" test "$(cat "$tmp/none.rc")" -eq 0
check "none asked for: every kernel compiled on threads" plan none "$OK" "$ALL" \
    'p["workers"] == 0' 'p["worker_compiled"] == 0' 'p["worker_note"] == ""'

# A worker finds its device by PCI bus id where the plan gives one (another
# process may list devices in another order): one that finds no device with
# that id refuses to start, naming the id and what its process lists.
refusal() {
    python3 - "$bin" "$1" <<'PY'
import os
import socket
import subprocess
import sys

a, b = socket.socketpair()
env = dict(os.environ, GPUCHAR_COMPILE_WORKER=sys.argv[2])
p = subprocess.Popen([sys.argv[1]], stdin=b, env=env, stderr=subprocess.PIPE)
b.close()
a.recv(65536)
a.close()
err = p.stderr.read().decode()
sys.stdout.write(err)
sys.exit(0 if p.wait() == 1 else 1)
PY
}
refusal "${dev}@0000:99:00.0" >"$tmp/refusal.err" 2>&1
check "a worker whose PCI bus id is nowhere: refuses, exit 1" test $? -eq 0
check "its reason names the id and the devices it lists" grep -q \
    "no device with PCI bus id 0000:99:00.0 (this worker lists [1-9][0-9]* $backend device" \
    "$tmp/refusal.err"

echo "$pass passed, $fail failed"
test "$fail" -eq 0
