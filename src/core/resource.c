/* The node-wide resource locks and the resources' names (resource.h). One
 * process measures a node, so a mutex per resource is node-wide. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/resource.h"
#include "core/sensors.h"

static const struct {
    unsigned bit;
    const char *name;
} resources[] = {
    {GC_RES_HOST_LINK, "host link"},
    {GC_RES_POWER_METER, "power meter"},
    {GC_RES_HOST_CPU, "host CPU"},
};

#define NRES (sizeof(resources) / sizeof(resources[0]))

static pthread_mutex_t locks[NRES] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                      PTHREAD_MUTEX_INITIALIZER};

double gc__resources_acquire(unsigned mask)
{
    double t0 = gc__now();

    for (size_t i = 0; i < NRES; i++)
        if (mask & resources[i].bit)
            pthread_mutex_lock(&locks[i]);
    return gc__now() - t0;
}

bool gc__resources_try(unsigned mask)
{
    for (size_t i = 0; i < NRES; i++) {
        if (!(mask & resources[i].bit) || pthread_mutex_trylock(&locks[i]) == 0)
            continue;
        /* Busy: give back what this call took, in reverse. */
        while (i-- > 0)
            if (mask & resources[i].bit)
                pthread_mutex_unlock(&locks[i]);
        return false;
    }
    return true;
}

void gc__resources_release(unsigned mask)
{
    for (size_t i = NRES; i-- > 0;)
        if (mask & resources[i].bit)
            pthread_mutex_unlock(&locks[i]);
}

const char *gc_resource_names(unsigned mask, char *buf, size_t len)
{
    size_t off = 0;

    if (!buf || len == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < NRES; i++) {
        if (!(mask & resources[i].bit))
            continue;
        int w = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", resources[i].name);
        if (w < 0 || (size_t)w >= len - off)
            break;
        off += (size_t)w;
    }
    return buf;
}
