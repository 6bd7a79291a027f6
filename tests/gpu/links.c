/* Runs the link.* family on every CUDA device of the machine (or the
 * devices named) through the public API, prints the matrices and writes
 * the results: the way to measure the links until the run over a device
 * list does it.
 *
 *     gpu_links [--quick|--full] [--repeat N] [--bench PATTERN]...
 *               [--json FILE] [--matrices FILE] [--html FILE] [SPEC...]
 *
 * Exit status: 0 every row ran (or was not available), 1 a row failed or
 * the run did not start, 77 fewer than two devices (a ctest skip). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuchar/gpuchar.h"
#include "gpuchar/link.h"

#define MAX_DEV 64
#define MAX_PAT 16

static gc_context *g_ctx;

static void on_signal(int sig)
{
    (void)sig;
    if (g_ctx)
        gc_request_stop(g_ctx);
}

static void progress(void *user, int done, int total, const char *bench, const char *line)
{
    (void)user;
    fprintf(stderr, "[%d/%d] %s: %s\n", done, total, bench, line);
}

/* Every CUDA device's spec, in order. */
static int cuda_devices(gc_context *ctx, char (*spec)[32], int cap)
{
    struct gc_device_summary *list = NULL;
    int n = 0, count = 0;

    if (gc_device_list(ctx, &list, &count) != 0)
        return 0;
    for (int i = 0; i < count && n < cap; i++)
        if (strcmp(list[i].backend, "cuda") == 0)
            snprintf(spec[n++], sizeof(spec[0]), "%s", list[i].spec);
    free(list);
    return n;
}

static int write_to(const char *path, int (*fn)(const struct gc_results *, FILE *),
                    const struct gc_results *r)
{
    FILE *f = fopen(path, "w");
    int rc;

    if (!f) {
        fprintf(stderr, "gpu_links: cannot write %s\n", path);
        return 1;
    }
    rc = fn(r, f);
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, "gpu_links: writing %s failed: %s\n", path, gc_strerror(rc));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static char spec[MAX_DEV][32];
    const char *specs[MAX_DEV], *pats[MAX_PAT + 1] = {NULL};
    const char *json = NULL, *matrices = NULL, *html = NULL;
    struct gc_run_options o;
    struct gc_results *r = NULL;
    int n = 0, np = 0, rc, bad = 0;

    gc_run_options_init(&o);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            o.profile = GC_PROFILE_QUICK;
        else if (strcmp(argv[i], "--full") == 0)
            o.profile = GC_PROFILE_FULL;
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            o.repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--bench") == 0 && i + 1 < argc && np < MAX_PAT)
            pats[np++] = argv[++i];
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            json = argv[++i];
        else if (strcmp(argv[i], "--matrices") == 0 && i + 1 < argc)
            matrices = argv[++i];
        else if (strcmp(argv[i], "--html") == 0 && i + 1 < argc)
            html = argv[++i];
        else if (argv[i][0] != '-' && n < MAX_DEV)
            snprintf(spec[n++], sizeof(spec[0]), "%s", argv[i]);
        else {
            fprintf(stderr, "gpu_links: unknown argument '%s'\n", argv[i]);
            return 1;
        }
    }
    if (gc_context_create(&g_ctx) != 0) {
        fprintf(stderr, "gpu_links: no context\n");
        return 1;
    }
    if (n == 0)
        n = cuda_devices(g_ctx, spec, MAX_DEV);
    if (n < 2) {
        fprintf(stderr, "gpu_links: %d CUDA device%s: links need two\n", n, n == 1 ? "" : "s");
        gc_context_destroy(g_ctx);
        return 77;
    }
    for (int i = 0; i < n; i++)
        specs[i] = spec[i];
    o.patterns = np ? pats : NULL;
    o.progress = progress;
    o.command_line = "gpu_links";
    signal(SIGINT, on_signal);
    rc = gc_run_links(g_ctx, &o, specs, n, &r);
    if (r)
        gc_write_link_text(r, stdout);
    if (rc)
        fprintf(stderr, "gpu_links: %s: %s\n", gc_strerror(rc), gc_last_error(g_ctx));
    if (r && json && gc_write_json(r, json) != 0)
        bad = 1;
    if (r && matrices)
        bad |= write_to(matrices, gc_write_link_json, r);
    if (r && html)
        bad |= write_to(html, gc_write_link_html, r);
    gc_results_free(r);
    gc_context_destroy(g_ctx);
    return rc || bad ? 1 : 0;
}
