#!/usr/bin/env bash
# Latency-hiding measurements on an NVIDIA GPU: hiding.params (the model's
# profile), the model evaluated offline from it, the hiding.mix.* sweeps, the
# compute and DRAM references they must agree with, and the acceptance
# figures (scripts/hiding-check.py). Assumes build-gpu/ (device-compute.sh
# builds it). Results go to $OUT (or ./device-out).
set -u
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/device-lib.sh
. scripts/device-lib.sh
setup_out
bin=build-gpu/gpuchar
log "hiding.params"
wall_ms timeout 90 "$bin" run --device cuda:0 --no-progress --bench hiding.params \
    --json "$out/hp.json" >"$out/hp.txt" 2>&1
tail -3 "$out/hp.txt"
log "gpuchar model from the profile"
"$bin" model --profile "$out/hp.json" --alpha 32 --warps 32 2>&1 | head -20
"$bin" model --profile "$out/hp.json" --sweep 2>&1 | tail -25
log "hiding.mix.*"
wall_ms timeout 90 "$bin" run --device cuda:0 --no-progress --bench 'hiding.mix.*' \
    --json "$out/mix.json" >"$out/mix.txt" 2>&1
tail -3 "$out/mix.txt"
log "references"
wall_ms timeout 40 "$bin" run --device cuda:0 --no-progress --bench compute.fp32.add \
    --bench memory.dram.read --json "$out/ref.json" >"$out/ref.txt" 2>&1
log "acceptance figures"
python3 scripts/hiding-check.py "$out/hp.json" "$out/mix.json" "$out/ref.json"
