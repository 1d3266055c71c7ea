/*
 * episodes.c — episodic memory (memory.h): saving an episode with its
 * searchable item (description + summary) and its derived_from link to the
 * session it came from; compaction (compact.c) writes its episodes through
 * mem_episode_save_tx as well.
 */
#include "memory/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "memory/memory_internal.h"
#include "memory/worker.h"
#include "store/memory_store.h"

/* --- episodes ------------------------------------------------------------------------ */

static int valid_status(const char *s)
{
    return s &&
           (strcmp(s, "success") == 0 || strcmp(s, "failed") == 0 || strcmp(s, "partial") == 0);
}

/* The episode's searchable text: description, then summary. */
static char *episode_text(const char *description, const char *summary)
{
    size_t n = strlen(description) + (summary ? strlen(summary) : 0) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s", description, summary && *summary ? "\n" : "",
                 summary ? summary : "");
    return s;
}

int mem_episode_save_tx(store *db, const mem_scope *scope, const mstore_episode *e,
                        const char *text, int64_t *out_id, int *dedup, dbmcp_error *err)
{
    const char *u = scope->user_id, *a = scope->agent_id;
    char now[32], hash[33];
    ids_now_iso(now);
    mem_hash_hex(text, strlen(text), hash);
    int64_t item_id;
    int existed;
    int rc = mstore_item_put(db, u, a, "episode", hash, text, now, &item_id, &existed, err);
    if (rc)
        return rc;
    if (existed && mstore_episode_by_item(db, u, a, item_id, out_id, err) == 0) {
        *dedup = 1;
        return 0;
    }
    *dedup = 0;
    if ((rc = mstore_episode_insert(db, u, a, e, item_id, now, out_id, err)))
        return rc;
    if (e->session_id) {
        char eid[24];
        int64_t link;
        int ex;
        snprintf(eid, sizeof eid, "%lld", (long long)*out_id);
        rc = mstore_link_insert(db, u, a, "episode", eid, "session", e->session_id, "derived_from",
                                now, &link, &ex, err);
    }
    return rc;
}

int mem_episode_save(store *db, const mem_scope *scope, const mem_config *cfg,
                     const mem_episode_in *e, int64_t *out_id, int *deduplicated, dbmcp_error *err)
{
    double t0 = ids_monotonic_ms();
    if (!valid_status(e->status))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "status: must be one of success, failed, partial (got '%.32s')",
                               e->status ? e->status : "");
    if (e->task_type && strlen(e->task_type) > 64)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "task_type: longer than 64 bytes");
    int rc = mem_check_metadata(e->metadata, err);
    if (rc)
        return rc;
    char started[32], ended[32];
    if (e->ended_at) {
        if ((rc = mem_time_normalize("ended_at", e->ended_at, ended, err)))
            return rc;
    } else {
        ids_now_iso(ended);
    }
    if (e->started_at && (rc = mem_time_normalize("started_at", e->started_at, started, err)))
        return rc;
    char *desc = mem_text_normalize("description", e->description, cfg->max_content_bytes, err);
    if (!desc)
        return err->code;
    char *summary = NULL;
    if (e->summary &&
        !(summary = mem_text_normalize("summary", e->summary, cfg->max_content_bytes, err))) {
        free(desc);
        return err->code;
    }
    if (!*desc) {
        free(desc);
        free(summary);
        return dbmcp_error_set(err, DBMCP_EINVAL, "description: must not be empty");
    }
    if (e->session_id) {
        mem_session_row sess;
        rc = mem_session_get(db, scope, e->session_id, &sess, err);
        if (rc == 0 && !e->started_at)
            rc = mstore_session_started(db, scope->user_id, scope->agent_id, e->session_id, started,
                                        err);
    } else if (!e->started_at) {
        memcpy(started, ended, sizeof started);
    }
    if (rc == 0 && strcmp(started, ended) > 0)
        rc = dbmcp_error_set(err, DBMCP_EINVAL, "started_at: must not be after ended_at");
    char *text = rc == 0 ? episode_text(desc, summary) : NULL;
    if (rc == 0 && !text)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int dedup = 0;
    if (rc == 0 && (rc = store_begin(db, err)) == 0) {
        mstore_episode ep = {e->session_id, e->task_type, desc,  e->status,
                             summary,       started,      ended, e->metadata};
        rc = mem_episode_save_tx(db, scope, &ep, text, out_id, &dedup, err);
        if (rc == 0)
            rc = store_commit(db, err);
        if (rc)
            store_rollback(db);
    }
    if (rc == 0)
        mem_jobs_posted(); /* wake the embedding worker */
    free(text);
    free(desc);
    free(summary);
    if (rc)
        return rc;
    if (deduplicated)
        *deduplicated = dedup;
    mem_log(db, scope, "save_episode", e->task_type, 1, ids_monotonic_ms() - t0);
    return 0;
}
