#!/usr/bin/env bash
# The revision a build reports (gpuchar --version, and every run's
# meta.git_revision) is the checkout's at that build: its commit, with
# "-dirty" when tracked files differ from it. It is found at every build,
# not when the build was configured, so a later commit shows after the next
# build. Skipped (77) outside a git checkout.
#
# usage: run_revision.sh GPUCHAR_BINARY SOURCE_DIR
set -u
[ $# -eq 2 ] || {
    echo "usage: $0 GPUCHAR_BINARY SOURCE_DIR" >&2
    exit 2
}
rev=$(git -C "$2" rev-parse --short=12 HEAD 2>/dev/null) || {
    echo "skip: $2 is not a git checkout"
    exit 77
}
[ -z "$(git -C "$2" status --porcelain --untracked-files=no)" ] || rev="$rev-dirty"
got=$("$1" --version | sed -n 's/.*(git \([^)]*\)).*/\1/p')
if [ "$got" = "$rev" ]; then
    echo "ok   gpuchar --version reports git $got"
    exit 0
fi
echo "FAIL gpuchar --version reports git '$got', the checkout is at $rev (built before the last commit or edit? build again)"
exit 1
