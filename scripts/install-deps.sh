#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages gpuchar needs to build, test and run on
# OpenCL (PoCL). The CUDA backend needs nothing at build time: the NVIDIA
# driver and NVRTC are loaded at run time when present.
set -eu
pkgs=(build-essential cmake libjansson-dev libcmocka-dev ocl-icd-opencl-dev
      ocl-icd-libopencl1 opencl-headers pocl-opencl-icd python3)
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if ! command -v apt-get >/dev/null; then
    echo "error: apt-get not found; install these packages by hand: ${missing[*]}" >&2
    exit 1
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
