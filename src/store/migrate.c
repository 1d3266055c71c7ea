/*
 * migrate.c — apply embedded migrations and seeds; see migrate.h.
 *
 * Each dialect has its own list of migrations (schema/<dialect>/), with the
 * same versions and names in the same order, so a database reports the
 * same schema version on either engine. A seed is one shared file both
 * engines run, preceded by a dialect half (seed/<dialect>/) where the
 * engines need different statements: the demo's user tables, a blob
 * literal, what agent SQL is told and allowed (execute_query's
 * description, query.functions).
 */
#include "store/migrate.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/ids.h"
#include "store/assets.h"
#include "store/dialect.h"
#include "store/introspect.h"

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
    {7, "0007_sessions", asset_sqlite_0007_sessions_start},
    {8, "0008_scoped_bm25", asset_sqlite_0008_scoped_bm25_start},
    {9, "0009_console", asset_sqlite_0009_console_start},
    {10, "0010_text_once", asset_sqlite_0010_text_once_start},
    {11, "0011_attachments", asset_sqlite_0011_attachments_start},
    {12, "0012_memory_scope_stats", asset_sqlite_0012_memory_scope_stats_start},
    {13, "0013_trace", asset_sqlite_0013_trace_start},
    {14, "0014_replicas", asset_sqlite_0014_replicas_start},
    {15, "0015_oidc", asset_sqlite_0015_oidc_start},
    {16, "0016_tasks", asset_sqlite_0016_tasks_start},
};

/* Run with search_path set to the schema dbmcp (0001_core.sql says how). */
static const migration postgres_migrations[] = {
    {1, "0001_core", asset_postgres_0001_core_start},
    {2, "0002_search", asset_postgres_0002_search_start},
    {3, "0003_thesaurus", asset_postgres_0003_thesaurus_start},
    {4, "0004_memory", asset_postgres_0004_memory_start},
    {5, "0005_orchestrator", asset_postgres_0005_orchestrator_start},
    {6, "0006_query_budget", asset_postgres_0006_query_budget_start},
    {7, "0007_sessions", asset_postgres_0007_sessions_start},
    {8, "0008_scoped_bm25", asset_postgres_0008_scoped_bm25_start},
    {9, "0009_console", asset_postgres_0009_console_start},
    {10, "0010_text_once", asset_postgres_0010_text_once_start},
    {11, "0011_attachments", asset_postgres_0011_attachments_start},
    {12, "0012_memory_scope_stats", asset_postgres_0012_memory_scope_stats_start},
    {13, "0013_trace", asset_postgres_0013_trace_start},
    {14, "0014_replicas", asset_postgres_0014_replicas_start},
    {15, "0015_oidc", asset_postgres_0015_oidc_start},
    {16, "0016_tasks", asset_postgres_0016_tasks_start},
};

#define N_MIGRATIONS ((int)(sizeof sqlite_migrations / sizeof sqlite_migrations[0]))

_Static_assert(sizeof sqlite_migrations / sizeof sqlite_migrations[0] ==
                   sizeof postgres_migrations / sizeof postgres_migrations[0],
               "every migration exists for both dialects");

/* The migrations of db's dialect, N_MIGRATIONS of them. */
static const migration *migrations_for(const store *db)
{
    const migration *list =
        strcmp(store_dialect(db), "postgres") == 0 ? postgres_migrations : sqlite_migrations;
    for (int i = 0; i < N_MIGRATIONS; i++) {
        assert(postgres_migrations[i].version == sqlite_migrations[i].version);
        assert(strcmp(postgres_migrations[i].name, sqlite_migrations[i].name) == 0);
    }
    return list;
}

int store_schema_latest(void)
{
    return sqlite_migrations[N_MIGRATIONS - 1].version;
}

/* The schema that holds dbmcp's tables, where the dialect has one, then
 * the version table in it. */
static int ensure_version_table(store *db, dbmcp_error *err)
{
    char sql[512];
    int rc = dialect_format(db, DIALECT_CATALOG_SCHEMA, sql, sizeof sql, err);
    if (!rc && sql[0])
        rc = store_exec(db, sql, err);
    if (!rc)
        rc = dialect_format(db, DIALECT_MIGRATIONS_TABLE, sql, sizeof sql, err);
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

int store_survey_file(const char *path, int *is_catalog, size_t *n_user, char *names, size_t size,
                      dbmcp_error *err)
{
    *is_catalog = 0;
    *n_user = 0;
    if (size)
        names[0] = '\0';
    struct stat info;
    if (stat(path, &info) != 0 || info.st_size == 0)
        return 0;
    store *db = NULL;
    int rc = store_open(path, STORE_READONLY, &db, err);
    if (rc)
        return rc;
    store_trusted_begin(db);
    rc = table_exists(db, "dbmcp_schema_migrations", is_catalog, err);
    store_trusted_end(db);
    introspect_table *v = NULL;
    size_t n = 0;
    if (!rc)
        rc = introspect_list(db, &v, &n, err);
    size_t used = 0;
    for (size_t i = 0; !rc && i < n && i < 3 && size; i++) {
        int w = snprintf(names + used, size - used, "%s%s", i ? ", " : "", v[i].name);
        if (w < 0 || (size_t)w >= size - used) {
            names[used] = '\0';
            break;
        }
        used += (size_t)w;
    }
    *n_user = rc ? 0 : n;
    introspect_table_array_free(v, n);
    store_close(db);
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
    const migration *list = migrations_for(db);
    for (int i = 0; i < N_MIGRATIONS; i++) {
        if (list[i].version <= current)
            continue;
        rc = apply_one(db, &list[i], err);
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

typedef struct seed {
    const char *name;     /* as store_seed is asked for it */
    const char *sqlite;   /* SQLite's half, run first, or NULL */
    const char *postgres; /* PostgreSQL's half, run first, or NULL */
    const char *shared;   /* what both engines run */
} seed;

static const seed seeds[] = {
    {"base", NULL, asset_seed_postgres_base_start, asset_seed_base_start},
    {"demo", asset_seed_sqlite_demo_start, asset_seed_postgres_demo_start, asset_seed_demo_start},
    {"conformance", asset_seed_sqlite_conformance_start, asset_seed_postgres_conformance_start,
     asset_seed_conformance_start},
};

int store_seed(store *db, const char *name, dbmcp_error *err)
{
    const seed *s = NULL;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0] && !s; i++)
        if (strcmp(name, seeds[i].name) == 0)
            s = &seeds[i];
    if (!s)
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "unknown seed '%s'", name);
    const char *own = strcmp(store_dialect(db), "postgres") == 0 ? s->postgres : s->sqlite;
    int rc = store_begin(db, err);
    if (!rc && own)
        rc = store_exec(db, own, err);
    if (!rc)
        rc = store_exec(db, s->shared, err);
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
