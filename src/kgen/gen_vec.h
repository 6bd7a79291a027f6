/* Vector loads and stores of fp32 data in the dialects' own spellings:
 * OpenCL C's floatN (arithmetic on the vector) moved in aligned float4
 * pieces, CUDA C's float4 (16-byte aligned, storage only: arithmetic goes
 * lane by lane). */
#ifndef GC_KGEN_GEN_VEC_H
#define GC_KGEN_GEN_VEC_H

#include "kgen/kgen.h"

/* The type of W fp32 lanes where the dialect has arithmetic on it
 * ("float8"); NULL where it has none (CUDA C) or W is not a width of it. */
const char *gc__kgen_vec_type(enum gc_dialect d, int w);

/* Appends the expression loading W fp32 values (W = 4, 8 or 16;
 * gc__kgen_vec_type(d, w) must exist) at pointer expression ptr, 16-byte
 * aligned, in address space space ("GC_GLOBAL", "GC_SHARED_PTR"): W/4
 * float4 loads through aligned pointers, joined into the vector. vloadW is
 * not used: it promises a float's alignment only, and a compiler that
 * cannot prove more splits it into 4-byte loads (NVIDIA's OpenCL does). */
void gc__kgen_vec_load_a16(struct gc_sbuf *b, enum gc_dialect d, int w, const char *space,
                           const char *ptr);
/* Appends the statements storing vector expression v of W lanes at global
 * pointer ptr, 16-byte aligned, in W/4 float4 stores. */
void gc__kgen_vec_store_a16(struct gc_sbuf *b, enum gc_dialect d, int w, const char *v,
                            const char *ptr);

/* Appends a statement loading 4 fp32 values at ptr (16-byte aligned) into
 * the scalars name0..name3, in either dialect. */
void gc__kgen_f4_load(struct gc_sbuf *b, enum gc_dialect d, const char *ptr, const char *name);
/* Appends a statement storing the scalar expressions v[0..3] at ptr
 * (16-byte aligned). */
void gc__kgen_f4_store(struct gc_sbuf *b, enum gc_dialect d, const char *ptr,
                       const char *const v[4]);

#endif
