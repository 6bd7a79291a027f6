# shellcheck shell=bash
# The check counter the CLI test scripts share, sourced (not executed):
#   check NAME COMMAND...   runs COMMAND; prints "ok   NAME" or "FAIL NAME"
# and counts both in $pass and $fail, which the script reports at its end.
pass=0
fail=0

check() { # name, condition command...
    local name=$1
    shift
    if "$@"; then
        echo "ok   $name"
        pass=$((pass + 1))
    else
        echo "FAIL $name"
        fail=$((fail + 1))
    fi
}
