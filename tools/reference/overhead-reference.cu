// Runtime-overhead references on the current GPU, written the way the usual
// tools measure them, so that gpuchar's overhead.launch.* and transfer.*
// figures can be compared on the same machine:
//  - launch round trip: an empty kernel <<<1, 32>>> launched with the CUDA
//    runtime, then cudaDeviceSynchronize (and cudaStreamSynchronize on a
//    non-blocking stream), host clock per iteration: median and p5/p95/p99;
//    the launch call alone; back-to-back launches timed with events;
//  - bandwidthTest-style copies: pinned (cudaMallocHost) and pageable host
//    memory, cudaMemcpyAsync on a stream, events around REPEAT copies, GB/s =
//    1e9 bytes/s, for a 32 MiB copy (bandwidthTest's default) and a large one;
//    pinned also with two streams (each copy split in halves). Every copy's
//    data is random and checked after a round trip.
// One JSON line per figure.
//
// build: scripts/device.sh refs (all of tools/reference/ into build-gpu/refs/)
// usage: overhead-reference [LARGE_MiB [REPEATS]]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "reference-common.h"

__global__ void k_empty(unsigned *p, unsigned tag)
{
    if (tag != 0u)
        p[blockIdx.x * blockDim.x + threadIdx.x] = tag;
}

static double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static double pct(std::vector<double> v, double p)
{
    std::sort(v.begin(), v.end());
    double r = (v.size() - 1) * p / 100.0;
    size_t lo = (size_t)r, hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (r - lo) * (v[hi] - v[lo]);
}

static void print_dist(const char *name, const std::vector<double> &v)
{
    std::printf("{\"figure\":\"%s\",\"unit\":\"us\",\"median\":%.3f,\"p5\":%.3f,\"p95\":%.3f,"
                "\"p99\":%.3f,\"n\":%zu}\n",
                name, pct(v, 50) * 1e6, pct(v, 5) * 1e6, pct(v, 95) * 1e6, pct(v, 99) * 1e6,
                v.size());
}

static void launches(int reps)
{
    unsigned *p;
    cudaStream_t s;
    CHECK_CUDA(cudaMalloc(&p, 32 * sizeof(unsigned)));
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    // Verified once: the launch really runs.
    k_empty<<<1, 32>>>(p, 0x9e3779b9u);
    CHECK_CUDA(cudaDeviceSynchronize());
    unsigned h[32];
    CHECK_CUDA(cudaMemcpy(h, p, sizeof(h), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; i++)
        if (h[i] != 0x9e3779b9u) {
            std::fprintf(stderr, "empty kernel did not run\n");
            std::exit(1);
        }
    std::vector<double> rt_dev(reps), rt_stream(reps), call(reps);
    for (int i = 0; i < 100; i++)
        k_empty<<<1, 32>>>(p, 0);
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int i = 0; i < reps; i++) {
        double t0 = now_s();
        k_empty<<<1, 32>>>(p, 0);
        double t1 = now_s();
        CHECK_CUDA(cudaDeviceSynchronize());
        double t2 = now_s();
        call[i] = t1 - t0;
        rt_dev[i] = t2 - t0;
    }
    for (int i = 0; i < reps; i++) {
        double t0 = now_s();
        k_empty<<<1, 32, 0, s>>>(p, 0);
        CHECK_CUDA(cudaStreamSynchronize(s));
        rt_stream[i] = now_s() - t0;
    }
    print_dist("launch_call", call);
    print_dist("round_trip_device_sync", rt_dev);
    print_dist("round_trip_stream_sync", rt_stream);
    // Back to back on one stream, events around 1000 launches.
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    std::vector<double> iv;
    for (int r = 0; r < 7; r++) {
        CHECK_CUDA(cudaEventRecord(e0, s));
        for (int i = 0; i < 1000; i++)
            k_empty<<<1, 32, 0, s>>>(p, 0);
        CHECK_CUDA(cudaEventRecord(e1, s));
        CHECK_CUDA(cudaEventSynchronize(e1));
        float ms;
        CHECK_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        iv.push_back(ms * 1e-3 / 1000);
    }
    print_dist("back_to_back_interval", iv);
    CHECK_CUDA(cudaEventDestroy(e0));
    CHECK_CUDA(cudaEventDestroy(e1));
    CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaFree(p));
}

