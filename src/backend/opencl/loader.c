/* Loads libOpenCL.so.1 with dlopen so that one binary runs on machines without
 * OpenCL, and checks at load that every entry point the backend uses exists. */
#include "backend/opencl/loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuchar/gpuchar.h"

struct gc_cl_api gc__cl;

static void *g_handle;

/* Name and slot of each required symbol, generated from the same list as the
 * table. The slot is the address of a function pointer seen as a void *
 * object, which is how dlsym's result is stored without converting a void *
 * to a function pointer (ISO C does not allow that conversion). */
struct sym {
    const char *name;
    void **slot;
};

static const struct sym g_syms[] = {
#define GC__CL_SYM(ret, name, params) {#name, (void **)&gc__cl.name},
    GC_CL_SYMBOLS(GC__CL_SYM)
#undef GC__CL_SYM
};

int gc__cl_load(char *why, size_t whylen)
{
    const char *env = getenv(GC_CL_LIBENV);
    const char *lib = env && *env ? env : GC_CL_LIBNAME;
    int rc = GC_ENOLIB;

    if (g_handle) {
        snprintf(why, whylen, "%s is already loaded", lib);
        return GC_EINVAL;
    }
    /* RTLD_LOCAL keeps the loader's symbols out of the global namespace, where
     * they could shadow or be shadowed by another copy of libOpenCL.
     * RTLD_NODELETE keeps it mapped after dlclose: ICD loaders are not made to
     * be unloaded (ocl-icd loses its platform list, and the vendor drivers it
     * opened stay loaded anyway), and a later load then finds it as it was. */
    g_handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!g_handle) {
        const char *e = dlerror();
        snprintf(why, whylen, "cannot load the OpenCL ICD loader %s%s: %s", lib,
                 env && *env ? " (from " GC_CL_LIBENV ")" : "", e ? e : "unknown dlopen error");
        goto out;
    }
    for (size_t i = 0; i < sizeof(g_syms) / sizeof(g_syms[0]); i++) {
        dlerror();
        *g_syms[i].slot = dlsym(g_handle, g_syms[i].name);
        if (!*g_syms[i].slot) {
            const char *e = dlerror();
            snprintf(why, whylen,
                     "%s lacks the symbol %s (an OpenCL 1.2 ICD loader is required): %s", lib,
                     g_syms[i].name, e ? e : "symbol is NULL");
            goto out;
        }
    }
    rc = 0;
out:
    if (rc)
        gc__cl_unload();
    return rc;
}

void gc__cl_unload(void)
{
    memset(&gc__cl, 0, sizeof(gc__cl));
    if (g_handle)
        dlclose(g_handle);
    g_handle = NULL;
}
