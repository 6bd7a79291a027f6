#!/usr/bin/env bash
# Where the run's wall time and host memory go: the default run and --quick
# on cuda:0 under tools/wallprof.c (a wall-clock sampler of the main thread's
# stack with the resident set), each with a warm kernel cache, summed per
# function by tools/wallprof.py.
#
#   scripts/device-profile.sh [quick|default ...]   (default: quick default)
#
# BENCH='pattern ...' restricts the runs. Results (reports, raw profiles, the
# binary they refer to, the run JSON) go to $OUT/profile.tgz.
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
runs=${*:-quick default}
setup_archive profile
log_stamp=elapsed

unpack_deps
show_device "$GPU_FIELDS_BASIC"
log "build"
build_release build-prof -j "$(nproc)" -DCMAKE_C_FLAGS=-g
gcc -O2 -shared -fPIC -o build-prof/libwallprof.so tools/wallprof.c -lrt || exit 1
bin=$PWD/build-prof/gpuchar
cp "$bin" "$out/"
new_kcache
sel=()
for b in ${BENCH:-}; do sel+=(--bench "$b"); done
log "fill the kernel cache (default run, not profiled)"
timev -o "$out/fill.time" "$bin" run --device cuda:0 "${sel[@]}" --no-progress -q --cache-dir "$cache" \
    --json "$out/fill.json"
time_lines "$out/fill.time"
for r in $runs; do
    prof=()
    [ "$r" = quick ] && prof=(--quick)
    log "$r, warm, profiled"
    timev -o "$out/$r.time" env WALLPROF_OUT="$out/$r.prof" LD_PRELOAD="$PWD/build-prof/libwallprof.so" \
        "$bin" run --device cuda:0 "${prof[@]}" "${sel[@]}" --no-progress -q \
        --cache-dir "$cache" --json "$out/$r.json"
    time_lines "$out/$r.time"
    python3 tools/wallprof.py "$out/$r.prof" "$bin" --top 80 >"$out/$r.report"
    head -60 "$out/$r.report"
done
