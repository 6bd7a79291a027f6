/* OpenCL peer links: not offered. Each device is opened in a context of
 * its own (one queue, its own buffers), and clEnqueueCopyBuffer copies only
 * between buffers of one context; a copy across devices would need the
 * devices of a platform to share one context, which this backend does not
 * make. Every call says so. */
#include "backend/opencl/error.h"
#include "backend/opencl/opencl_int.h"

static const char why[] = "the OpenCL backend opens each device in a context of its own, and "
                          "clEnqueueCopyBuffer copies only between buffers of one context: no "
                          "copy across devices";

int gc__cl_peer_info(struct gc_dev *a, struct gc_dev *b, struct gc_peer_info *out)
{
    (void)b;
    (void)out;
    gc__cl_set_error(a, "%s", why);
    return GC_ENOTSUP;
}

int gc__cl_peer_enable(struct gc_dev *a, struct gc_dev *b)
{
    (void)b;
    gc__cl_set_error(a, "%s", why);
    return GC_ENOTSUP;
}

int gc__cl_peer_copies(const struct gc_peer_copy *c, int n, int count, struct gc_peer_times *out)
{
    (void)n;
    (void)count;
    (void)out;
    if (c && c[0].src)
        gc__cl_set_error(c[0].src->dev, "%s", why);
    return GC_ENOTSUP;
}
