/* 'gpuchar model': the latency-hiding model of Volkov (2016) evaluated from
 * a saved profile, without touching any device: the throughput an
 * instruction mix reaches at an occupancy, the occupancy it needs for 90%,
 * 95% and 100% of its bound, or the cusp table over arithmetic intensity. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include <gpuchar/hiding.h>

#include "cli.h"

/* The sqrt(2) grid of arithmetic intensities of §7.9: 1 .. 512. */
#define SWEEP_STEPS 19

static const double fractions[3] = {0.90, 0.95, 1.00};

struct model_args {
    const char *profile;
    const char *mix_text;
    struct gc_hiding_mix mix;
    bool has_mix_type[GC_HIDING_NTYPES];
    double alpha;
    bool has_alpha;
    double ilp;
    double warps;
    bool has_warps, sweep, json, help;
};

void gc__cmd_model_usage(FILE *f)
{
    fprintf(f, "usage: gpuchar model --profile FILE [--mix MIX] [--alpha A] [--ilp K]\n"
               "                     [--warps N | --sweep] [--json]\n"
               "\n"
               "Predicts throughput with the latency-hiding model of Volkov (2016) from the\n"
               "hardware parameters a previous 'gpuchar run --json FILE' measured (benchmark\n"
               "hiding.params). No device is opened. Units are per SM and per SM cycle:\n"
               "occupancy in warps/SM, throughput in warp instructions per cycle per SM.\n"
               "\n"
               "The mix is one group of instructions, all dependent on each other except\n"
               "for K independent chains per warp: the thesis kernel is alpha adds per\n"
               "memory access (--alpha A, or --mix alu=A,mem=1).\n"
               "\n"
               "options:\n"
               "  -p, --profile FILE  results JSON holding benchmark hiding.params ('-' reads\n"
               "                      standard input)\n"
               "  -m, --mix MIX       instructions per group as TYPE=COUNT pairs separated by\n"
               "                      commas, TYPE one of alu, sfu, shared, mem; default mem=1\n"
               "  -a, --alpha A       ALU instructions per group (the thesis' alpha), >= 0\n"
               "      --ilp K         independent dependency chains per warp, >= 1; default 1\n"
               "  -n, --warps N       occupancy in warps per SM; default: the most the SM holds\n"
               "      --sweep         the cusp table: alpha on the sqrt(2) grid 1 .. 512 ALU\n"
               "                      instructions per group of the other instructions\n"
               "      --json          print the result as JSON\n"
               "  -h, --help          show this help\n"
               "\n"
               "exit status: 0 success; 1 the profile is missing, unreadable (a folder,\n"
               "empty, larger than 256 MiB, binary, not JSON, not a results document) or\n"
               "lacks a parameter; 2 usage error.\n");
}

static int bad_value(const char *opt, const char *value, const char *expected)
{
    fprintf(stderr, "gpuchar model: invalid value '%s' for %s: expected %s\n", value, opt,
            expected);
    return GC_CLI_EXIT_USAGE;
}

/* A finite number of at least LO, digits as strtod reads them, nothing
 * around it. */
static bool parse_number(const char *s, size_t len, double lo, bool lo_open, double *out)
{
    char buf[64], *end;
    double v;

    if (len == 0 || len >= sizeof(buf) || isspace((unsigned char)s[0]))
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    errno = 0;
    v = strtod(buf, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v) || v < lo || (lo_open && v == lo))
        return false;
    *out = v;
    return true;
}

static int type_of(const char *s, size_t len)
{
    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        const char *name = gc_hiding_name(t);

        if (strlen(name) == len && strncmp(name, s, len) == 0)
            return t;
    }
    return -1;
}

