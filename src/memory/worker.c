/*
 * worker.c — the embedding job runner and the background thread of
 * `dbmcp serve` that drives it and the compaction schedule (worker.h).
 */
#include "memory/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/ids.h"
#include "core/metrics.h"
#include "core/log.h"
#include "core/replica.h"
#include "memory/compact.h"
#include "search/content_words.h"
#include "memory/recall.h"
#include "search/embed.h"
#include "store/memory_store.h"
#include "store/registry.h"

#define JOB_BATCH 32

/* --- running jobs --------------------------------------------------------------- */

typedef struct job {
    int64_t item_id;
    char *user_id, *agent_id, *text;
    int attempts;
} job;

typedef struct job_batch {
    job items[JOB_BATCH];
    size_t n;
} job_batch;

static int read_job(void *ctx, store_stmt *row)
{
    job_batch *b = ctx;
    job *j = &b->items[b->n];
    j->item_id = store_column_int(row, 0);
    j->user_id = strdup(store_column_text(row, 1));
    j->agent_id = strdup(store_column_text(row, 2));
    j->text = content_text(store_column_text(row, 3));
    j->attempts = (int)store_column_int(row, 4);
    b->n++;
    return b->n == JOB_BATCH;
}

static void batch_free(job_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->items[i].user_id);
        free(b->items[i].agent_id);
        free(b->items[i].text);
    }
    b->n = 0;
}

/* Record a failed attempt for every job of the batch, releasing its claim. */
static int batch_failed(store *db, const mem_config *cfg, job_batch *b, const char *why,
                        dbmcp_error *err)
{
    for (size_t i = 0; i < b->n; i++) {
        job *j = &b->items[i];
        int attempts = j->attempts + 1;
        double delay = (double)cfg->job_backoff_s;
        for (int k = 1; k < attempts && delay < 3600; k++)
            delay *= 2;
        if (delay > 3600)
            delay = 3600;
        char next[32];
        if (attempts >= cfg->job_max_attempts)
            snprintf(next, sizeof next, "9999-12-31T00:00:00.000Z"); /* given up */
        else
            mem_time_ago(-delay, next);
        int rc = mstore_job_fail(db, j->item_id, replica_id(), attempts, next, why, err);
        if (rc)
            return rc;
    }
    return 0;
}

static int run_batch(store *db, const mem_config *cfg, embedder *emb, job_batch *b, int *done,
                     int *failed, dbmcp_error *err)
{
    int dim = embedder_dim(emb);
    dbmcp_error eerr;
    if (dim <= 0 && embedder_probe(emb, &eerr) == 0)
        dim = embedder_dim(emb);
    float *vecs = dim > 0 ? malloc(b->n * (size_t)dim * sizeof *vecs) : NULL;
    const char *texts[JOB_BATCH];
    for (size_t i = 0; i < b->n; i++)
        texts[i] = b->items[i].text;
    int rc = 0;
    if (!vecs || embedder_embed(emb, texts, b->n, vecs, &eerr) != 0) {
        const char *why = vecs ? eerr.message : dim <= 0 ? eerr.message : "out of memory";
        log_msg(LOG_WARN, "memory", "embedding %zu items failed: %s", b->n, why);
        *failed += (int)b->n;
        rc = batch_failed(db, cfg, b, why, err);
        free(vecs);
        return rc;
    }
    char now[32];
    ids_now_iso(now);
    const char *model = embedder_model(emb);
    /* One transaction per batch. The vectors become visible to searches
     * with mem_jobs_publish (a search after a version bump rebuilds the
     * cached index of every vector of the model). A job whose claim ran out
     * and went to another replica is left to that one; each completion is
     * logged with it, in the same transaction. */
    if ((rc = store_begin(db, err))) {
        free(vecs);
        return rc;
    }
    int completed = 0;
    for (size_t i = 0; i < b->n && rc == 0; i++) {
        job *j = &b->items[i];
        rc = mstore_job_complete(db, j->item_id, replica_id(), j->user_id, j->agent_id, model, dim,
                                 vecs + i * (size_t)dim, now, err);
        if (rc == DBMCP_ENOTFOUND) {
            rc = 0;
            continue;
        }
        char target[24];
        snprintf(target, sizeof target, "%lld", (long long)j->item_id);
        if (rc == 0)
            rc = mstore_log_insert(db, j->user_id, j->agent_id, "embed", target, 1, 0, now, err);
        completed++;
    }
    if (rc == 0)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    else
        *done += completed;
    if (rc == 0 && completed < (int)b->n)
        log_msg(LOG_INFO, "memory", "%zu embedding jobs were taken over by another replica",
                b->n - (size_t)completed);
    free(vecs);
    return rc;
}

