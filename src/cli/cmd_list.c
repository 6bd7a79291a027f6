/* 'gpuchar list': the status of every backend and the devices they report,
 * as an aligned table or as JSON. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

void gc__cmd_list_usage(FILE *f)
{
    fprintf(f, "usage: gpuchar list [--json]\n"
               "\n"
               "Shows every backend (available with its device count, or why it is not),\n"
               "then every device with the spec that 'gpuchar run --device' accepts.\n"
               "\n"
               "options:\n"
               "      --json  print the same as JSON on stdout\n"
               "  -h, --help  show this help\n");
}

static const char *type_name(enum gc_device_type t)
{
    switch (t) {
    case GC_DEVICE_GPU:
        return "gpu";
    case GC_DEVICE_CPU:
        return "cpu";
    case GC_DEVICE_ACCELERATOR:
        return "accelerator";
    case GC_DEVICE_OTHER:
        break;
    }
    return "other";
}

static double gib(size_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

static int max_int(int a, int b)
{
    return a > b ? a : b;
}

static void print_backends(gc_context *ctx)
{
    int n = gc_backend_count(ctx), width = 0;
    struct gc_backend_status st;

    for (int i = 0; i < n; i++)
        if (gc_backend_get(ctx, i, &st) == 0 && st.name)
            width = max_int(width, (int)strlen(st.name) + 1);
    for (int i = 0; i < n; i++) {
        char label[64];

        if (gc_backend_get(ctx, i, &st) != 0 || !st.name)
            continue;
        snprintf(label, sizeof(label), "%s:", st.name);
        if (!st.available)
            printf("%-*s unavailable: %s\n", width, label,
                   st.reason[0] ? st.reason : "no reason given");
        else if (st.device_count == 0)
            printf("%-*s available, no devices\n", width, label);
        else
            printf("%-*s available, %d device%s\n", width, label, st.device_count,
                   st.device_count == 1 ? "" : "s");
    }
}

static void print_devices(const struct gc_device_summary *d, int n)
{
    static const char *const head[] = {"spec", "type", "name", "arch"};
    int w[4], wcu = (int)strlen("CUs"), wclk = (int)strlen("clock MHz");

    for (int c = 0; c < 4; c++)
        w[c] = (int)strlen(head[c]);
    for (int i = 0; i < n; i++) {
        char num[32];

        w[0] = max_int(w[0], (int)strlen(d[i].spec));
        w[1] = max_int(w[1], (int)strlen(type_name(d[i].type)));
        w[2] = max_int(w[2], (int)strlen(d[i].name));
        w[3] = max_int(w[3], (int)strlen(d[i].arch));
        wcu = max_int(wcu, snprintf(num, sizeof(num), "%d", d[i].compute_units));
        wclk = max_int(wclk, snprintf(num, sizeof(num), "%.0f", d[i].clock_mhz));
    }
    printf("%-*s  %-*s  %-*s  %-*s  %*s  %*s  %s\n", w[0], head[0], w[1], head[1], w[2], head[2],
           w[3], head[3], wcu, "CUs", wclk, "clock MHz", "memory GiB");
    for (int i = 0; i < n; i++) {
        char clock[32] = "-";

        if (d[i].clock_mhz > 0)
            snprintf(clock, sizeof(clock), "%.0f", d[i].clock_mhz);
        printf("%-*s  %-*s  %-*s  %-*s  %*d  %*s  %10.1f\n", w[0], d[i].spec, w[1],
               type_name(d[i].type), w[2], d[i].name, w[3], d[i].arch, wcu, d[i].compute_units,
               wclk, clock, gib(d[i].global_mem));
    }
}

/* A JSON string of S. Jansson refuses invalid UTF-8, which a driver could
 * report in a device name; such bytes become '?' rather than losing the
 * whole document. */
