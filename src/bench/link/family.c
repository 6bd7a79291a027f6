/* The link.* table: each entry one benchmark over the ordered device pairs,
 * registered in the catalogue so that it is listed, selected by --bench and
 * documented like the others; in a one-device run it is not available. */
#include <stdio.h>

#include "bench/link/link.h"

#define LINK_SIZES                                                                                 \
    "Sizes: 4 B x 16^k up to 64 MiB, then 256 MiB and 1 GiB (--quick: up to 64 MiB; --full: 4 B "  \
    "in half octaves up to 2 GiB), bounded by free device memory; per size a warm-up copy, a "     \
    "probe that sets the copies per sample (back to back between two events), then the samples; "  \
    "bandwidth = bytes / time per copy, the figure the best size's median. Every copy is "         \
    "verified on arrival against the source's counter-based words (on the receiving device "       \
    "where it can). Hockney fit t(n) = t0 + n / r_inf (model/hockney.c). Limit per direction: "    \
    "NVLink links x per-link rate (NVML), else the lower PCIe host link of the pair; a figure "    \
    "above it fails the row."

static const struct gc_link_desc descs[] = {
    {gc__link_run_topology, 0},
    {gc__link_run_copy, GC_LINK_WRITE},
    {gc__link_run_copy, GC_LINK_READ},
    {gc__link_run_copy, GC_LINK_BIDIR},
    {gc__link_run_sm, GC_LINK_SM_READ},
    {gc__link_run_sm, GC_LINK_SM_WRITE},
    {gc__link_run_latency, 0},
    {gc__link_run_chase, 0},
    {gc__link_run_group, GC_LINK_ALL_TO_ONE},
    {gc__link_run_group, GC_LINK_ONE_TO_ALL},
    {gc__link_run_host, GC_LINK_TO_HOST},
    {gc__link_run_host, GC_LINK_FROM_HOST},
};

/* In a run over one device no pair exists. */
static int run_one_device(struct gc_session *s, const struct gc_bench *self,
                          struct gc_bench_result *r)
{
    (void)s;
    (void)self;
    gc__bench_set_error(r, GC_BENCH_NOT_AVAILABLE,
                        "not available: one device (peer links are measured between the devices "
                        "of a device list)");
    return 0;
}

