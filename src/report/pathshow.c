/* A path as shown in a message: a very long one (a mistake, typically) is cut
 * in the middle and its length given, so that the reason that follows it in
 * a fixed-size message buffer is never cut off. */
#include <stdio.h>
#include <string.h>

#include "gpuchar/gpuchar.h"

/* Paths up to this many characters are shown whole. */
#define SHOWN_MAX 160

const char *gc_path_shown(const char *path, char *buf, size_t len)
{
    size_t n;

    if (!buf || len == 0)
        return "";
    if (!path) {
        snprintf(buf, len, "(none)");
        return buf;
    }
    n = strlen(path);
    if (n <= SHOWN_MAX)
        snprintf(buf, len, "%s", path);
    else
        snprintf(buf, len, "%.*s...%s (%zu characters)", SHOWN_MAX / 2, path,
                 path + n - SHOWN_MAX / 4, n);
    return buf;
}
