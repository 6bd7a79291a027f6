/* Loads libcuda.so.1, NVRTC and NVML with dlopen and checks at load that each
 * entry point the backend calls exists (see loader.h). */
#include "backend/cuda/loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuchar/gpuchar.h"

struct gc_cu_api gc__cu;
struct gc_nvrtc_api gc__nvrtc;
struct gc_nvml_api gc__nvml;

/* dlsym returns a void * that is stored into a function pointer by copying
 * its bytes (ISO C has no conversion between the two), which POSIX makes
 * valid by requiring both to have the same representation. */
_Static_assert(sizeof(void *) == sizeof(gc_pfn_cuInit), "function and data pointers differ");

/* One entry point: the exported name, a fallback name tried when the first is
 * absent (NULL when none), where its pointer lives in the table, and whether
 * the library is usable without it. */
struct sym {
    const char *name;
    const char *alt;
    size_t off;
    int optional;
};

#define GC__SYM(table, name, sym, alt, optional) {sym, alt, offsetof(struct table, name), optional},
#define GC__CU_SYM(ret, name, sym, alt, params) GC__SYM(gc_cu_api, name, sym, alt, 0)
#define GC__NVRTC_SYM(ret, name, sym, alt, params) GC__SYM(gc_nvrtc_api, name, sym, alt, 0)
#define GC__NVML_SYM(ret, name, sym, alt, params) GC__SYM(gc_nvml_api, name, sym, alt, 0)
#define GC__NVML_OPT_SYM(ret, name, sym, alt, params) GC__SYM(gc_nvml_api, name, sym, alt, 1)

static const struct sym g_cu_syms[] = {GC_CU_SYMBOLS(GC__CU_SYM)};
static const struct sym g_nvrtc_syms[] = {GC_NVRTC_SYMBOLS(GC__NVRTC_SYM)};
static const struct sym g_nvml_syms[] = {GC_NVML_SYMBOLS(GC__NVML_SYM)
                                             GC_NVML_OPTIONAL_SYMBOLS(GC__NVML_OPT_SYM)};

#define NSYMS(a) (sizeof(a) / sizeof((a)[0]))

static void *g_cu_handle;
static char g_cu_path[1024]; /* what g_cu_handle was opened from */
static int g_cu_ready;
static void *g_nvrtc_handle;
static void *g_nvml_handle;

/* Resolves every symbol of syms from the library handle h into table. On a
 * missing required symbol writes why, naming lib and the symbol, and returns
 * GC_ENOLIB; the table may then be partly filled. */
static int resolve(void *h, const char *lib, const struct sym *syms, size_t n, void *table,
                   char *why, size_t whylen)
{
    for (size_t i = 0; i < n; i++) {
        const struct sym *s = &syms[i];
        void *p;

        dlerror();
        p = dlsym(h, s->name);
        if (!p && s->alt)
            p = dlsym(h, s->alt);
        if (!p) {
            const char *e;

            if (s->optional)
                continue;
            e = dlerror();
            snprintf(why, whylen, "%s lacks the symbol %s%s%s (driver or library too old?): %s",
                     lib, s->name, s->alt ? " and its older form " : "", s->alt ? s->alt : "",
                     e ? e : "symbol is NULL");
            return GC_ENOLIB;
        }
        memcpy((char *)table + s->off, &p, sizeof(p));
    }
    return 0;
}

const char *gc__cu_libname(void)
{
    const char *env = getenv(GC_CU_LIBENV);

    if (g_cu_handle)
        return g_cu_path;
    return env && *env ? env : GC_CU_LIBNAME;
}

int gc__cu_load(char *why, size_t whylen)
{
    const char *env = getenv(GC_CU_LIBENV);
    const char *lib = gc__cu_libname();
    int rc;

    if (g_cu_ready)
        return 0;
    if (!g_cu_handle) {
        snprintf(g_cu_path, sizeof(g_cu_path), "%s", lib);
        /* RTLD_LOCAL keeps the driver's symbols out of the global namespace,
         * where they could clash with another copy loaded by an application
         * linked against the CUDA runtime. */
        g_cu_handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (!g_cu_handle) {
            const char *e = dlerror();

            snprintf(why, whylen, "%s%s not found (no NVIDIA driver?): %s", lib,
                     env && *env ? " (from " GC_CU_LIBENV ")" : "", e ? e : "unknown dlopen error");
            return GC_ENOLIB;
        }
    }
    rc = resolve(g_cu_handle, lib, g_cu_syms, NSYMS(g_cu_syms), &gc__cu, why, whylen);
    if (rc) {
        gc__cu_unload(false);
        return rc;
    }
    g_cu_ready = 1;
    return 0;
}

void gc__cu_unload(bool keep)
{
    memset(&gc__cu, 0, sizeof(gc__cu));
    g_cu_ready = 0;
    if (!keep && g_cu_handle) {
        dlclose(g_cu_handle);
        g_cu_handle = NULL;
    }
}

/* An NVRTC candidate that opened and resolved: its handle, table and version. */
struct nvrtc_lib {
    void *handle;
    struct gc_nvrtc_api api;
    int major, minor;
    char path[512];
};

