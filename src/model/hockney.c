/* Weighted least-squares fit of the Hockney transfer model (see link.h). */
#include <math.h>
#include <string.h>

#include "gpuchar/gpuchar.h"
#include "model/link.h"

int gc__hockney_fit(const double *bytes, const double *seconds, int n, struct gc_hockney *out)
{
    double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, xmin = INFINITY, xmax = 0;
    double a, b;
    int m = 0;

    memset(out, 0, sizeof(*out));
    out->latency_s = out->bandwidth = out->n_half = out->max_rel_resid = NAN;
    for (int i = 0; i < n; i++) {
        double x = bytes[i], y = seconds[i];
        if (!(isfinite(x) && isfinite(y) && x > 0 && y > 0))
            continue;
        /* Relative errors: each residual is divided by its own time. */
        double w = 1.0 / (y * y);
        sw += w;
        sx += w * x;
        sy += w * y;
        sxx += w * x * x;
        sxy += w * x * y;
        xmin = x < xmin ? x : xmin;
        xmax = x > xmax ? x : xmax;
        m++;
    }
    if (m < 2 || !(xmax > xmin))
        return GC_EINVAL;
    double det = sw * sxx - sx * sx;
    if (!(det > 0))
        return GC_EINVAL;
    a = (sxx * sy - sx * sxy) / det;
    b = (sw * sxy - sx * sy) / det;
    if (a < 0) {
        /* Through the origin: minimise sum w (y - b x)^2. */
        a = 0;
        b = sxy / sxx;
    }
    if (!(b > 0))
        return GC_EINVAL;
    out->latency_s = a;
    out->bandwidth = 1.0 / b;
    out->n_half = a / b;
    out->npoints = m;
    out->max_rel_resid = 0;
    for (int i = 0; i < n; i++) {
        double x = bytes[i], y = seconds[i];
        if (!(isfinite(x) && isfinite(y) && x > 0 && y > 0))
            continue;
        double r = fabs(a + b * x - y) / y;
        out->max_rel_resid = r > out->max_rel_resid ? r : out->max_rel_resid;
    }
    return 0;
}
