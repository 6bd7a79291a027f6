# shellcheck shell=bash
# The shell functions of the device driver (scripts/device.sh and the checks
# it sources, scripts/device-checks.sh), sourced (not executed) after it has
# changed to the repository root:
#
#   cd "$(dirname "$0")/.." || exit 1
#   . scripts/device-lib.sh
#
# The device machine has no package registry and runs the driver on a fresh
# copy of the tree, so the helpers assume nothing beyond bash, coreutils,
# python3 and the NVIDIA driver. Functions:
#
#   unpack_deps            unpacks the .deb files carried in .deps/ (packages
#                          the machine lacks: jansson, cmocka) into / when
#                          /usr/include/jansson.h is missing, then ldconfig
#   log MESSAGE...         prints a section header "== MESSAGE"; log_stamp=clock
#                          adds the time of day, log_stamp=elapsed the time of
#                          day and the seconds since the script started
#   setup_out              $out = $OUT (or ./device-out), created
#   setup_archive NAME     $dest = $OUT (or ./device-out), $out a fresh
#                          temporary folder packed into $dest/$archive_name.tgz
#                          however the script ends (NAME sets $archive_name)
#   show_device FIELDS     header "device", then nvidia-smi's FIELDS as CSV
#   gpu_query FIELDS       nvidia-smi's FIELDS as CSV (no header)
#   build_release DIR [-j N] [--log FILE] [--target T] [CMAKE_ARGS...]
#                          configures DIR as a Release build (CMAKE_ARGS added)
#                          and builds it with N jobs (16), the output in FILE
#                          ($out/cmake.log); on failure prints the log's last
#                          50 lines and exits the script with status 1
#   new_kcache             $cache = a fresh, empty kernel-cache folder
#   timev [-o FILE] CMD... runs CMD under /usr/bin/time -v (report on stderr,
#                          or in FILE); without /usr/bin/time, runs CMD alone
#                          and with -o writes the peak resident set and the wall
#                          time to FILE in the lines time -v would write
#   time_lines FILE        prints the wall-time and peak-RSS lines of a time -v
#                          report (nothing when FILE is missing)
#   wall_ms [--stdout FILE] [--stderr FILE] CMD...
#                          runs CMD (its output to FILE where given), then
#                          prints "exit RC, wall N ms"; returns RC. A
#                          redirection after the call takes that line along
#                          with CMD's output; --stdout/--stderr leave it out
#   nvidia_icd [--with-system]
#                          $icd = a fresh vendor folder registering NVIDIA's
#                          OpenCL (nvidia.icd naming libnvidia-opencl.so.1),
#                          with the system's /etc/OpenCL/vendors/*.icd copied
#                          in too when --with-system is given (left out where
#                          a script names the device by index, opencl:0, or
#                          measures the process's memory: PoCL would change both)
#   device_spec BIN KIND   prints the spec of the first device of `BIN list
#                          --json` of KIND: nvidia-opencl (NVIDIA's OpenCL) or
#                          cpu-opencl (an OpenCL CPU device); empty when none.
#                          Sees the OpenCL vendors of the environment as it is
#   nvidia_opencl_on BIN [--with-system]
#                          nvidia_icd, exports OCL_ICD_VENDORS=$icd and sets
#                          $ocldev to NVIDIA's OpenCL device spec (empty when
#                          none); the caller unsets OCL_ICD_VENDORS afterwards
#
# The variables the functions set (out, dest, cache, icd, ocldev, ...) are for
# the driver and its checks.
# shellcheck disable=SC2034

# The nvidia-smi field sets the checks print.
GPU_FIELDS_BASIC=name,driver_version,clocks.max.sm,clocks.sm,power.limit
GPU_FIELDS_FULL=name,driver_version,clocks.max.sm,clocks.max.mem,clocks.sm,power.limit,ecc.mode.current
log_stamp=

# mpi_cmake_args: prints the CMake arguments that build gpuchar's MPI glue
# where the machine has Open MPI's libraries but no headers: the headers come
# from a Debian libopenmpi-dev package carried in .peers/mpi/ (unpacked into
# /tmp/mpi-dev), the library is the machine's libmpi.so.40. Prints nothing
# when CMake finds MPI by itself or nothing usable is there.
mpi_cmake_args()
{
    local lib deb
    command -v mpicc >/dev/null && return 0
    [ -f /usr/include/mpi.h ] || [ -f /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h ] && return 0
    lib=$(ldconfig -p 2>/dev/null | grep -o '/[^ ]*libmpi\.so\.40[^ ]*' | head -1)
    [ -n "$lib" ] || lib=$(find / -xdev -name 'libmpi.so.40*' -type f 2>/dev/null | head -1)
    deb=$(ls .peers/mpi/libopenmpi-dev_*.deb 2>/dev/null | head -1)
    [ -n "$lib" ] && [ -n "$deb" ] || return 0
    dpkg -x "$deb" /tmp/mpi-dev || return 0
    echo "-DMPI_C_HEADER_DIR=/tmp/mpi-dev/usr/lib/x86_64-linux-gnu/openmpi/include" \
        "-DMPI_C_LIB_NAMES=mpi" "-DMPI_mpi_LIBRARY=$lib"
}

