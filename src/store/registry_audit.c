/*
 * registry_audit.c — reads of the audit log for promoting ad-hoc queries
 * to report tools (`dbmcp audit top-queries`, `dbmcp tools promote`): one
 * audited call by id, and the recorded SQL texts of a tool's successful
 * calls. See the "audited SQL" section of registry.h. Grouping and
 * literal handling are text work and live above (tools/report_draft.c).
 * And the one writer of admin actions' audit rows, for the console and
 * the CLI alike (reg_audit_admin).
 */
#include "store/registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/jsonutil.h"
#include "store/registry_internal.h"

static void copy_str(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

int reg_audit_admin(store *db, const reg_admin_actor *who, const char *action, const char *target,
                    const char *status, const json_t *change, dbmcp_error *err)
{
    reg_audit_row row;
    memset(&row, 0, sizeof row);
    ids_uuid(row.call_id);
    ids_now_iso(row.ts);
    copy_str(row.principal, sizeof row.principal, who->principal);
    copy_str(row.key_id, sizeof row.key_id, who->key_id);
    copy_str(row.interface, sizeof row.interface, who->interface);
    copy_str(row.client_name, sizeof row.client_name, who->client_name);
    copy_str(row.transport, sizeof row.transport, who->transport);
    snprintf(row.method, sizeof row.method, "admin/%s", action);
    row.target = (char *)target;
    row.status = status;
    row.rows_out = -1;
    row.change_json = change ? json_dump_compact(change) : NULL;
    int rc = reg_audit_insert(db, &row, 1, err);
    free(row.change_json);
    return rc;
}

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
