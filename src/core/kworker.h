/* Compile workers: processes that run this program again (util/spawn.h),
 * open the same backend device for compiling and compile the programs the
 * run's compile plan sends them, for drivers that compile one program at a
 * time per process whatever the threads (NVIDIA's OpenCL) or whose threads
 * mostly wait for each other (NVRTC). This file is the plan's side of one
 * worker; the worker's side is gc_compile_worker_entry (kworker_main.c). A
 * worker compiles with the backend's own compile(), with exactly the
 * options the plan would use, and hands back the binary or the compiler's
 * log over the socket (core/kwire.h). */
#ifndef GC_CORE_KWORKER_H
#define GC_CORE_KWORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The environment setting that makes a start of this program a worker:
 * its value is "BACKEND:INDEX". */
#define GC_KWORKER_ENV "GPUCHAR_COMPILE_WORKER"
/* Seconds a worker may take over one answer (or its start) before it counts
 * as failed. */
#define GC_KWORKER_TIMEOUT_S 600

struct gc_kworker {
    pid_t pid; /* -1: attached to a socket only (tests) */
    int fd;
    unsigned next_id;
    bool ready; /* its HELLO came */
    bool dead;  /* it failed once: never asked again */
    char device[256];
    int compiled; /* programs it answered for (built or failed) */
};

/* One compilation's outcome as the worker gave it. */
struct gc_kworker_out {
    int err;   /* 0 built, else the compilation's GC_E code */
    void *bin; /* malloc'ed binary when built */
    size_t len;
    char *log; /* malloc'ed compiler output, may be NULL */
};

/* Whether this program starts as a worker (it called
 * gc_compile_worker_entry at the top of main): only then are workers
 * started; a program that merely links the library compiles on threads. */
bool gc__kworker_offered(void);
void gc__kworker_offer(void);

/* Starts a worker for device index of backend, whose PCI bus id is pci
 * ("" when the device has none). Returns 0, or a negative code with why.
 * The worker opens its device meanwhile; its first answer says whether it
 * could. A process may list devices in another order or leave some out, so
 * a worker finds the device by its PCI bus id where there is one and by
 * the index only otherwise. */
int gc__kworker_start(const char *backend, int index, const char *pci, struct gc_kworker *w,
                      char *why, size_t whylen);
/* A worker on an already connected socket fd (pid -1): for tests. */
void gc__kworker_attach(struct gc_kworker *w, int fd);
/* Has the worker compile src with options; key is the cache key the plan
 * computed, which the worker must echo from its own device's facts (a
 * worker that opened another device, driver or gpuchar answers with
 * another key and is refused). Returns 0 with out filled when the worker
 * answered; else a negative code with why (it ended, refused to start, sent
 * something invalid or another key), and the worker is marked dead. */
int gc__kworker_compile(struct gc_kworker *w, const char *key, const char *src, const char *options,
                        struct gc_kworker_out *out, char *why, size_t whylen);
/* Closes the socket (the worker ends at the end of its requests; one that
 * failed is killed) and waits for the process. *cpu_s gets its CPU time. Returns 0 when it exited
 * with status 0, else a negative code with why saying how it ended. */
int gc__kworker_stop(struct gc_kworker *w, double *cpu_s, char *why, size_t whylen);

#endif
