/*
 * compact.c — expiry, retention and pruning of agent memory (compact.h),
 * and the extractive summary an expired session's episode carries.
 */
#include "memory/compact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/log.h"
#include "core/replica.h"
#include "core/textnorm.h"
#include "memory/memory_internal.h"
#include "store/lease.h"
#include "store/memory_store.h"

/* --- extractive summary ------------------------------------------------------------ */

typedef struct term_table {
    char **keys;
    int *counts;
    size_t cap, used;
} term_table;

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* The slot of token s[0..n) (inserted when add). NULL when full or absent. */
static int *term_slot(term_table *t, const char *s, size_t n, int add)
{
    if (!t->cap)
        return NULL;
    for (size_t i = fnv(s, n) % t->cap, probes = 0; probes < t->cap;
         i = (i + 1) % t->cap, probes++) {
        if (!t->keys[i]) {
            if (!add || t->used * 2 >= t->cap)
                return NULL;
            t->keys[i] = strndup(s, n);
            if (!t->keys[i])
                return NULL;
            t->used++;
            return &t->counts[i];
        }
        if (strlen(t->keys[i]) == n && memcmp(t->keys[i], s, n) == 0)
            return &t->counts[i];
    }
    return NULL;
}

typedef struct sentence {
    size_t msg;        /* message index */
    size_t start, end; /* bytes in that message's text */
    double score;
    int chosen;
} sentence;

typedef struct tok_ctx {
    term_table *terms;
    int count_mode; /* 1: count into the table; 0: score */
    double sum;
    int tokens;
} tok_ctx;

static int on_token(void *ctx, const char *tok, size_t len, size_t start, size_t end, int colocated)
{
    (void)start;
    (void)end;
    tok_ctx *c = ctx;
    if (colocated || len < 3)
        return 0;
    int *slot = term_slot(c->terms, tok, len, c->count_mode);
    if (c->count_mode) {
        if (slot)
            (*slot)++;
    } else {
        c->tokens++;
        if (slot && *slot > 1)
            c->sum += log((double)*slot);
    }
    return 0;
}

static int sentence_end(const char *s, size_t i, size_t n)
{
    unsigned char c = (unsigned char)s[i];
    if (c == '\n')
        return 1;
    if ((c == '.' || c == '!' || c == '?') && (i + 1 == n || s[i + 1] == ' ' || s[i + 1] == '\n'))
        return 1;
    /* 。！？ (E3 80 82, EF BC 81, EF BC 9F): end at their last byte. */
    if (i >= 2 && ((memcmp(s + i - 2, "\xe3\x80\x82", 3) == 0) ||
                   (memcmp(s + i - 2, "\xef\xbc\x81", 3) == 0) ||
                   (memcmp(s + i - 2, "\xef\xbc\x9f", 3) == 0)))
        return 1;
    return 0;
}

static size_t split_sentences(const char *const *texts, size_t n, const char *const *roles,
                              sentence **out)
{
    size_t count = 0, cap = 0;
    *out = NULL;
    for (size_t m = 0; m < n; m++) {
        if (!texts[m] ||
            (roles[m] && strcmp(roles[m], "user") != 0 && strcmp(roles[m], "assistant") != 0))
            continue;
        size_t len = strlen(texts[m]), start = 0;
        for (size_t i = 0; i <= len; i++) {
            if (i < len && !sentence_end(texts[m], i, len))
                continue;
            size_t end = i < len ? i + 1 : len;
            while (start < end && (texts[m][start] == ' ' || texts[m][start] == '\n'))
                start++;
            if (end > start + 1) {
                if (count == cap) {
                    cap = cap ? cap * 2 : 32;
                    sentence *p = realloc(*out, cap * sizeof *p);
                    if (!p)
                        return count;
                    *out = p;
                }
                (*out)[count++] = (sentence){m, start, end, 0, 0};
            }
            start = end;
        }
    }
    return count;
}

static void append(char *buf, size_t *used, size_t size, const char *s, size_t n)
{
    if (*used + 1 >= size)
        return;
    if (n > size - 1 - *used)
        n = text_utf8_valid_prefix(s, size - 1 - *used);
    memcpy(buf + *used, s, n);
    *used += n;
    buf[*used] = '\0';
}

