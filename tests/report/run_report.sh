#!/usr/bin/env bash
# End-to-end test of the views of a real run: a few benchmarks measured on
# the first OpenCL device (PoCL in CI), then
#   - 'report --html' opened in headless Chromium (check_html.py): no console
#     error, every figure drawn, the page's numbers equal the document's, a
#     screenshot;
#   - 'report --plots': an SVG and a PNG per figure, none empty;
#   - the same page without gnuplot: tables only, the package named;
#   - 'compare' of the run with itself: no regression, exit 0;
#   - 'compare' with a copy in which one metric is worse by more than its
#     noise: exactly that metric, exit 1, in text, markdown and JSON;
#   - 'compare --html' of the two.
#
# usage: run_report.sh GPUCHAR_BINARY OUTDIR
# OUTDIR keeps the run, the pages and the screenshots for a look afterwards.
set -u

bin=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
chromium=${CHROMIUM:-chromium}
fails=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

rm -rf "$out"
mkdir -p "$out"
export GPUCHAR_CACHE_DIR="$out/cache"

# A small set that still has every figure family PoCL can measure: a latency
# staircase with levels, bank conflicts, constant broadcast, the copy kernel,
# a compute peak.
benches=memory.latency.private,memory.shared,memory.constant,memory.copy_kernel,compute.fp32.fma
if ! "$bin" run --device opencl:0 --quick --bench "$benches" --no-progress --quiet \
    --json "$out/run.json" 2>"$out/run.err"; then
    cat "$out/run.err"
    echo "FAIL: the PoCL run failed"
    exit 1
fi

# Progress: on a terminal the live line names the benchmark, its
# configurations and the time left; off a terminal, and with --quiet on one,
# stderr has no escape sequence and no progress line.
if command -v script >/dev/null; then
    script -qc "'$bin' run --device opencl:0 --quick --bench memory.constant,memory.shared \
        --json '$out/tty.json' >/dev/null" "$out/tty.log" >/dev/null 2>&1 || fail "run on a terminal"
    grep -q 'memory.shared  [0-9]* configs\?, .*ETA' "$out/tty.log" ||
        fail "no live progress line with configurations and ETA"
    script -qc "'$bin' run --device opencl:0 --quick --bench memory.constant --quiet \
        --json '$out/tty-q.json'" "$out/tty-q.log" >/dev/null 2>&1 || fail "run --quiet on a terminal"
    ! grep -q 'configs\?,\|ETA' "$out/tty-q.log" || fail "progress with --quiet"
fi
"$bin" run --device opencl:0 --quick --bench memory.constant --json "$out/pipe.json" \
    >/dev/null 2>"$out/pipe.err" || fail "run off a terminal"
! grep -q $'\033\|ETA' "$out/pipe.err" || fail "progress or escape sequences off a terminal"

# The page and the figures.
if ! command -v gnuplot >/dev/null; then
    echo "SKIP: gnuplot not found (install the Debian package gnuplot-nox)"
    exit 77
fi
"$bin" report --quiet --html "$out/run.html" "$out/run.json" || fail "report --html"
python3 "$here/check_html.py" "$chromium" "$out/run.html" "$out/run.json" "$out/run.png"
st=$?
[ $st -eq 77 ] && { echo "SKIP: no Chromium"; exit 77; }
[ $st -eq 0 ] || fail "the page of the run"

"$bin" report --quiet --plots "$out/plots" "$out/run.json" || fail "report --plots"
nfig=$(grep -c '<figure class="fig"' "$out/run.html")
nsvg=$(find "$out/plots" -name '*.svg' -size +1k | wc -l)
npng=$(find "$out/plots" -name '*.png' -size +1k | wc -l)
[ "$nsvg" -eq "$nfig" ] && [ "$npng" -eq "$nfig" ] ||
    fail "--plots wrote $nsvg SVG and $npng PNG files for $nfig figures"
grep -q '<svg' "$out/plots/memory.latency.private__latency_cycles.svg" ||
    fail "no staircase figure"

GPUCHAR_GNUPLOT=/nonexistent/gnuplot "$bin" report --quiet --html "$out/nofig.html" \
    "$out/run.json" 2>"$out/nofig.err" || fail "report --html without gnuplot"
grep -q 'gnuplot-nox' "$out/nofig.err" || fail "no word of gnuplot-nox on stderr"
python3 "$here/check_html.py" "$chromium" "$out/nofig.html" "$out/run.json" "$out/nofig.png" \
    --no-figures || fail "the page without gnuplot"

# Compare: a run with itself.
"$bin" compare "$out/run.json" "$out/run.json" >"$out/self.txt"
st=$?
[ $st -eq 0 ] || fail "compare of a run with itself exits $st"
grep -q '^0 regressions' "$out/self.txt" || fail "compare of a run with itself: $(tail -1 "$out/self.txt")"

# One sampled metric made worse by more than its noise and the threshold.
python3 - "$out/run.json" "$out/worse.json" >"$out/worsened" <<'EOF' || fail "making the worse copy"
import json, sys
doc = json.load(open(sys.argv[1]))
# The sampled rate with the smallest spread (a run beside other tests can be
# noisy), made worse by 20% or by four times its spread, whichever is more:
# beyond the 2 x sqrt(2) x spread that compare allows for noise.
best = None
for b in doc["benchmarks"]:
    for m in b["metrics"]:
        st = m.get("stats")
        if m["unit"].endswith("/s") and st and st["n"] > 1 and m["value"]:
            spread = max(st.get("cv") or 0, abs((st.get("ci95") or 0) / m["value"]))
            if best is None or spread < best[0]:
                best = (spread, b, m)
if best and 4 * best[0] < 0.95:
    spread, b, m = best
    m["value"] *= 1 - max(0.2, 4 * spread)
    json.dump(doc, open(sys.argv[2], "w"), indent=2)
    print("%s/%s" % (b["name"], m["name"]))
    sys.exit(0)
sys.exit("no sampled rate in the run")
EOF
want=$(cat "$out/worsened")
"$bin" compare --json "$out/worse-cmp.json" "$out/run.json" "$out/worse.json" >"$out/worse.txt"
st=$?
[ $st -eq 1 ] || fail "compare with a worse metric exits $st, not 1"
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s/%s" % (r["bench"], r["metric"]) for r in d["regressed"]))' "$out/worse-cmp.json")
[ "$got" = "$want" ] || fail "compare reports '$got' as regressed, expected exactly '$want'"
grep -q "regressed: $want" "$out/worse.txt" || fail "the text does not name $want"
"$bin" compare --format markdown "$out/run.json" "$out/worse.json" >"$out/worse.md"
[ $? -eq 1 ] || fail "compare --format markdown exit status"
grep -q "\*\*REGRESSED\|REGRESSED" "$out/worse.md" || fail "markdown without the regression"
"$bin" compare --no-fail --quiet "$out/run.json" "$out/worse.json" || fail "--no-fail"
"$bin" compare --quiet --html "$out/compare.html" "$out/run.json" "$out/worse.json"
[ $? -eq 1 ] || fail "compare --html exit status"
grep -q 'class="regressed"' "$out/compare.html" || fail "the comparison page shows no regression"

echo "$fails failures"
[ $fails -eq 0 ]
