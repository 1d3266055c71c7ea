/*
 * links.c — typed edges between the sessions, messages, episodes and
 * knowledge of one scope (memory.h: mem_link).
 */
#include "memory/memory.h"

#include <stdio.h>
#include <string.h>

#include "core/ids.h"
#include "store/memory_store.h"

static int valid_kind(const char *k)
{
    return k && (strcmp(k, "session") == 0 || strcmp(k, "message") == 0 ||
                 strcmp(k, "episode") == 0 || strcmp(k, "knowledge") == 0);
}

static int check_node(store *db, const mem_scope *scope, const char *field, const char *kind,
                      const char *id, dbmcp_error *err)
{
    if (!valid_kind(kind))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "%s_kind: must be one of session, message, episode, knowledge"
                               " (got '%.32s')",
                               field, kind ? kind : "");
    if (!id || !*id || strlen(id) > 64)
        return dbmcp_error_set(err, DBMCP_EINVAL, "%s_id: must be 1 to 64 characters", field);
    int rc = mstore_node_exists(db, scope->user_id, scope->agent_id, kind, id, err);
    if (rc == DBMCP_ENOTFOUND)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "%s_id: no %s '%.64s' in this memory", field,
                               kind, id);
    return rc;
}

int mem_link(store *db, const mem_scope *scope, const char *src_kind, const char *src_id,
             const char *dst_kind, const char *dst_id, const char *relation, int64_t *id,
             int *existed, dbmcp_error *err)
{
    size_t n = relation ? strlen(relation) : 0;
    if (n < 1 || n > 64 || strspn(relation, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "relation: must be 1 to 64 characters of a-z, 0-9 and _");
    int rc = check_node(db, scope, "src", src_kind, src_id, err);
    if (rc == 0)
        rc = check_node(db, scope, "dst", dst_kind, dst_id, err);
    if (rc)
        return rc;
    char now[32];
    ids_now_iso(now);
    rc = mstore_link_insert(db, scope->user_id, scope->agent_id, src_kind, src_id, dst_kind, dst_id,
                            relation, now, id, existed, err);
    if (rc == 0)
        mem_log(db, scope, "link", relation, 1, 0);
    return rc;
}