char *mem_summarize(const char *const *roles, const char *const *texts, size_t n, int max_sentences,
                    size_t max_bytes)
{
    sentence *sents;
    size_t ns = split_sentences(texts, n, roles, &sents);
    term_table terms = {0};
    terms.cap = 4096;
    terms.keys = calloc(terms.cap, sizeof *terms.keys);
    terms.counts = calloc(terms.cap, sizeof *terms.counts);
    if (!terms.keys || !terms.counts)
        terms.cap = 0;
    tok_ctx c = {&terms, 1, 0, 0};
    for (size_t i = 0; i < ns; i++)
        text_tokenize(texts[sents[i].msg] + sents[i].start, sents[i].end - sents[i].start,
                      TEXT_LANG_DEFAULT, on_token, &c);
    for (size_t i = 0; i < ns; i++) {
        c = (tok_ctx){&terms, 0, 0, 0};
        text_tokenize(texts[sents[i].msg] + sents[i].start, sents[i].end - sents[i].start,
                      TEXT_LANG_DEFAULT, on_token, &c);
        sents[i].score = c.tokens ? c.sum / sqrt((double)c.tokens) : 0;
    }
    for (int k = 0; k < max_sentences; k++) {
        size_t best = ns;
        for (size_t i = 0; i < ns; i++)
            if (!sents[i].chosen && (best == ns || sents[i].score > sents[best].score))
                best = i;
        if (best == ns)
            break;
        sents[best].chosen = 1;
    }
    char *buf = malloc(max_bytes + 1);
    size_t used = 0;
    if (buf) {
        buf[0] = '\0';
        for (size_t i = 0; i < ns; i++) {
            if (!sents[i].chosen)
                continue;
            const char *role = roles[sents[i].msg] ? roles[sents[i].msg] : "";
            if (used)
                append(buf, &used, max_bytes + 1, "\n", 1);
            append(buf, &used, max_bytes + 1, role, strlen(role));
            append(buf, &used, max_bytes + 1, ": ", 2);
            append(buf, &used, max_bytes + 1, texts[sents[i].msg] + sents[i].start,
                   sents[i].end - sents[i].start);
        }
    }
    for (size_t i = 0; i < terms.cap; i++)
        free(terms.keys[i]);
    free(terms.keys);
    free(terms.counts);
    free(sents);
    return buf;
}

/* --- one replica at a time ----------------------------------------------------------- */

#define COMPACT_LEASE "memory.compact"
#define COMPACT_LEASE_S 300 /* renewed before every session and episode */

/* Renew the lease before the next piece of work: 0, DBMCP_EDENIED when
 * another replica holds it now (ours ran out), or a store error. */
static int keep_lease(store *db, dbmcp_error *err)
{
    int rc = store_lease_take(db, COMPACT_LEASE, replica_id(), COMPACT_LEASE_S, NULL, 0, err);
    if (rc < 0)
        return rc;
    return rc ? 0
              : dbmcp_error_set(err, DBMCP_EDENIED,
                                "memory compaction: another replica took the lease over");
}

/* --- step 1: expired sessions → episodes ------------------------------------------ */

typedef struct expired {
    char id[65];
    mem_scope scope;
    char created_at[32], last_active_at[32];
    int64_t messages;
} expired;

typedef struct expired_list {
    expired items[64];
    size_t n;
} expired_list;

static int read_expired(void *ctx, store_stmt *row)
{
    expired_list *l = ctx;
    expired *e = &l->items[l->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->id, sizeof e->id, "%s", store_column_text(row, 0));
    snprintf(e->scope.user_id, sizeof e->scope.user_id, "%s", store_column_text(row, 1));
    snprintf(e->scope.agent_id, sizeof e->scope.agent_id, "%s", store_column_text(row, 2));
    snprintf(e->created_at, sizeof e->created_at, "%s", store_column_text(row, 3));
    snprintf(e->last_active_at, sizeof e->last_active_at, "%s", store_column_text(row, 4));
    e->messages = store_column_int(row, 5);
    return l->n == 64;
}

typedef struct texts {
    char **roles, **texts;
    size_t n, cap;
} texts;

static int read_text(void *ctx, store_stmt *row)
{
    texts *t = ctx;
    if (t->n == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 32;
        char **r = realloc(t->roles, ncap * sizeof *r);
        if (r)
            t->roles = r;
        char **x = realloc(t->texts, ncap * sizeof *x);
        if (x)
            t->texts = x;
        if (!r || !x)
            return 1;
        t->cap = ncap;
    }
    t->roles[t->n] = strdup(store_column_text(row, 1));
    t->texts[t->n] = strdup(store_column_text(row, 2));
    t->n++;
    return 0;
}

static void texts_free(texts *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->roles[i]);
        free(t->texts[i]);
    }
    free(t->roles);
    free(t->texts);
}

