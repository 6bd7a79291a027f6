#!/usr/bin/env bash
# --full transfers under an address-space limit (ulimit -v): the buffers
# are sized from what the process may still map, so the run ends normally
# (exit 0, every transfer row measured or "not available" with the reason,
# the JSON written) instead of aborting inside the OpenCL runtime, and the
# row that took the bound names RLIMIT_AS.
#
# Usage: run_rlimit.sh GPUCHAR SANITIZED
# AddressSanitizer reserves terabytes of address space (its shadow memory),
# so a sanitized binary cannot run under ulimit -v at all: with SANITIZED
# set to ON the test is skipped (77); the unsanitized build (build-shared,
# which scripts/test.sh runs it from) exercises it.
set -u
bin=$1
if [ "${2:-OFF}" = ON ]; then
    echo "skipped: a sanitized binary cannot run under ulimit -v (ASan's shadow memory);" \
        "the unsanitized build runs this test"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GPUCHAR_CACHE_DIR="$tmp/cache"
limit_kib=${GC_RLIMIT_KIB:-1200000}
# shellcheck source=tests/cli/checks.sh
. "$(dirname "$0")/checks.sh"

(
    ulimit -v "$limit_kib" || exit 99
    exec "$bin" run --device opencl:0 --full --repeat 1 --min-time 1 --no-progress \
        --bench 'transfer.*' --json "$tmp/t.json"
) >"$tmp/t.out" 2>&1
rc=$?
if [ "$rc" -eq 99 ]; then
    echo "skipped: ulimit -v $limit_kib refused"
    exit 77
fi
tail -5 "$tmp/t.out"
check "--full transfers under ulimit -v $limit_kib exit 0" test "$rc" -eq 0
check "the JSON is written" test -s "$tmp/t.json"
check "every transfer row ok or not available, and the bound named" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = [b for b in d["benchmarks"] if b["name"].startswith("transfer.")]
bad = [b["name"] + ": " + b["status"] for b in rows if b["status"] not in ("ok", "not_available")]
named = [b["name"] for b in rows for m in b["metrics"]
         if m["name"] == "largest_size" and "RLIMIT_AS" in m.get("note", "")]
print("; ".join(bad) or "rows ok", "| RLIMIT_AS named by:", ", ".join(named) or "none")
sys.exit(1 if bad or not rows or not named else 0)' "$tmp/t.json"

echo "$pass passed, $fail failed"
test "$fail" -eq 0
