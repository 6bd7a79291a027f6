#!/usr/bin/env bash
# Proves with hardware counters which memory level serves each memory.bandwidth
# plateau: Nsight Compute reads, for every footprint the benchmark may pick for
# its L1, L2 and DRAM figures, the L1 hits, the L2 hits of L1 misses and the
# DRAM bytes; a figure named after a level must have >= 90% of its bytes
# served by that level. Usage: ncu-levels.sh PATH/TO/gpu_levels [OUTDIR]
# Exit 0 all served as named, 1 a level failed, 77 no ncu or no GPU.
set -u
probe=$1
dir=${2:-${GPUCHAR_CHECK_OUT:-$(mktemp -d)}}
mkdir -p "$dir"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [ -z "$ncu" ]; then
    echo "ncu not found: skipped"
    exit 77
fi
metrics=dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
# --cache-control none: the counted launch sees the caches the warm-up left,
# as the benchmark's samples do.
"$ncu" --cache-control none --clock-control none --metrics "$metrics" --csv --page raw \
    "$probe" "$dir/levels.tsv" >"$dir/ncu-levels.csv" 2>"$dir/ncu-levels.err"
rc=$?
if [ $rc -eq 77 ] || ! [ -s "$dir/levels.tsv" ]; then
    cat "$dir/ncu-levels.err" | tail -5
    echo "no GPU or the probe failed (rc $rc): skipped"
    exit 77
fi
python3 - "$dir/levels.tsv" "$dir/ncu-levels.csv" <<'PY'
import csv, sys
probes = {}
for line in open(sys.argv[1]):
    o, level, fp, nbytes = line.split()
    probes[int(o)] = (level, int(fp), float(nbytes))
rows = [r for r in csv.reader(l for l in open(sys.argv[2]) if l.startswith('"'))]
head, data = rows[0], rows[2:]  # the second row holds the units
col = {n: i for i, n in enumerate(head)}
def num(r, name):
    return float(r[col[name]].replace(",", ""))
bad = 0
print("l2-info: L2-only loads at footprints the L2 plateau is not taken from (shown, not judged)")
print(f"{'level':7} {'footprint':>12} {'served':>7}  L1 hit B   L2 hit B   DRAM B     requested B")
for r in data:
    o = int(r[col["ID"]]) + 1
    if o not in probes:
        continue
    level, fp, req = probes[o]
    l1 = num(r, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum") * 32
    l2 = num(r, "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum") * 32
    dram = num(r, "dram__bytes_read.sum")
    served = {"l1": l1, "l2": l2, "l2-info": l2, "dram": dram}[level] / req
    ok = served >= 0.90 or level.endswith("-info")
    bad += not ok
    print(f"{level:7} {fp:12d} {100*served:6.1f}%  {l1:.3e}  {l2:.3e}  {dram:.3e}  {req:.3e}"
          f"{'' if ok else '  <-- under 90%'}")
print("levels: %s" % ("all served as named" if not bad else f"{bad} point(s) not served by their level"))
sys.exit(1 if bad else 0)
PY