/* The episode's description: the first user message, cut at 200 bytes. */
static void describe(const texts *t, char out[256])
{
    const char *first = NULL;
    for (size_t i = 0; i < t->n && !first; i++)
        if (strcmp(t->roles[i], "user") == 0 && t->texts[i][0])
            first = t->texts[i];
    if (!first)
        first = t->n ? t->texts[0] : "";
    size_t n = text_utf8_valid_prefix(first, strlen(first) > 200 ? 200 : strlen(first));
    snprintf(out, 256, "Session: %.*s", (int)n, first);
}

static int abort_countdown = -1;
static mem_summary_fn summarizer;

void mem_compact_set_summarizer(mem_summary_fn fn)
{
    summarizer = fn;
}

/* The summary of t: the summariser's when it gives one, else extractive.
 * *kind says which. NULL on allocation failure. */
static char *summarize(store *db, const expired *e, const texts *t, const char **kind)
{
    const char *const *roles = (const char *const *)t->roles;
    const char *const *msgs = (const char *const *)t->texts;
    if (summarizer) {
        char *out = NULL;
        dbmcp_error serr;
        dbmcp_error_clear(&serr);
        int rc = summarizer(db, roles, msgs, t->n, &out, &serr);
        if (rc == 0 && out && *out) {
            *kind = "llm";
            return out;
        }
        free(out);
        if (rc != DBMCP_ENOTFOUND)
            log_msg(LOG_WARN, "memory",
                    "session %s: LLM summary failed, using the extractive summary: %s", e->id,
                    rc ? serr.message : "empty summary");
    }
    *kind = "extractive";
    return mem_summarize(roles, msgs, t->n, 5, 1500);
}

static int count_row(void *ctx, store_stmt *row)
{
    (void)row;
    (*(size_t *)ctx)++;
    return 0;
}

/* *episode_id: the new episode, 0 for a session without messages, -1 when
 * the session got messages while its summary was written (left for a later
 * run, once it expires again). */
static int compact_session(store *db, const expired *e, int64_t *episode_id, dbmcp_error *err)
{
    const char *u = e->scope.user_id, *a = e->scope.agent_id;
    texts t = {0};
    int rc = mstore_history(db, u, a, e->id, 0, read_text, &t, err);
    char *summary = NULL, desc[256], *text = NULL;
    const char *kind = "extractive";
    if (rc == 0 && t.n) {
        summary = summarize(db, e, &t, &kind); /* before the transaction: may call an LLM */
        describe(&t, desc);
        size_t len = strlen(desc) + (summary ? strlen(summary) : 0) + 2;
        text = malloc(len);
        if (!summary || !text)
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        else
            snprintf(text, len, "%s%s%s", desc, *summary ? "\n" : "", summary);
    }
    if (rc == 0)
        rc = store_begin(db, err);
    if (rc) {
        texts_free(&t);
        free(summary);
        free(text);
        return rc;
    }
    *episode_id = 0;
    size_t now_n = 0; /* the summary was written outside the transaction: still whole? */
    rc = mstore_history(db, u, a, e->id, 0, count_row, &now_n, err);
    if (rc == 0 && now_n != t.n) {
        store_rollback(db);
        texts_free(&t);
        free(summary);
        free(text);
        *episode_id = -1;
        return 0;
    }
    if (rc == 0 && t.n) {
        char meta[128];
        snprintf(meta, sizeof meta,
                 "{\"source\":\"compaction\",\"messages\":%zu,\"summary\":\"%s\"}", t.n, kind);
        mstore_episode ep = {e->id,         "session",         desc, "partial", summary,
                             e->created_at, e->last_active_at, meta};
        int dedup;
        rc = mem_episode_save_tx(db, &e->scope, &ep, text, episode_id, &dedup, err);
    }
    if (rc == 0 && abort_countdown > 0 && --abort_countdown == 0)
        abort(); /* DBMCP_TEST_COMPACT_ABORT: crash inside the transaction */
    if (rc == 0)
        rc = mstore_session_mark_compacted(db, u, a, e->id, *episode_id, err);
    if (rc == 0)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    texts_free(&t);
    free(summary);
    free(text);
    return rc;
}

