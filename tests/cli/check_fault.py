#!/usr/bin/env python3
"""Compares a run with an injected allocation fault to the same run without:
prints "BENCH: where" for the one row that shows the fault (its error, its
warning or a metric's note), nothing when no row does. Fails (exit 1, the
reason printed) when several rows show it, when another row's status changed,
when the faulty row is an error but the run exited 0, or when the run exited
1 without an error row.

Usage: check_fault.py CLEAN.json FAULT.json EXIT_CODE
"""
import json
import sys

MARK = "injected fault"


def main():
    clean = {b["name"]: b["status"] for b in json.load(open(sys.argv[1]))["benchmarks"]}
    doc = json.load(open(sys.argv[2]))
    rc = int(sys.argv[3])
    hits, problems = [], []
    for b in doc["benchmarks"]:
        where = []
        if MARK in b.get("error", ""):
            where.append("error")
        if MARK in b.get("warning", ""):
            where.append("warning")
        where += [m["name"] for m in b["metrics"] if MARK in m.get("note", "")]
        if where:
            hits.append((b, where))
        elif b["status"] != clean.get(b["name"]):
            problems.append(f"{b['name']} is {b['status']}, {clean.get(b['name'])} without the fault")
    if len(hits) > 1:
        problems.append("the fault shows in " + ", ".join(b["name"] for b, _ in hits))
    errors = [b for b, _ in hits if b["status"] == "error"]
    if errors and rc != 1:
        problems.append(f"{errors[0]['name']} failed but the run exited {rc}")
    if rc == 1 and not errors:
        problems.append("the run exited 1 without a failed row")
    if set(clean) != {b["name"] for b in doc["benchmarks"]}:
        problems.append("the rows differ from the run without the fault")
    if problems:
        print("; ".join(problems))
        return 1
    if hits:
        b, where = hits[0]
        print(f"{b['name']}: {b['status']} ({', '.join(where)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