static const struct gc_bench benches[] = {
    {.info = {.name = "link.topology",
              .group = "link",
              .summary = "each ordered pair's link as the driver reports it: P2P access, atomics, "
                         "NVLink count and "
                         "rate or the PCIe path, and the per-direction limit",
              .method = "Per ordered pair: the backend's peer query (CUDA: cuDeviceCanAccessPeer, "
                        "cuDeviceGetP2PAttribute; NVML: NVLink state, version, speed and remote "
                        "PCI id per link, "
                        "nvmlDeviceGetP2PStatus, nvmlDeviceGetTopologyCommonAncestor for "
                        "PIX/PXB/PHB/NODE/SYS). "
                        "Value: the per-direction limit (B/s) the other link.* rows are held to."},
     .run = run_one_device,
     .param = &descs[0],
     .opt_in = true,
     .expect_s = 2.0},
    {.info = {.name = "link.ce_write",
              .group = "link",
              .summary = "copy-engine copy device i -> device j issued by i (i pushes), bandwidth "
                         "and Hockney fit per "
                         "pair",
              .method = LINK_SIZES
              " Write: the source device's stream issues the copy (cuMemcpyPeerAsync), as "
              "nvbandwidth's device_to_device_memcpy_write_ce."},
     .run = run_one_device,
     .param = &descs[1],
     .opt_in = true,
     .expect_s = 2.0},
    {.info = {.name = "link.ce_read",
              .group = "link",
              .summary = "copy-engine copy device i -> device j issued by j (j pulls), bandwidth "
                         "and Hockney fit per "
                         "pair",
              .method = LINK_SIZES
              " Read: the destination device's stream issues the copy, as nvbandwidth's "
              "device_to_device_memcpy_read_ce."},
     .run = run_one_device,
     .param = &descs[2],
     .opt_in = true,
     .expect_s = 2.0},
    {.info = {.name = "link.ce_bidir",
              .group = "link",
              .summary = "copy-engine copies i -> j and j -> i at once (each pushed by its "
                         "source): bandwidth per "
                         "direction and in sum",
              .method = LINK_SIZES
              " Both directions at once on a stream of each device, released from one common "
              "start event; per direction bytes / its own stream's time, the pair's sum "
              "'i->j.sum' against 2 x the limit."},
     .run = run_one_device,
     .param = &descs[3],
     .opt_in = true,
     .expect_s = 2.0},
    {.info =
         {.name = "link.sm_read",
          .group = "link",
          .summary = "a kernel on device j reads device i's memory across the link (SM copy), best "
                     "launch shape",
          .method =
              "A grid-stride copy kernel of 16-byte words launched on the destination device reads "
              "the "
              "peer's buffer (after peer access is enabled the peer's device pointer is valid "
              "there) and "
              "writes its own; launch shapes of 1..8 blocks of 256..1024 threads per compute unit "
              "are "
              "tried on the largest size and the best kept. Sizes, verification and limit as the "
              "copy-engine rows."},
     .run = run_one_device,
     .param = &descs[4],
     .opt_in = true,
     .expect_s = 2.0},
    {.info = {.name = "link.sm_write",
              .group = "link",
              .summary = "a kernel on device i writes device j's memory across the link (SM copy), "
                         "best launch shape",
              .method = "As link.sm_read, the kernel launched on the source device, reading its "
                        "own buffer and "
                        "writing the peer's."},
     .run = run_one_device,
     .param = &descs[5],
     .opt_in = true,
     .expect_s = 2.0},
    {.info = {.name = "link.latency",
              .group = "link",
              .summary = "the host-visible round trip of a 4-byte peer copy per ordered pair",
              .method = "Per pair: a 4-byte copy issued by the source and waited for, timed by the "
                        "host clock "
                        "from before the enqueue to the end of the wait (median, p5, p95 of the "
                        "samples); the "
                        "copy's own device-event time beside it. The copied word is verified."},
     .run = run_one_device,
     .param = &descs[6],
     .opt_in = true,
     .expect_s = 2.0},
    {.info = {.name = "link.chase",
              .group = "link",
              .summary = "the SM's load-to-use latency across the link: a pointer chase on device "
                         "i through a chain in device j's memory",
              .method = "A random cycle over 64 MiB (elements 256 B apart; the chain of "
                        "memory.latency.*) in device j's memory; one thread of a kernel on device "
                        "i follows it for a short and a long walk, each from a part of the cycle "
                        "no earlier walk touched; latency = (t_long - t_short) / steps "
                        "difference (events), median of the samples. Every walk's end is "
                        "checked against the host's walk. Simulated devices: not available."},
     .run = run_one_device,
     .param = &descs[7],
     .opt_in = true,
     .expect_s = 2.0},
    {.info = {.name = "link.all_to_one",
              .group = "link",
              .summary = "every other device copies into one device at once: the bandwidth that "
                         "device takes in",
              .method = LINK_SIZES
              " All copies at once, each pushed by its source, released from one common start "
              "event; value per target j ('all->j'): the group's bytes over its span (common "
              "start to the last copy's end), limit the lower of the sum of the links' limits "
              "and the hub's own NVLink total."},
     .run = run_one_device,
     .param = &descs[8],
     .opt_in = true,
     .expect_s = 2.0},
    {.info = {.name = "link.one_to_all",
              .group = "link",
              .summary =
                  "one device copies into every other device at once: the bandwidth it gives out",
              .method =
                  LINK_SIZES " As link.all_to_one, from one source i into all others ('i->all')."},
     .run = run_one_device,
     .param = &descs[9],
     .opt_in = true,
     .expect_s = 2.0},
    {.info =
         {.name = "link.all_to_host",
          .group = "link",
          .summary = "every device copies to pinned host memory at once: host link and "
                     "root-complex contention",
          .method =
              "One thread per device, released together by a barrier, each timing back-to-back "
              "device-to-host copies of the largest size from pinned memory (the transfer path of "
              "transfer.pinned); per device bytes / its own events' time ('i->host'), the sum "
              "'all->host' "
              "against the sum of the host links' limits. Verified against the source words."},
     .run = run_one_device,
     .param = &descs[10],
     .opt_in = true,
     .expect_s = 2.0},
    {.info = {.name = "link.host_to_all",
              .group = "link",
              .summary = "pinned host memory copies to every device at once",
              .method = "As link.all_to_host, host-to-device ('host->i', 'host->all')."},
     .run = run_one_device,
     .param = &descs[11],
     .opt_in = true,
     .expect_s = 2.0},
};

#define NBENCHES ((int)(sizeof(benches) / sizeof(benches[0])))

int gc__link_count(void)
{
    return NBENCHES;
}

const struct gc_bench *gc__link_bench_at(int i)
{
    return i >= 0 && i < NBENCHES ? &benches[i] : NULL;
}

const struct gc_bench_family gc__family_link = {gc__link_count, gc__link_bench_at};
