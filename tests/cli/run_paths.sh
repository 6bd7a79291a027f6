#!/usr/bin/env bash
# Outputs and inputs of run, report, compare and model: every path that must
# not be written (a device node, a FIFO, a folder, a link to one of them, a
# read-only file, a command's own input, a path two outputs share) is refused
# with status 2 and its reason before any work, and what it names is left as
# it was; a link to a regular file is followed and said so; with --json -
# standard output is JSON only; inputs that are a folder, empty, huge, binary
# or not JSON are named as such; a reason survives a very long path. No
# device is needed: run uses the null backend or stops before any device.
#
# usage: run_paths.sh GPUCHAR_BINARY
set -u
[ $# -eq 1 ] || {
    echo "usage: $0 GPUCHAR_BINARY" >&2
    exit 2
}
# The cases run in a scratch directory, so the binary needs an absolute path.
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
fixtures=$(cd "$(dirname "$0")/fixtures" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpuchar-paths.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export GPUCHAR_CACHE_DIR="$tmp/cache" GPUCHAR_NULL_DEVICES=1
cd "$tmp" || exit 2
pass=0
fail=0

ok() {
    echo "ok   ${1:0:200}"
    pass=$((pass + 1))
}

bad() {
    echo "FAIL ${1:0:200}"
    cut -c1-400 "$tmp/err" | head -n 10 | sed 's/^/     | /'
    fail=$((fail + 1))
}

# expect STATUS REGEX ARGS...: runs gpuchar ARGS, checks the status and that
# REGEX (grep -E) matches its standard error.
expect() {
    local want=$1 regex=$2 rc
    shift 2
    timeout 120 "$bin" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "     status $rc, expected $want" >>"$tmp/err"
        bad "gpuchar $*"
    elif ! grep -Eq -e "$regex" "$tmp/err"; then
        echo "     stderr does not match /$regex/" >>"$tmp/err"
        bad "gpuchar $*"
    else
        ok "gpuchar $*"
    fi
}

# check NAME COMMAND...: a property of what the cases left behind.
check() {
    local name=$1
    shift
    if "$@" >/dev/null 2>"$tmp/err"; then ok "$name"; else bad "$name"; fi
}

cp "$fixtures/hiding-maxwell.json" a.json
cp "$fixtures/hiding-maxwell.json" b.json
mkfifo fifo
mkdir folder
ln -s /dev/null link-null
ln -s fifo link-fifo
ln -s missing link-missing
echo keep >target.json
ln -s target.json link-reg.json
echo keep >ro.json
chmod 0444 ro.json
: >empty.json
truncate -s 200M zeros.json
truncate -s 300M huge.json
printf '\x7fELF\x02\x01\x01\x00binary' >binary.json
echo 'hello, world' >text.json
run=(run --device null:0 --bench memory.copy --quick --repeat 2 --no-progress)

# Device nodes, FIFOs, sockets, folders and links to them: refused (2)
# before the device is opened (an unknown device would be status 3).
expect 2 "cannot write --json '/dev/null': it is a character device, not a regular file" \
    run --device nosuchdevice --json /dev/null
expect 2 "cannot write --json 'fifo': it is a FIFO, not a regular file" "${run[@]}" --json fifo
expect 2 "cannot write --json 'folder': it is a folder" "${run[@]}" --json folder
expect 2 "cannot write --json 'link-null': it is a symbolic link to a character device" \
    "${run[@]}" --json link-null
expect 2 "it is a symbolic link to a FIFO" "${run[@]}" --json link-fifo
expect 2 "it is a symbolic link to nothing" "${run[@]}" --json link-missing
expect 2 "cannot write --csv 'fifo': it is a FIFO, not a folder" "${run[@]}" --csv fifo
expect 2 "cannot write --html '/dev/null': it is a character device" report --html /dev/null a.json
expect 2 "cannot write --html 'fifo': it is a FIFO" report --html fifo a.json
expect 2 "cannot write --html 'folder': it is a folder" report --html folder a.json
expect 2 "cannot write --html 'link-null': it is a symbolic link to a character device" \
    report --html link-null a.json
expect 2 "cannot write --json '/dev/null': it is a character device" \
    compare --json /dev/null a.json b.json
expect 2 "cannot write --html 'fifo': it is a FIFO" compare --html fifo a.json b.json
if command -v python3 >/dev/null 2>&1 &&
    python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock 2>/dev/null; then
    expect 2 "cannot write --json 'sock': it is a socket" "${run[@]}" --json sock
fi
check "/dev/null is still a character device" test -c /dev/null
check "the FIFO is still a FIFO" test -p fifo
check "the link to /dev/null is still a link" test -L link-null

# A read-only file (no write bit: root would be allowed to replace it) is
# never replaced.
expect 2 "cannot write --json 'ro.json': it is read-only \(mode 0444\)" "${run[@]}" --json ro.json
expect 2 "cannot write --html 'ro.json': it is read-only" report --html ro.json a.json
expect 2 "cannot write --json 'ro.json': it is read-only" compare --json ro.json a.json b.json
check "the read-only file is unchanged" grep -qx keep ro.json

# A command's own input, by identity, not by spelling.
expect 2 "cannot write --html 'a.json': it is the results file 'a.json', an input" \
    report --html a.json a.json
expect 2 "cannot write --html '\./a\.json': it is the results file 'a.json', an input" \
    report --html ./a.json a.json
expect 2 "cannot write --json 'b.json': it is the results file 'b.json', an input" \
    compare --json b.json a.json b.json
expect 2 "cannot write --json 'a.json': it is the results file" compare --json a.json a.json b.json
ln -s a.json alias.json
expect 2 "cannot write --html '$tmp/alias.json': it is the results file 'a.json', an input" \
    compare --html "$tmp/alias.json" a.json b.json
check "the inputs are unchanged" cmp -s a.json "$fixtures/hiding-maxwell.json"

# Two outputs that share a path, also one that does not exist yet.
expect 2 "cannot write --csv 'p': --json names the same path" "${run[@]}" --json p --csv p
expect 2 "cannot write --csv 'x/\./p/': --json names the same path" \
    "${run[@]}" --json x/p --csv x/./p/
expect 2 "cannot write --dump-kernels 'k': --csv names the same path" \
    "${run[@]}" --csv k --dump-kernels k
expect 2 "cannot write --csv 'p.html': --html names the same path" \
    report --html p.html --csv p.html a.json
expect 2 "cannot write --html 'c.json': --json names the same path" \
    compare --json c.json --html c.json a.json b.json
expect 2 "both write the comparison to standard output" \
    compare --json - --format json a.json b.json
check "nothing was created" test ! -e p -a ! -e x -a ! -e k -a ! -e p.html -a ! -e c.json

# A link to a regular file is followed: its target is replaced, the link
# stays, and the command says so.
expect 0 "--html 'link-reg.json' is a symbolic link: the regular file it names, '.*target\.json', is replaced" \
    report --quiet --html link-reg.json a.json
check "the link is still a link" test -L link-reg.json
check "its target holds the page" grep -q "<html" target.json

# --json -: standard output carries the JSON only; the text goes to stderr.
"$bin" "${run[@]}" --json - >run.out 2>run.err
check "run --json -: stdout is JSON" python3 -m json.tool run.out
check "run --json -: the report is on stderr" grep -q "^== memory.dram.copy" run.err
"$bin" compare --json - a.json b.json >cmp.out 2>cmp.err
check "compare --json -: stdout is JSON" python3 -m json.tool cmp.out
check "compare --json -: the text is on stderr" grep -q "regressions" cmp.err

# Inputs that cannot be results documents are named for what they are:
# report and model 1, compare 4 (a file that cannot be read).
expect 1 "report: folder: it is a folder, not a results file" report folder
expect 4 "compare: folder: it is a folder, not a results file" compare a.json folder
expect 1 "model: folder: it is a folder, not a results file" model --profile folder --alpha 1
expect 1 "empty.json: it is empty" report empty.json
expect 4 "empty.json: it is empty" compare a.json empty.json
expect 1 "zeros.json: it is binary data, not JSON \(a NUL byte at offset 0\)" report zeros.json
expect 4 "zeros.json: it is binary data, not JSON" compare zeros.json a.json
expect 1 "zeros.json: it is binary data, not JSON" model --profile zeros.json --alpha 1
expect 1 "huge.json: it is 300 MiB, larger than the 256 MiB a results file can be" report huge.json
expect 4 "huge.json: it is 300 MiB, larger than the 256 MiB" compare a.json huge.json
expect 1 "binary.json: it is binary data, not JSON \(a NUL byte at offset 7\)" report binary.json
expect 1 "text.json: it is not JSON: .* at line 1, column [0-9]+" report text.json
expect 4 "text.json: it is not JSON" compare a.json text.json

# A very long path (30 folders of 99 characters) keeps the reason.
long=$(printf 'd%.0s' $(seq 99))
deep=$long
for _ in $(seq 29); do deep=$deep/$long; done
if mkdir -p "$deep" 2>/dev/null && mkfifo "$deep/f" && cp a.json "$deep/in.json"; then
    expect 2 "\(3001 characters\)': it is a FIFO, not a regular file$" "${run[@]}" --json "$deep/f"
    expect 2 "\(3007 characters\)', an input of this command$" \
        report --html "$deep/in.json" "$deep/in.json"
    expect 1 "\(2999 characters\): it is a folder, not a results file$" report "$deep"
    expect 4 "\(3007 characters\): No such file or directory$" compare a.json "$deep/no.json"
else
    bad "cannot make a 3000-character path here"
fi

# Selectors that match nothing are usage errors.
expect 2 "--metric 'nosuch' matches no metric" compare --metric nosuch a.json b.json
expect 2 "--bench 'nosuch' matches no benchmark" compare --bench nosuch a.json b.json
expect 2 "--metric 'nope' matches no metric of the selected benchmarks" \
    compare --bench hiding.params --metric alu_latency_cycles,nope a.json b.json

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
