/*
 * memory.c — what every tier of agent memory shares (contract in
 * memory.h): scope resolution, settings, ISO-8601 times, content
 * normalisation and hashing for de-duplication, metadata checks and the
 * memory log. The tiers: working.c, episodes.c, knowledge.c, links.c.
 */
#include "memory/memory.h"

#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <utf8proc.h>

#include "core/ids.h"
#include "core/log.h"
#include "search/ann.h"
#include "search/engine.h"
#include "memory/memory_internal.h"
#include "store/memory_store.h"

/* --- scope ------------------------------------------------------------------ */

int mem_scope_resolve(const char *key_user, const char *key_agent, const char *requested_agent,
                      mem_scope *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!key_user || !*key_user)
        return dbmcp_error_set(err, DBMCP_EDENIED, "memory needs a caller with a user identity");
    if (strlen(key_user) >= MEM_ID_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL, "user id is longer than %d bytes",
                               MEM_ID_MAX - 1);
    const char *agent = requested_agent && *requested_agent ? requested_agent : NULL;
    if (key_agent && *key_agent) {
        if (agent && strcmp(agent, key_agent) != 0)
            return dbmcp_error_set(err, DBMCP_EDENIED,
                                   "agent: this API key may only use agent '%.64s'", key_agent);
        agent = key_agent;
    }
    if (!agent)
        agent = MEM_DEFAULT_AGENT;
    size_t n = strlen(agent);
    if (n >= MEM_ID_MAX)
        return dbmcp_error_set(err, DBMCP_EINVAL, "agent: longer than %d bytes", MEM_ID_MAX - 1);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)agent[i] < 0x20)
            return dbmcp_error_set(err, DBMCP_EINVAL, "agent: control characters are not allowed");
    memcpy(out->user_id, key_user, strlen(key_user) + 1);
    memcpy(out->agent_id, agent, n + 1);
    return 0;
}

/* --- settings ----------------------------------------------------------------- */