unpack_deps()
{
    if [ ! -f /usr/include/jansson.h ] && ls .deps/*.deb >/dev/null 2>&1; then
        local f
        for f in .deps/*.deb; do dpkg -x "$f" /; done
        ldconfig
    fi
}

log()
{
    case $log_stamp in
    clock) printf '\n== %s (%s)\n' "$*" "$(date +%T)" ;;
    elapsed) printf '\n== %s (%s, %d s in)\n' "$*" "$(date +%T)" "$SECONDS" ;;
    *) printf '\n== %s\n' "$*" ;;
    esac
}

setup_out()
{
    out=${OUT:-$PWD/device-out}
    mkdir -p "$out"
}

setup_archive()
{
    archive_name=$1
    dest=${OUT:-$PWD/device-out}
    out=$(mktemp -d)
    mkdir -p "$dest"
    trap 'tar czf "$dest/$archive_name.tgz" -C "$out" .' EXIT
}

gpu_query()
{
    nvidia-smi --query-gpu="$1" --format=csv 2>&1
}

show_device()
{
    log "device"
    gpu_query "$1"
}

build_release()
{
    local dir=$1 jobs=16 logf=${out:?}/cmake.log target=()
    shift
    while [ $# -gt 0 ]; do
        case $1 in
        -j) jobs=$2; shift 2 ;;
        --log) logf=$2; shift 2 ;;
        --target) target=(--target "$2"); shift 2 ;;
        *) break ;;
        esac
    done
    if ! cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@" >"$logf" 2>&1 ||
        ! cmake --build "$dir" -j "$jobs" "${target[@]}" >>"$logf" 2>&1; then
        tail -50 "$logf"
        exit 1
    fi
}

new_kcache()
{
    cache=$(mktemp -d)
}

timev()
{
    local file=
    if [ "${1:-}" = -o ]; then
        file=$2
        shift 2
    fi
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v ${file:+-o "$file"} "$@"
    elif [ -n "$file" ]; then
        python3 - "$file" "$@" <<'PY'
import resource, subprocess, sys, time
t = time.time()
rc = subprocess.call(sys.argv[2:])
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as f:
    f.write("\tMaximum resident set size (kbytes): %d\n" % ru.ru_maxrss)
    f.write("\tElapsed (wall clock) time (h:mm:ss or m:ss): %.2f\n" % (time.time() - t))
sys.exit(rc)
PY
    else
        "$@"
    fi
}

time_lines()
{
    grep -s -E "Elapsed \(wall clock\)|Maximum resident set size" "$1"
}

wall_ms()
{
    local s rc o='' e=''
    while [ $# -gt 0 ]; do
        case $1 in
        --stdout) o=$2; shift 2 ;;
        --stderr) e=$2; shift 2 ;;
        *) break ;;
        esac
    done
    s=$(date +%s%N)
    (
        [ -z "$o" ] || exec >"$o"
        [ -z "$e" ] || exec 2>"$e"
        "$@"
    )
    rc=$?
    echo "exit $rc, wall $(( ($(date +%s%N) - s) / 1000000 )) ms"
    return $rc
}

nvidia_icd()
{
    icd=$(mktemp -d)
    echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
    if [ "${1:-}" = --with-system ]; then
        cp /etc/OpenCL/vendors/*.icd "$icd/" 2>/dev/null
    fi
}

device_spec()
{
    "$1" list --json 2>/dev/null |
        python3 -c 'import json, sys
kind = sys.argv[1]
def fits(x):
    if x["backend"] != "opencl":
        return False
    if kind == "cpu-opencl":
        return x["type"] == "cpu"
    return "NVIDIA" in (x["vendor"] + x["name"]).upper()
d = json.load(sys.stdin)
print(next((x["spec"] for x in d["devices"] if fits(x)), ""))' "$2"
}

nvidia_opencl_on()
{
    nvidia_icd "${2:-}"
    export OCL_ICD_VENDORS=$icd
    ocldev=$(device_spec "$1" nvidia-opencl)
}