static int parse_mix(struct model_args *a, const char *value)
{
    static const char expected[] = "TYPE=COUNT pairs separated by commas, TYPE one of "
                                   "alu, sfu, shared, mem, COUNT a number >= 0, each TYPE once";
    const char *p = value;

    for (;;) {
        size_t len = strcspn(p, ","), name_len;
        const char *eq = memchr(p, '=', len);
        int t;

        if (!eq)
            return bad_value("--mix", value, expected);
        name_len = (size_t)(eq - p);
        t = type_of(p, name_len);
        if (t < 0 || a->has_mix_type[t] ||
            !parse_number(eq + 1, len - name_len - 1, 0, false, &a->mix.count[t]))
            return bad_value("--mix", value, expected);
        a->has_mix_type[t] = true;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

static int parse_args(struct model_args *a, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"profile", required_argument, NULL, 'p'},
        {"mix", required_argument, NULL, 'm'},
        {"alpha", required_argument, NULL, 'a'},
        {"ilp", required_argument, NULL, 'k'},
        {"warps", required_argument, NULL, 'n'},
        {"sweep", no_argument, NULL, 's'},
        {"json", no_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    double total = 0;
    int c, err;

    memset(a, 0, sizeof(*a));
    a->ilp = 1;
    while ((c = getopt_long(argc, argv, "p:m:a:n:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            a->profile = optarg;
            break;
        case 'm':
            if (a->mix_text) {
                fprintf(stderr, "gpuchar model: --mix given twice\n");
                return GC_CLI_EXIT_USAGE;
            }
            a->mix_text = optarg;
            if ((err = parse_mix(a, optarg)) != 0)
                return err;
            break;
        case 'a':
            if (!parse_number(optarg, strlen(optarg), 0, false, &a->alpha))
                return bad_value("--alpha", optarg, "a number >= 0");
            a->has_alpha = true;
            break;
        case 'k':
            if (!parse_number(optarg, strlen(optarg), 1, false, &a->ilp))
                return bad_value("--ilp", optarg, "a number >= 1");
            break;
        case 'n':
            if (!parse_number(optarg, strlen(optarg), 0, true, &a->warps))
                return bad_value("--warps", optarg, "a number of warps per SM > 0");
            a->has_warps = true;
            break;
        case 's':
            a->sweep = true;
            break;
        case 'j':
            a->json = true;
            break;
        case 'h':
            a->help = true;
            return 0;
        default:
            return gc__cli_usage_error("model");
        }
    }
    if ((err = gc__cli_no_operands("model", argc, argv, optind)) != 0)
        return err;
    if (!a->profile) {
        fprintf(stderr, "gpuchar model: --profile FILE is required\n");
        return gc__cli_usage_error("model");
    }
    if (a->sweep && a->has_warps) {
        fprintf(stderr, "gpuchar model: --warps and --sweep exclude each other\n");
        return GC_CLI_EXIT_USAGE;
    }
    if (a->has_alpha && a->has_mix_type[GC_HIDING_ALU]) {
        fprintf(stderr, "gpuchar model: --alpha and an alu count in --mix exclude each other\n");
        return GC_CLI_EXIT_USAGE;
    }
    if (a->sweep && (a->has_alpha || a->has_mix_type[GC_HIDING_ALU])) {
        fprintf(stderr, "gpuchar model: --sweep varies the alu count: give neither --alpha "
                        "nor alu in --mix\n");
        return GC_CLI_EXIT_USAGE;
    }
    if (!a->sweep && !a->mix_text && !a->has_alpha) {
        fprintf(stderr, "gpuchar model: give the mix (--mix or --alpha) or --sweep\n");
        return gc__cli_usage_error("model");
    }
    /* Without --mix the group is one memory access, as in §4.1. */
    if (!a->mix_text)
        a->mix.count[GC_HIDING_MEM] = 1;
    if (a->has_alpha)
        a->mix.count[GC_HIDING_ALU] = a->alpha;
    a->mix.ilp = a->ilp;
    for (int t = 0; t < GC_HIDING_NTYPES; t++)
        total += a->mix.count[t];
    if (!(total > 0)) {
        fprintf(stderr, "gpuchar model: the mix has no instructions%s\n",
                a->sweep ? " besides the swept alu ones" : "");
        return GC_CLI_EXIT_USAGE;
    }
    return 0;
}

/* ---- Computation ------------------------------------------------------ */

/* Everything printed for one mix. */
struct prediction {
    double bound;
    int limit;
    double latency; /* basic, cycles per group */
    struct gc_hiding_point basic, refined;
    double needed[2][3]; /* [refined][fraction] */
    double linear;       /* latency x bound */
    double refined_at_linear;
};

static int predict(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix, double n,
                   struct prediction *p)
{
    struct gc_hiding_point at_linear;
    int err;

    p->bound = gc_hiding_bound(hw, mix, &p->limit);
    p->latency = gc_hiding_latency(hw, mix, 0, false);
    if (n > 0) {
        if ((err = gc_hiding_basic(hw, mix, n, &p->basic)) != 0 ||
            (err = gc_hiding_refined(hw, mix, n, &p->refined)) != 0)
            return err;
    }
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 3; k++)
            p->needed[r][k] = gc_hiding_needed(hw, mix, fractions[k], r == 1);
    p->linear = p->needed[0][2];
    if ((err = gc_hiding_refined(hw, mix, p->linear, &at_linear)) != 0)
        return err;
    p->refined_at_linear = at_linear.thru / p->bound;
    return 0;
}

/* ---- Text ------------------------------------------------------------- */

static void fmt_warps(char *buf, size_t len, double n, double max)
{
    if (isinf(n))
        snprintf(buf, len, "never");
    else
        snprintf(buf, len, "%.1f%s", n, n > max ? "*" : "");
}

static void print_mix(const struct gc_hiding_mix *mix)
{
    double total = 0;

    printf("mix:        ");
    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        if (mix->count[t] <= 0)
            continue;
        printf("%s=%g ", gc_hiding_name(t), mix->count[t]);
        total += mix->count[t];
    }
    printf("per group (%g instructions), ILP %g\n", total, mix->ilp);
}

static void print_hw(const char *path, const struct gc_results *r, const struct gc_hiding_hw *hw)
{
    const struct gc_hiding_unit *m = &hw->unit[GC_HIDING_MEM];

    printf("profile:    %s: %s (%s), %s\n", path, r->meta.device.name, r->meta.device.spec,
           r->meta.date);
    printf("hardware:   %d SMs at %.0f MHz, %.0f warps/SM, issue %g inst/clk/SM\n", hw->sm_count,
           hw->clock_hz / 1e6, hw->max_warps, hw->issue_thru);
    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        const struct gc_hiding_unit *u = &hw->unit[t];

        if (!u->present || t == GC_HIDING_MEM)
            continue;
        printf("            %-6s %7.4g cycles  %8.4g inst/clk/SM\n", gc_hiding_name(t), u->latency,
               u->thru);
    }
    printf("            %-6s %7.4g cycles  %8.4g inst/clk/SM = %.4g B/clk/SM = %.4g GB/s "
           "(%g B/inst)\n",
           "mem", m->latency, m->thru, m->thru * hw->mem_bytes_per_inst,
           gc_hiding_gbps(hw, m->thru * hw->mem_bytes_per_inst), hw->mem_bytes_per_inst);
    if (hw->cont.present)
        printf("contention: mem latency = %g + %g x / (%.4g - x) cycles, x in B/clk/SM\n",
               hw->cont.a, hw->cont.b, hw->cont.c * hw->mem_bytes_per_inst);
    else
        printf("contention: no fit in the profile; the refined model equals the basic one\n");
}