static int compact_sessions(store *db, const mem_config *cfg, mem_compact_stats *stats,
                            dbmcp_error *err)
{
    char before[32];
    mem_time_ago((double)cfg->session_idle_s, before);
    for (;;) {
        expired_list l = {.n = 0};
        int rc = mstore_sessions_expired_all_scopes(db, before, 64, read_expired, &l, err);
        if (rc || l.n == 0)
            return rc;
        size_t skipped = 0;
        for (size_t i = 0; i < l.n; i++) {
            double t0 = ids_monotonic_ms();
            int64_t episode = 0;
            if ((rc = keep_lease(db, err)) ||
                (rc = compact_session(db, &l.items[i], &episode, err)))
                return rc;
            if (episode < 0) {
                log_msg(LOG_INFO, "memory", "session %s changed while being summarised; left",
                        l.items[i].id);
                skipped++;
                continue;
            }
            if (episode)
                stats->sessions_expired++;
            else
                stats->sessions_empty++;
            mem_log(db, &l.items[i].scope, "compact_session", l.items[i].id, episode ? 1 : 0,
                    ids_monotonic_ms() - t0);
        }
        if (skipped == l.n)
            return 0; /* nothing but changed sessions: the next run takes them */
    }
}

/* --- step 2: retention ------------------------------------------------------------------ */

typedef struct retained {
    int64_t episode;
    mem_scope scope;
    char session[65];
} retained;

typedef struct retained_list {
    retained items[64];
    size_t n;
} retained_list;

static int read_retained(void *ctx, store_stmt *row)
{
    retained_list *l = ctx;
    retained *r = &l->items[l->n++];
    memset(r, 0, sizeof *r);
    r->episode = store_column_int(row, 0);
    snprintf(r->scope.user_id, sizeof r->scope.user_id, "%s", store_column_text(row, 1));
    snprintf(r->scope.agent_id, sizeof r->scope.agent_id, "%s", store_column_text(row, 2));
    snprintf(r->session, sizeof r->session, "%s", store_column_text(row, 3));
    return l->n == 64;
}

static int compact_retention(store *db, const mem_config *cfg, mem_compact_stats *stats,
                             dbmcp_error *err)
{
    char before[32], now[32];
    mem_time_ago((double)cfg->episode_retention_s, before);
    for (;;) {
        retained_list l = {.n = 0};
        int rc = mstore_episodes_past_retention_all_scopes(db, before, 64, read_retained, &l, err);
        if (rc || l.n == 0)
            return rc;
        for (size_t i = 0; i < l.n; i++) {
            retained *r = &l.items[i];
            int64_t dropped = 0;
            ids_now_iso(now);
            if ((rc = keep_lease(db, err)) || (rc = store_begin(db, err)))
                return rc;
            rc = mstore_episode_drop_messages(db, r->scope.user_id, r->scope.agent_id, r->episode,
                                              r->session, now, &dropped, err);
            if (rc == 0)
                rc = store_commit(db, err);
            if (rc) {
                store_rollback(db);
                return rc;
            }
            stats->episodes_compacted++;
            stats->messages_dropped += dropped;
            mem_log(db, &r->scope, "compact_episode", r->session, dropped, 0);
        }
    }
}

/* --- step 3 and the whole ------------------------------------------------------------------ */

int mem_compact(store *db, const mem_config *cfg, mem_compact_stats *stats, dbmcp_error *err)
{
    memset(stats, 0, sizeof *stats);
    int rc = store_lease_take(db, COMPACT_LEASE, replica_id(), COMPACT_LEASE_S, stats->busy_with,
                              sizeof stats->busy_with, err);
    if (rc <= 0)
        return rc; /* 0: another replica is compacting (stats->busy_with) */
    stats->busy_with[0] = '\0';
    const char *abort_env = getenv("DBMCP_TEST_COMPACT_ABORT");
    abort_countdown = abort_env ? atoi(abort_env) : -1;
    rc = compact_sessions(db, cfg, stats, err);
    if (rc == 0)
        rc = compact_retention(db, cfg, stats, err);
    if (rc == 0 && (rc = store_begin(db, err)) == 0) {
        char before[32];
        if (cfg->knowledge_retention_s > 0)
            mem_time_ago((double)cfg->knowledge_retention_s, before);
        rc = mstore_knowledge_prune_all_scopes(db, (int)cfg->knowledge_keep_versions,
                                               cfg->knowledge_retention_s > 0 ? before : NULL,
                                               &stats->knowledge_pruned, err);
        if (rc == 0)
            rc = store_commit(db, err);
        if (rc)
            store_rollback(db);
    }
    dbmcp_error rerr;
    if (store_lease_release(db, COMPACT_LEASE, replica_id(), &rerr) != 0)
        log_msg(LOG_WARN, "memory", "compaction lease not released (it runs out in %d s): %s",
                COMPACT_LEASE_S, rerr.message);
    return rc;
}
