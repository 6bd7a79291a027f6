/* Vector loads and stores of fp32 data in the dialects' spellings
 * (kgen/gen_vec.h). */
#include "kgen/gen_vec.h"

static bool cl_width(int w)
{
    return w == 2 || w == 3 || w == 4 || w == 8 || w == 16;
}

const char *gc__kgen_vec_type(enum gc_dialect d, int w)
{
    static const char *const names[17] = {
        [2] = "float2", [3] = "float3", [4] = "float4", [8] = "float8", [16] = "float16"};

    return d == GC_DIALECT_OPENCL && cl_width(w) ? names[w] : NULL;
}

void gc__kgen_vec_load_a16(struct gc_sbuf *b, enum gc_dialect d, int w, const char *space,
                           const char *ptr)
{
    gc__sbuf_printf(b, "(%s)(", gc__kgen_vec_type(d, w));
    for (int q = 0; q < w / 4; q++)
        gc__sbuf_printf(b, "%s*(%s const float4 *)(%s + %d)", q ? ", " : "", space, ptr, 4 * q);
    gc__sbuf_puts(b, ")");
}

void gc__kgen_vec_store_a16(struct gc_sbuf *b, enum gc_dialect d, int w, const char *v,
                            const char *ptr)
{
    static const char *const piece[4] = {"s0123", "s4567", "s89ab", "scdef"};

    (void)d;
    for (int q = 0; q < w / 4; q++)
        gc__sbuf_printf(b, "%s*(GC_GLOBAL float4 *)(%s + %d) = %s%s%s;", q ? " " : "", ptr, 4 * q,
                        v, w > 4 ? "." : "", w > 4 ? piece[q] : "");
}

void gc__kgen_f4_load(struct gc_sbuf *b, enum gc_dialect d, const char *ptr, const char *name)
{
    if (d == GC_DIALECT_OPENCL)
        gc__sbuf_printf(b, "const float4 %s_v = vload4(0, %s);", name, ptr);
    else
        gc__sbuf_printf(b, "const float4 %s_v = *(const float4 *)(%s);", name, ptr);
    gc__sbuf_printf(b, " const float %s0 = %s_v.x, %s1 = %s_v.y, %s2 = %s_v.z, %s3 = %s_v.w;", name,
                    name, name, name, name, name, name, name);
}

void gc__kgen_f4_store(struct gc_sbuf *b, enum gc_dialect d, const char *ptr,
                       const char *const v[4])
{
    if (d == GC_DIALECT_OPENCL)
        gc__sbuf_printf(b, "vstore4((float4)(%s, %s, %s, %s), 0, %s);", v[0], v[1], v[2], v[3],
                        ptr);
    else
        gc__sbuf_printf(b, "*(float4 *)(%s) = make_float4(%s, %s, %s, %s);", ptr, v[0], v[1], v[2],
                        v[3]);
}