static void print_point(const char *name, const struct gc_hiding_hw *hw,
                        const struct gc_hiding_mix *mix, const struct prediction *p,
                        const struct gc_hiding_point *pt)
{
    double mem_b = pt->thru * mix->count[GC_HIDING_MEM] * hw->mem_bytes_per_inst;

    printf("%-8s  %13.5g  %10.1f%%  %-8s  %11.1f  %12.4g  %8.2f\n", name, pt->thru,
           100 * pt->thru / p->bound, gc_hiding_name(pt->limit), pt->mem_latency, mem_b,
           gc_hiding_gbps(hw, mem_b));
}

static void print_prediction(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                             const struct prediction *p)
{
    char b[3][32];

    print_mix(mix);
    printf("bound:      %.5g groups/clk/SM, set by %s; latency %.1f cycles per group "
           "(unloaded)\n",
           p->bound, gc_hiding_name(p->limit), p->latency);
    printf("\nat %g warps/SM:\n", p->basic.n);
    printf("model     groups/clk/SM  %% of bound  limit     mem latency  mem B/clk/SM  mem GB/s\n");
    print_point("basic", hw, mix, p, &p->basic);
    print_point("refined", hw, mix, p, &p->refined);
    printf("\ninstructions per cycle per SM (refined), and in execution per SM:\n");
    for (int t = 0; t < GC_HIDING_NTYPES; t++) {
        if (mix->count[t] <= 0)
            continue;
        printf("  %-6s  %10.4g inst/clk/SM  %8.2f in execution\n", gc_hiding_name(t),
               mix->count[t] * p->refined.thru,
               gc_hiding_in_execution(hw, mix, t, p->refined.thru, true));
    }
    printf("\nneeded occupancy, warps/SM   90%%     95%%    100%%\n");
    for (int r = 0; r < 2; r++) {
        for (int k = 0; k < 3; k++)
            fmt_warps(b[k], sizeof(b[k]), p->needed[r][k], hw->max_warps);
        printf("%-26s %7s %7s %7s\n", r ? "refined" : "basic", b[0], b[1], b[2]);
    }
    printf("linear (latency x bound):  %.1f warps/SM, where the refined model reaches %.1f%% "
           "of the bound\n",
           p->linear, 100 * p->refined_at_linear);
    if (p->needed[0][2] > hw->max_warps || p->needed[1][1] > hw->max_warps)
        printf("* more warps than the SM holds (%g)\n", hw->max_warps);
}

