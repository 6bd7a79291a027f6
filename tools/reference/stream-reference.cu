// STREAM-style DRAM bandwidth on the current GPU, written the way the usual
// GPU stream benchmarks write it (BabelStream's CUDA kernels: one element per
// thread, 1024-thread blocks, double precision; plus the grid-stride
// variant and a 16-byte-vector variant), so that gpuchar's memory.dram.*
// figures can be compared with what those benchmarks reach on the same GPU.
// Kernels: read (dot-style sum, one value per block written), write (init),
// copy, scale, add, triad. Bytes are counted as read + written. Each kernel
// is warmed up, then timed with CUDA events over repeated launches; the
// results are checked on the host. One JSON line per kernel and variant with
// the median and best GB/s.
//
// build: scripts/device.sh refs (all of tools/reference/ into build-gpu/refs/)
// usage: stream-reference [MiB_PER_ARRAY [REPEATS]]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "reference-common.h"

static const double kScalar = 0.4;

// One element per thread (BabelStream's layout).
__global__ void k_init(double *a, double v, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) a[i] = v;
}
__global__ void k_copy(const double *a, double *c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i];
}
__global__ void k_scale(double *b, const double *c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) b[i] = kScalar * c[i];
}
__global__ void k_add(const double *a, const double *b, double *c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
__global__ void k_triad(double *a, const double *b, const double *c, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + kScalar * c[i];
}
// Read-only: grid-stride sum, one partial per block (the only bytes written
// are the partials, negligible).
__global__ void k_read(const double *a, double *part, size_t n) {
    __shared__ double red[1024];
    double s = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        s += a[i];
    red[threadIdx.x] = s;
    __syncthreads();
    for (int o = blockDim.x / 2; o > 0; o /= 2) {
        if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = red[0];
}
// 16-byte vectors, grid-stride (the other common way of writing it).
__global__ void k_copy_v(const double2 *a, double2 *c, size_t n2) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n2;
         i += (size_t)gridDim.x * blockDim.x)
        c[i] = a[i];
}
__global__ void k_triad_v(double2 *a, const double2 *b, const double2 *c, size_t n2) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n2;
         i += (size_t)gridDim.x * blockDim.x) {
        double2 x = b[i], y = c[i];
        a[i] = make_double2(x.x + kScalar * y.x, x.y + kScalar * y.y);
    }
}
__global__ void k_init_v(double2 *a, double v, size_t n2) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n2;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = make_double2(v, v);
}

struct timing {
    double median_ms, best_ms;
};

