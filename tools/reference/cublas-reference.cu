// Dense GEMM throughput of cuBLASLt on the current GPU: the reference the
// matrix-unit benchmarks (compute.mma.*, compute.wgmma.*) are compared with.
// For each type, a square M = N = K GEMM (default 8192) is run with the
// library's best heuristic algorithm, warmed up, then timed with CUDA events
// over repeated launches; one JSON line per type gives the median and best
// TFLOP/s (TOP/s for int8).
//
// build: scripts/device.sh refs (all of tools/reference/ into build-gpu/refs/)
// usage: cublas-reference [SIZE [REPEATS]]
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "reference-common.h"

// A failing cuBLASLt call skips that type (reported as a JSON line with the
// status) instead of ending the program: fp8 or int8 may be unsupported.
#define TRY_LT(x)                                                                                  \
    do {                                                                                           \
        cublasStatus_t s_ = (x);                                                                   \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            status = s_;                                                                           \
            where = #x;                                                                            \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

enum Elem { F16, BF16, F32, E4M3, S8, S32 };

static size_t elem_bytes(Elem e)
{
    switch (e) {
    case F16:
    case BF16:
        return 2;
    case E4M3:
    case S8:
        return 1;
    default:
        return 4;
    }
}

static cudaDataType_t cuda_type(Elem e)
{
    switch (e) {
    case F16:
        return CUDA_R_16F;
    case BF16:
        return CUDA_R_16BF;
    case E4M3:
        return CUDA_R_8F_E4M3;
    case S8:
        return CUDA_R_8I;
    case S32:
        return CUDA_R_32I;
    default:
        return CUDA_R_32F;
    }
}

// Random values in [-1, 1) (int8: [-8, 8)) from a per-element hash: never
// zeros, never a constant, so no zero-skipping or compression inflates the
// rate.
__global__ void fill(void *p, size_t n, int elem, unsigned long long seed)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ull;
        x ^= x >> 29;
        float v = (float)((x >> 40) & 0xFFFF) / 32768.0f - 1.0f;
        switch (elem) {
        case F16:
            ((__half *)p)[i] = __float2half(v);
            break;
        case BF16:
            ((__nv_bfloat16 *)p)[i] = __float2bfloat16(v);
            break;
        case E4M3:
            ((__nv_fp8_e4m3 *)p)[i] = __nv_fp8_e4m3(v);
            break;
        case S8:
            ((signed char *)p)[i] = (signed char)((int)(v * 8.0f));
            break;
        case S32:
            ((int *)p)[i] = (int)(v * 8.0f);
            break;
        default:
            ((float *)p)[i] = v;
            break;
        }
    }
}

struct Case {
    const char *name;
    Elem ab, cd;
    cublasComputeType_t compute;
    cudaDataType_t scale;
    int min_cc; // 10 * major + minor
    bool tn;    // the library requires A transposed (TN) for this type
};

