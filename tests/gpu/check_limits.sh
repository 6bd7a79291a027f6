#!/usr/bin/env bash
# GPU acceptance of the foundation: memory.dram.copy and compute.fp32.fma through
# CUDA, compared with the device's limits (fp32 FMA >= 98.5% of
# 2 x 128 x SMs x observed clock, the band of scripts/check-run.py below the
# peak's run-to-run spread; nothing above its physical limit, CV < 1%)
# and the copy with the in-run STREAM-style reference (memory.dram.copy's
# BabelStream-like baseline kernel): at least 97% of it. HBM3 parts reach
# 85-90% of their DRAM spec with any kernel, so a fixed fraction of the spec
# is no test of the kernel.
set -u
bin=$1
out=${GPUCHAR_CHECK_OUT:-$(mktemp -d)}
mkdir -p "$out"
"$bin" run --device cuda:0 --bench memory.dram.copy --bench compute.fp32.fma \
    --json "$out/gpu.json" \
    --csv "$out/csv" --no-progress >"$out/gpu.txt" 2>&1
rc=$?
cat "$out/gpu.txt"
if [ "$rc" -ne 0 ]; then
    echo "gpuchar exited $rc"
    exit 1
fi
python3 - "$out/gpu.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = {(b["name"], x["name"]): x for b in d["benchmarks"] for x in b["metrics"]}
fails = 0
def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += 0 if cond else 1
fma = m[("compute.fp32.fma", "flops")]
cp = m[("memory.dram.copy", "copy_bandwidth")]
check(fma["fraction"] is not None and 0.985 <= fma["fraction"] <= 1.0,
      "fp32 FMA %.4g FLOP/s = %.2f%% of the limit at the observed clock" % (fma["value"], 100 * (fma["fraction"] or 0)))
ref = m[("memory.dram.copy", "baseline_bandwidth")]
check(cp["fraction"] is not None and cp["fraction"] <= 1.005,
      "copy %.4g B/s = %.2f%% of the DRAM spec (at most 100.5%%)" % (cp["value"], 100 * (cp["fraction"] or 0)))
check(cp["value"] >= 0.97 * ref["value"],
      "copy %.4g B/s >= 97%% of the STREAM-style reference %.4g B/s (%.1f%%)"
      % (cp["value"], ref["value"], 100 * cp["value"] / ref["value"]))
for b in d["benchmarks"]:
    for x in b["metrics"]:
        f = x.get("fraction")
        check(f is None or f <= 1.005, "%s %s fraction %s <= 1.005" % (b["name"], x["name"], f))
check(fma["stats"]["cv"] < 0.01, "fp32 FMA CV %.3f%%" % (100 * fma["stats"]["cv"]))
check(cp["stats"]["cv"] < 0.01, "copy CV %.3f%%" % (100 * cp["stats"]["cv"]))
for b in d["benchmarks"]:
    check(b["context"].get("sm_clock_source") == "clock64/globaltimer",
          "%s clock source %s" % (b["name"], b["context"].get("sm_clock_source")))
sys.exit(1 if fails else 0)
PY
