/*
 * metrics.c — the metrics registry and its Prometheus text rendering; see
 * metrics.h for what is counted and how labels stay bounded.
 *
 * A family with labels keeps its series in a series_table: a fixed array
 * of atomic pointers, probed linearly from the hash of the label values. A
 * new series is allocated and swapped into an empty slot with one CAS; the
 * loser of a race frees its copy and takes the winner's. Slots are twice
 * the series cap, so probes stay short and a full table still has empty
 * slots for the probe to end on. Counters are updated with relaxed atomic
 * adds: a scrape may see a call counted in one family a moment before
 * another, never a torn value. Rendering copies the pointers, sorts them by
 * label so the output is stable, and prints.
 */
#include "core/metrics.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LABELS 3 /* the most labels of a family kept here */

/* Value slots of a tool series, then of an LLM series. */
enum {
    TOOL_CALLS,
    TOOL_ERRORS,
    TOOL_SUM_US,  /* durations, microseconds */
    TOOL_BUCKETS, /* METRICS_DURATION_BUCKET_COUNT + 1 counts, not cumulative */
    TOOL_VALUES = TOOL_BUCKETS + METRICS_DURATION_BUCKET_COUNT + 1
};
enum { LLM_CALLS, LLM_ERRORS, LLM_RETRIES, LLM_PROMPT, LLM_COMPLETION, LLM_VALUES };

typedef struct series {
    uint64_t hash;                            /* of the label values */
    char label[LABELS][METRICS_LABEL_MAX];    /* unused labels are "" */
    atomic_uint_least64_t value[TOOL_VALUES]; /* the family's first nvalues are used */
} series;

typedef struct series_table {
    _Atomic(series *) *slot; /* mask + 1 entries */
    unsigned mask;
    atomic_int count;           /* series in slot */
    int max;                    /* series cap; past it: overflow */
    int labels;                 /* label values used */
    _Atomic(series *) overflow; /* labels all METRICS_OTHER */
} series_table;

static _Atomic(series *) tool_slots[METRICS_TOOL_SERIES_MAX * 2];
static _Atomic(series *) llm_slots[METRICS_LLM_SERIES_MAX * 2];
static series_table tools = {
    tool_slots, METRICS_TOOL_SERIES_MAX * 2 - 1, 0, METRICS_TOOL_SERIES_MAX, 3, NULL};
static series_table llms = {llm_slots, METRICS_LLM_SERIES_MAX * 2 - 1, 0, METRICS_LLM_SERIES_MAX, 2,
                            NULL};
static atomic_long tools_in_flight;
static atomic_uint_least64_t compactions_ok, compactions_failed;
static const double duration_bounds[METRICS_DURATION_BUCKET_COUNT] = METRICS_DURATION_BUCKETS;

/* --- series ------------------------------------------------------------------ */

/* A label value as stored: "unknown" for NULL or "", control characters
 * as '_', cut on a UTF-8 character boundary. */
static void label_clean(char out[METRICS_LABEL_MAX], const char *v)
{
    if (!v || !*v)
        v = METRICS_UNKNOWN_TOOL;
    size_t n = strnlen(v, METRICS_LABEL_MAX);
    if (n == METRICS_LABEL_MAX) {
        n = METRICS_LABEL_MAX - 1;
        while (n > 0 && ((unsigned char)v[n] & 0xC0) == 0x80)
            n--;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        out[i] = c < 0x20 || c == 0x7f ? '_' : (char)c;
    }
    out[n] = '\0';
}

/* FNV-1a over the values, each with its terminating NUL. */
static uint64_t labels_hash(char label[LABELS][METRICS_LABEL_MAX], int n)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++)
        for (const char *p = label[i];; p++) {
            h = (h ^ (unsigned char)*p) * 1099511628211ULL;
            if (!*p)
                break;
        }
    return h;
}

static series *series_new(char label[LABELS][METRICS_LABEL_MAX], uint64_t hash)
{
    series *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->hash = hash;
    memcpy(s->label, label, sizeof s->label);
    for (int i = 0; i < TOOL_VALUES; i++)
        atomic_init(&s->value[i], 0);
    return s;
}

