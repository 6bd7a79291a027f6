/* The catalogue's kernels that NVIDIA's OpenCL takes through inline PTX
 * (integer chains, fp16x2, bf16x2: gc__kgen_form) compile there to the SASS
 * the CUDA path declares: each kernel is built by the OpenCL backend on the
 * first OpenCL device that takes inline PTX (its binary is PTX), assembled
 * with ptxas for the device's architecture, disassembled, and its timed
 * loop checked as tests/gpu/test_sass.c checks the CUDA kernels. Needs
 * NVIDIA's OpenCL (OCL_ICD_VENDORS naming libnvidia-opencl.so.1) and the
 * CUDA toolkit's ptxas beside nvdisasm or cuobjdump. Exit status: 0 pass,
 * 1 failure, 77 skipped (no such device or no tools). GPUCHAR_SASS_DUMP=DIR
 * writes the PTX and the report of each kernel there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/opencl/opencl.h"
#include "bench/compute/compute.h"
#include "core/benchdef.h"
#include "kgen/kgen.h"
#include "support/sass.h"

static const struct gc_backend_ops *const ops = &gc__opencl_ops;

/* The first OpenCL device that takes inline PTX; -1 none. */
static int find_device(struct gc_device_info *info)
{
    for (int i = 0; i < ops->device_count(); i++)
        if (ops->device_info(i, info) == 0 && (info->caps & GC_CAP_INLINE_ASM) &&
            info->cc_major > 0)
            return i;
    return -1;
}

/* The PTX of an NVIDIA OpenCL binary: from its first comment or directive
 * to its end, without trailing NULs. */
static int write_ptx(const char *path, const char *bin, size_t len)
{
    size_t start = 0;
    FILE *f;

    while (start + 1 < len && !(bin[start] == '/' && bin[start + 1] == '/') && bin[start] != '.')
        start++;
    while (len > start && bin[len - 1] == '\0')
        len--;
    if (!(f = fopen(path, "w")))
        return -1;
    fwrite(bin + start, 1, len - start, f);
    return fclose(f);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    long n;

    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (b = malloc((size_t)n)) && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    *len = b ? (size_t)n : 0;
    fclose(f);
    return b;
}

/* Builds, assembles and checks one kernel; 0 pass, 1 fail. */
static int check_kernel(struct gc_dev *dev, const struct gc_device_info *info, const char *ptxas,
                        const char *tmp, const struct gc_ksrc *k)
{
    void *bin = NULL;
    size_t len = 0, clen = 0;
    char *log = NULL, *cubin = NULL, *text = NULL, err[512] = "", ptx[1100], cub[1100];
    char cmd[3400];
    struct gc_sass sass = {0};
    struct gc_sass_result res = {0};
    int cc = info->cc_major * 10 + info->cc_minor, bad = 1;

    snprintf(ptx, sizeof(ptx), "%s/%s.ptx", tmp, k->label);
    snprintf(cub, sizeof(cub), "%s/%s.cubin", tmp, k->label);
    if (ops->compile(dev, k->src, NULL, &bin, &len, &log)) {
        printf("FAIL %s: the OpenCL build failed:\n%s\n", k->label, log ? log : "(no log)");
        goto out;
    }
    snprintf(cmd, sizeof(cmd), "'%s' -arch=sm_%d '%s' -o '%s' 2>&1", ptxas, cc, ptx, cub);
    if (write_ptx(ptx, bin, len) || system(cmd) != 0 || !(cubin = read_all(cub, &clen))) {
        printf("FAIL %s: ptxas -arch=sm_%d did not assemble the program's PTX\n", k->label, cc);
        goto out;
    }
    if (gc__sass_disasm(cubin, clen, &text, err, sizeof(err)) || gc__sass_parse(text, &sass) ||
        gc__sass_check(&sass, k->expect, k->nexpect, cc, &res)) {
        printf("FAIL %s: %s\n", k->label, err[0] ? err : "the disassembly was not read");
        goto out;
    }
    bad = res.ok ? 0 : 1;
    printf("%s %s\n%s", res.ok ? "ok  " : "FAIL", k->label, res.report ? res.report : "");
out:
    if (bad && getenv("GPUCHAR_SASS_DUMP")) {
        snprintf(cmd, sizeof(cmd), "cp '%s' '%s/' 2>/dev/null", ptx, getenv("GPUCHAR_SASS_DUMP"));
        if (system(cmd) != 0)
            printf("(could not copy %s)\n", ptx);
    }
    free(res.report);
    gc__sass_free(&sass);
    free(text);
    free(cubin);
    free(log);
    free(bin);
    return bad;
}

/* The entries NVIDIA's OpenCL takes through inline PTX, each checked at
 * ILP 1..8; returns the failures, *nk the kernels checked. */
static int check_entries(struct gc_dev *dev, const struct gc_device_info *info, const char *ptxas,
                         const char *tmp, int *nk)
{
    int fails = 0;

    for (int i = 0; i < gc__itype_count(); i++) {
        const struct gc_itype *t = gc__itype_get(i);
        struct gc_ksrc *k = NULL;
        int n = 0;

        if (!gc__kgen_form(GC_DIALECT_OPENCL, info->caps, t->cuda, t->opencl, t->opencl_caps).ptx)
            continue;
        if (gc__compute_itype_sources(t, GC_DIALECT_OPENCL, info, &k, &n)) {
            printf("FAIL %s: no kernels\n", t->name);
            fails++;
            continue;
        }
        for (int j = 0; j < n; j++, (*nk)++)
            fails += check_kernel(dev, info, ptxas, tmp, &k[j]);
        gc__ksrc_free(k, n);
    }
    return fails;
}

int main(void)
{
    struct gc_device_info info;
    struct gc_dev *dev = NULL;
    char why[1024] = "", tool[1024], ptxas[1100], tmp[] = "/tmp/gpuchar-oclsass-XXXXXX", cmd[1200];
    int idx, fails, nk = 0;

    if (ops->init(why, sizeof(why)) != 0) {
        printf("skipped: no OpenCL: %s\n", why);
        return 77;
    }
    if ((idx = find_device(&info)) < 0) {
        printf("skipped: no OpenCL device takes inline PTX (NVIDIA's OpenCL: set "
               "OCL_ICD_VENDORS to a folder whose nvidia.icd names libnvidia-opencl.so.1)\n");
        ops->fini();
        return 77;
    }
    if (gc__sass_tool(tool, sizeof(tool), why, sizeof(why))) {
        printf("skipped: %s\n", why);
        ops->fini();
        return 77;
    }
    snprintf(ptxas, sizeof(ptxas), "%s", tool);
    char *slash = strrchr(ptxas, '/');
    snprintf(slash ? slash + 1 : ptxas, sizeof(ptxas) - (size_t)(slash ? slash + 1 - ptxas : 0),
             "ptxas");
    if (access(ptxas, X_OK) != 0 || !mkdtemp(tmp)) {
        printf("skipped: no ptxas beside %s\n", tool);
        ops->fini();
        return 77;
    }
    if (ops->open(idx, &dev, why, sizeof(why))) {
        printf("FAIL: cannot open %s: %s\n", info.name, why);
        ops->fini();
        return 1;
    }
    printf("%s (sm_%d%d), %s\n", info.name, info.cc_major, info.cc_minor, info.driver);
    fails = check_entries(dev, &info, ptxas, tmp, &nk);
    ops->close(dev);
    ops->fini();
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        printf("(could not remove %s)\n", tmp);
    printf("%d kernel(s) checked, %d failed\n", nk, fails);
    return nk > 0 && fails == 0 ? 0 : 1;
}