int mem_jobs_run(store *db, const mem_config *cfg, int limit, int *done, int *failed,
                 dbmcp_error *err)
{
    int d = 0, f = 0, rc = 0;
    embedder *emb = mem_embedder(db, err);
    if (!emb)
        return err->code;
    while (rc == 0 && (limit <= 0 || d + f < limit)) {
        char now[32], until[32];
        ids_now_iso(now);
        ids_iso_from_now((double)cfg->job_lease_s, until);
        job_batch b = {0};
        int want = limit > 0 && limit - d - f < JOB_BATCH ? limit - d - f : JOB_BATCH;
        rc = mstore_jobs_claim(db, replica_id(), now, until, want, read_job, &b, err);
        if (rc == 0 && b.n == 0) {
            batch_free(&b);
            break;
        }
        int before_failed = f;
        if (rc == 0)
            rc = run_batch(db, cfg, emb, &b, &d, &f, err);
        batch_free(&b);
        if (f > before_failed)
            break; /* the service is failing: wait for the backoff */
    }
    if (done)
        *done = d;
    if (failed)
        *failed = f;
    return rc;
}

int mem_jobs_publish(store *db, dbmcp_error *err)
{
    int rc = store_begin(db, err);
    if (rc == 0)
        rc = mstore_vectors_changed(db, err);
    if (rc == 0)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    return rc;
}

/* --- the thread ------------------------------------------------------------------- */

/* How long an idle worker sleeps when nothing wakes it: jobs written by
 * another process on SQLite (no notifications), jobs whose backoff ran out,
 * claims of a dead replica that expired. */
#define FALLBACK_POLL_MS 2000
/* After a failed batch: the service is failing, the backoff decides. */
#define FAILED_POLL_MS 1000
/* The PostgreSQL channel mstore_item_put NOTIFYs with each new job. */
#define JOBS_CHANNEL "dbmcp_mem_jobs"

/* The process-wide wake pipe: mem_jobs_posted and mem_worker_stop write a
 * byte to [1], the sleeping worker watches [0]. Both ends non-blocking; a
 * full pipe already wakes the worker, so a write that would block is
 * dropped. */
static int wake_pipe[2] = {-1, -1};
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;

static void wake_pipe_open(void)
{
    int p[2];
    if (pipe(p) != 0)
        return; /* no pipe: the worker polls every FALLBACK_POLL_MS */
    for (int i = 0; i < 2; i++) {
        fcntl(p[i], F_SETFL, fcntl(p[i], F_GETFL) | O_NONBLOCK);
        fcntl(p[i], F_SETFD, FD_CLOEXEC);
    }
    wake_pipe[0] = p[0];
    wake_pipe[1] = p[1];
}

static void wake_worker(void)
{
    pthread_once(&wake_once, wake_pipe_open);
    if (wake_pipe[1] >= 0) {
        char b = 1;
        ssize_t n = write(wake_pipe[1], &b, 1);
        (void)n; /* EAGAIN: the pipe holds bytes already, the worker wakes */
    }
}

void mem_jobs_posted(void)
{
    wake_worker();
}

static void take_wakes(void)
{
    char buf[64];
    while (wake_pipe[0] >= 0 && read(wake_pipe[0], buf, sizeof buf) > 0)
        ;
}

struct mem_worker {
    pthread_t thread;
    pthread_mutex_t lock;
    int stop;
    store *db;
    char *db_url;
    store *listen;       /* PostgreSQL: a connection LISTENing JOBS_CHANNEL; NULL to reopen */
    int postgres;        /* the engine notifies */
    int unpublished;     /* vectors stored since the last version bump */
    double published_ms; /* monotonic time of that bump; 0 = never */
};

/* On PostgreSQL, (re)open the connection that LISTENs for new jobs. A
 * failure leaves it closed: the worker then polls, and tries again at its
 * next sleep. */
static void listen_open(mem_worker *w)
{
    if (!w->postgres || w->listen)
        return;
    dbmcp_error err;
    if (store_open(w->db_url, STORE_READWRITE, &w->listen, &err) != 0) {
        log_msg(LOG_WARN, "memory", "no LISTEN connection for embedding jobs: %s", err.message);
        w->listen = NULL;
        return;
    }
    if (store_exec(w->listen, "LISTEN " JOBS_CHANNEL, &err) != 0) {
        log_msg(LOG_WARN, "memory", "LISTEN " JOBS_CHANNEL " failed: %s", err.message);
        store_close(w->listen);
        w->listen = NULL;
    }
}

static int stopping(mem_worker *w);

/* Sleep up to ms, until a wake (a job posted in this process, a
 * notification from any process on PostgreSQL, or mem_worker_stop);
 * no CPU meanwhile. Returns nonzero when asked to stop. */
