/*
 * registry_audit.c — reads of the audit log for promoting ad-hoc queries
 * to report tools (`dbmcp audit top-queries`, `dbmcp tools promote`): one
 * audited call by id, and the recorded SQL texts of a tool's successful
 * calls. See the "audited SQL" section of registry.h. Grouping and
 * literal handling are text work and live above (tools/report_draft.c).
 */
#include "store/registry.h"

#include <stdlib.h>
#include <string.h>

#include "store/registry_internal.h"

void reg_audit_call_free(reg_audit_call *c)
{
    if (!c)
        return;
    free(c->call_id);
    free(c->ts);
    free(c->method);
    free(c->target);
    free(c->status);
    free(c->sql_text);
    memset(c, 0, sizeof *c);
}

int reg_audit_call_get(store *db, const char *call_id, reg_audit_call *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT call_id, ts, method, target, status, sql_text FROM dbmcp_audit"
                           " WHERE call_id = :call_id ORDER BY id LIMIT 1",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":call_id", call_id);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        out->call_id = registry_col_strdup(st, 0);
        out->ts = registry_col_strdup(st, 1);
        out->method = registry_col_strdup(st, 2);
        out->target = registry_col_strdup(st, 3);
        out->status = registry_col_strdup(st, 4);
        out->sql_text = registry_col_strdup(st, 5);
        rc = 0;
    } else if (rc == STORE_DONE) {
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "no audited call with id '%.64s'", call_id);
    }
    store_finalize(st);
    return rc;
}

int reg_audit_sql_texts(store *db, const char *target, const char *since, int max_rows,
                        reg_audit_sql_fn fn, void *ctx, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT call_id, ts, sql_text FROM (SELECT id, call_id, ts, sql_text"
                           " FROM dbmcp_audit WHERE target = :target AND status = 'ok'"
                           " AND method = 'tools/call' AND sql_text IS NOT NULL"
                           " AND (CAST(:since AS TEXT) IS NULL OR ts >= :since)"
                           " ORDER BY ts DESC, id DESC LIMIT :limit) AS latest ORDER BY ts, id",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":target", target);
    store_bind_text(st, ":since", since);
    store_bind_int(st, ":limit", max_rows > 0 ? max_rows : 10000);
    while ((rc = store_step(st, err)) == STORE_ROW)
        fn(ctx, store_column_text(st, 0), store_column_text(st, 1), store_column_text(st, 2));
    store_finalize(st);
    return rc < 0 ? rc : 0;
}
