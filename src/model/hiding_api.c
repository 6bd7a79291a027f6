/* The public face of the latency-hiding model (gpuchar/hiding.h): what a
 * program outside the library, 'gpuchar model' first, may call. The model
 * itself is model/hiding.c; the library's own callers use its internal
 * names. */
#include "gpuchar/hiding.h"
#include "model/hiding.h"

const char *gc_hiding_name(int what)
{
    return gc__hiding_name(what);
}

int gc_hiding_from_results(const struct gc_results *r, struct gc_hiding_hw *hw, char *err,
                           size_t errlen)
{
    return gc__hiding_from_results(r, hw, err, errlen);
}

int gc_hiding_mix_check(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, char *err,
                        size_t errlen)
{
    return gc__hiding_mix_check(hw, mix, err, errlen);
}

double gc_hiding_bound(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, int *limit)
{
    return gc__hiding_bound(hw, mix, limit);
}

double gc_hiding_latency(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, double x,
                         bool refined)
{
    return gc__hiding_latency(hw, mix, x, refined);
}

int gc_hiding_basic(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, double n,
                    struct gc_hiding_point *out)
{
    return gc__hiding_basic(hw, mix, n, out);
}

int gc_hiding_refined(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, double n,
                      struct gc_hiding_point *out)
{
    return gc__hiding_refined(hw, mix, n, out);
}

double gc_hiding_needed(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                        double fraction, bool refined)
{
    return gc__hiding_needed(hw, mix, fraction, refined);
}

double gc_hiding_in_execution(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, int t,
                              double x, bool refined)
{
    return gc__hiding_in_execution(hw, mix, t, x, refined);
}

int gc_hiding_cusp(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *others, double *alpha,
                   double *warps)
{
    return gc__hiding_cusp(hw, others, alpha, warps);
}

double gc_hiding_gbps(const struct gc_hiding_hw *hw, double bytes_per_clk_sm)
{
    return gc__hiding_gbps(hw, bytes_per_clk_sm);
}
