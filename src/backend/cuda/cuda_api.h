/* The subset of the CUDA driver API, NVRTC and NVML that the CUDA backend
 * calls, declared here so that gpuchar builds without any NVIDIA header. */
#ifndef GC_BACKEND_CUDA_CUDA_API_H
#define GC_BACKEND_CUDA_CUDA_API_H

#include <stddef.h>

/* ---- CUDA driver API (cuda.h) ------------------------------------------
 * Handles, enum values and signatures are part of the driver's stable ABI;
 * the values below are those of cuda.h from CUDA 13.0. Only the enumerators
 * the backend uses are listed, which is enough because an enum parameter is
 * passed as an int whatever the list holds. */

typedef int CUdevice;
typedef unsigned long long CUdeviceptr; /* 64-bit hosts only */
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;

typedef enum cudaError_enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_INSUFFICIENT_DRIVER = 35,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
    CUDA_ERROR_LAUNCH_FAILED = 719,
} CUresult;

typedef enum CUdevice_attribute_enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13, /* kHz */
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
    CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
    CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,       /* kHz */
    CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37, /* bits */
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
    CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
} CUdevice_attribute;

typedef enum CUfunction_attribute_enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
} CUfunction_attribute;

/* Texture objects over linear memory (cuTexObjectCreate). The structs are
 * laid out exactly as in cuda.h; only the linear member of the resource union
 * is spelled out, the reserved member fixes the union's size. */
typedef unsigned long long CUtexObject;

enum {
    CU_RESOURCE_TYPE_LINEAR = 0x02,
    CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
    CU_TR_ADDRESS_MODE_CLAMP = 1,
    CU_TR_FILTER_MODE_POINT = 0,
    CU_TRSF_READ_AS_INTEGER = 0x01,
};

typedef struct CUDA_RESOURCE_DESC_st {
    int resType; /* CUresourcetype */
    union {
        struct {
            CUdeviceptr devPtr;
            int format; /* CUarray_format */
            unsigned int numChannels;
            size_t sizeInBytes;
        } linear;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags;
} CUDA_RESOURCE_DESC;

typedef struct CUDA_TEXTURE_DESC_st {
    int addressMode[3]; /* CUaddress_mode */
    int filterMode;     /* CUfilter_mode */
    unsigned int flags;
    unsigned int maxAnisotropy;
    int mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
} CUDA_TEXTURE_DESC;

typedef struct CUDA_RESOURCE_VIEW_DESC_st CUDA_RESOURCE_VIEW_DESC;

enum {
    CU_STREAM_NON_BLOCKING = 0x1,
    CU_EVENT_DEFAULT = 0x0,
};

/* Host memory (cuMemHostAlloc) and stream capture (CUDA graphs). */
enum {
    CU_MEMHOSTALLOC_PORTABLE = 0x01,
    CU_MEMHOSTALLOC_DEVICEMAP = 0x02,
    CU_MEMHOSTALLOC_WRITECOMBINED = 0x04,
    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
};

/* Peer attributes (cuDeviceGetP2PAttribute, CUdevice_P2PAttribute). */
enum {
    CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED = 0x02,
    CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED = 0x03,
};

/* ---- NVRTC (nvrtc.h) ---------------------------------------------------- */

typedef struct _nvrtcProgram *nvrtcProgram;

typedef enum {
    NVRTC_SUCCESS = 0,
    NVRTC_ERROR_OUT_OF_MEMORY = 1,
    NVRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
    NVRTC_ERROR_INVALID_INPUT = 3,
    NVRTC_ERROR_INVALID_PROGRAM = 4,
    NVRTC_ERROR_INVALID_OPTION = 5,
    NVRTC_ERROR_COMPILATION = 6,
} nvrtcResult;

/* ---- NVML (nvml.h, documented values) ----------------------------------- */

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef enum nvmlReturn_enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_NOT_FOUND = 6,
} nvmlReturn_t;

/* Field-value queries (nvmlDeviceGetFieldValues), as NVML's header lays
 * them out. The instantaneous power field is read beside the averaged
 * nvmlDeviceGetPowerUsage (a one-second average on Ampere, except GA100,
 * and later). */
#define GC_NVML_FI_DEV_POWER_INSTANT 186
typedef enum nvmlValueType_enum {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5,
} nvmlValueType_t;
typedef union nvmlValue_st {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    int siVal;
} nvmlValue_t;
typedef struct nvmlFieldValue_st {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
} nvmlFieldValue_t;

