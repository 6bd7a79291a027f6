/* memory.copy: device-to-device copy bandwidth (Lemeire §VI-A copy kernel;
 * MIPP §IV-B DRAM bandwidth; bytes counted as read + written, as STREAM
 * counts them). The kernels, sweep and verification are those of
 * memory.dram.copy (dram.c, kgen/gen_stream.c); this entry keeps the
 * long-standing name and metric names (copy_bandwidth, buffer_size). */
#include "bench/dram.h"

static const struct gc_dram_param copy_param = {GC_STREAM_COPY, "copy"};

const struct gc_bench gc__bench_copy = {
    .info =
        {
            .name = "memory.copy",
            .group = "memory",
            .summary = "device-to-device copy bandwidth (read + write), best over block size, "
                       "vector width, unroll and occupancy",
            .method =
                "Copy kernel (Lemeire et al. SVI-A; MIPP SIV-B), the same sweep as "
                "memory.dram.copy: the buffer is split into tiles of block x unroll vectors of "
                "4, 8 or 16 bytes; each thread loads its unroll vectors of a tile (stride = block "
                "size) before storing them, so unroll requests per thread are in flight; blocks "
                "take tiles in a rolled grid-stride loop whose bound is a literal, with the grid "
                "either the resident blocks or one tile per block. Buffers are filled with "
                "xorshift64* random data and sized at 16x the last-level cache (64 MiB..1 GiB by "
                "default; CPU devices: both buffers together 8x it, else not available) so every "
                "sample streams from DRAM. Bandwidth = 2 x buffer bytes / time "
                "per launch (bytes read + bytes written), timed with device events over "
                "back-to-back launches; the destination is poisoned before each configuration and "
                "compared with the source afterwards. Reported: the best configuration's median "
                "with min/max/CI, against the DRAM bandwidth the device reports (2 x memory clock "
                "x bus width / 8), and a BabelStream-like reference configuration.",
        },
    .needs_caps = 0,
    .run = gc__dram_run,
    .param = &copy_param,
    .sources = gc__dram_sources,
};
