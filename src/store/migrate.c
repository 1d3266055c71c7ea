/*
 * migrate.c — apply embedded migrations and seeds; see migrate.h.
 */
#include "store/migrate.h"

#include <stdio.h>
#include <string.h>

#include "core/ids.h"
#include "store/assets.h"
#include "store/dialect.h"

typedef struct migration {
    int version;      /* strictly increasing from 1 */
    const char *name; /* file stem, recorded in dbmcp_schema_migrations */
    const char *sql;  /* embedded text */
} migration;

static const migration sqlite_migrations[] = {
    {1, "0001_core", asset_sqlite_0001_core_start},
    {2, "0002_search", asset_sqlite_0002_search_start},
    {3, "0003_thesaurus", asset_sqlite_0003_thesaurus_start},
    {4, "0004_memory", asset_sqlite_0004_memory_start},
    {5, "0005_orchestrator", asset_sqlite_0005_orchestrator_start},
    {6, "0006_query_budget", asset_sqlite_0006_query_budget_start},
    {7, "0007_scoped_bm25", asset_sqlite_0007_scoped_bm25_start},
};

#define N_MIGRATIONS ((int)(sizeof sqlite_migrations / sizeof sqlite_migrations[0]))

int store_schema_latest(void)
{
    return sqlite_migrations[N_MIGRATIONS - 1].version;
}

static int ensure_version_table(store *db, dbmcp_error *err)
{
    char sql[512];
    int rc = dialect_format(db, DIALECT_MIGRATIONS_TABLE, sql, sizeof sql, err);
    return rc ? rc : store_exec(db, sql, err);
}

/* Whether the table `name` exists (in the current schema). */
static int table_exists(store *db, const char *name, int *exists, dbmcp_error *err)
{
    char sql[256];
    store_stmt *st;
    *exists = 0;
    int rc = dialect_format(db, DIALECT_TABLE_EXISTS, sql, sizeof sql, err);
    if (rc || (rc = store_prepare(db, sql, &st, err)))
        return rc;
    store_bind_text(st, ":name", name);
    rc = store_step(st, err);
    if (rc == STORE_ROW)
        *exists = store_column_int(st, 0) > 0;
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int store_schema_version(store *db, int *out, dbmcp_error *err)
{
    int64_t v = 0;
    int exists = 0;
    *out = 0;
    int rc = table_exists(db, "dbmcp_schema_migrations", &exists, err);
    if (rc || !exists)
        return rc;
    rc = store_query_int(db, "SELECT coalesce(max(version), 0) FROM dbmcp_schema_migrations", 0, &v,
                         err);
    *out = (int)v;
    return rc;
}

static int apply_one(store *db, const migration *m, dbmcp_error *err)
{
    int rc = store_begin(db, err);
    if (rc)
        return rc;
    rc = store_exec(db, m->sql, err);
    if (!rc) {
        store_stmt *st;
        rc = store_prepare(
            db,
            "INSERT INTO dbmcp_schema_migrations (version, name, applied_at) VALUES (:v, :n, :now)",
            &st, err);
        if (!rc) {
            char now[32];
            ids_now_iso(now);
            store_bind_int(st, ":v", m->version);
            store_bind_text(st, ":n", m->name);
            store_bind_text(st, ":now", now);
            rc = store_step(st, err) < 0 ? err->code : 0;
            store_finalize(st);
        }
    }
    if (!rc)
        rc = store_commit(db, err);
    if (rc) {
        store_rollback(db);
        char ctx[96];
        snprintf(ctx, sizeof ctx, "migration %s", m->name);
        dbmcp_error_prefix(err, ctx);
    }
    return rc;
}

int store_migrate(store *db, int *applied, dbmcp_error *err)
{
    int current = 0, n = 0;
    if (applied)
        *applied = 0;
    int rc = ensure_version_table(db, err);
    if (!rc)
        rc = store_schema_version(db, &current, err);
    if (rc)
        return rc;
    if (current > store_schema_latest())
        return dbmcp_error_set(err, DBMCP_EVERSION,
                               "database schema version %d is newer than this dbmcp (%d); "
                               "upgrade dbmcp",
                               current, store_schema_latest());
    for (int i = 0; i < N_MIGRATIONS; i++) {
        if (sqlite_migrations[i].version <= current)
            continue;
        rc = apply_one(db, &sqlite_migrations[i], err);
        if (rc)
            return rc;
        n++;
    }
    if (applied)
        *applied = n;
    return 0;
}

int store_schema_check(store *db, dbmcp_error *err)
{
    int current = 0;
    int rc = store_schema_version(db, &current, err);
    if (rc)
        return rc;
    if (current == 0)
        return dbmcp_error_set(err, DBMCP_EVERSION,
                               "database is not initialised; run `dbmcp init` first");
    if (current > store_schema_latest())
        return dbmcp_error_set(err, DBMCP_EVERSION,
                               "database schema version %d is newer than this dbmcp (%d); "
                               "upgrade dbmcp",
                               current, store_schema_latest());
    return 0;
}

int store_seed(store *db, const char *name, dbmcp_error *err)
{
    const char *sql = NULL;
    if (strcmp(name, "base") == 0)
        sql = asset_seed_base_start;
    else if (strcmp(name, "demo") == 0)
        sql = asset_seed_demo_start;
    else if (strcmp(name, "conformance") == 0)
        sql = asset_seed_conformance_start;
    else
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "unknown seed '%s'", name);
    int rc = store_begin(db, err);
    if (!rc)
        rc = store_exec(db, sql, err);
    if (!rc)
        rc = store_commit(db, err);
    if (rc) {
        store_rollback(db);
        char ctx[64];
        snprintf(ctx, sizeof ctx, "seed %s", name);
        dbmcp_error_prefix(err, ctx);
    }
    return rc;
}