template <class F> static timing time_it(F launch, int reps) {
    cudaEvent_t e0, e1;
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    for (int i = 0; i < 3; i++) launch();
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<float> ms(reps);
    for (int r = 0; r < reps; r++) {
        CHECK_CUDA(cudaEventRecord(e0));
        launch();
        CHECK_CUDA(cudaEventRecord(e1));
        CHECK_CUDA(cudaEventSynchronize(e1));
        CHECK_CUDA(cudaEventElapsedTime(&ms[r], e0, e1));
    }
    CHECK_CUDA(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    CHECK_CUDA(cudaEventDestroy(e0));
    CHECK_CUDA(cudaEventDestroy(e1));
    return {ms[reps / 2], ms[0]};
}

static void report(const char *name, const char *variant, double bytes, timing t) {
    std::printf("{\"kernel\":\"%s\",\"variant\":\"%s\",\"bytes\":%.0f,\"median_gbs\":%.1f,"
                "\"best_gbs\":%.1f}\n",
                name, variant, bytes, bytes / (t.median_ms * 1e6), bytes / (t.best_ms * 1e6));
}

static void expect_all(const double *d, size_t n, double v, const char *what) {
    std::vector<double> h(n);
    CHECK_CUDA(cudaMemcpy(h.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (std::fabs(h[i] - v) > 1e-12 * std::fabs(v)) {
            std::fprintf(stderr, "%s: element %zu is %.17g, expected %.17g\n", what, i, h[i], v);
            std::exit(1);
        }
}

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2048;
    int reps = argc > 2 ? std::atoi(argv[2]) : 50;
    size_t n = mib * 1024 * 1024 / sizeof(double);
    n -= n % 2048;
    cudaDeviceProp p;
    CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
    int sms = p.multiProcessorCount;
    std::fprintf(stderr, "%s, %d SMs, %zu doubles per array (%.0f MiB)\n", p.name, sms, n,
                 n * 8.0 / 1048576.0);
    double *a, *b, *c, *part;
    CHECK_CUDA(cudaMalloc(&a, n * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&b, n * sizeof(double)));
    CHECK_CUDA(cudaMalloc(&c, n * sizeof(double)));
    const int tb = 1024;
    const unsigned grid = (unsigned)((n + tb - 1) / tb);
    const unsigned rgrid = (unsigned)sms * 2;
    CHECK_CUDA(cudaMalloc(&part, rgrid * sizeof(double)));
    const double nb = (double)n * sizeof(double);

    // BabelStream-style kernels, checked after one sequence: a=0.1, b=0.2, c=0.0.
    k_init<<<grid, tb>>>(a, 0.1, n);
    k_init<<<grid, tb>>>(b, 0.2, n);
    k_init<<<grid, tb>>>(c, 0.0, n);
    CHECK_CUDA(cudaDeviceSynchronize());
    report("write", "babelstream", nb, time_it([&] { k_init<<<grid, tb>>>(c, 0.0, n); }, reps));
    report("copy", "babelstream", 2 * nb, time_it([&] { k_copy<<<grid, tb>>>(a, c, n); }, reps));
    expect_all(c, n, 0.1, "copy");
    report("scale", "babelstream", 2 * nb, time_it([&] { k_scale<<<grid, tb>>>(b, c, n); }, reps));
    expect_all(b, n, kScalar * 0.1, "scale");
    report("add", "babelstream", 3 * nb, time_it([&] { k_add<<<grid, tb>>>(a, b, c, n); }, reps));
    expect_all(c, n, 0.1 + kScalar * 0.1, "add");
    report("triad", "babelstream", 3 * nb,
           time_it([&] { k_triad<<<grid, tb>>>(a, b, c, n); }, reps));
    expect_all(a, n, kScalar * 0.1 + kScalar * (0.1 + kScalar * 0.1), "triad");

    // Read-only sum over b (= 0.04 everywhere), best over blocks per SM.
    for (int per_sm : {2, 4, 8}) {
        unsigned g = (unsigned)(sms * per_sm);
        if (g > rgrid) {
            CHECK_CUDA(cudaFree(part));
            CHECK_CUDA(cudaMalloc(&part, g * sizeof(double)));
        }
        timing t = time_it([&] { k_read<<<g, tb>>>(b, part, n); }, reps);
        std::vector<double> h(g);
        CHECK_CUDA(cudaMemcpy(h.data(), part, g * sizeof(double), cudaMemcpyDeviceToHost));
        double sum = 0;
        for (double x : h) sum += x;
        if (std::fabs(sum - kScalar * 0.1 * (double)n) > 1e-6 * kScalar * 0.1 * (double)n) {
            std::fprintf(stderr, "read: sum %.17g, expected %.17g\n", sum,
                         kScalar * 0.1 * (double)n);
            return 1;
        }
        char v[32];
        std::snprintf(v, sizeof v, "gridstride-%dx1024-per-sm", per_sm);
        report("read", v, nb, t);
    }

    // 16-byte vectors, grid-stride, best over blocks per SM.
    for (int per_sm : {1, 2, 4, 8, 16}) {
        unsigned g = (unsigned)(sms * per_sm);
        const int vtb = 512;
        char v[40];
        std::snprintf(v, sizeof v, "double2-%dx512-per-sm", per_sm);
        report("write", v, nb,
               time_it([&] { k_init_v<<<g, vtb>>>((double2 *)c, 0.3, n / 2); }, reps));
        expect_all(c, n, 0.3, "write double2");
        report("copy", v, 2 * nb,
               time_it([&] { k_copy_v<<<g, vtb>>>((const double2 *)b, (double2 *)c, n / 2); },
                       reps));
        expect_all(c, n, kScalar * 0.1, "copy double2");
        report("triad", v, 3 * nb, time_it([&] {
                   k_triad_v<<<g, vtb>>>((double2 *)a, (const double2 *)b,
                                         (const double2 *)c, n / 2);
               },
                                           reps));
        expect_all(a, n, kScalar * 0.1 + kScalar * kScalar * 0.1, "triad double2");
    }
    CHECK_CUDA(cudaFree(a));
    CHECK_CUDA(cudaFree(b));
    CHECK_CUDA(cudaFree(c));
    CHECK_CUDA(cudaFree(part));
    return 0;
}
