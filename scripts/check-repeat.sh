#!/usr/bin/env bash
# An explicit --repeat and --min-time over a whole run on one device: every
# statistic of the results tree has at most N samples and every benchmark
# records the user's sampling policy (tests/cli/check_samples.py).
#
# Usage: scripts/check-repeat.sh [GPUCHAR] [DEVICE] [N] [EXTRA RUN OPTIONS...]
#   e.g. scripts/check-repeat.sh build/gpuchar cuda:0 2
set -u
bin=${1:-build/gpuchar}
dev=${2:-cuda:0}
n=${3:-2}
shift $(($# < 3 ? $# : 3))
out=$(mktemp -d)
"$bin" run --device "$dev" --quick --repeat "$n" --min-time 1 --no-progress \
    --json "$out/repeat.json" "$@" >"$out/repeat.out" 2>&1
echo "run exit $? (results in $out/repeat.json)"
python3 "$(dirname "$0")/../tests/cli/check_samples.py" "$out/repeat.json" "$n" 0.001
