#!/usr/bin/env bash
# What NVIDIA's OpenCL compiles memory.latency.constant's chase to: the
# benchmark through opencl (event-timed) and cuda:0 (cycle path), then the
# PTX of the OpenCL program in the kernel cache (NVIDIA's OpenCL binaries are
# PTX text), each chase load's state space shown (the CUDA program's SASS is
# in docs/results/h200.md: ULDC). Results go to $OUT (or ./device-out).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
unpack_deps
log "build (Release)"
build_release build-chase
bin=build-chase/gpuchar
ocache=$(mktemp -d)
ccache=$(mktemp -d)
nvidia_opencl_on "$bin"
for spec in "$ocldev" cuda:0; do
    c=$ccache
    [ "$spec" = cuda:0 ] || c=$ocache
    log "memory.latency.constant on $spec"
    "$bin" run --device "$spec" --bench memory.latency.constant --no-progress --cache-dir "$c" \
        --json "$out/const-${spec%%:*}.json" >"$out/const-${spec%%:*}.txt" 2>&1
    grep -E "constant_level1|footprints|ok in|error" "$out/const-${spec%%:*}.txt" | head -8
done
log "OpenCL program: the chase's loads"
shown=0
for f in "$ocache"/*; do
    if [ "$shown" -lt 3 ] && grep -aq "entry gc_chase" "$f" 2>/dev/null; then
        shown=$((shown + 1))
        cp "$f" "$out/ocl-$(basename "$f").ptx"
        echo "-- $(basename "$f"): $(grep -ac "ld\." "$f") loads"
        grep -a -n -E "\.entry|ld\.(const|global)[^;]*;" "$f" | head -8
        # The SASS ptxas makes of it (the driver compiles the same PTX).
        python3 -c "import sys; d = open(sys.argv[1], 'rb').read(); i = d.find(b'//'); \
sys.stdout.buffer.write(d[i:].rstrip(b'\\0'))" "$f" >"$out/tmp.ptx"
        if ptxas -arch=sm_90 "$out/tmp.ptx" -o "$out/tmp.cubin" 2>/dev/null; then
            cuobjdump -sass "$out/tmp.cubin" | grep -oE "\b(U?LDC|LDG)[.A-Z0-9]*" | sort | uniq -c |
                sort -rn | head -6
        fi
    fi
done