/* Opens one NVRTC candidate. Returns 0, or GC_ENOLIB with why. */
static int nvrtc_try(const char *path, struct nvrtc_lib *out, char *why, size_t whylen)
{
    const char *e;
    int rc;

    memset(out, 0, sizeof(*out));
    snprintf(out->path, sizeof(out->path), "%s", path);
    dlerror();
    out->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!out->handle) {
        e = dlerror();
        snprintf(why, whylen, "%s", e ? e : "unknown dlopen error");
        return GC_ENOLIB;
    }
    rc = resolve(out->handle, path, g_nvrtc_syms, NSYMS(g_nvrtc_syms), &out->api, why, whylen);
    if (rc == 0 && out->api.nvrtcVersion(&out->major, &out->minor) != NVRTC_SUCCESS) {
        snprintf(why, whylen, "%s: nvrtcVersion failed", path);
        rc = GC_ENOLIB;
    }
    if (rc) {
        dlclose(out->handle);
        out->handle = NULL;
    }
    return rc;
}

int gc__nvrtc_open(int driver_major, struct gc_nvrtc_api *api, void **handle, int *major,
                   int *minor, char *why, size_t whylen)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    const char *env = getenv(GC_NVRTC_LIBENV);
    const char *home = getenv("CUDA_HOME");
    const char *dirs[3] = {"", "/usr/local/cuda/lib64/", NULL};
    char home_dir[512];
    char last[512] = "";
    struct nvrtc_lib cand, spare;
    int rc = GC_ENOLIB;

    memset(&spare, 0, sizeof(spare));
    if (env && *env) {
        if (nvrtc_try(env, &cand, last, sizeof(last)) == 0) {
            spare = cand;
            rc = 0;
        } else {
            snprintf(why, whylen, "NVRTC not loaded from %s=%s: %s", GC_NVRTC_LIBENV, env, last);
        }
        goto out;
    }
    if (home && *home) {
        snprintf(home_dir, sizeof(home_dir), "%s/lib64/", home);
        dirs[2] = home_dir;
    }
    for (size_t d = 0; d < NSYMS(dirs) && rc != 0; d++) {
        for (size_t i = 0; i < NSYMS(names); i++) {
            char path[1024];

            if (!dirs[d])
                continue;
            snprintf(path, sizeof(path), "%s%s", dirs[d], names[i]);
            if (nvrtc_try(path, &cand, last, sizeof(last)))
                continue;
            /* A compiler newer than the driver emits binaries the driver may
             * refuse; it is kept aside in case nothing better turns up. */
            if (driver_major > 0 && cand.major > driver_major) {
                if (spare.handle)
                    dlclose(cand.handle);
                else
                    spare = cand;
                continue;
            }
            if (spare.handle)
                dlclose(spare.handle);
            spare = cand;
            rc = 0;
            break;
        }
    }
    if (rc && spare.handle)
        rc = 0;
    if (rc)
        snprintf(why, whylen,
                 "NVRTC not found (tried libnvrtc.so.13, libnvrtc.so.12 and libnvrtc.so on the "
                 "library path, in /usr/local/cuda/lib64 and in $CUDA_HOME/lib64%s; set %s to its "
                 "path): %s",
                 home && *home ? "" : " (unset)", GC_NVRTC_LIBENV, last);
out:
    if (rc == 0) {
        *handle = spare.handle;
        *api = spare.api;
        if (major)
            *major = spare.major;
        if (minor)
            *minor = spare.minor;
    }
    return rc;
}

int gc__nvrtc_load(int driver_major, int *major, int *minor, char *why, size_t whylen)
{
    struct gc_nvrtc_api api;
    void *handle = NULL;
    int rc = gc__nvrtc_open(driver_major, &api, &handle, major, minor, why, whylen);

    if (rc == 0) {
        /* The handle of an earlier load is closed only now, so that loading
         * the same library again reuses the mapping rather than unloading and
         * mapping it anew. */
        if (g_nvrtc_handle)
            dlclose(g_nvrtc_handle);
        g_nvrtc_handle = handle;
        gc__nvrtc = api;
    }
    return rc;
}

void gc__nvrtc_unload(bool keep)
{
    memset(&gc__nvrtc, 0, sizeof(gc__nvrtc));
    if (!keep && g_nvrtc_handle) {
        dlclose(g_nvrtc_handle);
        g_nvrtc_handle = NULL;
    }
}

int gc__nvml_load(char *why, size_t whylen)
{
    const char *env = getenv(GC_NVML_LIBENV);
    const char *lib = env && *env ? env : GC_NVML_LIBNAME;
    int rc;

    if (g_nvml_handle)
        gc__nvml_unload();
    g_nvml_handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!g_nvml_handle) {
        const char *e = dlerror();

        snprintf(why, whylen, "%s%s not loaded: %s", lib,
                 env && *env ? " (from " GC_NVML_LIBENV ")" : "", e ? e : "unknown dlopen error");
        return GC_ENOLIB;
    }
    rc = resolve(g_nvml_handle, lib, g_nvml_syms, NSYMS(g_nvml_syms), &gc__nvml, why, whylen);
    if (rc)
        gc__nvml_unload();
    return rc;
}

void gc__nvml_unload(void)
{
    memset(&gc__nvml, 0, sizeof(gc__nvml));
    if (g_nvml_handle)
        dlclose(g_nvml_handle);
    g_nvml_handle = NULL;
}
