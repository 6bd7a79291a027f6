#!/usr/bin/env python3
"""Checks a results document run with --repeat N (and --min-time T seconds):
every statistics object of the tree has n <= N, and every benchmark that ran
records a sampling policy of at most N samples, flagged as the user's, with
T as its sample time.

Usage: check_samples.py RESULTS.json N T
"""
import json
import sys


def main():
    doc = json.load(open(sys.argv[1]))
    most, sample_s = int(sys.argv[2]), float(sys.argv[3])
    problems, nstats = [], 0
    for b in doc["benchmarks"]:
        name = b["name"]
        found = [(m["name"], m["stats"]) for m in b["metrics"] if "stats" in m]
        for s in b["series"]:
            found += [(s["name"], p["stats"]) for p in s["points"] if "stats" in p]
        nstats += len(found)
        problems += [f"{name}/{what}: {st['n']} samples" for what, st in found if st["n"] > most]
        if b["status"] == "skipped":
            continue
        p = b.get("sampling")
        if p is None:
            problems.append(f"{name}: no sampling policy recorded")
            continue
        if p["max_samples"] > most or p["min_samples"] > most or not p["repeat_explicit"]:
            problems.append(f"{name}: sampling policy {p} is not --repeat {most}")
        if not p.get("min_time_explicit") or abs(p["min_time_s"] - sample_s) > 1e-12:
            problems.append(f"{name}: sampling policy {p} is not --min-time {sample_s * 1e3} ms")
    if nstats == 0:
        problems.append("no statistics in the document")
    for p in problems:
        print(p)
    print(f"{nstats} statistics over {len(doc['benchmarks'])} benchmarks")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
