#!/usr/bin/env python3
"""Prints the acceptance figures of the latency-hiding benchmarks from results JSON files.

usage: hiding-check.py hp.json [mix.json] [ref.json]
  hp.json  : gpuchar run --bench hiding.params --json hp.json
  mix.json : gpuchar run --bench 'hiding.mix.*' --json mix.json
  ref.json : gpuchar run --bench compute.fp32.add --bench memory.dram.read --json ref.json
"""
import json
import sys


def benches(path):
    d = json.load(open(path))
    return {b["name"]: b for b in d["benchmarks"]}, d


def metric(b, name):
    for m in b["metrics"]:
        if m["name"] == name:
            return m["value"]
    return None


def series(b, name):
    for s in b["series"]:
        if s["name"] == name:
            return s["points"]
    return []


def fmt(v, f="%.4g"):
    return "-" if v is None else f % v


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    bs, doc = benches(sys.argv[1])
    hp = bs.get("hiding.params")
    if not hp or hp["status"] != "ok":
        print("hiding.params missing or not ok:", hp and hp.get("error"))
        return 1
    dev = doc["meta"]["device"]
    sms, clk = metric(hp, "sm_count"), metric(hp, "clock_hz")
    print("device %s, %s SMs, clock %s MHz" % (dev.get("name"), fmt(sms), fmt(clk / 1e6 if clk else None)))
    ex = series(hp, "excluded_samples")
    print("excluded samples (attained != requested): %d %s" % (len(ex), [(p["label"], p["x"], p["y"]) for p in ex][:8]))
    for k in ["alu", "sfu", "shared", "shared2", "mem", "random"]:
        print("%-8s lat %8s cyc  peak %8s ops/clk/SM = %7s /sched  w90 %5s w95 %5s linear %6s (%s%% of peak)" % (
            k, fmt(metric(hp, k + "_latency_cycles")), fmt(metric(hp, k + "_peak_ops_per_clk_sm")),
            fmt(metric(hp, k + "_peak_ops_per_clk_sched")), fmt(metric(hp, k + "_warps_90pct")),
            fmt(metric(hp, k + "_warps_95pct")), fmt(metric(hp, k + "_warps_linear")),
            fmt(metric(hp, k + "_pct_of_peak_at_linear"), "%.0f")))
    mem = metric(hp, "mem_thru_bytes_per_clk_sm")
    print("streaming peak %s B/clk/SM = %s TB/s" % (fmt(mem), fmt(metric(hp, "mem_peak_bandwidth") / 1e12 if mem else None)))
    print("contention a %s b %s c %s B/clk/SM, c/peak %s (accept within 1.05), rms %s%%, points %s" % (
        fmt(metric(hp, "contention_a_cycles")), fmt(metric(hp, "contention_b_cycles")),
        fmt(metric(hp, "contention_c_bytes_per_clk_sm")), fmt(metric(hp, "contention_c_over_peak")),
        fmt(metric(hp, "contention_fit_rms")), fmt(metric(hp, "contention_fit_points"))))
    print("random: per transaction %s cycles (Table 6.7), per line %s cycles" % (
        fmt(metric(hp, "random_increment_per_transaction_cycles")), fmt(metric(hp, "random_increment_per_line_cycles"))))
    print("block replacement %s cycles" % fmt(metric(hp, "block_replacement_cycles")))
    print("percentiles: spread (p95-p5) low %s high %s ratio %s (must be > 1)" % (
        fmt(metric(hp, "percentile_spread_low_cycles")), fmt(metric(hp, "percentile_spread_high_cycles")),
        fmt(metric(hp, "percentile_spread_ratio"))))
    for p in series(hp, "latency_p50_vs_throughput"):
        print("   %7.0f GB/s  p50 %6.0f  (%s)" % (p["x"], p["y"], p["label"]))
    # Linear and flat modes: the ILP 1 add sweep rises ~linearly then flattens at the peak.
    for k in ["alu_ilp1", "mem_ilp1", "mem_ilp2", "mem_ilp4"]:
        pts = series(hp, k)
        print("%-9s " % k + " ".join("%d:%.3g" % (p["x"], p["y"]) for p in pts))
    if len(sys.argv) > 2:
        ms, _ = benches(sys.argv[2])
        for name in ["hiding.mix.mem", "hiding.mix.shared", "hiding.mix.sfu"]:
            b = ms.get(name)
            if not b:
                continue
            if b["status"] != "ok":
                print(name, "status", b["status"], b["error"])
                continue
            print("%-18s basic max %s median %s | refined max %s median %s | cusp alpha %s warps %s | needed max measured %s basic %s" % (
                name, fmt(metric(b, "basic_max_overestimate")), fmt(metric(b, "basic_median_overestimate")),
                fmt(metric(b, "refined_max_overestimate")), fmt(metric(b, "refined_median_overestimate")),
                fmt(metric(b, "cusp_alpha")), fmt(metric(b, "cusp_warps")),
                fmt(metric(b, "needed_max_measured")), fmt(metric(b, "needed_max_basic"))))
            nm = {p["x"]: p["y"] for p in series(b, "needed_measured")}
            nb = {p["x"]: p["y"] for p in series(b, "needed_basic")}
            print("   alpha: needed measured / basic  " + " ".join(
                "%g:%s/%s" % (a, fmt(nm.get(a), "%.0f"), fmt(nb.get(a), "%.0f")) for a in sorted(nb)))
            print("   excluded samples: %d; wall %.1f s" % (len(series(b, "excluded_samples")), b["wall_s"]))
    if len(sys.argv) > 3:
        rs, _ = benches(sys.argv[3])
        add = rs.get("compute.fp32.add")
        rd = rs.get("memory.dram.read")
        if add:
            print("compute.fp32.add per_clk_per_cu %s vs hiding alu %s ops/clk/SM" % (
                fmt(metric(add, "per_clk_per_cu")), fmt(metric(hp, "alu_peak_ops_per_clk_sm"))))
        if rd:
            print("memory.dram.read %s TB/s vs hiding streaming %s TB/s" % (
                fmt(metric(rd, "read_bandwidth") / 1e12 if metric(rd, "read_bandwidth") else None),
                fmt(metric(hp, "mem_peak_bandwidth") / 1e12 if metric(hp, "mem_peak_bandwidth") else None)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