void mem_config_default(mem_config *c)
{
    c->max_content_bytes = 65536;
    c->session_idle_s = 1800;
    c->episode_retention_s = 90L * 86400;
    c->knowledge_keep_versions = 10;
    c->knowledge_retention_s = 0;
    c->half_life_s = 7.0 * 86400;
    c->frequency_weight = 0.1;
    c->recency_weight = 0.3;
    c->rrf_k = 60;
    c->vector_weight_builtin = MEM_VECTOR_WEIGHT_BUILTIN;
    c->vector_weight_http = SEARCH_WEIGHT_VECTOR_HTTP;
    c->min_relevance = MEM_MIN_RELEVANCE;
    c->max_results = 50;
    c->keyword_rows_max = SEARCH_KEYWORD_ROWS_DEFAULT;
    c->job_max_attempts = 8;
    c->job_backoff_s = 5;
    c->job_lease_s = 300;
    c->vector_refresh_s = 10;
    c->ann_min_vectors = SEARCH_ANN_MIN_VECTORS_DEFAULT;
    c->ann_ef = SEARCH_ANN_EF_DEFAULT;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

static int config_row(void *ctx, store_stmt *row)
{
    mem_config *c = ctx;
    const char *k = store_column_text(row, 0), *v = store_column_text(row, 1);
    if (!k || !v)
        return 0;
    k += strlen("memory.");
    static const struct {
        const char *name;
        size_t off;
        long lo, hi;
    } longs[] = {
        {"max_content_bytes", offsetof(mem_config, max_content_bytes), 16, 16L << 20},
        {"session_idle_s", offsetof(mem_config, session_idle_s), 1, 365L * 86400},
        {"episode_retention_s", offsetof(mem_config, episode_retention_s), 0, 100L * 365 * 86400},
        {"knowledge_keep_versions", offsetof(mem_config, knowledge_keep_versions), 0, 1000000},
        {"knowledge_retention_s", offsetof(mem_config, knowledge_retention_s), 0,
         100L * 365 * 86400},
        {"max_results", offsetof(mem_config, max_results), 1, 200},
        {"keyword_rows_max", offsetof(mem_config, keyword_rows_max), 100, SEARCH_KEYWORD_ROWS_MAX},
        {"job_max_attempts", offsetof(mem_config, job_max_attempts), 1, 100},
        {"job_backoff_s", offsetof(mem_config, job_backoff_s), 0, 86400},
        {"job_lease_s", offsetof(mem_config, job_lease_s), 1, 86400},
        {"ann_min_vectors", offsetof(mem_config, ann_min_vectors), -1, 1L << 40},
        {"ann_ef", offsetof(mem_config, ann_ef), 1, SEARCH_ANN_EF_MAX},
    };
    static const struct {
        const char *name;
        size_t off;
        double lo, hi;
    } doubles[] = {
        {"recency_half_life_s", offsetof(mem_config, half_life_s), 0, 1e10},
        {"frequency_weight", offsetof(mem_config, frequency_weight), 0, 10},
        {"recency_weight", offsetof(mem_config, recency_weight), 0, 1},
        {"rrf_k", offsetof(mem_config, rrf_k), 1, 10000},
        {"vector_weight.builtin", offsetof(mem_config, vector_weight_builtin), 0, 100},
        {"vector_weight.http", offsetof(mem_config, vector_weight_http), 0, 100},
        {"min_relevance", offsetof(mem_config, min_relevance), 0, 1},
        {"vector_refresh_s", offsetof(mem_config, vector_refresh_s), 0, 86400},
    };
    for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++)
        if (strcmp(k, longs[i].name) == 0 &&
            parse_long(v, longs[i].lo, longs[i].hi, (long *)((char *)c + longs[i].off)) != 0)
            log_msg(LOG_WARN, "memory", "setting memory.%s = '%.32s' ignored (not in %ld..%ld)", k,
                    v, longs[i].lo, longs[i].hi);
    for (size_t i = 0; i < sizeof doubles / sizeof doubles[0]; i++)
        if (strcmp(k, doubles[i].name) == 0 &&
            parse_double(v, doubles[i].lo, doubles[i].hi, (double *)((char *)c + doubles[i].off)) !=
                0)
            log_msg(LOG_WARN, "memory", "setting memory.%s = '%.32s' ignored (not in %g..%g)", k, v,
                    doubles[i].lo, doubles[i].hi);
    return 0;
}

void mem_config_load(store *db, mem_config *c)
{
    mem_config_default(c);
    dbmcp_error err;
    if (mstore_settings(db, config_row, c, &err) != 0)
        log_msg(LOG_WARN, "memory", "memory settings not read: %s", err.message);
}

/* --- times, text, hashes ---------------------------------------------------------- */

static int read_digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return -1;
        v = v * 10 + (**p - '0');
    }
    *out = v;
    return 0;
}

static int time_error(const char *field, const char *in, dbmcp_error *err)
{
    return dbmcp_error_set(err, DBMCP_EINVAL,
                           "%s: '%.40s' is not an ISO-8601 time (expected YYYY-MM-DD,"
                           " optionally THH:MM[:SS[.fff]] and Z or ±HH:MM)",
                           field, in);
}

/* secs + ms as "YYYY-MM-DDTHH:MM:SS.mmmZ" into out[32]. */
static void format_iso(time_t secs, int ms, char out[32])
{
    struct tm utc;
    gmtime_r(&secs, &utc);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(out + n, 32 - n, ".%03uZ", (unsigned)ms % 1000u);
}

