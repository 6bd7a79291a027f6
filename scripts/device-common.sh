# Sourced by the device scripts: what every one of them needs on the GPU
# machine.

# The distribution libraries the build needs, from .deps/*.deb where the
# machine lacks them.
gc_device_deps() {
    if [ ! -f /usr/include/jansson.h ] && ls .deps/*.deb >/dev/null 2>&1; then
        for f in .deps/*.deb; do dpkg -x "$f" /; done
        ldconfig
    fi
}

# gc_nvidia_opencl BIN: registers NVIDIA's OpenCL beside the machine's ICDs
# (exports OCL_ICD_VENDORS) and sets ocldev to the spec of its device (""
# none).
gc_nvidia_opencl() {
    local icd
    icd=$(mktemp -d)
    echo libnvidia-opencl.so.1 >"$icd/nvidia.icd"
    cp /etc/OpenCL/vendors/*.icd "$icd/" 2>/dev/null
    export OCL_ICD_VENDORS=$icd
    ocldev=$("$1" list --json 2>/dev/null | python3 -c 'import json,sys
d=json.load(sys.stdin)
print(next((x["spec"] for x in d["devices"] if x["backend"]=="opencl" and "NVIDIA" in (x["vendor"]+x["name"]).upper()), ""))')
}