static series *overflow_series(series_table *t)
{
    series *s = atomic_load_explicit(&t->overflow, memory_order_acquire);
    if (s)
        return s;
    char label[LABELS][METRICS_LABEL_MAX] = {{0}};
    for (int i = 0; i < t->labels; i++)
        label_clean(label[i], METRICS_OTHER);
    series *fresh = series_new(label, 0);
    if (!fresh)
        return NULL;
    series *expected = NULL;
    if (atomic_compare_exchange_strong(&t->overflow, &expected, fresh))
        return fresh;
    free(fresh);
    return expected;
}

/* The series of these label values, created on first use; the overflow
 * series past the cap; NULL only when out of memory (the call is then not
 * counted). */
static series *series_get(series_table *t, const char *const values[LABELS])
{
    char label[LABELS][METRICS_LABEL_MAX] = {{0}};
    for (int i = 0; i < t->labels; i++)
        label_clean(label[i], values[i]);
    uint64_t hash = labels_hash(label, t->labels);
    for (unsigned probe = 0, i = (unsigned)hash & t->mask; probe <= t->mask;
         probe++, i = (i + 1) & t->mask) {
        series *s = atomic_load_explicit(&t->slot[i], memory_order_acquire);
        if (!s) {
            if (atomic_load_explicit(&t->count, memory_order_relaxed) >= t->max)
                return overflow_series(t);
            series *fresh = series_new(label, hash);
            if (!fresh)
                return NULL;
            series *expected = NULL;
            if (atomic_compare_exchange_strong(&t->slot[i], &expected, fresh)) {
                atomic_fetch_add_explicit(&t->count, 1, memory_order_relaxed);
                return fresh;
            }
            free(fresh);
            s = expected; /* another thread filled the slot: maybe with ours */
        }
        if (s->hash == hash && memcmp(s->label, label, sizeof label) == 0)
            return s;
    }
    return overflow_series(t);
}

static void add(series *s, int slot, uint64_t n)
{
    atomic_fetch_add_explicit(&s->value[slot], n, memory_order_relaxed);
}

static uint64_t get(series *s, int slot)
{
    return atomic_load_explicit(&s->value[slot], memory_order_relaxed);
}

/* --- recording ------------------------------------------------------------------ */

void metrics_tool_call_begin(void)
{
    atomic_fetch_add_explicit(&tools_in_flight, 1, memory_order_relaxed);
}

void metrics_tool_call_end(const char *tool, const char *interface, const char *transport,
                           int failed, double seconds)
{
    atomic_fetch_sub_explicit(&tools_in_flight, 1, memory_order_relaxed);
    const char *values[LABELS] = {tool, interface, transport};
    series *s = series_get(&tools, values);
    if (!s)
        return;
    if (seconds < 0)
        seconds = 0;
    int bucket = 0;
    while (bucket < METRICS_DURATION_BUCKET_COUNT && seconds > duration_bounds[bucket])
        bucket++;
    add(s, TOOL_CALLS, 1);
    if (failed)
        add(s, TOOL_ERRORS, 1);
    add(s, TOOL_SUM_US, (uint64_t)(seconds * 1e6 + 0.5));
    add(s, TOOL_BUCKETS + bucket, 1);
}

long metrics_tool_calls_in_flight(void)
{
    return atomic_load_explicit(&tools_in_flight, memory_order_relaxed);
}

void metrics_llm_call(const char *provider, const char *model, long prompt_tokens,
                      long completion_tokens, int retries, int failed)
{
    const char *values[LABELS] = {provider, model, NULL};
    series *s = series_get(&llms, values);
    if (!s)
        return;
    add(s, LLM_CALLS, 1);
    if (failed)
        add(s, LLM_ERRORS, 1);
    if (retries > 0)
        add(s, LLM_RETRIES, (uint64_t)retries);
    if (prompt_tokens > 0)
        add(s, LLM_PROMPT, (uint64_t)prompt_tokens);
    if (completion_tokens > 0)
        add(s, LLM_COMPLETION, (uint64_t)completion_tokens);
}

