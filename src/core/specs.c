/* Per-clock throughput specifications by CUDA compute capability (CUDA C
 * Programming Guide, "Arithmetic Instructions" table: results per clock cycle
 * per multiprocessor). */
#include <math.h>

#include "core/specs.h"

struct cc_rate {
    int major, minor;
    double fp32;
};

static const struct cc_rate fp32_rates[] = {
    {7, 0, 64},  {7, 2, 64},   {7, 5, 64},   {8, 0, 64},   {8, 6, 128},  {8, 7, 128},  {8, 9, 128},
    {9, 0, 128}, {10, 0, 128}, {10, 3, 128}, {11, 0, 128}, {12, 0, 128}, {12, 1, 128},
};

double gc__spec_fp32_fma_per_clk_cu(const struct gc_device_info *info)
{
    if (info->cc_major == 0)
        return NAN;
    for (size_t i = 0; i < sizeof(fp32_rates) / sizeof(fp32_rates[0]); i++)
        if (fp32_rates[i].major == info->cc_major && fp32_rates[i].minor == info->cc_minor)
            return fp32_rates[i].fp32;
    return NAN;
}