static void print_sweep(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *others,
                        const struct prediction *rows, const double *alphas, double cusp_alpha,
                        double cusp_warps, int cusp_err)
{
    bool over = false;

    printf("mix:        alpha alu per group of");
    for (int t = 0; t < GC_HIDING_NTYPES; t++)
        if (t != GC_HIDING_ALU && others->count[t] > 0)
            printf(" %s=%g", gc_hiding_name(t), others->count[t]);
    printf(", ILP %g\n", others->ilp);
    printf("\n%8s  %13s  %-7s  %8s  %20s  %14s  %10s\n", "", "bound", "", "latency",
           "basic: warps/SM for", "refined:", "refined at");
    printf("%8s  %13s  %-7s  %8s  %6s %6s %6s  %7s %6s  %10s\n", "alpha", "groups/clk/SM", "set by",
           "cycles", "90%", "95%", "100%", "90%", "95%", "linear");
    for (int i = 0; i < SWEEP_STEPS; i++) {
        const struct prediction *p = &rows[i];
        char b[5][32];

        fmt_warps(b[0], sizeof(b[0]), p->needed[0][0], hw->max_warps);
        fmt_warps(b[1], sizeof(b[1]), p->needed[0][1], hw->max_warps);
        fmt_warps(b[2], sizeof(b[2]), p->needed[0][2], hw->max_warps);
        fmt_warps(b[3], sizeof(b[3]), p->needed[1][0], hw->max_warps);
        fmt_warps(b[4], sizeof(b[4]), p->needed[1][1], hw->max_warps);
        over = over || p->needed[0][2] > hw->max_warps || p->needed[1][1] > hw->max_warps;
        printf("%8.4g  %13.5g  %-7s  %8.1f  %6s %6s %6s  %7s %6s  %9.1f%%\n", alphas[i], p->bound,
               gc_hiding_name(p->limit), p->latency, b[0], b[1], b[2], b[3], b[4],
               100 * p->refined_at_linear);
    }
    if (cusp_err == 0)
        printf("\ncusp: the most warps, %.1f per SM for 100%% of the bound (basic model), at "
               "alpha = %.3g\n",
               cusp_warps, cusp_alpha);
    else
        printf("\ncusp: none; the same resource bounds throughput at every alpha\n");
    if (over)
        printf("* more warps than the SM holds (%g)\n", hw->max_warps);
}

/* ---- JSON ------------------------------------------------------------- */

static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static void put(json_t *obj, const char *key, json_t *v, bool *bad)
{
    if (!v || json_object_set_new(obj, key, v) != 0)
        *bad = true;
}

static json_t *mix_json(const struct gc_hiding_mix *mix, bool *bad)
{
    json_t *o = json_object();

    if (!o) {
        *bad = true;
        return NULL;
    }
    for (int t = 0; t < GC_HIDING_NTYPES; t++)
        put(o, gc_hiding_name(t), num(mix->count[t]), bad);
    put(o, "ilp", num(mix->ilp), bad);
    return o;
}