static int nap(mem_worker *w, int ms)
{
    listen_open(w);
    if (w->listen) {
        dbmcp_error err;
        int rc = store_wait_notify(w->listen, ms, wake_pipe[0], &err);
        if (rc < 0) {
            log_msg(LOG_WARN, "memory", "LISTEN connection lost: %s", err.message);
            store_close(w->listen);
            w->listen = NULL;
        }
    } else if (wake_pipe[0] >= 0) {
        struct pollfd p = {.fd = wake_pipe[0], .events = POLLIN};
        poll(&p, 1, ms);
    } else {
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    take_wakes();
    return stopping(w);
}

static int stopping(mem_worker *w)
{
    pthread_mutex_lock(&w->lock);
    int stop = w->stop;
    pthread_mutex_unlock(&w->lock);
    return stop;
}

static void maybe_compact(mem_worker *w, const mem_config *cfg, double *last_ms)
{
    long interval = 0;
    char *v = reg_setting_get(w->db, "memory.compact_interval_s");
    if (v)
        interval = strtol(v, NULL, 10);
    free(v);
    if (interval <= 0 || ids_monotonic_ms() - *last_ms < (double)interval * 1000)
        return;
    *last_ms = ids_monotonic_ms();
    mem_compact_stats st;
    dbmcp_error err;
    int rc = mem_compact(w->db, cfg, &st, &err);
    metrics_compaction_run(rc != 0);
    if (rc != 0)
        log_msg(LOG_WARN, "memory", "scheduled compaction failed: %s", err.message);
    else if (st.sessions_expired || st.episodes_compacted || st.knowledge_pruned)
        log_msg(LOG_INFO, "memory",
                "compacted: %lld sessions → episodes, %lld episodes dropped raw messages,"
                " %lld knowledge versions pruned",
                (long long)st.sessions_expired, (long long)st.episodes_compacted,
                (long long)st.knowledge_pruned);
}

/* Publish new vectors when some are unpublished and the last publication
 * is memory.vector_refresh_s old (or on the way out). */
static void maybe_publish(mem_worker *w, const mem_config *cfg, int force)
{
    if (!w->unpublished)
        return;
    double now = ids_monotonic_ms();
    if (!force && w->published_ms > 0 && now - w->published_ms < cfg->vector_refresh_s * 1000.0)
        return;
    dbmcp_error err;
    if (mem_jobs_publish(w->db, &err) != 0) {
        log_msg(LOG_WARN, "memory", "new vectors not published: %s", err.message);
        return;
    }
    w->unpublished = 0;
    w->published_ms = now;
}

/* The idle sleep: FALLBACK_POLL_MS, shorter when unpublished vectors fall
 * due for publication before that. */
static int idle_ms(mem_worker *w, const mem_config *cfg)
{
    if (!w->unpublished)
        return FALLBACK_POLL_MS;
    double left = w->published_ms + cfg->vector_refresh_s * 1000.0 - ids_monotonic_ms();
    if (left <= 0)
        return 1;
    return left < FALLBACK_POLL_MS ? (int)left + 1 : FALLBACK_POLL_MS;
}

static void *worker_main(void *arg)
{
    mem_worker *w = arg;
    double last_compact = ids_monotonic_ms();
    mem_config cfg;
    mem_config_default(&cfg);
    while (!stopping(w)) {
        mem_config_load(w->db, &cfg);
        int done = 0, failed = 0;
        dbmcp_error err;
        if (mem_jobs_run(w->db, &cfg, JOB_BATCH * 8, &done, &failed, &err) != 0)
            log_msg(LOG_WARN, "memory", "embedding jobs: %s", err.message);
        w->unpublished |= done > 0;
        maybe_publish(w, &cfg, 0);
        maybe_compact(w, &cfg, &last_compact);
        if (done == 0 && nap(w, failed ? FAILED_POLL_MS : idle_ms(w, &cfg)))
            break;
    }
    maybe_publish(w, &cfg, 1);
    return NULL;
}

int mem_worker_start(const char *db_url, mem_worker **out, dbmcp_error *err)
{
    *out = NULL;
    mem_worker *w = calloc(1, sizeof *w);
    if (!w)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    pthread_once(&wake_once, wake_pipe_open);
    if (!(w->db_url = strdup(db_url))) {
        free(w);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    int rc = store_open(db_url, STORE_READWRITE, &w->db, err);
    if (rc) {
        free(w->db_url);
        free(w);
        return rc;
    }
    w->postgres = strcmp(store_dialect(w->db), "postgres") == 0;
    pthread_mutex_init(&w->lock, NULL);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        store_close(w->db);
        free(w->db_url);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return dbmcp_error_set(err, DBMCP_EINTERNAL, "cannot start the memory worker thread");
    }
    *out = w;
    return 0;
}

void mem_worker_stop(mem_worker *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_mutex_unlock(&w->lock);
    wake_worker();
    pthread_join(w->thread, NULL);
    store_close(w->listen);
    store_close(w->db);
    free(w->db_url);
    /* serve stops the worker after its transports returned: no tool call
     * uses the shared embedder or recall's cached scope ids any more. */
    mem_embedder_reset();
    mem_scope_ids_cache_clear();
    pthread_mutex_destroy(&w->lock);
    free(w);
}
