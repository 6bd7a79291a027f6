#!/usr/bin/env bash
# The kernel cache cannot hurt a run on a real OpenCL driver: entries that
# are truncated (power loss, full disk), swapped between keys, overwritten
# with random bytes or of another format version are found invalid,
# compiled again and rewritten, and the run still succeeds. Two runs that
# fill one cache directory at once both succeed and leave only valid
# entries. Built with ASan, a truncated binary reaching the driver's loader
# would abort the run.
#
# usage: run_cache.sh GPUCHAR_BINARY
#
# Runs on GPUCHAR_CACHE_TEST_DEVICE (default opencl:0, PoCL in CI); needs
# that device and python3, exits 77 (skipped) without them.

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
dev=${GPUCHAR_CACHE_TEST_DEVICE:-opencl:0}
if ! "$bin" list 2>/dev/null | grep -q "^$dev[[:space:]]"; then
    echo "SKIP: no device $dev"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuchar-cache.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
cache=$tmp/cache
unset GPUCHAR_CACHE_DIR GPUCHAR_FAULT
# shellcheck source=tests/cli/checks.sh
. "$(dirname "$0")/checks.sh"

# run NAME [DIR]: one run of the chosen benchmarks with the cache in DIR;
# the exit status goes to $tmp/NAME.rc, the results to $tmp/NAME.json.
run() {
    local name=$1 dir=${2:-$cache}
    # --no-plan: each benchmark's own build meets the cache, so its counts
    # of compiled and cached kernels say what the cache gave (the run's
    # compile plan reads the cache through the same path, tests/pocl/test_pipeline.c).
    "$bin" run --device "$dev" --bench memory.copy,compute.fp32.fma --quick --repeat 2 \
        --min-time 1 --no-progress --quiet --no-plan --cache-dir "$dir" --json "$tmp/$name.json" \
        >"$tmp/$name.out" 2>&1
    echo $? >"$tmp/$name.rc"
}

# counts NAME: prints "compiled cached" summed over the run's benchmarks,
# or "bad" when a benchmark did not succeed.
counts() {
    python3 - "$tmp/$1.json" <<'EOF'
import json
import sys

doc = json.load(open(sys.argv[1]))
if not doc["complete"] or any(b["status"] != "ok" for b in doc["benchmarks"]):
    print("bad")
else:
    print(sum(b["kernels_compiled"] for b in doc["benchmarks"]),
          sum(b["kernels_cached"] for b in doc["benchmarks"]))
EOF
}

succeeded() { # NAME: exit status 0 and every benchmark ok
    [ "$(cat "$tmp/$1.rc")" = 0 ] && [ "$(counts "$1")" != bad ] || {
        sed 's/^/     | /' "$tmp/$1.out" | head -20
        return 1
    }
}

entries() { # the cache's entries, one path per line
    find "$cache" -maxdepth 1 -type f -name '*.bin' | sort
}

only_entries() { # nothing but KEY.bin files in the cache directory
    [ -z "$(find "$cache" -mindepth 1 -maxdepth 1 ! -name '*.bin')" ]
}

run cold
check "cold run succeeds" succeeded cold
read -r total cached0 <<<"$(counts cold)"
check "cold run compiled every kernel" test "${cached0:-x}" = 0 -a "${total:-0}" -ge 3
n=$(entries | wc -l)
check "cold run filled the cache" test "$n" -ge 2
run warm
check "warm run takes every kernel from the cache" test "$(counts warm)" = "0 $total"

# Every entry truncated: after the header, inside the header, to nothing.
i=0
while read -r f; do
    size=$(stat -c %s "$f")
    case $((i % 3)) in
    0) truncate -s $((size / 2)) "$f" ;;
    1) truncate -s 10 "$f" ;;
    2) truncate -s 0 "$f" ;;
    esac
    i=$((i + 1))
done < <(entries)
run truncated
check "run with truncated entries succeeds" succeeded truncated
check "truncated entries compiled again" test "$(counts truncated)" = "$total 0"
run rewritten
check "rewritten entries are used" test "$(counts rewritten)" = "0 $total"

# Two entries swapped between their keys, a third overwritten with random
# bytes, a fourth of another format version.
mapfile -t files < <(entries)
mv "${files[0]}" "$tmp/swap" && mv "${files[1]}" "${files[0]}" && mv "$tmp/swap" "${files[1]}"
head -c 5000 /dev/urandom >"${files[2]}"
damaged=3
if [ ${#files[@]} -ge 4 ]; then
    printf '\x09' | dd of="${files[3]}" bs=1 seek=8 conv=notrunc status=none
    damaged=4
fi
run swapped
check "run with swapped, random and old-version entries succeeds" succeeded swapped
# One entry per kernel, unless two kernels of the run share a source.
read -r recompiled reused <<<"$(counts swapped)"
if [ "$n" -eq "$total" ]; then
    check "only the damaged entries compiled again" \
        test "$recompiled $reused" = "$damaged $((total - damaged))"
else
    check "the damaged entries compiled again" \
        test "${recompiled:-0}" -ge "$damaged" -a $((${recompiled:-0} + ${reused:-0})) -eq "$total"
fi
run repaired
check "repaired entries are used" test "$(counts repaired)" = "0 $total"

# Two runs fill one empty cache directory at once.
rm -rf "$cache"
run race1 &
p1=$!
run race2 &
p2=$!
wait "$p1" "$p2"
check "first concurrent run succeeds" succeeded race1
check "second concurrent run succeeds" succeeded race2
run after
check "after concurrent runs every entry is valid and used" test "$(counts after)" = "0 $total"
check "no temporary file left in the cache" only_entries

echo "$pass passed, $fail failed"
test "$fail" -eq 0
