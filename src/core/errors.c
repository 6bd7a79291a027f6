/* Messages and symbolic names of the GC_E* codes, generated from the one
 * GC_ERRNO_MAP list, and the version strings fixed at build time. */
#include "gpuchar/gpuchar.h"

/* The build passes the version and writes the revision's header at every
 * build (cmake/gitrev.cmake); the defaults keep a hand-compiled file usable. */
#if defined(__has_include)
#if __has_include(<gc_gitrev.h>)
#include <gc_gitrev.h>
#endif
#endif
#ifndef GC_VERSION_STRING
#define GC_VERSION_STRING "0.1.0"
#endif
#ifndef GC_GIT_REV
#define GC_GIT_REV "unknown"
#endif

const char *gc_version(void)
{
    return GC_VERSION_STRING;
}

const char *gc_git_revision(void)
{
    return GC_GIT_REV;
}

const char *gc_strerror(int err)
{
    switch (err) {
    case GC_OK:
        return "success";
#define GC__ERR_MSG(name, msg)                                                                     \
    case GC_##name:                                                                                \
        return msg;
        GC_ERRNO_MAP(GC__ERR_MSG)
#undef GC__ERR_MSG
    default:
        return "unknown error";
    }
}

const char *gc_err_name(int err)
{
    switch (err) {
    case GC_OK:
        return "GC_OK";
#define GC__ERR_NAME(name, msg)                                                                    \
    case GC_##name:                                                                                \
        return "GC_" #name;
        GC_ERRNO_MAP(GC__ERR_NAME)
#undef GC__ERR_NAME
    default:
        return "unknown error";
    }
}
