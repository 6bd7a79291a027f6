#!/usr/bin/env bash
# Runs the command-line cases of a table against the gpuchar binary and
# checks each one's exit status and output.
#
# usage: run_cases.sh GPUCHAR_BINARY CASES_FILE
#
# Each row of CASES_FILE is
#     args | expected exit status | extended regex
# The args are split on blanks (no quoting); leading NAME=VALUE words are set
# in the environment of that case only. The regex (grep -E) must match one
# line of stdout and stderr together; an empty regex checks the status only.
# The regex is everything after the second '|', so it may itself contain '|'.
# Blank lines and lines starting with '#' are skipped.
#
# Every case runs in a scratch directory with GPUCHAR_CACHE_DIR pointing into
# it, stdin from /dev/null and a time limit (GPUCHAR_CASE_TIMEOUT seconds,
# default 300). Prints "ok" or "FAIL" with the command per row and ends with
# "N passed, M failed"; exits 1 when any case failed, 2 on bad usage.

set -u

usage() {
    echo "usage: $0 GPUCHAR_BINARY CASES_FILE" >&2
    exit 2
}

trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    printf '%s' "$s"
}

[ $# -eq 2 ] || usage
bin=$1
cases=$2
if [ ! -f "$bin" ] || [ ! -x "$bin" ]; then
    echo "$0: '$bin' is not an executable file" >&2
    exit 2
fi
if [ ! -r "$cases" ]; then
    echo "$0: cannot read '$cases'" >&2
    exit 2
fi
# The cases run in a scratch directory, so the binary needs an absolute path.
case $bin in
/*) ;;
*) bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" ;;
esac

limit=${GPUCHAR_CASE_TIMEOUT:-300}
runner=()
if command -v timeout >/dev/null 2>&1; then
    runner=(timeout --kill-after=10 "$limit")
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuchar-cli.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export GPUCHAR_CACHE_DIR="$tmp/cache"
out=$tmp/output

passed=0
failed=0
lineno=0
while IFS= read -r line || [ -n "$line" ]; do
    lineno=$((lineno + 1))
    trimmed=$(trim "$line")
    if [ -z "$trimmed" ] || [ "${trimmed:0:1}" = "#" ]; then
        continue
    fi
    if [[ $line != *"|"*"|"* ]]; then
        echo "FAIL $cases:$lineno: malformed row (want 'args | status | regex'): $line"
        failed=$((failed + 1))
        continue
    fi
    args=$(trim "${line%%|*}")
    rest=${line#*|}
    want=$(trim "${rest%%|*}")
    regex=$(trim "${rest#*|}")
    if ! [[ $want =~ ^[0-9]+$ ]]; then
        echo "FAIL $cases:$lineno: expected exit status '$want' is not a number"
        failed=$((failed + 1))
        continue
    fi

    envs=()
    argv=()
    read -r -a words <<<"$args"
    for w in ${words[@]+"${words[@]}"}; do
        if [ ${#argv[@]} -eq 0 ] && [[ $w =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; then
            envs+=("$w")
        else
            argv+=("$w")
        fi
    done
    shown="gpuchar${argv[*]+ ${argv[*]}}"
    if [ ${#envs[@]} -gt 0 ]; then
        shown="${envs[*]} $shown"
    fi

    # A fresh directory per case: files one case writes cannot satisfy
    # another's check.
    work=$tmp/work.$lineno
    mkdir -p "$work"
    (cd "$work" &&
        exec ${runner[@]+"${runner[@]}"} env ${envs[@]+"${envs[@]}"} \
            "$bin" ${argv[@]+"${argv[@]}"}) </dev/null >"$out" 2>&1
    status=$?

    why=""
    if [ "$status" -ne "$want" ]; then
        why="exit status $status, expected $want"
        if [ -n "${runner[*]+x}" ] && { [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; }; then
            why="$why (timed out after ${limit}s?)"
        fi
    fi
    if [ -n "$regex" ] && ! grep -Eq -e "$regex" "$out"; then
        why="${why:+$why; }output does not match /$regex/"
    fi
    if [ -z "$why" ]; then
        echo "ok   $shown"
        passed=$((passed + 1))
    else
        echo "FAIL $shown"
        echo "     $cases:$lineno: $why; output:"
        head -n 20 "$out" | sed 's/^/     | /'
        failed=$((failed + 1))
    fi
done <"$cases"

echo "$passed passed, $failed failed"
if [ $((passed + failed)) -eq 0 ]; then
    echo "$0: no cases in '$cases'" >&2
    exit 1
fi
[ "$failed" -eq 0 ]
