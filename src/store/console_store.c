/*
 * console_store.c — SQL of the admin console's sessions and audit reads
 * (see console_store.h). Statements both engines accept: times are text,
 * compared as text; CAST(:p AS TEXT) IS NULL lets one statement serve
 * every combination of filters.
 */
#include "store/console_store.h"

#include <stdio.h>
#include <string.h>

#include "core/ids.h"

static void copy_col(char *dst, size_t size, store_stmt *st, int i)
{
    const char *v = store_column_text(st, i);
    snprintf(dst, size, "%s", v ? v : "");
}

int console_session_insert(store *db, const char *id_hash, const console_session *s,
                           dbmcp_error *err)
{
    char now[32];
    ids_now_iso(now);
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    store_stmt *st = NULL;
    rc = store_prepare(db, "DELETE FROM dbmcp_console_sessions WHERE expires_at <= :now", &st, err);
    if (!rc) {
        store_bind_text(st, ":now", now);
        rc = store_step(st, err) < 0 ? err->code : 0;
        store_finalize(st);
    }
    if (!rc)
        rc = store_prepare(db,
                           "INSERT INTO dbmcp_console_sessions (id_hash, key_id, principal,"
                           " csrf_token, created_at, expires_at)"
                           " VALUES (:h, :k, :p, :c, :now, :exp)",
                           &st, err);
    if (!rc) {
        store_bind_text(st, ":h", id_hash);
        store_bind_text(st, ":k", s->key_id);
        store_bind_text(st, ":p", s->principal);
        store_bind_text(st, ":c", s->csrf_token);
        store_bind_text(st, ":now", now);
        store_bind_text(st, ":exp", s->expires_at);
        rc = store_step(st, err) < 0 ? err->code : 0;
        store_finalize(st);
    }
    if (!rc)
        rc = store_commit(db, err);
    if (rc)
        store_rollback(db);
    return rc;
}

int console_session_get(store *db, const char *id_hash, const char *now, console_session *out,
                        dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    int rc = store_prepare(db,
                           "SELECT s.key_id, s.principal, s.csrf_token, s.expires_at"
                           " FROM dbmcp_console_sessions s JOIN dbmcp_api_keys k ON k.id = s.key_id"
                           " WHERE s.id_hash = :h AND s.expires_at > :now"
                           " AND k.revoked_at IS NULL AND k.role = 'admin'",
                           &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":h", id_hash);
    store_bind_text(st, ":now", now);
    rc = store_step(st, err);
    if (rc == STORE_ROW) {
        copy_col(out->key_id, sizeof out->key_id, st, 0);
        copy_col(out->principal, sizeof out->principal, st, 1);
        copy_col(out->csrf_token, sizeof out->csrf_token, st, 2);
        copy_col(out->expires_at, sizeof out->expires_at, st, 3);
        rc = 0;
    } else if (rc == STORE_DONE) {
        rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "no valid console session");
    }
    store_finalize(st);
    return rc;
}

int console_session_delete(store *db, const char *id_hash, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, "DELETE FROM dbmcp_console_sessions WHERE id_hash = :h", &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":h", id_hash);
    rc = store_step(st, err) < 0 ? err->code : 0;
    store_finalize(st);
    return rc;
}

/* The columns of one audit row, in the order of the SELECT below. */
static const char *const audit_columns[] = {
    "call_id",     "ts",          "principal",      "key_id",      "interface",    "user_id",
    "agent_id",    "client_name", "client_version", "model",       "transport",    "protocol",
    "method",      "target",      "status",         "error_class", "error_detail", "sql_text",
    "change_json", "duration_ms", "bytes_out",      "rows_out",
};
#define AUDIT_NCOLS ((int)(sizeof audit_columns / sizeof audit_columns[0]))

static const char *nonempty(const char *s)
{
    return s && *s ? s : NULL;
}

static json_t *audit_row_json(store_stmt *st)
{
    json_t *o = json_object();
    for (int i = 0; o && i < AUDIT_NCOLS; i++) {
        const char *v = store_column_text(st, i);
        const char *name = audit_columns[i];
        if (!v) {
            json_object_set_new(o, strcmp(name, "change_json") ? name : "change", json_null());
        } else if (strcmp(name, "duration_ms") == 0) {
            json_object_set_new(o, name, json_real(store_column_double(st, i)));
        } else if (strcmp(name, "bytes_out") == 0 || strcmp(name, "rows_out") == 0) {
            json_object_set_new(o, name, json_integer(store_column_int(st, i)));
        } else if (strcmp(name, "change_json") == 0) {
            json_t *change = json_loads(v, 0, NULL);
            json_object_set_new(o, "change", change ? change : json_string(v));
        } else {
            json_object_set_new(o, name, json_string(v));
        }
    }
    return o;
}

int console_audit_query(store *db, const console_audit_filter *f, json_t **out, dbmcp_error *err)
{
    *out = NULL;
    store_stmt *st;
    int rc = store_prepare(
        db,
        "SELECT call_id, ts, principal, key_id, interface, user_id, agent_id, client_name,"
        " client_version, model, transport, protocol, method, target, status, error_class,"
        " error_detail, sql_text, change_json, duration_ms, bytes_out, rows_out"
        " FROM dbmcp_audit"
        " WHERE (CAST(:since AS TEXT) IS NULL OR ts >= :since)"
        " AND (CAST(:until AS TEXT) IS NULL OR ts < :until)"
        " AND (CAST(:principal AS TEXT) IS NULL OR principal = :principal)"
        " AND (CAST(:target AS TEXT) IS NULL OR target = :target)"
        " AND (CAST(:status AS TEXT) IS NULL OR status = :status)"
        " AND (CAST(:call_id AS TEXT) IS NULL OR call_id = :call_id)"
        " ORDER BY id DESC LIMIT :limit",
        &st, err);
    if (rc)
        return rc;
    store_bind_text(st, ":since", nonempty(f->since));
    store_bind_text(st, ":until", nonempty(f->until));
    store_bind_text(st, ":principal", nonempty(f->principal));
    store_bind_text(st, ":target", nonempty(f->target));
    store_bind_text(st, ":status", nonempty(f->status));
    store_bind_text(st, ":call_id", nonempty(f->call_id));
    store_bind_int(st, ":limit", f->limit > 0 && f->limit <= 1000 ? f->limit : 100);
    json_t *rows = json_array();
    while (rows && (rc = store_step(st, err)) == STORE_ROW) {
        json_t *row = audit_row_json(st);
        if (!row || json_array_append_new(rows, row)) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
    }
    store_finalize(st);
    if (!rows)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    if (rc < 0) {
        json_decref(rows);
        return rc;
    }
    *out = rows;
    return 0;
}