int mem_time_normalize(const char *field, const char *in, char out[32], dbmcp_error *err)
{
    const char *p = in;
    int y, mo, d, h = 0, mi = 0, s = 0, ms = 0, off = 0;
    if (!in || strlen(in) > 40 || read_digits(&p, 4, &y) || *p++ != '-' ||
        read_digits(&p, 2, &mo) || *p++ != '-' || read_digits(&p, 2, &d))
        return time_error(field, in ? in : "", err);
    if (*p == 'T' || *p == 't' || *p == ' ') {
        p++;
        if (read_digits(&p, 2, &h) || *p++ != ':' || read_digits(&p, 2, &mi))
            return time_error(field, in, err);
        if (*p == ':') {
            p++;
            if (read_digits(&p, 2, &s))
                return time_error(field, in, err);
            if (*p == '.') {
                p++;
                int digits = 0, frac = 0;
                while (*p >= '0' && *p <= '9') {
                    if (digits < 3)
                        frac = frac * 10 + (*p - '0');
                    digits++;
                    p++;
                }
                if (!digits || digits > 9)
                    return time_error(field, in, err);
                for (int i = digits; i < 3; i++)
                    frac *= 10;
                ms = frac;
            }
        }
        if (*p == 'Z' || *p == 'z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int sign = *p++ == '-' ? -1 : 1, oh, om;
            if (read_digits(&p, 2, &oh) || *p++ != ':' || read_digits(&p, 2, &om) || oh > 23 ||
                om > 59)
                return time_error(field, in, err);
            off = sign * (oh * 60 + om);
        }
    }
    if (*p)
        return time_error(field, in, err);
    static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] ||
        (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 || s > 60)
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s: '%.40s' is not a valid date and time", field,
                               in);
    struct tm tm = {0};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    format_iso(timegm(&tm) - (time_t)off * 60, ms, out);
    return 0;
}

char *mem_text_normalize(const char *field, const char *text, long max_bytes, dbmcp_error *err)
{
    size_t n = text ? strlen(text) : 0;
    if (max_bytes > 0 && n > (size_t)max_bytes) {
        dbmcp_error_set(err, DBMCP_ETOOBIG,
                        "%s is %zu bytes; the limit is %ld (setting memory.max_content_bytes)",
                        field, n, max_bytes);
        return NULL;
    }
    utf8proc_uint8_t *nfc = NULL;
    utf8proc_ssize_t len = utf8proc_map((const utf8proc_uint8_t *)(text ? text : ""), (ssize_t)n,
                                        &nfc, UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (len < 0) {
        dbmcp_error_set(err, DBMCP_EINVAL, "%s: not valid UTF-8", field);
        return NULL;
    }
    char *s = (char *)nfc, *w = s;
    for (const char *r = s; *r; r++)
        if (!(r[0] == '\r' && r[1] == '\n'))
            *w++ = *r;
    *w = '\0';
    char *start = s;
    while (*start == ' ' || *start == '\t' || *start == '\n' || *start == '\r')
        start++;
    char *end = start + strlen(start);
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
        end--;
    *end = '\0';
    memmove(s, start, (size_t)(end - start) + 1);
    return s;
}

void mem_hash_hex(const char *s, size_t n, char out[33])
{
    unsigned char h[16];
    crypto_generichash(h, sizeof h, (const unsigned char *)s, n, NULL, 0);
    sodium_bin2hex(out, 33, h, sizeof h);
}

/* --- the log ----------------------------------------------------------------------- */

void mem_log(store *db, const mem_scope *scope, const char *operation, const char *target,
             int64_t results, double ms)
{
    char now[32];
    ids_now_iso(now);
    dbmcp_error err;
    if (mstore_log_insert(db, scope->user_id, scope->agent_id, operation, target, results, ms, now,
                          &err) != 0)
        log_msg(LOG_WARN, "memory", "memory log row not written: %s", err.message);
}

void mem_time_ago(double seconds, char out[32])
{
    ids_iso_from_now(-seconds, out);
}

int mem_check_metadata(const char *text, dbmcp_error *err)
{
    if (!text)
        return 0;
    if (strlen(text) > 16384)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "metadata: larger than 16384 bytes");
    json_error_t jerr;
    json_t *v = json_loads(text, 0, &jerr);
    int ok = json_is_object(v);
    json_decref(v);
    return ok ? 0 : dbmcp_error_set(err, DBMCP_EINVAL, "metadata: must be a JSON object");
}