void metrics_compaction_run(int failed)
{
    atomic_fetch_add_explicit(failed ? &compactions_failed : &compactions_ok, 1,
                              memory_order_relaxed);
}

/* --- reading ---------------------------------------------------------------------- */

static void table_reset(series_table *t)
{
    for (unsigned i = 0; i <= t->mask; i++)
        free(atomic_exchange(&t->slot[i], NULL));
    free(atomic_exchange(&t->overflow, NULL));
    atomic_store(&t->count, 0);
}

void metrics_reset(void)
{
    table_reset(&tools);
    table_reset(&llms);
    atomic_store(&tools_in_flight, 0);
    atomic_store(&compactions_ok, 0);
    atomic_store(&compactions_failed, 0);
}

static int series_cmp(const void *a, const void *b)
{
    const series *x = *(series *const *)a, *y = *(series *const *)b;
    for (int i = 0; i < LABELS; i++) {
        int c = strcmp(x->label[i], y->label[i]);
        if (c)
            return c;
    }
    return 0;
}

/* The table's series, the overflow one included, sorted by label values
 * (malloc'd, *n of them; NULL with *n = 0 when out of memory). A real
 * series may carry the overflow series' labels ("other" is a valid tool
 * name): the renderers add up each run of equal labels (run_end). */
static series **table_list(series_table *t, size_t *n)
{
    *n = 0;
    series **list = malloc(((size_t)t->mask + 2) * sizeof *list);
    if (!list)
        return NULL;
    for (unsigned i = 0; i <= t->mask; i++) {
        series *s = atomic_load_explicit(&t->slot[i], memory_order_acquire);
        if (s)
            list[(*n)++] = s;
    }
    series *over = atomic_load_explicit(&t->overflow, memory_order_acquire);
    if (over)
        list[(*n)++] = over;
    qsort(list, *n, sizeof *list, series_cmp);
    return list;
}

/* The end of the run of series from `from` whose first `labels` values
 * equal list[from]'s. */
static size_t run_end(series **list, size_t n, size_t from, int labels)
{
    size_t to = from + 1;
    for (; to < n; to++)
        for (int i = 0; i < labels; i++)
            if (strcmp(list[to]->label[i], list[from]->label[i]) != 0)
                return to;
    return to;
}

/* The sum of one value over list[from, to). */
static uint64_t run_sum(series **list, size_t from, size_t to, int slot)
{
    uint64_t sum = 0;
    for (size_t i = from; i < to; i++)
        sum += get(list[i], slot);
    return sum;
}

long long metrics_resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    long long size = 0, resident = -1;
    int got = fscanf(f, "%lld %lld", &size, &resident);
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return got == 2 && resident >= 0 && page > 0 ? resident * page : -1;
}

void metrics_gauges_init(metrics_gauges *g)
{
    memset(g, 0, sizeof *g);
    g->start_time = -1;
    g->resident_bytes = g->audit_rows = g->audit_bytes = -1;
    g->audit_oldest_s = -1;
    g->audit_written = g->audit_failed = -1;
    g->embed_pending = g->embed_due = g->embed_failing = -1;
    g->http_open = g->http_waiting = g->http_accepted = g->http_refused = -1;
    g->http_sessions = g->http_in_flight = -1;
    g->trace_exported = g->trace_dropped_full = g->trace_dropped_error = -1;
    g->trace_failures = g->trace_queued = -1;
}

/* --- rendering ----------------------------------------------------------------------- */

static void family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value with \, " and newline escaped (the format's three). */
static void label_value(FILE *f, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fputc('\\', f);
        if (*v == '\n')
            fputs("\\n", f);
        else
            fputc(*v, f);
    }
}

/* name{a="x",b="y"} with the first n names and values; no braces when 0. */
static void sample_name(FILE *f, const char *name, const char *const *names,
                        const char *const *values, int n)
{
    fputs(name, f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s%s=\"", i ? "," : "{", names[i]);
        label_value(f, values[i]);
        fputc('"', f);
    }
    if (n)
        fputc('}', f);
}

