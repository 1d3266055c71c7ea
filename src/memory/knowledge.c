/*
 * knowledge.c — semantic memory (memory.h): versioned knowledge. A new
 * value closes the current version of its (category, key) and opens one
 * linked supersedes to it; forgetting closes (or erases) versions.
 */
#include "memory/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "memory/memory_internal.h"
#include "memory/worker.h"
#include "store/memory_store.h"

/* --- knowledge -------------------------------------------------------------------------- */

static int knowledge_save_tx(store *db, const mem_scope *scope, const mem_knowledge_in *k,
                             const char *category, const char *value, int64_t *out_id, int *dedup,
                             dbmcp_error *err)
{
    const char *u = scope->user_id, *a = scope->agent_id;
    char now[32], hash[33];
    ids_now_iso(now);
    /* The searchable text names the key, so "currency?" finds "currency: USD". */
    size_t tn = strlen(k->key) + strlen(value) + 3;
    char *text = malloc(tn);
    if (!text)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    snprintf(text, tn, "%s: %s", k->key, value);
    mem_hash_hex(text, strlen(text), hash);
    int64_t item_id, cur_id = 0, cur_item = 0;
    int existed;
    int rc = mstore_item_put(db, u, a, "knowledge", hash, text, now, &item_id, &existed, err);
    free(text);
    if (rc)
        return rc;
    rc = mstore_knowledge_current(db, u, a, category, k->key, &cur_id, &cur_item, err);
    if (rc && rc != DBMCP_ENOTFOUND)
        return rc;
    if (rc == 0 && cur_item == item_id) {
        *out_id = cur_id;
        *dedup = 1;
        return 0;
    }
    *dedup = 0;
    if (cur_id && (rc = mstore_knowledge_close(db, u, a, cur_id, now, "update", err)))
        return rc;
    if (k->source_episode > 0) {
        char eid[24];
        snprintf(eid, sizeof eid, "%lld", (long long)k->source_episode);
        if ((rc = mstore_node_exists(db, u, a, "episode", eid, err)))
            return rc == DBMCP_ENOTFOUND
                       ? dbmcp_error_set(err, DBMCP_ENOTFOUND,
                                         "source_episode: no episode %s in this memory", eid)
                       : rc;
    }
    if ((rc = mstore_knowledge_insert(db, u, a, category, k->key, value, item_id, k->source_episode,
                                      k->metadata, now, out_id, err)))
        return rc;
    char nid[24], oid[24];
    int64_t link;
    int ex;
    snprintf(nid, sizeof nid, "%lld", (long long)*out_id);
    if (cur_id) {
        snprintf(oid, sizeof oid, "%lld", (long long)cur_id);
        if ((rc = mstore_link_insert(db, u, a, "knowledge", nid, "knowledge", oid, "supersedes",
                                     now, &link, &ex, err)))
            return rc;
    }
    if (k->source_episode > 0) {
        snprintf(oid, sizeof oid, "%lld", (long long)k->source_episode);
        rc = mstore_link_insert(db, u, a, "knowledge", nid, "episode", oid, "derived_from", now,
                                &link, &ex, err);
    }
    return rc;
}

int mem_knowledge_save(store *db, const mem_scope *scope, const mem_config *cfg,
                       const mem_knowledge_in *k, int64_t *out_id, int *deduplicated,
                       dbmcp_error *err)
{
    double t0 = ids_monotonic_ms();
    const char *category = k->category && *k->category ? k->category : "general";
    if (strlen(category) > 64)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "category: longer than 64 bytes");
    if (!k->key || !*k->key || strlen(k->key) > 256)
        return dbmcp_error_set(err, DBMCP_EINVAL, "key: must be 1 to 256 bytes");
    int rc = mem_check_metadata(k->metadata, err);
    if (rc)
        return rc;
    char *value = mem_text_normalize("value", k->value, cfg->max_content_bytes, err);
    if (!value)
        return err->code;
    if (!*value) {
        free(value);
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "value: must not be empty (use forget_knowledge to remove a key)");
    }
    int dedup = 0;
    if ((rc = store_begin(db, err)) == 0) {
        rc = knowledge_save_tx(db, scope, k, category, value, out_id, &dedup, err);
        if (rc == 0)
            rc = store_commit(db, err);
        if (rc)
            store_rollback(db);
    }
    if (rc == 0)
        mem_jobs_posted(); /* wake the embedding worker */
    free(value);
    if (rc)
        return rc;
    if (deduplicated)
        *deduplicated = dedup;
    mem_log(db, scope, "save_knowledge", k->key, 1, ids_monotonic_ms() - t0);
    return 0;
}

typedef struct version_ids {
    int64_t ids[64];
    size_t n;
} version_ids;

static int read_version_id(void *ctx, store_stmt *row)
{
    version_ids *v = ctx;
    v->ids[v->n++] = store_column_int(row, 0);
    return v->n == 64;
}

int mem_knowledge_forget(store *db, const mem_scope *scope, const char *category, const char *key,
                         int erase, int64_t *count, dbmcp_error *err)
{
    double t0 = ids_monotonic_ms();
    *count = 0;
    if (!key || !*key || strlen(key) > 256)
        return dbmcp_error_set(err, DBMCP_EINVAL, "key: must be 1 to 256 bytes");
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    if (erase) {
        rc = mstore_knowledge_erase(db, scope->user_id, scope->agent_id, category, key, count, err);
    } else {
        version_ids v = {.n = 0};
        rc = mstore_knowledge_read(db, scope->user_id, scope->agent_id, category, key, NULL, 0,
                                   read_version_id, &v, err);
        char now[32];
        ids_now_iso(now);
        for (size_t i = 0; rc == 0 && i < v.n; i++)
            rc = mstore_knowledge_close(db, scope->user_id, scope->agent_id, v.ids[i], now,
                                        "forget", err);
        *count = (int64_t)v.n;
    }
    if (rc == 0 && *count == 0)
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "key: no %sknowledge '%.128s'%s%.64s%s",
                             erase ? "" : "current ", key, category ? " in category '" : "",
                             category ? category : "", category ? "'" : "");
    if (rc == 0)
        rc = store_commit(db, err);
    if (rc) {
        store_rollback(db);
        return rc;
    }
    mem_log(db, scope, erase ? "erase_knowledge" : "forget_knowledge", key, *count,
            ids_monotonic_ms() - t0);
    return 0;
}
