// Pinned host<->device copy bandwidth by host-allocation method, to find what
// limits a copy-engine transfer on PCIe: page-locked memory from
// cudaMallocHost, write-combined memory, and ordinary memory registered with
// cudaHostRegister in 4 KiB pages and in 2 MiB (transparent huge) pages.
// Each figure: REPEAT back-to-back copies timed with events, median of 7.
// Data is random and checked after a round trip.
//
// build: scripts/device.sh refs (all of tools/reference/ into build-gpu/refs/)
// usage: pinned-probe [MiB]
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>

#include "reference-common.h"

static double bw(void *dst, const void *src, size_t n, cudaMemcpyKind kind, int streams)
{
    const int repeat = 4;
    std::vector<cudaStream_t> st(streams);
    for (auto &s : st)
        CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    std::vector<double> v;
    for (int it = 0; it < 8; it++) {
        CHECK_CUDA(cudaEventRecord(a, st[0]));
        for (int k = 1; k < streams; k++)
            CHECK_CUDA(cudaStreamWaitEvent(st[k], a, 0));
        for (int r = 0; r < repeat; r++) {
            size_t part = n / streams;
            for (int k = 0; k < streams; k++)
                CHECK_CUDA(cudaMemcpyAsync((char *)dst + k * part, (const char *)src + k * part,
                                           part, kind, st[k]));
        }
        std::vector<cudaEvent_t> done(streams);
        for (int k = 1; k < streams; k++) {
            CHECK_CUDA(cudaEventCreate(&done[k]));
            CHECK_CUDA(cudaEventRecord(done[k], st[k]));
            CHECK_CUDA(cudaStreamWaitEvent(st[0], done[k], 0));
        }
        CHECK_CUDA(cudaEventRecord(b, st[0]));
        CHECK_CUDA(cudaEventSynchronize(b));
        float ms;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        if (it > 0)
            v.push_back((double)n * repeat / (ms * 1e-3) / 1e9);
        for (int k = 1; k < streams; k++)
            CHECK_CUDA(cudaEventDestroy(done[k]));
    }
    std::sort(v.begin(), v.end());
    for (auto &s : st)
        CHECK_CUDA(cudaStreamDestroy(s));
    return v[v.size() / 2];
}

static void fill(unsigned *p, size_t words, unsigned seed)
{
    unsigned x = seed | 1;
    for (size_t i = 0; i < words; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = x;
    }
}

static void probe(const char *name, void *host, size_t n, void *dev, void *check)
{
    fill((unsigned *)host, n / 4, 12345);
    double h2d1 = bw(dev, host, n, cudaMemcpyHostToDevice, 1);
    double h2d4 = bw(dev, host, n, cudaMemcpyHostToDevice, 4);
    CHECK_CUDA(cudaMemcpy(check, dev, n, cudaMemcpyDeviceToHost));
    if (std::memcmp(check, host, n) != 0) {
        std::printf("%s: H2D data wrong\n", name);
        std::exit(1);
    }
    double d2h1 = bw(host, dev, n, cudaMemcpyDeviceToHost, 1);
    double d2h4 = bw(host, dev, n, cudaMemcpyDeviceToHost, 4);
    if (std::memcmp(check, host, n) != 0) {
        std::printf("%s: D2H data wrong\n", name);
        std::exit(1);
    }
    std::printf("{\"host\":\"%s\",\"MiB\":%zu,\"h2d\":%.2f,\"h2d_4streams\":%.2f,\"d2h\":%.2f,"
                "\"d2h_4streams\":%.2f}\n",
                name, n >> 20, h2d1, h2d4, d2h1, d2h4);
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 512;
    size_t n = mib << 20;
    void *dev, *check = std::malloc(n);
    CHECK_CUDA(cudaMalloc(&dev, n));
    void *p;
    CHECK_CUDA(cudaMallocHost(&p, n));
    probe("cudaMallocHost", p, n, dev, check);
    CHECK_CUDA(cudaFreeHost(p));
    CHECK_CUDA(cudaHostAlloc(&p, n, cudaHostAllocWriteCombined));
    probe("cudaHostAlloc(WriteCombined)", p, n, dev, check);
    CHECK_CUDA(cudaFreeHost(p));
    for (int huge = 0; huge < 2; huge++) {
        size_t al = (size_t)2 << 20;
        void *q = mmap(nullptr, n + al, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (q == MAP_FAILED)
            continue;
        void *a = (void *)(((uintptr_t)q + al - 1) / al * al);
        madvise(a, n, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
        std::memset(a, 1, n);
        CHECK_CUDA(cudaHostRegister(a, n, cudaHostRegisterDefault));
        probe(huge ? "register(2MiB THP)" : "register(4KiB)", a, n, dev, check);
        CHECK_CUDA(cudaHostUnregister(a));
        munmap(q, n + al);
    }
    void *h = mmap(nullptr, n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    if (h != MAP_FAILED) {
        std::memset(h, 1, n);
        CHECK_CUDA(cudaHostRegister(h, n, cudaHostRegisterDefault));
        probe("register(hugetlbfs)", h, n, dev, check);
        CHECK_CUDA(cudaHostUnregister(h));
        munmap(h, n);
    } else {
        std::printf("{\"host\":\"hugetlbfs\",\"unavailable\":true}\n");
    }
    return 0;
}