static json_t *point_json(const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                          const struct gc_hiding_point *pt, double bound, bool *bad)
{
    json_t *o = json_object();
    double mem_b = pt->thru * mix->count[GC_HIDING_MEM] * hw->mem_bytes_per_inst;

    if (!o) {
        *bad = true;
        return NULL;
    }
    put(o, "groups_per_clk_sm", num(pt->thru), bad);
    put(o, "fraction_of_bound", num(pt->thru / bound), bad);
    put(o, "active_bound", json_string(gc_hiding_name(pt->limit)), bad);
    put(o, "latency_cycles_per_group", num(pt->latency), bad);
    put(o, "mem_latency_cycles", num(pt->mem_latency), bad);
    put(o, "mem_bytes_per_clk_sm", num(mem_b), bad);
    put(o, "mem_gbps", num(gc_hiding_gbps(hw, mem_b)), bad);
    put(o, "bisection_steps", json_integer(pt->iterations), bad);
    return o;
}

static json_t *needed_json(const struct prediction *p, bool *bad)
{
    json_t *o = json_object();

    if (!o) {
        *bad = true;
        return NULL;
    }
    for (int r = 0; r < 2; r++) {
        json_t *m = json_object();

        if (!m) {
            *bad = true;
            continue;
        }
        put(m, "0.90", num(p->needed[r][0]), bad);
        put(m, "0.95", num(p->needed[r][1]), bad);
        put(m, "1.00", num(p->needed[r][2]), bad);
        put(o, r ? "refined" : "basic", m, bad);
    }
    return o;
}

static void put_common(json_t *o, const struct prediction *p, bool *bad)
{
    put(o, "bound_groups_per_clk_sm", num(p->bound), bad);
    put(o, "bound_set_by", json_string(gc_hiding_name(p->limit)), bad);
    put(o, "latency_cycles_per_group", num(p->latency), bad);
    put(o, "needed_warps_per_sm", needed_json(p, bad), bad);
    put(o, "linear_warps_per_sm", num(p->linear), bad);
    put(o, "refined_fraction_at_linear", num(p->refined_at_linear), bad);
}

static int print_json(json_t *doc)
{
    int rc =
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));

    json_decref(doc);
    if (rc != 0 || fputc('\n', stdout) == EOF) {
        fprintf(stderr, "gpuchar model: error writing JSON\n");
        return GC_CLI_EXIT_FAILED;
    }
    return GC_CLI_EXIT_OK;
}

static json_t *header_json(const char *path, const struct gc_results *r,
                           const struct gc_hiding_hw *hw, const struct gc_hiding_mix *mix,
                           bool *bad)
{
    json_t *o = json_object();

    if (!o) {
        *bad = true;
        return NULL;
    }
    put(o, "profile", json_string(path), bad);
    put(o, "device", json_string(r->meta.device.name), bad);
    put(o, "max_warps_per_sm", num(hw->max_warps), bad);
    put(o, "refined_available", json_boolean(hw->cont.present), bad);
    put(o, "mix", mix_json(mix, bad), bad);
    return o;
}

/* ---- Main ------------------------------------------------------------- */

static int run_prediction(const struct model_args *a, const struct gc_results *r,
                          const struct gc_hiding_hw *hw)
{
    struct prediction p;
    double n = a->has_warps ? a->warps : hw->max_warps;
    bool bad = false;
    json_t *doc;

    if (predict(hw, &a->mix, n, &p) != 0) {
        fprintf(stderr, "gpuchar model: the model has no solution for this mix\n");
        return GC_CLI_EXIT_FAILED;
    }
    if (n > hw->max_warps)
        fprintf(stderr, "gpuchar model: note: %g warps/SM is more than the SM holds (%g)\n", n,
                hw->max_warps);
    if (!a->json) {
        print_hw(a->profile, r, hw);
        print_prediction(hw, &a->mix, &p);
        return GC_CLI_EXIT_OK;
    }
    doc = header_json(a->profile, r, hw, &a->mix, &bad);
    if (doc) {
        put(doc, "warps_per_sm", num(n), &bad);
        put_common(doc, &p, &bad);
        put(doc, "basic", point_json(hw, &a->mix, &p.basic, p.bound, &bad), &bad);
        put(doc, "refined", point_json(hw, &a->mix, &p.refined, p.bound, &bad), &bad);
    }
    if (!doc || bad) {
        json_decref(doc);
        fprintf(stderr, "gpuchar model: %s\n", gc_strerror(GC_ENOMEM));
        return GC_CLI_EXIT_FAILED;
    }
    return print_json(doc);
}