static json_t *jstr(const char *s)
{
    json_t *j;
    char *copy;

    if (!s)
        return json_null();
    j = json_string(s);
    if (j)
        return j;
    copy = strdup(s);
    if (!copy)
        return NULL;
    for (char *q = copy; *q; q++)
        if ((unsigned char)*q >= 0x80 || (unsigned char)*q < 0x20)
            *q = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

/* Sets KEY of OBJ to V (which it steals), recording any failure in *bad so
 * that one check at the end covers every allocation. */
static void put(json_t *obj, const char *key, json_t *v, bool *bad)
{
    if (!v || json_object_set_new(obj, key, v) != 0)
        *bad = true;
}

static json_t *backends_json(gc_context *ctx, bool *bad)
{
    json_t *arr = json_array();
    struct gc_backend_status st;

    if (!arr) {
        *bad = true;
        return NULL;
    }
    for (int i = 0; i < gc_backend_count(ctx); i++) {
        json_t *o;

        if (gc_backend_get(ctx, i, &st) != 0)
            continue;
        o = json_object();
        if (!o || json_array_append_new(arr, o) != 0) {
            *bad = true;
            continue;
        }
        put(o, "name", jstr(st.name), bad);
        put(o, "available", json_boolean(st.available), bad);
        put(o, "reason", st.available ? json_null() : jstr(st.reason), bad);
        put(o, "device_count", json_integer(st.device_count), bad);
    }
    return arr;
}

static json_t *devices_json(const struct gc_device_summary *d, int n, bool *bad)
{
    json_t *arr = json_array();

    if (!arr) {
        *bad = true;
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        json_t *o = json_object();

        if (!o || json_array_append_new(arr, o) != 0) {
            *bad = true;
            continue;
        }
        put(o, "spec", jstr(d[i].spec), bad);
        put(o, "backend", jstr(d[i].backend), bad);
        put(o, "index", json_integer(d[i].index), bad);
        put(o, "name", jstr(d[i].name), bad);
        put(o, "vendor", jstr(d[i].vendor), bad);
        put(o, "arch", jstr(d[i].arch), bad);
        put(o, "driver", jstr(d[i].driver), bad);
        put(o, "type", jstr(type_name(d[i].type)), bad);
        put(o, "compute_units", json_integer(d[i].compute_units), bad);
        put(o, "clock_mhz", d[i].clock_mhz > 0 ? json_real(d[i].clock_mhz) : json_null(), bad);
        put(o, "global_mem_bytes", json_integer((json_int_t)d[i].global_mem), bad);
    }
    return arr;
}

static int print_json(gc_context *ctx, const struct gc_device_summary *d, int n)
{
    json_t *root = json_object();
    bool bad = !root;
    int status = GC_CLI_EXIT_OK;

    if (root) {
        put(root, "gpuchar_version", jstr(gc_version()), &bad);
        put(root, "backends", backends_json(ctx, &bad), &bad);
        put(root, "devices", devices_json(d, n, &bad), &bad);
    }
    if (bad) {
        fprintf(stderr, "gpuchar: %s\n", gc_strerror(GC_ENOMEM));
        status = GC_CLI_EXIT_FAILED;
        goto out;
    }
    if (json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
        fprintf(stderr, "gpuchar: error writing JSON to standard output\n");
        status = GC_CLI_EXIT_FAILED;
        goto out;
    }
    putchar('\n');
out:
    json_decref(root);
    return status;
}

int gc__cmd_list(const struct gc_cli *cli, int argc, char **argv)
{
    enum { OPT_JSON = 256 };
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    gc_context *ctx = NULL;
    struct gc_device_summary *devs = NULL;
    int ndev = 0, c, rc, status = GC_CLI_EXIT_OK;
    bool json = false;

    (void)cli;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_JSON:
            json = true;
            break;
        case 'h':
            gc__cmd_list_usage(stdout);
            return GC_CLI_EXIT_OK;
        default:
            return gc__cli_usage_error("list");
        }
    }
    status = gc__cli_no_operands("list", argc, argv, optind);
    if (status != GC_CLI_EXIT_OK)
        return status;

    rc = gc_context_create(&ctx);
    if (rc < 0) {
        gc__cli_lib_error(NULL, rc, "cannot initialise the library");
        status = GC_CLI_EXIT_FAILED;
        goto out;
    }
    rc = gc_device_list(ctx, &devs, &ndev);
    if (rc < 0) {
        gc__cli_lib_error(ctx, rc, "cannot list the devices");
        status = GC_CLI_EXIT_FAILED;
        goto out;
    }
    if (json) {
        status = print_json(ctx, devs, ndev);
    } else {
        print_backends(ctx);
        if (ndev > 0) {
            putchar('\n');
            print_devices(devs, ndev);
        }
    }
    /* No device is a finding, not a failure (as in hwloc and clinfo). */
    if (ndev == 0)
        fprintf(stderr, "gpuchar: no devices found\n");
out:
    free(devs);
    gc_context_destroy(ctx);
    return status;
}
