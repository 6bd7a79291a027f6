/* Compiling generated kernels: an on-disk cache of compiled binaries keyed by
 * (tool version, backend, device arch, compiler version, options, source), and
 * parallel compilation of independent kernels. */
#ifndef GC_CORE_KCACHE_H
#define GC_CORE_KCACHE_H

#include "core/session.h"

struct gc_kcache;

/* dir NULL gives $GPUCHAR_CACHE_DIR, else $XDG_CACHE_HOME/gpuchar, else
 * ~/.cache/gpuchar. disabled turns reads and writes off. */
int gc__kcache_open(const char *dir, bool disabled, struct gc_kcache **out);
void gc__kcache_close(struct gc_kcache *c);
const char *gc__kcache_dir(const struct gc_kcache *c);
/* Invalid entries found since the cache was opened (truncated, written for
 * another key, foreign bytes, another format, refused by the backend's
 * loader): each was compiled again and rewritten. last (may be NULL) gets
 * the last one's path and what was wrong with it. Entries live in the
 * cache's directory as KEY.bin, KEY as gc__kcache_key gives it; their
 * format is in core/kentry.h. */
int gc__kcache_rejected(struct gc_kcache *c, char *last, size_t len);

/* One program to build. */
struct gc_kreq {
    const char *label;   /* file name stem for --dump-kernels and messages */
    const char *src;     /* malloc'ed; gc__kreq_release frees it */
    const char *options; /* compiler options, may be NULL */
    /* outputs */
    struct gc_prog *prog;
    int err;
    char *log; /* compiler output (malloc'ed), may be NULL */
    bool cached;
    bool planned;          /* taken from the run's compile plan (kcache_plan) */
    double compile_s;      /* host time spent compiling (0 when cached or planned) */
    double plan_compile_s; /* planned: the time the plan spent compiling it */
    double load_s;         /* host time spent loading its binary */
    bool by_worker;        /* a compile worker compiled it (core/kpool.h) */
};

/* Builds n programs, compiling the ones not in the cache in parallel. Fills
 * every request's outputs; returns 0 when all succeeded, else the first error
 * (and the session's device error names the failing kernel with its log).
 * Accounting goes to s->compile_s / kernels_compiled / kernels_cached. */
int gc__kcache_build(struct gc_session *s, struct gc_kreq *reqs, int n);
/* Unloads the programs and frees each request's src and log. */
void gc__kreq_release(struct gc_session *s, struct gc_kreq *reqs, int n);

/* What the run's compile plan did. */
struct gc_kplan_stats {
    int kernels;          /* distinct programs planned */
    int compiled, cached; /* compiled now; read from the disk cache */
    int failed;           /* whose compilation failed (kept as their error) */
    int threads;          /* compile threads used */
    double wall_s;        /* wall time of the whole step */
    double compile_s;     /* compile time summed over programs */
    double cpu_s;         /* CPU time of the process and its ended children meanwhile */
    double load_s;        /* time loading binaries summed over programs */
    /* Compile workers (core/kpool.h): processes started, programs they
     * compiled, workers that failed, their CPU time (part of cpu_s), and
     * why none were used or how one failed. */
    int workers, worker_compiled, workers_failed;
    double worker_cpu_s;
    char worker_note[900];
};

/* The run's compile plan: builds the distinct programs of reqs (duplicate
 * keys once) on up to threads threads, from the disk cache where they are
 * there, loading them too where the backend loads on any thread, and keeps
 * them in memory for the rest of the run: a later gc__kcache_build of the
 * same program takes it from there (a failed compilation too, as that
 * request's error). Where compile workers are used (core/kpool.h), each
 * thread drives one worker process that compiles the programs the thread
 * takes, and loads them itself. Only one plan per cache. The requests' outputs are
 * moved into the cache (their prog and log are NULL afterwards); the
 * caller releases them. The session's per-benchmark accounting is left
 * alone. Returns 0 or GC_ENOMEM; a program that fails is not an error of
 * the plan. */
int gc__kcache_plan(struct gc_session *s, struct gc_kreq *reqs, int n, int threads,
                    struct gc_kplan_stats *st);
/* Planned programs no request has taken. */
int gc__kcache_plan_unused(struct gc_kcache *c);
/* Unloads the planned programs not handed out, keeping their binaries:
 * before the session's device closes or is opened again. */
void gc__kcache_plan_drop(struct gc_session *s);

/* The cache key of a program as 32 hex digits (for tests). */
void gc__kcache_key(const struct gc_device_info *info, const char *backend, const char *src,
                    const char *options, char hex[33]);

#endif
