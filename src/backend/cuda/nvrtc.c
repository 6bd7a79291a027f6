/* Compiling CUDA C with NVRTC: the one compile path of the CUDA backend and
 * of device-less inspection (see nvrtc.h). */
#include "backend/cuda/nvrtc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuchar/gpuchar.h"

/* The inspection's own NVRTC, opened once and never closed: closing a C++
 * library orphans what its runtime allocated at load. */
static struct gc_nvrtc_api g_api;
static void *g_handle;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_rc = GC_ENOLIB;
static int g_major, g_minor;
static char g_why[1024];

/* No driver here to load the CUBIN, so no preference for an NVRTC no newer
 * than it (driver version 0). */
static void load_once(void)
{
    g_rc = gc__nvrtc_open(0, &g_api, &g_handle, &g_major, &g_minor, g_why, sizeof(g_why));
}

int gc__nvrtc_offline_load(int *major, int *minor, char *why, size_t whylen)
{
    pthread_once(&g_once, load_once);
    if (g_rc) {
        if (why && whylen)
            snprintf(why, whylen, "%s", g_why);
        return g_rc;
    }
    if (major)
        *major = g_major;
    if (minor)
        *minor = g_minor;
    return 0;
}

/* The compiler output, NULL when empty or unreadable. */
static char *program_log(const struct gc_nvrtc_api *api, nvrtcProgram prog)
{
    size_t n = 0;
    char *s;

    if (api->nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1)
        return NULL;
    s = malloc(n);
    if (!s)
        return NULL;
    if (api->nvrtcGetProgramLog(prog, s) != NVRTC_SUCCESS) {
        free(s);
        return NULL;
    }
    s[n - 1] = '\0';
    return s;
}

/* The architecture named by an --gpu-architecture=X, --gpu-architecture X,
 * -arch=X or -arch X among argv, or NULL. */
static const char *named_arch(char **argv, int argc)
{
    static const char *const flags[] = {"--gpu-architecture", "-arch"};

    for (int i = 0; i < argc; i++) {
        for (size_t f = 0; f < 2; f++) {
            size_t n = strlen(flags[f]);

            if (strncmp(argv[i], flags[f], n) != 0)
                continue;
            if (argv[i][n] == '=')
                return argv[i] + n + 1;
            if (argv[i][n] == '\0' && i + 1 < argc)
                return argv[i + 1];
        }
    }
    return NULL;
}

/* The compile's outcome as an error code and message; a failed compile
 * keeps its log in *text (made up when NVRTC left none: an invalid option may
 * leave it empty), which the caller shows. */
static int compile_result(const struct gc_nvrtc_api *api, nvrtcResult res, const char *options,
                          const char *target, char **text, char *err, size_t errlen)
{
    if (res == NVRTC_ERROR_COMPILATION || res == NVRTC_ERROR_INVALID_OPTION) {
        if (!*text) {
            size_t tn = strlen(options) + 128;

            *text = malloc(tn);
            if (*text)
                snprintf(*text, tn, "nvrtc: %s (options: %s)", api->nvrtcGetErrorString(res),
                         options);
        }
        snprintf(err, errlen, "nvrtcCompileProgram failed: %s (options: %s, %s)\n%.3000s",
                 api->nvrtcGetErrorString(res), options, target, *text ? *text : "");
        return GC_ECOMPILE;
    }
    if (res != NVRTC_SUCCESS) {
        snprintf(err, errlen, "nvrtcCompileProgram failed: %s", api->nvrtcGetErrorString(res));
        return res == NVRTC_ERROR_OUT_OF_MEMORY ? GC_ENOMEM : GC_EBACKEND;
    }
    return 0;
}

/* The CUBIN, or the PTX when the options asked for a virtual architecture
 * (the driver then compiles it at load), copied into *bin. */