static void sample_u64(FILE *f, const char *name, const char *const *names,
                       const char *const *values, int n, uint64_t v)
{
    sample_name(f, name, names, values, n);
    fprintf(f, " %llu\n", (unsigned long long)v);
}

/* Whole numbers print as integers, the rest with microsecond precision. */
static void sample_double(FILE *f, const char *name, const char *const *names,
                          const char *const *values, int n, double v)
{
    sample_name(f, name, names, values, n);
    if (v == (double)(long long)v && v < 1e15 && v > -1e15)
        fprintf(f, " %lld\n", (long long)v);
    else
        fprintf(f, " %.6f\n", v);
}

/* A gauge without labels; left out when v < 0. */
static void gauge(FILE *f, const char *name, const char *help, double v)
{
    if (v < 0)
        return;
    family(f, name, "gauge", help);
    sample_double(f, name, NULL, NULL, 0, v);
}

/* A counter without labels; left out when v < 0. */
static void counter(FILE *f, const char *name, const char *help, long long v)
{
    if (v < 0)
        return;
    family(f, name, "counter", help);
    sample_u64(f, name, NULL, NULL, 0, (uint64_t)v);
}

static const char *const tool_labels[] = {"tool", "interface", "transport"};

static void render_tool_counts(FILE *f, series **list, size_t n)
{
    static const struct {
        const char *name, *help;
        int slot;
    } counters[] = {
        {"dbmcp_tool_calls_total",
         "Tool calls that reached the dispatch path, by tool, interface and transport.",
         TOOL_CALLS},
        {"dbmcp_tool_call_errors_total",
         "Tool calls that did not end ok (JSON-RPC error, isError result, denied, cancelled).",
         TOOL_ERRORS},
    };
    for (size_t c = 0; c < sizeof counters / sizeof counters[0]; c++) {
        family(f, counters[c].name, "counter", counters[c].help);
        for (size_t from = 0, to; from < n; from = to) {
            to = run_end(list, n, from, 3);
            const char *v[] = {list[from]->label[0], list[from]->label[1], list[from]->label[2]};
            sample_u64(f, counters[c].name, tool_labels, v, 3,
                       run_sum(list, from, to, counters[c].slot));
        }
    }
    family(f, "dbmcp_tool_calls_in_flight", "gauge", "Tool calls running now.");
    long flying = metrics_tool_calls_in_flight();
    sample_u64(f, "dbmcp_tool_calls_in_flight", NULL, NULL, 0, (uint64_t)(flying > 0 ? flying : 0));
}

/* One tool's histogram from the series list[from, to) (same tool). */
static void render_tool_histogram(FILE *f, series **list, size_t from, size_t to)
{
    static const char *const le_names[] = {"tool", "le"};
    static const char *const bounds[] = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5",
                                         "1",     "2.5",  "5",     "10",   "30",  "60",   "+Inf"};
    const char *tool = list[from]->label[0];
    uint64_t cumulative = 0;
    for (int b = 0; b <= METRICS_DURATION_BUCKET_COUNT; b++) {
        cumulative += run_sum(list, from, to, TOOL_BUCKETS + b);
        const char *v[] = {tool, bounds[b]};
        sample_u64(f, "dbmcp_tool_call_duration_seconds_bucket", le_names, v, 2, cumulative);
    }
    const char *v[] = {tool};
    sample_double(f, "dbmcp_tool_call_duration_seconds_sum", le_names, v, 1,
                  (double)run_sum(list, from, to, TOOL_SUM_US) / 1e6);
    sample_u64(f, "dbmcp_tool_call_duration_seconds_count", le_names, v, 1, cumulative);
}

static void render_tools(FILE *f)
{
    size_t n;
    series **list = table_list(&tools, &n);
    render_tool_counts(f, list, n);
    family(f, "dbmcp_tool_call_duration_seconds", "histogram",
           "Time from the start of a tool call to its answer (audit included), by tool.");
    for (size_t from = 0, to; from < n; from = to) {
        to = run_end(list, n, from, 1);
        render_tool_histogram(f, list, from, to);
    }
    free(list);
}

