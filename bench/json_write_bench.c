/*
 * json_write_bench.c — the response writer benchmark (bench/README.md,
 * "Response writer benchmark"): json_write_compact against jansson's
 * json_dumps(JSON_COMPACT), in-process, on the responses the server sends
 * most: an execute_query preview (a ~1.8 KB markdown table with '|', line
 * breaks, digits and some CJK in one text block), a trivial tools/call
 * result and a small tools/list page. Also json_compact_size's old way
 * (jansson's counting callback) against writing and freeing.
 *
 *   json_write_bench [ITERATIONS]
 *
 * Each figure is the best of 5 rounds of ITERATIONS calls (default 100000)
 * per response, allocation and free included. Exits 1 when the two texts
 * differ (the writer's contract) or memory runs out.
 */
#define _POSIX_C_SOURCE 200809L

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/json_write.h"

#define ROUNDS 5

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A tools/call result with one text block, as the server sends it. */
static json_t *call_response(const char *text)
{
    return json_pack("{s:s,s:i,s:{s:[{s:s,s:s}],s:b}}", "jsonrpc", "2.0", "id", 42, "result",
                     "content", "type", "text", "text", text, "isError", 0);
}

/* The preview an execute_query of ~40 rows renders (tools/render.c's
 * markdown: header, separator, one line per row, then the row count). */
static void preview_text(char *out, size_t size)
{
    static const char *const names[] = {"Ada Lovelace",   "Grace Hopper", "李白",
                                        "Alan Turing",    "東京支店",     "Edsger Dijkstra",
                                        "Barbara Liskov", "Donald Knuth"};
    size_t n = (size_t)snprintf(out, size,
                                "| id | name | city | amount | created_at |\n"
                                "| --- | --- | --- | --- | --- |\n");
    int rows = 0;
    for (int i = 1; n < 1700 && n < size; i++, rows++)
        n += (size_t)snprintf(out + n, size - n, "| %d | %s | %s | %d.%02d | 2024-0%d-1%d |\n",
                              i * 17, names[i % 8], i % 3 ? "Berlin" : "北京", i * 1234 % 9973,
                              i * 7 % 100, 1 + i % 9, i % 10);
    if (n < size)
        snprintf(out + n, size - n, "\n%d rows", rows);
}

static int count_bytes(const char *buffer, size_t size, void *data)
{
    (void)buffer;
    *(size_t *)data += size;
    return 0;
}

/* Time the four ways on v; exits when the texts differ. */
static void measure(const char *name, const json_t *v, long iterations)
{
    size_t len = 0, sink = 0;
    char *want = json_dumps(v, JSON_COMPACT), *got = json_write_compact(v, &len);
    if (!want || !got || strcmp(want, got) != 0) {
        fprintf(stderr, "json_write_bench: %s: the writer's text differs from jansson's\n", name);
        exit(1);
    }
    free(want);
    free(got);
    double best[4] = {1e30, 1e30, 1e30, 1e30};
    for (int r = 0; r < ROUNDS; r++) {
        double t[5];
        t[0] = now_seconds();
        for (long i = 0; i < iterations; i++)
            free(json_dumps(v, JSON_COMPACT));
        t[1] = now_seconds();
        for (long i = 0; i < iterations; i++)
            free(json_write_compact(v, NULL));
        t[2] = now_seconds();
        for (long i = 0; i < iterations; i++)
            json_dump_callback(v, count_bytes, &sink, JSON_COMPACT | JSON_ENCODE_ANY);
        t[3] = now_seconds();
        for (long i = 0; i < iterations; i++) {
            size_t n = 0;
            free(json_write_compact(v, &n));
            sink += n;
        }
        t[4] = now_seconds();
        for (int k = 0; k < 4; k++)
            if (t[k + 1] - t[k] < best[k])
                best[k] = t[k + 1] - t[k];
    }
    double ns[4];
    for (int k = 0; k < 4; k++)
        ns[k] = best[k] / (double)iterations * 1e9;
    printf("%-28s %6zu B | dumps %7.0f ns  write %6.0f ns  %5.1fx | size: callback %7.0f ns  "
           "write %6.0f ns  %5.1fx\n",
           name, len, ns[0], ns[1], ns[0] / ns[1], ns[2], ns[3], ns[2] / ns[3]);
    if (sink == 0)
        printf("(nothing counted)\n");
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
    if (iterations <= 0) {
        fprintf(stderr, "usage: json_write_bench [ITERATIONS]\n");
        return 2;
    }
    char text[4096];
    preview_text(text, sizeof text);
    json_t *preview = call_response(text), *trivial = call_response("ok: 1 row inserted");
    json_t *listing = json_pack(
        "{s:s,s:i,s:{s:[{s:s,s:s,s:{s:s,s:{}}},{s:s,s:s,s:{s:s,s:{}}}]}}", "jsonrpc", "2.0", "id",
        2, "result", "tools", "name", "execute_query", "description",
        "Run a read-only SQL query and return a preview", "inputSchema", "type", "object",
        "properties", "name", "describe_table", "description", "Columns, types and keys of a table",
        "inputSchema", "type", "object", "properties");
    if (!preview || !trivial || !listing) {
        fprintf(stderr, "json_write_bench: out of memory\n");
        return 1;
    }
    printf("best of %d rounds of %ld calls each; ratio = jansson / writer\n", ROUNDS, iterations);
    measure("execute_query preview", preview, iterations);
    measure("trivial tools/call", trivial, iterations);
    measure("tools/list page", listing, iterations);
    json_decref(preview);
    json_decref(trivial);
    json_decref(listing);
    return 0;
}
