/* Coarse-to-fine sampling of a staircase over its planned grid (see
 * coarse.h). */
#include <math.h>

#include "model/coarse.h"

int gc__coarse_plan(int n, int stride, int *idx)
{
    int m = 0;

    if (n < 1 || !idx)
        return 0;
    if (stride < 1)
        stride = 1;
    for (int i = 0; i < n; i += stride)
        idx[m++] = i;
    if (idx[m - 1] != n - 1)
        idx[m++] = n - 1;
    return m;
}

/* y[i] after a running median of three (the ends unchanged), as the level
 * detection smooths the curve. */
static double med3(const double *y, int m, int i)
{
    if (i == 0 || i == m - 1)
        return y[i];
    double a = y[i - 1], b = y[i], c = y[i + 1];
    return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

int gc__coarse_fill_next(const int *idx, const double *y, int m, double jump, int cap)
{
    double lim = log1p(jump);

    if (!idx || !y || m < 2 || m >= cap || !(jump >= 0))
        return -1;
    for (int i = 0; i + 1 < m; i++) {
        if (idx[i + 1] - idx[i] < 2)
            continue;
        double a = med3(y, m, i), b = med3(y, m, i + 1);
        /* An unknown latency cannot say the stretch is flat. */
        if (!(a > 0) || !(b > 0) || fabs(log(b / a)) > lim)
            return idx[i] + (idx[i + 1] - idx[i]) / 2;
    }
    return -1;
}