static int run_sweep(const struct model_args *a, const struct gc_results *r,
                     const struct gc_hiding_hw *hw)
{
    struct prediction rows[SWEEP_STEPS];
    double alphas[SWEEP_STEPS], cusp_alpha = NAN, cusp_warps = NAN;
    struct gc_hiding_mix others = a->mix;
    bool bad = false;
    json_t *doc, *arr;
    int cusp_err;

    others.count[GC_HIDING_ALU] = 0;
    for (int i = 0; i < SWEEP_STEPS; i++) {
        struct gc_hiding_mix mix = others;

        alphas[i] = pow(2, i / 2.0);
        mix.count[GC_HIDING_ALU] = alphas[i];
        if (predict(hw, &mix, 0, &rows[i]) != 0) {
            fprintf(stderr, "gpuchar model: the model has no solution at alpha = %g\n", alphas[i]);
            return GC_CLI_EXIT_FAILED;
        }
    }
    cusp_err = gc_hiding_cusp(hw, &others, &cusp_alpha, &cusp_warps);
    if (!a->json) {
        print_hw(a->profile, r, hw);
        print_sweep(hw, &others, rows, alphas, cusp_alpha, cusp_warps, cusp_err);
        return GC_CLI_EXIT_OK;
    }
    doc = header_json(a->profile, r, hw, &others, &bad);
    arr = json_array();
    if (doc && arr) {
        for (int i = 0; i < SWEEP_STEPS; i++) {
            json_t *o = json_object();

            if (!o || json_array_append_new(arr, o) != 0) {
                bad = true;
                continue;
            }
            put(o, "alpha", num(alphas[i]), &bad);
            put_common(o, &rows[i], &bad);
        }
        put(doc, "sweep", arr, &bad);
        arr = NULL;
        if (cusp_err == 0) {
            json_t *c = json_object();

            if (c) {
                put(c, "alpha", num(cusp_alpha), &bad);
                put(c, "warps_per_sm", num(cusp_warps), &bad);
            }
            put(doc, "cusp", c, &bad);
        } else {
            put(doc, "cusp", json_null(), &bad);
        }
    }
    json_decref(arr);
    if (!doc || bad) {
        json_decref(doc);
        fprintf(stderr, "gpuchar model: %s\n", gc_strerror(GC_ENOMEM));
        return GC_CLI_EXIT_FAILED;
    }
    return print_json(doc);
}

int gc__cmd_model(const struct gc_cli *cli, int argc, char **argv)
{
    struct model_args a;
    struct gc_results *r = NULL;
    struct gc_hiding_hw hw;
    char err[1024], shown[GC_PATH_SHOWN_LEN];
    int status, e;

    (void)cli;
    status = parse_args(&a, argc, argv);
    if (status != 0)
        return status;
    if (a.help) {
        gc__cmd_model_usage(stdout);
        return GC_CLI_EXIT_OK;
    }
    e = gc_read_json(a.profile, &r, err, sizeof(err));
    if (e == 0)
        e = gc_hiding_from_results(r, &hw, err, sizeof(err));
    if (e == 0)
        e = gc_hiding_mix_check(&hw, &a.mix, err, sizeof(err));
    if (e != 0) {
        fprintf(stderr, "gpuchar model: %s: %s\n", gc_path_shown(a.profile, shown, sizeof(shown)),
                err);
        status = GC_CLI_EXIT_FAILED;
        goto out;
    }
    status = a.sweep ? run_sweep(&a, r, &hw) : run_prediction(&a, r, &hw);
out:
    gc_results_free(r);
    return status;
}