static void render_llm(FILE *f)
{
    static const char *const names[] = {"provider", "model", "type"};
    static const struct {
        const char *name, *help;
        int slot;
    } counters[] = {
        {"dbmcp_llm_calls_total", "Calls to the language model (retries included in one).",
         LLM_CALLS},
        {"dbmcp_llm_call_errors_total", "Calls to the language model that failed in the end.",
         LLM_ERRORS},
        {"dbmcp_llm_retries_total", "HTTP attempts beyond the first of each call.", LLM_RETRIES},
    };
    size_t n;
    series **list = table_list(&llms, &n);
    for (size_t c = 0; c < sizeof counters / sizeof counters[0]; c++) {
        family(f, counters[c].name, "counter", counters[c].help);
        for (size_t from = 0, to; from < n; from = to) {
            to = run_end(list, n, from, 2);
            const char *v[] = {list[from]->label[0], list[from]->label[1]};
            sample_u64(f, counters[c].name, names, v, 2, run_sum(list, from, to, counters[c].slot));
        }
    }
    family(f, "dbmcp_llm_tokens_total", "counter",
           "Tokens the language model reported, by type (prompt or completion).");
    for (size_t from = 0, to; from < n; from = to) {
        to = run_end(list, n, from, 2);
        const char *p[] = {list[from]->label[0], list[from]->label[1], "prompt"};
        const char *c[] = {list[from]->label[0], list[from]->label[1], "completion"};
        sample_u64(f, "dbmcp_llm_tokens_total", names, p, 3, run_sum(list, from, to, LLM_PROMPT));
        sample_u64(f, "dbmcp_llm_tokens_total", names, c, 3,
                   run_sum(list, from, to, LLM_COMPLETION));
    }
    free(list);
}

static void render_compaction(FILE *f)
{
    static const char *const names[] = {"result"};
    static const char *const ok[] = {"ok"}, *const error[] = {"error"};
    family(f, "dbmcp_memory_compaction_runs_total", "counter",
           "Scheduled memory compaction runs, by result.");
    sample_u64(f, "dbmcp_memory_compaction_runs_total", names, ok, 1,
               atomic_load_explicit(&compactions_ok, memory_order_relaxed));
    sample_u64(f, "dbmcp_memory_compaction_runs_total", names, error, 1,
               atomic_load_explicit(&compactions_failed, memory_order_relaxed));
}

static void render_process(FILE *f, const metrics_gauges *g)
{
    if (g->version) {
        static const char *const names[] = {"version"};
        const char *v[] = {g->version};
        family(f, "dbmcp_build_info", "gauge", "Always 1; the label names the dbmcp release.");
        sample_u64(f, "dbmcp_build_info", names, v, 1, 1);
    }
    gauge(f, "dbmcp_process_start_time_seconds", "Unix time the server started.", g->start_time);
    gauge(f, "dbmcp_process_resident_memory_bytes", "Resident memory of the process.",
          (double)g->resident_bytes);
}

static void render_audit(FILE *f, const metrics_gauges *g)
{
    gauge(f, "dbmcp_audit_queue_rows", "Audit rows waiting to be written.", (double)g->audit_rows);
    gauge(f, "dbmcp_audit_queue_bytes", "Bytes of the audit rows waiting to be written.",
          (double)g->audit_bytes);
    gauge(f, "dbmcp_audit_oldest_pending_seconds",
          "Age of the oldest audit row waiting to be written (0 when none).", g->audit_oldest_s);
    counter(f, "dbmcp_audit_rows_written_total", "Audit rows committed.", g->audit_written);
    counter(f, "dbmcp_audit_write_failures_total",
            "Audit batch writes the database refused (each is retried).", g->audit_failed);
}

