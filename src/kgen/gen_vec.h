/* Vector loads and stores of fp32 data in the dialects' own spellings:
 * OpenCL C's vloadN / vstoreN on floatN (any alignment, arithmetic on the
 * vector), CUDA C's float4 (16-byte aligned, storage only: arithmetic goes
 * lane by lane). */
#ifndef GC_KGEN_GEN_VEC_H
#define GC_KGEN_GEN_VEC_H

#include "kgen/kgen.h"

/* The type of W fp32 lanes where the dialect has arithmetic on it
 * ("float8"); NULL where it has none (CUDA C) or W is not a width of it. */
const char *gc__kgen_vec_type(enum gc_dialect d, int w);

/* Appends the expression loading W fp32 values at pointer expression ptr
 * (gc__kgen_vec_type(d, w) must exist). */
void gc__kgen_vec_load(struct gc_sbuf *b, enum gc_dialect d, int w, const char *ptr);
/* Appends the statement storing vector expression v of W lanes at ptr. */
void gc__kgen_vec_store(struct gc_sbuf *b, enum gc_dialect d, int w, const char *v,
                        const char *ptr);

/* Appends a statement loading 4 fp32 values at ptr (16-byte aligned) into
 * the scalars name0..name3, in either dialect. */
void gc__kgen_f4_load(struct gc_sbuf *b, enum gc_dialect d, const char *ptr, const char *name);
/* Appends a statement storing the scalar expressions v[0..3] at ptr
 * (16-byte aligned). */
void gc__kgen_f4_store(struct gc_sbuf *b, enum gc_dialect d, const char *ptr,
                       const char *const v[4]);

#endif
