/* NVRTC without the driver (see offline.h): its own load of libnvrtc, its own
 * table of entry points, and a compile that always yields a CUBIN. */
#include "backend/cuda/offline.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_api.h"
#include "backend/cuda/loader.h"
#include "gpuchar/gpuchar.h"

/* The entry points, filled once by load_once() and never cleared: NVRTC stays
 * mapped for the life of the process, because closing a C++ library orphans
 * what its runtime allocated at load. */
#define GC__MEMBER(ret, name, sym, alt, params) gc_pfn_##name name;
static struct {
    GC_NVRTC_SYMBOLS(GC__MEMBER)
} g_api;
#undef GC__MEMBER

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_rc = GC_ENOLIB;
static int g_major, g_minor;
static char g_why[1024];

/* Opens path and resolves every NVRTC symbol. Returns the handle, or NULL
 * with why set and nothing left open. */
static void *try_open(const char *path, char *why, size_t whylen)
{
    void *h, *p;
    const char *e;

    dlerror();
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        e = dlerror();
        snprintf(why, whylen, "%s", e ? e : "unknown dlopen error");
        return NULL;
    }
    /* dlsym's void * is copied into the function pointer byte for byte, as
     * the backend's loader does (POSIX gives both the same representation). */
#define GC__RESOLVE(ret, name, sym, alt, params)                                                   \
    p = dlsym(h, sym);                                                                             \
    if (!p) {                                                                                      \
        snprintf(why, whylen, "%s lacks the symbol %s", path, sym);                                \
        goto fail;                                                                                 \
    }                                                                                              \
    memcpy(&g_api.name, &p, sizeof(p));
    GC_NVRTC_SYMBOLS(GC__RESOLVE)
#undef GC__RESOLVE
    if (g_api.nvrtcVersion(&g_major, &g_minor) != NVRTC_SUCCESS) {
        snprintf(why, whylen, "%s: nvrtcVersion failed", path);
        goto fail;
    }
    return h;
fail:
    memset(&g_api, 0, sizeof(g_api));
    dlclose(h);
    return NULL;
}

/* The same search as the CUDA backend's loader, minus its preference for an
 * NVRTC no newer than the driver: there is no driver here to load the CUBIN,
 * so the first library found is the one wanted. */
