#!/usr/bin/env bash
# The fleet run's faults and launch conventions under MPI, on the null
# backend's simulated devices (GPUCHAR_NULL_DEVICES; the other backends
# hidden), so that every rank has a device of its own:
# - srun-style: the local rank comes from SLURM_LOCALID (given reversed
#   against MPI's order: the devices follow it), no turns taken; ranks bound
#   to different GPUs (CUDA_VISIBLE_DEVICES) do not take turns on "their"
#   device 0, ranks bound to the same one do;
# - a rank whose measurement crashes (GPUCHAR_FAULT=crash:1) and one that
#   hangs past its --rank-timeout (hang:1) are reported as failed and timed
#   out, the others' results kept, exit 1; 'gpuchar fleet DIR' says the same
#   from the ranks' markers;
# - a node run per rank (--device all): the node documents' links are
#   compared across the nodes, a link degraded on one rank
#   (scale:link.latency/0->1:100) flags that node alone with the pair named,
#   and none is flagged without it.
#
# usage: run_fleet_faults.sh GPUCHAR_BINARY   (exit 77: skipped, no mpirun or no MPI build)
set -u
bin=$1
case $bin in /*) ;; *) bin="$(pwd)/$bin" ;; esac
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: mpirun not found (install openmpi-bin and libopenmpi-dev, then rebuild)"
    exit 77
fi
if "$bin" help run | grep -q "MPI in this build: none"; then
    echo "SKIP: this gpuchar was built without MPI (install libopenmpi-dev and rebuild)"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuchar-fleet-faults.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export GPUCHAR_CACHE_DIR="$tmp/cache" GPUCHAR_LIBCUDA=/nonexistent/libcuda.so.1 \
    GPUCHAR_LIBOPENCL=/nonexistent/libOpenCL.so.1
unset GPUCHAR_FAULT GPUCHAR_FAULT_DEVICE
# Open MPI's own allocations outlive MPI_Finalize: no leak check under mpirun.
mpi=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" mpirun --oversubscribe
     --allow-run-as-root)
fail=0
check() { # description, command...
    local what=$1
    shift
    if "$@"; then echo "ok $what"; else echo "FAIL $what"; fail=1; fi
}
json() { # file, python assertions on d
    python3 -c "import json, sys; d = json.load(open(sys.argv[1])); $2" "$1"
}

# srun-style launch: SLURM_* variables per rank (as srun sets them), no Slurm.
export GPUCHAR_NULL_DEVICES=2
run=(run --mpi --quick --device null --bench transfer.pageable --fleet-dir "$tmp/s")
slurm() { # procid localid
    echo env SLURM_PROCID=$1 SLURM_LOCALID=$2 SLURM_NTASKS=2 SLURM_NNODES=1 SLURM_NODEID=0 \
        SLURM_STEP_NUM_TASKS=2
}
"${mpi[@]}" -n 1 $(slurm 0 1) "$bin" "${run[@]}" : -n 1 $(slurm 1 0) "$bin" "${run[@]}" \
    >"$tmp/s.out" 2>&1
rc=$?
check "srun-style: exit 0 (got $rc)" test $rc -eq 0
check "srun-style: rank 0 on null:1 and rank 1 on null:0 (SLURM_LOCALID)" \
    test -s "$(ls "$tmp"/s/*_null-1_r000000.json)" -a -s "$(ls "$tmp"/s/*_null-0_r000001.json)"
check "srun-style: no turns taken" test "$(grep -c 'take turns' "$tmp/s.out")" -eq 0
# One GPU bound per task (srun --gpus-per-task=1): each rank's only device is
# its "null:0", yet the ranks do not share it; the same binding shares it.
export GPUCHAR_NULL_DEVICES=1
run=(run --mpi --quick --device null --bench transfer.pageable --fleet-dir "$tmp/v")
"${mpi[@]}" -n 1 env CUDA_VISIBLE_DEVICES=0 $(slurm 0 0) "$bin" "${run[@]}" \
    : -n 1 env CUDA_VISIBLE_DEVICES=1 $(slurm 1 1) "$bin" "${run[@]}" >"$tmp/v.out" 2>&1
rc=$?
check "one device bound per task: exit 0 (got $rc), no turns" \
    test $rc -eq 0 -a "$(grep -c 'take turns' "$tmp/v.out")" -eq 0
"${mpi[@]}" -n 1 env CUDA_VISIBLE_DEVICES=0 $(slurm 0 0) "$bin" "${run[@]}" \
    : -n 1 env CUDA_VISIBLE_DEVICES=0 $(slurm 1 1) "$bin" "${run[@]}" >"$tmp/v2.out" 2>&1
rc=$?
check "the same device bound to both tasks: exit 0 (got $rc), turns taken" \
    test $rc -eq 0 -a "$(grep -c 'share null:0: they take turns' "$tmp/v2.out")" -eq 1

# A crash and a hang among four ranks.
export GPUCHAR_NULL_DEVICES=4
run=(run --mpi --quick --device null --bench transfer.pageable --fleet-dir "$tmp/c")
"${mpi[@]}" -n 2 "$bin" "${run[@]}" : -n 1 env GPUCHAR_FAULT=crash:1 "$bin" "${run[@]}" \
    : -n 1 env GPUCHAR_FAULT=hang:1 "$bin" "${run[@]}" --rank-timeout 5 >"$tmp/c.out" 2>&1
rc=$?
check "crash and hang: exit 1 (got $rc)" test $rc -eq 1
check "crash and hang: ranks 0 and 1 kept, 2 crashed, 3 timed out" json "$tmp/c/fleet.json" '
c = d["counts"]
assert (c["gpus"], c["ok"], c["failed"], c["timeout"]) == (4, 2, 1, 1), c
g = {x["rank"]: x for x in d["gpus"]}
assert g[0]["status"] == g[1]["status"] == "ok", g
assert g[2]["status"] == "failed" and "crashed" in g[2]["message"], g[2]
assert g[3]["status"] == "timeout" and "--rank-timeout 5 s" in g[3]["message"], g[3]'
check "crash and hang: the kept ranks' results files" test "$(ls "$tmp"/c/*_r*.json | wc -l)" -eq 2
check "crash and hang: named on stdout" grep -q "TIMEOUT rank 3, host .*rank-timeout" "$tmp/c.out"
"$bin" fleet "$tmp/c" -o "$tmp/c2" >"$tmp/c2.out" 2>&1
rc=$?
check "fleet DIR after a crash and a hang: exit 1 (got $rc), the same statuses" \
    json "$tmp/c2/fleet.json" "
assert $rc == 1
g = {x['rank']: x['status'] for x in d['gpus']}
assert g == {0: 'ok', 1: 'ok', 2: 'failed', 3: 'timeout'}, g"

# A node run per rank: the links compared across the nodes.
export GPUCHAR_NULL_DEVICES=2
run=(run --mpi --quick --device all --bench link.latency,link.topology,transfer.pageable
     --fleet-dir "$tmp/n")
"${mpi[@]}" -n 3 "$bin" "${run[@]}" : -n 1 env "GPUCHAR_FAULT=scale:link.latency/0->1:100" "$bin" \
    "${run[@]}" >"$tmp/n.out" 2>&1
rc=$?
check "nodes: exit 1 (got $rc)" test $rc -eq 1
check "nodes: rank 3's node alone flagged, on link.latency 0->1; no device flagged" \
    json "$tmp/n/fleet.json" '
n = d["nodes"]
assert n["count"] == 4 and n["flagged"] == 1, n
f = n["flagged_nodes"]
assert [x["rank"] for x in f] == [3], f
assert [(p["bench"], p["pair"]) for p in f[0]["pairs"]] == [("link.latency", "0->1")], f
assert d["counts"]["gpus"] == 8 and d["counts"]["ok"] == 8 and d["counts"]["flagged"] == 0'
check "nodes: named on stdout" grep -q "FLAGGED node .*, rank 3," "$tmp/n.out"
check "nodes: fleet_nodes.csv, a row per node" test "$(wc -l <"$tmp/n/fleet_nodes.csv")" -eq 5
check "nodes: the HTML page's node table" grep -q '<h2 id="nodes">Flagged nodes (1 of 4)' \
    "$tmp/n/fleet.html"
"$bin" fleet "$tmp"/n/*_r*.json >"$tmp/n2.out" 2>&1
rc=$?
check "fleet NODE.json...: exit 1 (got $rc), the same node" \
    test $rc -eq 1 -a "$(grep -c '^FLAGGED node .*, rank 3,' "$tmp/n2.out")" -eq 1
rm "$tmp"/n/*_r000003.json
"$bin" fleet "$tmp/n" -o "$tmp/n3" >"$tmp/n3.out" 2>&1
rc=$?
check "nodes without the degraded link: exit 0 (got $rc), none flagged" \
    json "$tmp/n3/fleet.json" "
assert $rc == 0 and d['nodes']['count'] == 3 and d['nodes']['flagged'] == 0, d['nodes']"
exit $fail