static void render_pools(FILE *f, const metrics_gauges *g)
{
    static const char *const names[] = {"pool"};
    static const struct {
        const char *name, *type, *help;
    } fam[] = {
        {"dbmcp_db_pool_size", "gauge", "Connections a pool may open."},
        {"dbmcp_db_pool_in_use", "gauge", "Connections checked out now."},
        {"dbmcp_db_pool_waiting", "gauge", "Threads waiting for a connection now."},
        {"dbmcp_db_pool_acquires_total", "counter", "Connections checked out."},
        {"dbmcp_db_pool_acquire_waits_total", "counter",
         "Check-outs that had to wait for a connection."},
        {"dbmcp_db_pool_acquire_wait_seconds_total", "counter",
         "Time check-outs waited for a connection."},
    };
    if (g->n_pools <= 0)
        return;
    for (size_t k = 0; k < sizeof fam / sizeof fam[0]; k++) {
        family(f, fam[k].name, fam[k].type, fam[k].help);
        for (int i = 0; i < g->n_pools && i < METRICS_MAX_POOLS; i++) {
            const metrics_pool *p = &g->pools[i];
            const char *v[] = {p->name ? p->name : METRICS_UNKNOWN_TOOL};
            if (k == 5)
                sample_double(f, fam[k].name, names, v, 1, p->wait_seconds);
            else
                sample_u64(f, fam[k].name, names, v, 1,
                           k == 0   ? (uint64_t)p->size
                           : k == 1 ? (uint64_t)p->in_use
                           : k == 2 ? (uint64_t)p->waiting
                           : k == 3 ? p->acquires
                                    : p->waits);
        }
    }
}

static void render_embedding(FILE *f, const metrics_gauges *g)
{
    gauge(f, "dbmcp_embedding_jobs_pending", "Memory items waiting to be embedded.",
          (double)g->embed_pending);
    gauge(f, "dbmcp_embedding_jobs_due", "Of them, the ones due now (not backing off).",
          (double)g->embed_due);
    gauge(f, "dbmcp_embedding_jobs_failing",
          "Of them, the ones that failed at least once (given up included).",
          (double)g->embed_failing);
}

static void render_http(FILE *f, const metrics_gauges *g)
{
    gauge(f, "dbmcp_http_connections_open", "HTTP connections being served.", (double)g->http_open);
    gauge(f, "dbmcp_http_connections_waiting", "HTTP connections waiting for a slot.",
          (double)g->http_waiting);
    counter(f, "dbmcp_http_connections_accepted_total", "HTTP connections accepted.",
            g->http_accepted);
    counter(f, "dbmcp_http_connections_refused_total",
            "HTTP connections answered 503 by admission (queue full or waited too long).",
            g->http_refused);
    gauge(f, "dbmcp_http_sessions", "Legacy (2025-11-25) MCP sessions held.",
          (double)g->http_sessions);
    gauge(f, "dbmcp_http_requests_in_flight",
          "HTTP requests running on workers (the count http.max_in_flight bounds).",
          (double)g->http_in_flight);
}

static void render_traces(FILE *f, const metrics_gauges *g)
{
    counter(f, "dbmcp_trace_spans_exported_total", "Spans the OTLP collector accepted.",
            g->trace_exported);
    counter(f, "dbmcp_trace_spans_dropped_queue_full_total",
            "Spans dropped because the export queue was full (trace.queue_max).",
            g->trace_dropped_full);
    counter(f, "dbmcp_trace_spans_dropped_export_failed_total",
            "Spans dropped because the collector refused them or did not answer in time.",
            g->trace_dropped_error);
    counter(f, "dbmcp_trace_export_failures_total", "OTLP export requests that failed.",
            g->trace_failures);
    gauge(f, "dbmcp_trace_spans_queued", "Spans waiting for export.", (double)g->trace_queued);
}

char *metrics_render(const metrics_gauges *g, size_t *len)
{
    metrics_gauges none;
    if (!g) {
        metrics_gauges_init(&none);
        g = &none;
    }
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return NULL;
    render_process(f, g);
    render_tools(f);
    render_llm(f);
    render_compaction(f);
    render_audit(f, g);
    render_pools(f, g);
    render_embedding(f, g);
    render_http(f, g);
    render_traces(f, g);
    int failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        free(text);
        return NULL;
    }
    if (len)
        *len = size;
    return text;
}