typedef enum nvmlClockType_enum {
    NVML_CLOCK_GRAPHICS = 0,
    NVML_CLOCK_SM = 1,
    NVML_CLOCK_MEM = 2,
} nvmlClockType_t;

typedef enum nvmlTemperatureSensors_enum {
    NVML_TEMPERATURE_GPU = 0,
} nvmlTemperatureSensors_t;

/* Bits of the clocks event (formerly "throttle") reasons mask. */
#define GC_NVML_REASON_GPU_IDLE 0x1ULL
#define GC_NVML_REASON_APP_CLOCKS 0x2ULL
#define GC_NVML_REASON_SW_POWER_CAP 0x4ULL
#define GC_NVML_REASON_HW_SLOWDOWN 0x8ULL
#define GC_NVML_REASON_SYNC_BOOST 0x10ULL
#define GC_NVML_REASON_SW_THERMAL 0x20ULL
#define GC_NVML_REASON_HW_THERMAL 0x40ULL
#define GC_NVML_REASON_HW_POWER_BRAKE 0x80ULL

/* The PCI facts of a device or of an NVLink's remote end (nvmlPciInfo_t,
 * as NVML's header lays it out since the _v2 calls). */
typedef struct nvmlPciInfo_st {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

/* Peer and topology queries: nvmlGpuP2PCapsIndex_t (READ 0, WRITE 1,
 * NVLINK 2, ATOMICS 3), nvmlGpuP2PStatus_t (OK 0), nvmlGpuTopologyLevel_t,
 * and the NVLink field values (nvmlDeviceGetFieldValues). */
#define GC_NVML_P2P_CAPS_READ 0
#define GC_NVML_P2P_CAPS_NVLINK 2
#define GC_NVML_P2P_CAPS_ATOMICS 3
#define GC_NVML_P2P_STATUS_OK 0
#define GC_NVML_TOPOLOGY_INTERNAL 0
#define GC_NVML_TOPOLOGY_SINGLE 10
#define GC_NVML_TOPOLOGY_MULTIPLE 20
#define GC_NVML_TOPOLOGY_HOSTBRIDGE 30
#define GC_NVML_TOPOLOGY_NODE 40
#define GC_NVML_TOPOLOGY_SYSTEM 50
#define GC_NVML_FI_DEV_NVLINK_SPEED_MBPS_L0 84
#define GC_NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90
#define GC_NVML_NVLINK_MAX_LINKS 18
#define GC_NVML_FEATURE_ENABLED 1

/* Buffer sizes NVML documents for its strings. */
#define GC_NVML_DRIVER_VERSION_LEN 80

/* ---- Entry points ------------------------------------------------------
 * Every function the backend calls, as XX(return type, name, exported
 * symbol, fallback symbol or NULL, parameter list). The name is the one the
 * code calls; the exported symbol is the versioned one where the driver has
 * several (cuMemAlloc is exported as cuMemAlloc_v2 since CUDA 3.2, the plain
 * name being the 32-bit legacy ABI). The lists generate the function-pointer
 * types below, the loader's tables and its symbol checks. */

#define GC_CU_SYMBOLS(XX)                                                                          \
    XX(CUresult, cuGetErrorName, "cuGetErrorName", NULL, (CUresult, const char **))                \
    XX(CUresult, cuGetErrorString, "cuGetErrorString", NULL, (CUresult, const char **))            \
    XX(CUresult, cuInit, "cuInit", NULL, (unsigned int))                                           \
    XX(CUresult, cuDriverGetVersion, "cuDriverGetVersion", NULL, (int *))                          \
    XX(CUresult, cuDeviceGetCount, "cuDeviceGetCount", NULL, (int *))                              \
    XX(CUresult, cuDeviceGet, "cuDeviceGet", NULL, (CUdevice *, int))                              \
    XX(CUresult, cuDeviceGetName, "cuDeviceGetName", NULL, (char *, int, CUdevice))                \
    XX(CUresult, cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", NULL, (char *, int, CUdevice))        \
    XX(CUresult, cuDeviceTotalMem, "cuDeviceTotalMem_v2", NULL, (size_t *, CUdevice))              \
    XX(CUresult, cuDeviceGetAttribute, "cuDeviceGetAttribute", NULL,                               \
       (int *, CUdevice_attribute, CUdevice))                                                      \
    XX(CUresult, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL,                       \
       (CUcontext *, CUdevice))                                                                    \
    XX(CUresult, cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", NULL, (CUdevice))      \
    XX(CUresult, cuCtxSetCurrent, "cuCtxSetCurrent", NULL, (CUcontext))                            \
    XX(CUresult, cuCtxSynchronize, "cuCtxSynchronize", NULL, (void))                               \
    XX(CUresult, cuStreamCreate, "cuStreamCreate", NULL, (CUstream *, unsigned int))               \
    XX(CUresult, cuStreamDestroy, "cuStreamDestroy_v2", NULL, (CUstream))                          \
    XX(CUresult, cuStreamSynchronize, "cuStreamSynchronize", NULL, (CUstream))                     \
    XX(CUresult, cuEventCreate, "cuEventCreate", NULL, (CUevent *, unsigned int))                  \
    XX(CUresult, cuEventDestroy, "cuEventDestroy_v2", NULL, (CUevent))                             \
    XX(CUresult, cuEventRecord, "cuEventRecord", NULL, (CUevent, CUstream))                        \
    XX(CUresult, cuEventSynchronize, "cuEventSynchronize", NULL, (CUevent))                        \
    XX(CUresult, cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime",                \
       (float *, CUevent, CUevent))                                                                \
    XX(CUresult, cuMemAlloc, "cuMemAlloc_v2", NULL, (CUdeviceptr *, size_t))                       \
    XX(CUresult, cuMemFree, "cuMemFree_v2", NULL, (CUdeviceptr))                                   \
    XX(CUresult, cuMemcpyHtoD, "cuMemcpyHtoD_v2", NULL, (CUdeviceptr, const void *, size_t))       \
    XX(CUresult, cuMemcpyDtoH, "cuMemcpyDtoH_v2", NULL, (void *, CUdeviceptr, size_t))             \
    XX(CUresult, cuMemcpyDtoD, "cuMemcpyDtoD_v2", NULL, (CUdeviceptr, CUdeviceptr, size_t))        \
    XX(CUresult, cuModuleLoadData, "cuModuleLoadData", NULL, (CUmodule *, const void *))           \
    XX(CUresult, cuModuleUnload, "cuModuleUnload", NULL, (CUmodule))                               \
    XX(CUresult, cuModuleGetFunction, "cuModuleGetFunction", NULL,                                 \
       (CUfunction *, CUmodule, const char *))                                                     \
    XX(CUresult, cuFuncGetAttribute, "cuFuncGetAttribute", NULL,                                   \
       (int *, CUfunction_attribute, CUfunction))                                                  \
    XX(CUresult, cuFuncSetAttribute, "cuFuncSetAttribute", NULL,                                   \
       (CUfunction, CUfunction_attribute, int))                                                    \
    XX(CUresult, cuOccupancyMaxActiveBlocksPerMultiprocessor,                                      \
       "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL, (int *, CUfunction, int, size_t))      \
    XX(CUresult, cuLaunchKernel, "cuLaunchKernel", NULL,                                           \
       (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,          \
        unsigned int, unsigned int, CUstream, void **, void **))                                   \
    XX(CUresult, cuTexObjectCreate, "cuTexObjectCreate", NULL,                                     \
       (CUtexObject *, const CUDA_RESOURCE_DESC *, const CUDA_TEXTURE_DESC *,                      \
        const CUDA_RESOURCE_VIEW_DESC *))                                                          \
    XX(CUresult, cuTexObjectDestroy, "cuTexObjectDestroy", NULL, (CUtexObject))                    \
    XX(CUresult, cuMemGetInfo, "cuMemGetInfo_v2", NULL, (size_t *, size_t *))                      \
    XX(CUresult, cuMemHostAlloc, "cuMemHostAlloc", NULL, (void **, size_t, unsigned int))          \
    XX(CUresult, cuMemFreeHost, "cuMemFreeHost", NULL, (void *))                                   \
    XX(CUresult, cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", NULL,                  \
       (CUdeviceptr *, void *, unsigned int))                                                      \
    XX(CUresult, cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL,                                  \
       (CUdeviceptr, const void *, size_t, CUstream))                                              \
    XX(CUresult, cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL,                                  \
       (void *, CUdeviceptr, size_t, CUstream))                                                    \
    XX(CUresult, cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL,                                  \
       (CUdeviceptr, CUdeviceptr, size_t, CUstream))                                               \
    XX(CUresult, cuStreamWaitEvent, "cuStreamWaitEvent", NULL, (CUstream, CUevent, unsigned int))  \
    XX(CUresult, cuStreamBeginCapture, "cuStreamBeginCapture_v2", NULL, (CUstream, int))           \
    XX(CUresult, cuStreamEndCapture, "cuStreamEndCapture", NULL, (CUstream, CUgraph *))            \
    XX(CUresult, cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", NULL,                 \
       (CUgraphExec *, CUgraph, unsigned long long))                                               \
    XX(CUresult, cuGraphLaunch, "cuGraphLaunch", NULL, (CUgraphExec, CUstream))                    \
    XX(CUresult, cuGraphExecDestroy, "cuGraphExecDestroy", NULL, (CUgraphExec))                    \
    XX(CUresult, cuGraphDestroy, "cuGraphDestroy", NULL, (CUgraph))                                \
    XX(CUresult, cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", NULL,                             \
       (int *, CUdevice, CUdevice))                                                                \
    XX(CUresult, cuDeviceGetP2PAttribute, "cuDeviceGetP2PAttribute", NULL,                         \
       (int *, int, CUdevice, CUdevice))                                                           \
    XX(CUresult, cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", NULL, (CUcontext, unsigned int))  \
    XX(CUresult, cuMemcpyPeerAsync, "cuMemcpyPeerAsync", NULL,                                     \
       (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream))

#define GC_NVRTC_SYMBOLS(XX)                                                                       \
    XX(const char *, nvrtcGetErrorString, "nvrtcGetErrorString", NULL, (nvrtcResult))              \
    XX(nvrtcResult, nvrtcVersion, "nvrtcVersion", NULL, (int *, int *))                            \
    XX(nvrtcResult, nvrtcCreateProgram, "nvrtcCreateProgram", NULL,                                \
       (nvrtcProgram *, const char *, const char *, int, const char *const *,                      \
        const char *const *))                                                                      \
    XX(nvrtcResult, nvrtcDestroyProgram, "nvrtcDestroyProgram", NULL, (nvrtcProgram *))            \
    XX(nvrtcResult, nvrtcCompileProgram, "nvrtcCompileProgram", NULL,                              \
       (nvrtcProgram, int, const char *const *))                                                   \
    XX(nvrtcResult, nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", NULL,                        \
       (nvrtcProgram, size_t *))                                                                   \
    XX(nvrtcResult, nvrtcGetProgramLog, "nvrtcGetProgramLog", NULL, (nvrtcProgram, char *))        \
    XX(nvrtcResult, nvrtcGetCUBINSize, "nvrtcGetCUBINSize", NULL, (nvrtcProgram, size_t *))        \
    XX(nvrtcResult, nvrtcGetCUBIN, "nvrtcGetCUBIN", NULL, (nvrtcProgram, char *))                  \
    XX(nvrtcResult, nvrtcGetPTXSize, "nvrtcGetPTXSize", NULL, (nvrtcProgram, size_t *))            \
    XX(nvrtcResult, nvrtcGetPTX, "nvrtcGetPTX", NULL, (nvrtcProgram, char *))

/* NVML functions every driver since the Volta generation exports. */
#define GC_NVML_SYMBOLS(XX)                                                                        \
    XX(nvmlReturn_t, nvmlInit, "nvmlInit_v2", NULL, (void))                                        \
    XX(nvmlReturn_t, nvmlShutdown, "nvmlShutdown", NULL, (void))                                   \
    XX(const char *, nvmlErrorString, "nvmlErrorString", NULL, (nvmlReturn_t))                     \
    XX(nvmlReturn_t, nvmlSystemGetDriverVersion, "nvmlSystemGetDriverVersion", NULL,               \
       (char *, unsigned int))                                                                     \
    XX(nvmlReturn_t, nvmlDeviceGetHandleByPciBusId, "nvmlDeviceGetHandleByPciBusId_v2", NULL,      \
       (const char *, nvmlDevice_t *))                                                             \
    XX(nvmlReturn_t, nvmlDeviceGetClockInfo, "nvmlDeviceGetClockInfo", NULL,                       \
       (nvmlDevice_t, nvmlClockType_t, unsigned int *))                                            \
    XX(nvmlReturn_t, nvmlDeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo", NULL,                 \
       (nvmlDevice_t, nvmlClockType_t, unsigned int *))                                            \
    XX(nvmlReturn_t, nvmlDeviceGetPowerUsage, "nvmlDeviceGetPowerUsage", NULL,                     \
       (nvmlDevice_t, unsigned int *))                                                             \
    XX(nvmlReturn_t, nvmlDeviceGetEnforcedPowerLimit, "nvmlDeviceGetEnforcedPowerLimit", NULL,     \
       (nvmlDevice_t, unsigned int *))                                                             \
    XX(nvmlReturn_t, nvmlDeviceGetTemperature, "nvmlDeviceGetTemperature", NULL,                   \
       (nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int *))

/* NVML functions that older drivers lack; a missing one leaves its pointer
 * NULL and only the sensor it feeds absent. The clocks event reasons are the
 * renamed throttle reasons (driver 535 on); the old name is the fallback. */
#define GC_NVML_OPTIONAL_SYMBOLS(XX)                                                               \
    XX(nvmlReturn_t, nvmlDeviceGetTotalEnergyConsumption, "nvmlDeviceGetTotalEnergyConsumption",   \
       NULL, (nvmlDevice_t, unsigned long long *))                                                 \
    XX(nvmlReturn_t, nvmlDeviceGetCurrentClocksEventReasons,                                       \
       "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons",      \
       (nvmlDevice_t, unsigned long long *))                                                       \
    XX(nvmlReturn_t, nvmlDeviceGetFieldValues, "nvmlDeviceGetFieldValues", NULL,                   \
       (nvmlDevice_t, int, nvmlFieldValue_t *))                                                    \
    XX(nvmlReturn_t, nvmlDeviceGetCurrPcieLinkGeneration, "nvmlDeviceGetCurrPcieLinkGeneration",   \
       NULL, (nvmlDevice_t, unsigned int *))                                                       \
    XX(nvmlReturn_t, nvmlDeviceGetCurrPcieLinkWidth, "nvmlDeviceGetCurrPcieLinkWidth", NULL,       \
       (nvmlDevice_t, unsigned int *))                                                             \
    XX(nvmlReturn_t, nvmlDeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration",     \
       NULL, (nvmlDevice_t, unsigned int *))                                                       \
    XX(nvmlReturn_t, nvmlDeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth", NULL,         \
       (nvmlDevice_t, unsigned int *))                                                             \
    XX(nvmlReturn_t, nvmlDeviceGetUUID, "nvmlDeviceGetUUID", NULL,                                 \
       (nvmlDevice_t, char *, unsigned int))                                                       \
    XX(nvmlReturn_t, nvmlDeviceGetNvLinkState, "nvmlDeviceGetNvLinkState", NULL,                   \
       (nvmlDevice_t, unsigned int, int *))                                                        \
    XX(nvmlReturn_t, nvmlDeviceGetNvLinkVersion, "nvmlDeviceGetNvLinkVersion", NULL,               \
       (nvmlDevice_t, unsigned int, unsigned int *))                                               \
    XX(nvmlReturn_t, nvmlDeviceGetNvLinkRemotePciInfo, "nvmlDeviceGetNvLinkRemotePciInfo_v2",      \
       NULL, (nvmlDevice_t, unsigned int, nvmlPciInfo_t *))                                        \
    XX(nvmlReturn_t, nvmlDeviceGetP2PStatus, "nvmlDeviceGetP2PStatus", NULL,                       \
       (nvmlDevice_t, nvmlDevice_t, int, int *))                                                   \
    XX(nvmlReturn_t, nvmlDeviceGetTopologyCommonAncestor, "nvmlDeviceGetTopologyCommonAncestor",   \
       NULL, (nvmlDevice_t, nvmlDevice_t, int *))

/* One function-pointer type per entry point: gc_pfn_cuInit ... */
#define GC__CU_PFN(ret, name, sym, alt, params) typedef ret(*gc_pfn_##name) params;
GC_CU_SYMBOLS(GC__CU_PFN)
GC_NVRTC_SYMBOLS(GC__CU_PFN)
GC_NVML_SYMBOLS(GC__CU_PFN)
GC_NVML_OPTIONAL_SYMBOLS(GC__CU_PFN)
#undef GC__CU_PFN

#endif