static void load_once(void)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    const char *env = getenv(GC_NVRTC_LIBENV);
    const char *home = getenv("CUDA_HOME");
    char dirs[3][512] = {"", "/usr/local/cuda/lib64/", ""};
    char last[512] = "";

    if (env && *env) {
        if (try_open(env, last, sizeof(last)))
            g_rc = 0;
        else
            snprintf(g_why, sizeof(g_why), "NVRTC not loaded from %s=%s: %s", GC_NVRTC_LIBENV, env,
                     last);
        return;
    }
    if (home && *home)
        snprintf(dirs[2], sizeof(dirs[2]), "%s/lib64/", home);
    for (size_t d = 0; d < 3; d++) {
        if (d > 0 && !dirs[d][0])
            continue;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            char path[1024];

            snprintf(path, sizeof(path), "%s%s", dirs[d], names[i]);
            if (try_open(path, last, sizeof(last))) {
                g_rc = 0;
                return;
            }
        }
    }
    snprintf(g_why, sizeof(g_why),
             "NVRTC not found (tried libnvrtc.so.13, libnvrtc.so.12 and libnvrtc.so on the "
             "library path, in /usr/local/cuda/lib64 and in $CUDA_HOME/lib64%s; set %s to its "
             "path): %s",
             home && *home ? "" : " (unset)", GC_NVRTC_LIBENV, last);
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
static char *program_log(nvrtcProgram prog)
{
    size_t n = 0;
    char *s;

    if (g_api.nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n <= 1)
        return NULL;
    s = malloc(n);
    if (!s)
        return NULL;
    if (g_api.nvrtcGetProgramLog(prog, s) != NVRTC_SUCCESS) {
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

int gc__nvrtc_compile_offline(const char *src, const char *options, const char *arch, void **cubin,
                              size_t *len, char **log, char *err, size_t errlen)
{
    nvrtcProgram prog = NULL;
    char **argv = NULL;
    char *opts = NULL, *text = NULL, *save = NULL, *bin = NULL;
    char archopt[96];
    const char *target;
    size_t n = 0;
    int rc = 0, argc = 0;
    nvrtcResult res;

    *cubin = NULL;
    *len = 0;
    if (log)
        *log = NULL;
    rc = gc__nvrtc_offline_load(NULL, NULL, err, errlen);
    if (rc)
        return rc;
    if (!src || !arch || !*arch) {
        snprintf(err, errlen, "cannot compile: no source or no architecture");
        return GC_EINVAL;
    }
    if (!options)
        options = "";
    /* One word is one NVRTC option, as in the CUDA backend's compile. */
    opts = strdup(options);
    argv = malloc((strlen(options) / 2 + 2) * sizeof(*argv));
    if (!opts || !argv) {
        snprintf(err, errlen, "out of host memory compiling a kernel");
        rc = GC_ENOMEM;
        goto out;
    }
    for (char *tok = strtok_r(opts, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
        argv[argc++] = tok;
    target = named_arch(argv, argc);
    if (!target) {
        snprintf(archopt, sizeof(archopt), "--gpu-architecture=%s", arch);
        argv[argc++] = archopt;
        target = arch;
    }
    /* A virtual architecture yields PTX only: there would be no SASS to
     * inspect, which is an error of the request, not of the compiler. */
    if (strncmp(target, "sm_", 3) != 0) {
        snprintf(err, errlen, "architecture %s is not a real one (sm_XY): NVRTC emits no CUBIN",
                 target);
        rc = GC_ENOTSUP;
        goto out;
    }
    res = g_api.nvrtcCreateProgram(&prog, src, "gpuchar.cu", 0, NULL, NULL);
    if (res != NVRTC_SUCCESS) {
        snprintf(err, errlen, "nvrtcCreateProgram failed: %s", g_api.nvrtcGetErrorString(res));
        rc = res == NVRTC_ERROR_OUT_OF_MEMORY ? GC_ENOMEM : GC_ECOMPILE;
        prog = NULL;
        goto out;
    }
    res = g_api.nvrtcCompileProgram(prog, argc, (const char *const *)argv);
    text = program_log(prog);
    if (res != NVRTC_SUCCESS) {
        snprintf(err, errlen, "nvrtcCompileProgram failed: %s (options: %s %s)\n%.2000s",
                 g_api.nvrtcGetErrorString(res), options, target == arch ? archopt : "",
                 text ? text : "");
        rc = GC_ECOMPILE;
        goto out;
    }
    if (g_api.nvrtcGetCUBINSize(prog, &n) != NVRTC_SUCCESS || n == 0) {
        snprintf(err, errlen, "NVRTC produced no CUBIN for %s", target);
        rc = GC_ECOMPILE;
        goto out;
    }
    bin = malloc(n);
    if (!bin) {
        snprintf(err, errlen, "out of host memory for a %zu-byte CUBIN", n);
        rc = GC_ENOMEM;
        goto out;
    }
    res = g_api.nvrtcGetCUBIN(prog, bin);
    if (res != NVRTC_SUCCESS) {
        snprintf(err, errlen, "nvrtcGetCUBIN failed: %s", g_api.nvrtcGetErrorString(res));
        rc = GC_ECOMPILE;
        goto out;
    }
    *cubin = bin;
    *len = n;
    bin = NULL;
out:
    if (prog)
        g_api.nvrtcDestroyProgram(&prog);
    if (log)
        *log = text;
    else
        free(text);
    free(bin);
    free(argv);
    free(opts);
    return rc;
}