static void fill(unsigned char *p, size_t n, unsigned long long seed)
{
    unsigned long long x = seed | 1;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        unsigned long long v = x * 0x2545F4914F6CDD1DULL;
        std::memcpy(p + i, &v, 8);
    }
}

// One size, one kind of host memory: H2D and D2H GB/s (best of 5 runs of
// `repeat` copies, as bandwidthTest reports the figure), data checked.
static void copies(size_t bytes, bool pinned, int streams, int repeat)
{
    unsigned char *a, *b, *d;
    cudaStream_t s[2];
    cudaEvent_t e0, e1, e2;
    if (pinned) {
        CHECK_CUDA(cudaMallocHost(&a, bytes));
        CHECK_CUDA(cudaMallocHost(&b, bytes));
    } else {
        a = (unsigned char *)std::malloc(bytes);
        b = (unsigned char *)std::malloc(bytes);
    }
    CHECK_CUDA(cudaMalloc(&d, bytes));
    for (int i = 0; i < 2; i++)
        CHECK_CUDA(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    CHECK_CUDA(cudaEventCreate(&e2));
    fill(a, bytes, bytes);
    std::memset(b, 0, bytes);
    for (int dir = 0; dir < 2; dir++) {
        double best = 0, h = bytes / streams;
        for (int run = 0; run < 5; run++) {
            CHECK_CUDA(cudaEventRecord(e0, s[0]));
            if (streams == 2)
                CHECK_CUDA(cudaStreamWaitEvent(s[1], e0, 0));
            for (int i = 0; i < repeat; i++)
                for (int k = 0; k < streams; k++) {
                    size_t off = k * (size_t)h, n = k == streams - 1 ? bytes - off : (size_t)h;
                    if (dir == 0)
                        CHECK_CUDA(cudaMemcpyAsync(d + off, a + off, n, cudaMemcpyHostToDevice,
                                                   s[k]));
                    else
                        CHECK_CUDA(cudaMemcpyAsync(b + off, d + off, n, cudaMemcpyDeviceToHost,
                                                   s[k]));
                }
            CHECK_CUDA(cudaEventRecord(e1, s[0]));
            CHECK_CUDA(cudaEventRecord(e2, s[streams - 1]));
            CHECK_CUDA(cudaEventSynchronize(e1));
            CHECK_CUDA(cudaEventSynchronize(e2));
            float m1, m2;
            CHECK_CUDA(cudaEventElapsedTime(&m1, e0, e1));
            CHECK_CUDA(cudaEventElapsedTime(&m2, e0, e2));
            double gbs = (double)bytes * repeat / (std::max(m1, m2) * 1e-3) / 1e9;
            best = std::max(best, gbs);
        }
        std::printf("{\"figure\":\"%s_%s\",\"size_bytes\":%zu,\"streams\":%d,\"unit\":\"GB/s\","
                    "\"best\":%.3f}\n",
                    dir == 0 ? "h2d" : "d2h", pinned ? "pinned" : "pageable", bytes, streams,
                    best);
    }
    if (std::memcmp(a, b, bytes) != 0) {
        std::fprintf(stderr, "copy verification failed (%zu bytes)\n", bytes);
        std::exit(1);
    }
    CHECK_CUDA(cudaEventDestroy(e0));
    CHECK_CUDA(cudaEventDestroy(e1));
    CHECK_CUDA(cudaEventDestroy(e2));
    for (int i = 0; i < 2; i++)
        CHECK_CUDA(cudaStreamDestroy(s[i]));
    CHECK_CUDA(cudaFree(d));
    if (pinned) {
        CHECK_CUDA(cudaFreeHost(a));
        CHECK_CUDA(cudaFreeHost(b));
    } else {
        std::free(a);
        std::free(b);
    }
}

int main(int argc, char **argv)
{
    size_t large = (size_t)(argc > 1 ? std::atoi(argv[1]) : 1024) << 20;
    int repeat = argc > 2 ? std::atoi(argv[2]) : 10;
    cudaDeviceProp prop;
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("{\"device\":\"%s\",\"pci\":\"%04x:%02x:%02x\"}\n", prop.name, prop.pciDomainID,
                prop.pciBusID, prop.pciDeviceID);
    launches(2000);
    copies((size_t)32 << 20, true, 1, repeat);
    copies(large, true, 1, std::max(2, repeat / 4));
    copies(large, true, 2, std::max(2, repeat / 4));
    copies((size_t)32 << 20, false, 1, repeat);
    copies(large / 4, false, 1, 2);
    return 0;
}