static int fetch_binary(const struct gc_nvrtc_api *api, nvrtcProgram prog, bool need_cubin,
                        const char *target, void **bin, size_t *len, char *err, size_t errlen)
{
    size_t n = 0;
    bool ptx = false;
    char *b;
    nvrtcResult res;

    if (api->nvrtcGetCUBINSize(prog, &n) != NVRTC_SUCCESS || n == 0) {
        if (need_cubin || api->nvrtcGetPTXSize(prog, &n) != NVRTC_SUCCESS) {
            snprintf(err, errlen, "NVRTC produced no binary for %s", target);
            return GC_EBACKEND;
        }
        ptx = true;
    }
    b = malloc(n ? n : 1);
    if (!b) {
        snprintf(err, errlen, "out of host memory for a %zu-byte kernel binary", n);
        return GC_ENOMEM;
    }
    res = ptx ? api->nvrtcGetPTX(prog, b) : api->nvrtcGetCUBIN(prog, b);
    if (res != NVRTC_SUCCESS) {
        snprintf(err, errlen, "%s failed: %s", ptx ? "nvrtcGetPTX" : "nvrtcGetCUBIN",
                 api->nvrtcGetErrorString(res));
        free(b);
        return GC_EBACKEND;
    }
    *bin = b;
    *len = n;
    return 0;
}

int gc__nvrtc_compile(const struct gc_nvrtc_api *api, const char *src, const char *options,
                      const char *arch, bool need_cubin, void **bin, size_t *len, char **log,
                      char *err, size_t errlen)
{
    nvrtcProgram prog = NULL;
    char **argv = NULL;
    char *opts = NULL, *text = NULL, *save = NULL;
    char archopt[96];
    const char *target;
    int rc = 0, argc = 0;
    nvrtcResult res;

    *bin = NULL;
    *len = 0;
    if (log)
        *log = NULL;
    if (!src || !arch || !*arch) {
        snprintf(err, errlen, "cannot compile: no source or no architecture");
        return GC_EINVAL;
    }
    if (!options)
        options = "";
    /* Options are separated by blanks; one word is one NVRTC option. */
    opts = strdup(options);
    argv = malloc((strlen(options) / 2 + 2) * sizeof(*argv));
    if (!opts || !argv) {
        snprintf(err, errlen, "out of host memory compiling a kernel");
        rc = GC_ENOMEM;
        goto out;
    }
    for (char *tok = strtok_r(opts, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
        argv[argc++] = tok;
    /* A real architecture unless the options name one, so that NVRTC emits a
     * CUBIN for this very device and nothing is left to the driver's JIT. */
    target = named_arch(argv, argc);
    if (!target) {
        snprintf(archopt, sizeof(archopt), "--gpu-architecture=%s", arch);
        argv[argc++] = archopt;
        target = arch;
    }
    /* A virtual architecture yields PTX only: no SASS to inspect. */
    if (need_cubin && strncmp(target, "sm_", 3) != 0) {
        snprintf(err, errlen, "architecture %s is not a real one (sm_XY): NVRTC emits no CUBIN",
                 target);
        rc = GC_ENOTSUP;
        goto out;
    }
    res = api->nvrtcCreateProgram(&prog, src, "gpuchar.cu", 0, NULL, NULL);
    if (res != NVRTC_SUCCESS) {
        snprintf(err, errlen, "nvrtcCreateProgram failed: %s", api->nvrtcGetErrorString(res));
        rc = res == NVRTC_ERROR_OUT_OF_MEMORY ? GC_ENOMEM : GC_EBACKEND;
        prog = NULL;
        goto out;
    }
    res = api->nvrtcCompileProgram(prog, argc, (const char *const *)argv);
    text = program_log(api, prog);
    rc = compile_result(api, res, options, target, &text, err, errlen);
    if (rc == 0)
        rc = fetch_binary(api, prog, need_cubin, target, bin, len, err, errlen);
out:
    if (prog)
        api->nvrtcDestroyProgram(&prog);
    if (log)
        *log = text;
    else
        free(text);
    free(argv);
    free(opts);
    return rc;
}

int gc__nvrtc_compile_offline(const char *src, const char *options, const char *arch, void **cubin,
                              size_t *len, char **log, char *err, size_t errlen)
{
    int rc = gc__nvrtc_offline_load(NULL, NULL, err, errlen);

    *cubin = NULL;
    *len = 0;
    if (log)
        *log = NULL;
    if (rc)
        return rc;
    return gc__nvrtc_compile(&g_api, src, options, arch, true, cubin, len, log, err, errlen);
}
