/* CUDA peer links: what the driver and NVML say of a pair (P2P access and
 * atomics, NVLink links, version and speed, the PCIe topology level), peer
 * access, and copy-engine copies between devices timed with events on a
 * stream of each issuing device, released from one common start. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/cuda/cuda_int.h"
#include "backend/cuda/loader.h"

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Whether NVML's remote PCI facts name the device of bus id "dddd:bb:dd.f". */
static bool same_pci(const nvmlPciInfo_t *p, const char *bus_id)
{
    unsigned dom, bus, dev, fn;

    if (sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return false;
    return p->domain == dom && p->bus == bus && p->device == dev;
}

/* The NVLink links of a that end at b. Where no link's remote end matches
 * b's bus id (the links end at a switch, or a virtual machine shows its
 * guest bus ids while NVML names the host's) and NVML says the pair talks
 * over NVLink, every active link of a counts. */
static void nvlinks(struct gc_dev *a, struct gc_dev *b, struct gc_peer_info *out)
{
    int active = 0, direct = 0, p2p = -1;
    unsigned version = 0;

    if (!a->nvml || !gc__nvml.nvmlDeviceGetNvLinkState ||
        !gc__nvml.nvmlDeviceGetNvLinkRemotePciInfo)
        return;
    for (unsigned l = 0; l < GC_NVML_NVLINK_MAX_LINKS; l++) {
        int on = 0;
        nvmlPciInfo_t pci;

        if (gc__nvml.nvmlDeviceGetNvLinkState(a->nvml, l, &on) != NVML_SUCCESS)
            break;
        if (on != GC_NVML_FEATURE_ENABLED)
            continue;
        active++;
        if (!version && gc__nvml.nvmlDeviceGetNvLinkVersion)
            gc__nvml.nvmlDeviceGetNvLinkVersion(a->nvml, l, &version);
        memset(&pci, 0, sizeof(pci));
        if (gc__nvml.nvmlDeviceGetNvLinkRemotePciInfo(a->nvml, l, &pci) == NVML_SUCCESS &&
            same_pci(&pci, b->info.pci_bus_id))
            direct++;
    }
    if (direct == 0 && active > 0 && b->nvml && gc__nvml.nvmlDeviceGetP2PStatus)
        gc__nvml.nvmlDeviceGetP2PStatus(a->nvml, b->nvml, GC_NVML_P2P_CAPS_NVLINK, &p2p);
    out->nvlinks_active = active;
    out->nvlinks = direct ? direct : p2p == GC_NVML_P2P_STATUS_OK ? active : 0;
    if (!out->nvlinks)
        return;
    out->nvlink_version = (int)version;
    snprintf(out->kind, sizeof(out->kind), "NVLink");
    snprintf(out->source, sizeof(out->source), direct ? "NVML" : "NVML P2P status, all links");
    /* The common speed of the active links, else link 0's; where neither
     * answers, the model takes the rate of the NVLink version. */
    static const unsigned fields[] = {GC_NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON,
                                      GC_NVML_FI_DEV_NVLINK_SPEED_MBPS_L0};
    for (size_t i = 0; gc__nvml.nvmlDeviceGetFieldValues && i < 2 && !(out->link_rate > 0); i++) {
        nvmlFieldValue_t fv;

        memset(&fv, 0, sizeof(fv));
        fv.fieldId = fields[i];
        if (gc__nvml.nvmlDeviceGetFieldValues(a->nvml, 1, &fv) == NVML_SUCCESS &&
            fv.nvmlReturn == NVML_SUCCESS && fv.value.uiVal > 0)
            out->link_rate = fv.value.uiVal * 1e6;
    }
}

/* The PCIe level of the pair's common ancestor, as nvidia-smi topo names it. */
static void pcie_path(struct gc_dev *a, struct gc_dev *b, struct gc_peer_info *out)
{
    int level = -1;

    if (!a->nvml || !b->nvml || !gc__nvml.nvmlDeviceGetTopologyCommonAncestor ||
        gc__nvml.nvmlDeviceGetTopologyCommonAncestor(a->nvml, b->nvml, &level) != NVML_SUCCESS)
        return;
    snprintf(out->path, sizeof(out->path), "%s",
             level <= GC_NVML_TOPOLOGY_SINGLE       ? "PIX"
             : level <= GC_NVML_TOPOLOGY_MULTIPLE   ? "PXB"
             : level <= GC_NVML_TOPOLOGY_HOSTBRIDGE ? "PHB"
             : level <= GC_NVML_TOPOLOGY_NODE       ? "NODE"
                                                    : "SYS");
}

int gc__cu_peer_info(struct gc_dev *a, struct gc_dev *b, struct gc_peer_info *out)
{
    int can = 0, atom = 0, rc = 0;

    memset(out, 0, sizeof(*out));
    out->link_rate = out->limit = NAN;
    snprintf(out->source, sizeof(out->source), "driver");
    if (a == b || a->cu == b->cu) {
        snprintf(out->why, sizeof(out->why), "the same device");
        return 0;
    }
    GC_CU_CALL(a, gc__cu.cuDeviceCanAccessPeer(&can, a->cu, b->cu));
    out->access = can != 0;
    if (gc__cu.cuDeviceGetP2PAttribute(&atom, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED,
                                       a->cu, b->cu) == CUDA_SUCCESS)
        out->atomics = atom != 0;
    if (!out->access)
        snprintf(out->why, sizeof(out->why),
                 "the driver offers no peer access from device %d to device %d "
                 "(cuDeviceCanAccessPeer: 0)",
                 a->index, b->index);
    nvlinks(a, b, out);
    if (!out->nvlinks) {
        snprintf(out->kind, sizeof(out->kind), "PCIe");
        pcie_path(a, b, out);
        if (out->path[0])
            snprintf(out->source, sizeof(out->source), "NVML");
    }
out:
    return rc;
}

int gc__cu_peer_enable(struct gc_dev *a, struct gc_dev *b)
{
    CUresult res;
    int rc = 0;

    GC_CU_CALL(a, gc__cu.cuCtxSetCurrent(a->ctx));
    res = gc__cu.cuCtxEnablePeerAccess(b->ctx, 0);
    if (res != CUDA_SUCCESS && res != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
        gc__cu_fail(a, res, "cuCtxEnablePeerAccess", __func__, __LINE__);
        return GC_ENOTSUP;
    }
out:
    return rc;
}

/* The per-call streams and events of peer_copies: on each copy's issuing
 * device a stream with its start and end event, and on the first copy's
 * device the common start (gate) and the end of all (done). */
struct peer_res {
    int n;
    struct gc_dev *dev[GC_PEER_MAX_COPIES];
    CUstream st[GC_PEER_MAX_COPIES];
    CUevent start[GC_PEER_MAX_COPIES], end[GC_PEER_MAX_COPIES];
    CUevent gate, done;
};

static void res_free(struct peer_res *r)
{
    for (int i = 0; i < r->n; i++) {
        gc__cu.cuCtxSetCurrent(r->dev[i]->ctx);
        if (r->st[i]) {
            gc__cu.cuStreamSynchronize(r->st[i]);
            gc__cu.cuStreamDestroy(r->st[i]);
        }
        if (r->start[i])
            gc__cu.cuEventDestroy(r->start[i]);
        if (r->end[i])
            gc__cu.cuEventDestroy(r->end[i]);
    }
    if (r->n > 0) {
        gc__cu.cuCtxSetCurrent(r->dev[0]->ctx);
        if (r->gate)
            gc__cu.cuEventDestroy(r->gate);
        if (r->done)
            gc__cu.cuEventDestroy(r->done);
    }
}

static int res_make(const struct gc_peer_copy *c, int n, struct peer_res *r)
{
    int rc = 0;

    for (int i = 0; i < n; i++) {
        struct gc_dev *d = c[i].by_dst ? c[i].dst->dev : c[i].src->dev;

        r->dev[i] = d;
        r->n = i + 1;
        GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
        GC_CU_CALL(d, gc__cu.cuStreamCreate(&r->st[i], CU_STREAM_NON_BLOCKING));
        GC_CU_CALL(d, gc__cu.cuEventCreate(&r->start[i], CU_EVENT_DEFAULT));
        GC_CU_CALL(d, gc__cu.cuEventCreate(&r->end[i], CU_EVENT_DEFAULT));
    }
    GC_CU_CALL(r->dev[0], gc__cu.cuCtxSetCurrent(r->dev[0]->ctx));
    GC_CU_CALL(r->dev[0], gc__cu.cuEventCreate(&r->gate, CU_EVENT_DEFAULT));
    GC_CU_CALL(r->dev[0], gc__cu.cuEventCreate(&r->done, CU_EVENT_DEFAULT));
out:
    return rc;
}

/* Enqueues everything: the gate on the first stream, every stream waiting
 * for it, then per stream its start event, its copies and its end event;
 * the first stream waits for every end and records the end of all. */
static int enqueue(const struct gc_peer_copy *c, int n, int count, struct peer_res *r)
{
    struct gc_dev *d0 = r->dev[0];
    int rc = 0;

    GC_CU_CALL(d0, gc__cu.cuCtxSetCurrent(d0->ctx));
    GC_CU_CALL(d0, gc__cu.cuEventRecord(r->gate, r->st[0]));
    for (int i = 1; i < n; i++) {
        GC_CU_CALL(r->dev[i], gc__cu.cuCtxSetCurrent(r->dev[i]->ctx));
        GC_CU_CALL(r->dev[i], gc__cu.cuStreamWaitEvent(r->st[i], r->gate, 0));
    }
    for (int i = 0; i < n; i++) {
        struct gc_dev *d = r->dev[i];
        CUdeviceptr dst = c[i].dst->ptr + c[i].dst_off, src = c[i].src->ptr + c[i].src_off;

        GC_CU_CALL(d, gc__cu.cuCtxSetCurrent(d->ctx));
        GC_CU_CALL(d, gc__cu.cuEventRecord(r->start[i], r->st[i]));
        for (int k = 0; k < count; k++)
            GC_CU_CALL(d, gc__cu.cuMemcpyPeerAsync(dst, c[i].dst->dev->ctx, src, c[i].src->dev->ctx,
                                                   c[i].bytes, r->st[i]));
        GC_CU_CALL(d, gc__cu.cuEventRecord(r->end[i], r->st[i]));
    }
    GC_CU_CALL(d0, gc__cu.cuCtxSetCurrent(d0->ctx));
    for (int i = 1; i < n; i++)
        GC_CU_CALL(d0, gc__cu.cuStreamWaitEvent(r->st[0], r->end[i], 0));
    GC_CU_CALL(d0, gc__cu.cuEventRecord(r->done, r->st[0]));
out:
    return rc;
}

static bool copy_ok(const struct gc_peer_copy *c)
{
    return c->dst && c->src && c->bytes > 0 && c->dst_off <= c->dst->size &&
           c->bytes <= c->dst->size - c->dst_off && c->src_off <= c->src->size &&
           c->bytes <= c->src->size - c->src_off;
}

int gc__cu_peer_copies(const struct gc_peer_copy *c, int n, int count, struct gc_peer_times *out)
{
    struct peer_res r;
    struct gc_dev *d0;
    float ms = 0;
    double t0;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    memset(&r, 0, sizeof(r));
    if (!c || n < 1 || n > GC_PEER_MAX_COPIES || count < 1)
        return GC_EINVAL;
    d0 = c[0].by_dst ? c[0].dst->dev : c[0].src->dev;
    for (int i = 0; i < n; i++)
        if (!copy_ok(&c[i])) {
            gc__cu_set_error(d0,
                             "invalid peer copy %d: a buffer range is missing or outside "
                             "its buffer",
                             i);
            return GC_EINVAL;
        }
    if ((rc = res_make(c, n, &r)))
        goto out;
    t0 = mono_now();
    if ((rc = enqueue(c, n, count, &r)))
        goto out;
    GC_CU_CALL(d0, gc__cu.cuEventSynchronize(r.done));
    out->host_s = mono_now() - t0;
    GC_CU_CALL(d0, gc__cu.cuEventElapsedTime(&ms, r.gate, r.done));
    out->total_s = ms * 1e-3;
    for (int i = 0; i < n; i++) {
        GC_CU_CALL(r.dev[i], gc__cu.cuCtxSetCurrent(r.dev[i]->ctx));
        GC_CU_CALL(r.dev[i], gc__cu.cuEventElapsedTime(&ms, r.start[i], r.end[i]));
        out->each[i] = ms * 1e-3;
    }
out:
    /* A failure's message is in the device that failed; the contract wants
     * it in the first copy's issuer. */
    if (rc) {
        for (int i = 0; i < r.n; i++)
            if (r.dev[i] != d0 && r.dev[i]->err[0]) {
                gc__cu_set_error(d0, "%s", r.dev[i]->err);
                break;
            }
    }
    res_free(&r);
    return rc;
}
