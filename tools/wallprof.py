#!/usr/bin/env python3
"""Sums the stacks tools/wallprof.c recorded: wall time per function of the
named binary, inclusive (on the stack) and by the innermost frame of that
binary (where its own code or a call out of it was running), plus the time per
library of the innermost frame.

usage: wallprof.py PROFILE BINARY [--top N] [--only FUNCTION]

--only keeps the samples with FUNCTION on the stack (e.g. one benchmark's run
function).
"""
import bisect
import collections
import subprocess
import sys


def main():
    prof, binary = sys.argv[1], sys.argv[2]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 60
    maps, samples, interval, page, rss = [], [], 1000, 4096, []
    with open(prof) as f:
        for line in f:
            if line.startswith("interval_us"):
                interval = int(line.split()[1])
            elif line.startswith("map "):
                p = line[4:].split()
                lo, hi = (int(x, 16) for x in p[0].split("-"))
                maps.append((lo, hi, int(p[2], 16), p[5] if len(p) > 5 else ""))
            elif line.startswith("page_size"):
                page = int(line.split()[1])
            elif line.startswith("r "):
                rss.append((len(samples), int(line.split()[1]) * page / 2**20))
            elif line.startswith("s"):
                samples.append([int(x, 16) for x in line.split()[1:]])
    maps.sort()
    starts = [m[0] for m in maps]
    bin_base = min(m[0] - m[2] for m in maps if m[3].endswith(binary.split("/")[-1]))

    def where(a):
        i = bisect.bisect_right(starts, a) - 1
        if i >= 0 and maps[i][0] <= a < maps[i][1]:
            return maps[i][3]
        return "?"

    ours = sorted({a for s in samples for a in s if where(a).endswith(binary.split("/")[-1])})
    names = {}
    if ours:
        out = subprocess.run(["addr2line", "-f", "-e", binary] + ["%x" % (a - bin_base - 1) for a in ours],
                             capture_output=True, text=True).stdout.split("\n")
        for i, a in enumerate(ours):
            names[a] = out[2 * i]
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1]
        samples = [s for s in samples if any(names.get(a) == only for a in s)]
    incl, inner, libs = collections.Counter(), collections.Counter(), collections.Counter()
    for s in samples:
        seen = set()
        for a in s[2:]:  # the handler's own frames first
            if a in names and names[a] not in seen:
                seen.add(names[a])
                incl[names[a]] += 1
        leaf = next((names[a] for a in s[2:] if a in names), "?")
        lib = where(s[2]) if len(s) > 2 else "?"
        inner[(leaf, lib.split("/")[-1])] += 1
        libs[lib.split("/")[-1]] += 1
    ms = interval / 1000.0
    # Per benchmark run function (the frame gc__run_benches called): its
    # time, the part inside the backend's launch (the device running the
    # kernels, launch and wait) and the part in its own host code.
    per, per_launch = collections.Counter(), collections.Counter()
    for s in samples:
        fs = [names[a] for a in s[2:] if a in names]
        if "gc__run_benches" not in fs or fs.index("gc__run_benches") == 0:
            continue
        b = fs[fs.index("gc__run_benches") - 1]
        per[b] += 1
        if any(f in ("cuda_launch", "gc__cl_launch") for f in fs):
            per_launch[b] += 1
    print("samples %d, %.1f s" % (len(samples), len(samples) * ms / 1000))
    print("\n== per run function: total / in launches / rest (s)")
    for k, v in per.most_common(top):
        print("%8.2f %8.2f %8.2f %s" % (v * ms / 1000, per_launch[k] * ms / 1000,
                                         (v - per_launch[k]) * ms / 1000, k))
    print("\n== inclusive (s)")
    for k, v in incl.most_common(top):
        print("%8.2f %s" % (v * ms / 1000, k))
    print("\n== innermost own function / library of the innermost frame (s)")
    for (k, lib), v in inner.most_common(top):
        print("%8.2f %s  [%s]" % (v * ms / 1000, k, lib))
    # Resident memory: the peak, and the outermost run_* / gc__*_run function
    # on the stack wherever the resident set grew by 16 MiB or more.
    if rss:
        peak = max(rss, key=lambda x: x[1])
        print("\n== resident set: peak %.0f MiB at %.2f s" % (peak[1], peak[0] * ms / 1000))

        def bench_of(st):
            # The benchmark's run function: the frame gc__run_benches called.
            fs = [names[a] for a in st if a in names]
            if "gc__run_benches" in fs:
                i = fs.index("gc__run_benches")
                return fs[i - 1] if i > 0 else "gc__run_benches"
            return fs[-4] if len(fs) >= 4 else "?"
        prev = 0.0
        for i, mib in rss:
            if mib - prev >= 16:
                print("%8.2f s %6.0f MiB (+%.0f) %s" % (i * ms / 1000, mib, mib - prev,
                                                       bench_of(samples[i]) if i < len(samples) else "?"))
            prev = mib
    print("\n== library of the innermost frame (s)")
    for k, v in libs.most_common(15):
        print("%8.2f %s" % (v * ms / 1000, k))


main()