static void run_case(const Case &c, int n, int repeats, int cc, void *ws, size_t ws_bytes)
{
    cublasLtHandle_t lt = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    cublasLtMatmulHeuristicResult_t heur = {};
    cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
    const char *where = "";
    void *a = nullptr, *b = nullptr, *d = nullptr;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    std::vector<float> ms;
    int found = 0;
    size_t nn = (size_t)n * n;
    float alpha_f = 1.0f, beta_f = 0.0f;
    int alpha_i = 1, beta_i = 0;
    __half alpha_h = __float2half(1.0f), beta_h = __float2half(0.0f);
    const void *alpha = &alpha_f, *beta = &beta_f;
    cublasOperation_t ta = c.tn ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;

    if (cc < c.min_cc) {
        std::printf("{\"gemm\":\"%s\",\"size\":%d,\"skipped\":\"needs sm_%d\"}\n", c.name, n,
                    c.min_cc);
        return;
    }
    if (c.scale == CUDA_R_32I) {
        alpha = &alpha_i;
        beta = &beta_i;
    } else if (c.scale == CUDA_R_16F) {
        alpha = &alpha_h;
        beta = &beta_h;
    }
    CHECK_CUDA(cudaMalloc(&a, nn * elem_bytes(c.ab)));
    CHECK_CUDA(cudaMalloc(&b, nn * elem_bytes(c.ab)));
    CHECK_CUDA(cudaMalloc(&d, nn * elem_bytes(c.cd)));
    fill<<<1024, 256>>>(a, nn, c.ab, 0x1234);
    fill<<<1024, 256>>>(b, nn, c.ab, 0x5678);
    fill<<<1024, 256>>>(d, nn, c.cd, 0x9abc);
    CHECK_CUDA(cudaDeviceSynchronize());

    TRY_LT(cublasLtCreate(&lt));
    TRY_LT(cublasLtMatmulDescCreate(&op, c.compute, c.scale));
    TRY_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
    TRY_LT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
    // Square matrices: the stored shapes are n x n whatever the transposes.
    TRY_LT(cublasLtMatrixLayoutCreate(&la, cuda_type(c.ab), n, n, n));
    TRY_LT(cublasLtMatrixLayoutCreate(&lb, cuda_type(c.ab), n, n, n));
    TRY_LT(cublasLtMatrixLayoutCreate(&lc, cuda_type(c.cd), n, n, n));
    TRY_LT(cublasLtMatmulPreferenceCreate(&pref));
    TRY_LT(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                &ws_bytes, sizeof(ws_bytes)));
    TRY_LT(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heur, &found));
    if (found == 0) {
        status = CUBLAS_STATUS_NOT_SUPPORTED;
        where = "cublasLtMatmulAlgoGetHeuristic found no algorithm";
        goto out;
    }
    // Warm-up: clocks settle and the library finishes its lazy set-up.
    for (int i = 0; i < 10; i++)
        TRY_LT(cublasLtMatmul(lt, op, alpha, a, la, b, lb, beta, d, lc, d, lc, &heur.algo, ws,
                              ws_bytes, 0));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaEventCreate(&e0));
    CHECK_CUDA(cudaEventCreate(&e1));
    for (int r = 0; r < repeats; r++) {
        float t = 0;

        CHECK_CUDA(cudaEventRecord(e0));
        TRY_LT(cublasLtMatmul(lt, op, alpha, a, la, b, lb, beta, d, lc, d, lc, &heur.algo, ws,
                              ws_bytes, 0));
        CHECK_CUDA(cudaEventRecord(e1));
        CHECK_CUDA(cudaEventSynchronize(e1));
        CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
    }
    {
        std::sort(ms.begin(), ms.end());
        double med = ms[ms.size() / 2], best = ms.front();
        double flop = 2.0 * n * (double)n * n;
        std::printf("{\"gemm\":\"%s\",\"size\":%d,\"repeats\":%d,\"ms_median\":%.4f,"
                    "\"ms_min\":%.4f,\"%s_median\":%.2f,\"%s_best\":%.2f,\"library\":"
                    "\"cublasLt %d\"}\n",
                    c.name, n, repeats, med, best, c.ab == S8 ? "tops" : "tflops",
                    flop / (med * 1e-3) / 1e12, c.ab == S8 ? "tops" : "tflops",
                    flop / (best * 1e-3) / 1e12, (int)cublasLtGetVersion());
    }
out:
    if (status != CUBLAS_STATUS_SUCCESS)
        std::printf("{\"gemm\":\"%s\",\"size\":%d,\"error\":\"%s\",\"status\":%d}\n", c.name, n,
                    where, (int)status);
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (la)
        cublasLtMatrixLayoutDestroy(la);
    if (lb)
        cublasLtMatrixLayoutDestroy(lb);
    if (lc)
        cublasLtMatrixLayoutDestroy(lc);
    if (op)
        cublasLtMatmulDescDestroy(op);
    if (lt)
        cublasLtDestroy(lt);
    cudaFree(a);
    cudaFree(b);
    cudaFree(d);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? std::atoi(argv[1]) : 8192;
    int repeats = argc > 2 ? std::atoi(argv[2]) : 50;
    int dev = 0, major = 0, minor = 0;
    cudaDeviceProp prop;
    size_t ws_bytes = 256u << 20;
    void *ws = nullptr;

    if (n < 256 || repeats < 1) {
        std::fprintf(stderr, "usage: %s [SIZE >= 256 [REPEATS >= 1]]\n", argv[0]);
        return 2;
    }
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK_CUDA(cudaGetDeviceProperties(&prop, dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
    std::printf("{\"device\":\"%s\",\"cc\":\"%d.%d\",\"sms\":%d}\n", prop.name, major, minor,
                prop.multiProcessorCount);

    // Names match the gpuchar benchmarks (compute.mma.<name>, compute.wgmma.<name>).
    // fp8 and int8 need the TN layout in cuBLASLt; fp8 writes bf16.
    const Case cases[] = {
        {"f16_f32", F16, F16, CUBLAS_COMPUTE_32F, CUDA_R_32F, 70, false},
        {"f16_f16", F16, F16, CUBLAS_COMPUTE_16F, CUDA_R_16F, 70, false},
        {"bf16_f32", BF16, BF16, CUBLAS_COMPUTE_32F, CUDA_R_32F, 80, false},
        {"tf32_f32", F32, F32, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, 80, false},
        {"e4m3_f32", E4M3, BF16, CUBLAS_COMPUTE_32F, CUDA_R_32F, 89, true},
        {"s8_s32", S8, S32, CUBLAS_COMPUTE_32I, CUDA_R_32I, 75, true},
    };
    for (const Case &c : cases)
        run_case(c, n, repeats, major * 10 + minor, ws, ws_bytes);
    cudaFree(ws);
    return 0;
}
