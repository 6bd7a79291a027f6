#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages gpuchar needs to build, test and run on
# OpenCL (PoCL). gnuplot-nox draws the figures of 'gpuchar report --html' and
# '--plots'; chromium opens the HTML page in the tests (optional: where the
# distribution has no such package the test is skipped). The CUDA backend
# needs nothing at build time: the NVIDIA driver and NVRTC are loaded at run
# time when present. Open MPI builds 'gpuchar run --mpi' (fleets) and runs its
# test; without it gpuchar builds without --mpi and the test is skipped.
set -eu
pkgs=(build-essential cmake libjansson-dev libcmocka-dev ocl-icd-opencl-dev
      ocl-icd-libopencl1 opencl-headers pocl-opencl-icd python3 gnuplot-nox fonts-dejavu-core
      libopenmpi-dev openmpi-bin)
optional=(chromium)
installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}
missing=()
for p in "${pkgs[@]}"; do
    installed "$p" || missing+=("$p")
done
missing_opt=()
for p in "${optional[@]}"; do
    installed "$p" || missing_opt+=("$p")
done
[ ${#missing[@]} -eq 0 ] && [ ${#missing_opt[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]} ${missing_opt[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if ! command -v apt-get >/dev/null; then
    echo "error: apt-get not found; install these packages by hand: ${missing[*]}" >&2
    exit 1
fi
$sudo apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ ${#missing_opt[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing_opt[@]}" || echo "warning: not installed: ${missing_opt[*]} (the HTML page test is skipped)" >&2
fi
