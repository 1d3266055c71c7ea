/*
 * test_migrate.c — unit tests for store/migrate: schema versions, the
 * refusal of a database newer than the binary, and seeds that load whole or
 * not at all.
 *
 * Every test gets a fresh SQLite file in its own directory under $TMPDIR
 * (default /tmp), removed afterwards with its WAL and shared-memory files.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/migrate.h"
#include "store/store.h"

/* One test's database. */
typedef struct temp_db {
    char dir[512];  /* mkdtemp directory holding the file */
    char path[600]; /* the database file */
    store *db;      /* open read-write handle */
} temp_db;

static int temp_db_setup(void **state)
{
    temp_db *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/dbmcp-migrate-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(t->dir)) {
        free(t);
        return -1;
    }
    snprintf(t->path, sizeof t->path, "%s/test.db", t->dir);
    dbmcp_error err;
    if (store_open(t->path, STORE_READWRITE | STORE_CREATE, &t->db, &err) != 0) {
        print_error("store_open %s: %s\n", t->path, err.message);
        rmdir(t->dir);
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int temp_db_teardown(void **state)
{
    temp_db *t = *state;
    static const char *suffixes[] = {"", "-wal", "-shm", "-journal", NULL};
    store_close(t->db);
    for (int i = 0; suffixes[i]; i++) {
        char file[640];
        snprintf(file, sizeof file, "%s%s", t->path, suffixes[i]);
        unlink(file);
    }
    rmdir(t->dir);
    free(t);
    return 0;
}

static int64_t count_rows(store *db, const char *table)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
    int64_t n = -1;
    dbmcp_error err;
    assert_int_equal(store_query_int(db, sql, -1, &n, &err), 0);
    return n;
}

static void exec_ok(store *db, const char *sql)
{
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = store_exec(db, sql, &err);
    if (rc)
        fail_msg("%s: %s", sql, err.message);
}

static void migrate_ok(store *db, int expect_applied)
{
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int applied = -1;
    int rc = store_migrate(db, &applied, &err);
    if (rc)
        fail_msg("store_migrate: %s", err.message);
    assert_int_equal(applied, expect_applied);
}

/* ----- versions ----- */

static void test_empty_database_is_version_zero(void **state)
{
    temp_db *t = *state;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int version = -1;
    assert_int_equal(store_schema_version(t->db, &version, &err), 0);
    assert_int_equal(version, 0);
    assert_int_equal(store_schema_check(t->db, &err), DBMCP_EVERSION);
    assert_int_equal(err.code, DBMCP_EVERSION);
    assert_non_null(strstr(err.message, "dbmcp init"));
}

static void test_latest_is_positive(void **state)
{
    (void)state;
    assert_true(store_schema_latest() >= 1);
}

static void test_migrate_to_latest(void **state)
{
    temp_db *t = *state;
    migrate_ok(t->db, store_schema_latest());
    dbmcp_error err;
    int version = -1;
    assert_int_equal(store_schema_version(t->db, &version, &err), 0);
    assert_int_equal(version, store_schema_latest());
    assert_int_equal(store_schema_check(t->db, &err), 0);
    assert_int_equal(count_rows(t->db, "dbmcp_schema_migrations"), store_schema_latest());
    assert_int_equal(count_rows(t->db, "dbmcp_catalog_version"), 1);
}

static void test_migrate_again_applies_nothing(void **state)
{
    temp_db *t = *state;
    migrate_ok(t->db, store_schema_latest());
    migrate_ok(t->db, 0);
    assert_int_equal(count_rows(t->db, "dbmcp_schema_migrations"), store_schema_latest());
    dbmcp_error err;
    assert_int_equal(store_migrate(t->db, NULL, &err), 0); /* applied may be NULL */
}

/* An old binary must not write a schema it does not know. */
static void test_newer_database_refused(void **state)
{
    temp_db *t = *state;
    migrate_ok(t->db, store_schema_latest());
    char sql[256];
    snprintf(sql, sizeof sql,
             "INSERT INTO dbmcp_schema_migrations (version, name) VALUES (%d, 'from_the_future')",
             store_schema_latest() + 1);
    exec_ok(t->db, sql);

    dbmcp_error err;
    dbmcp_error_clear(&err);
    int applied = -1;
    assert_int_equal(store_migrate(t->db, &applied, &err), DBMCP_EVERSION);
    assert_int_equal(err.code, DBMCP_EVERSION);
    assert_int_equal(applied, 0);
    assert_non_null(strstr(err.message, "newer"));

    dbmcp_error_clear(&err);
    assert_int_equal(store_schema_check(t->db, &err), DBMCP_EVERSION);
    assert_int_equal(err.code, DBMCP_EVERSION);
    assert_non_null(strstr(err.message, "newer"));
    assert_int_equal(count_rows(t->db, "dbmcp_schema_migrations"), store_schema_latest() + 1);
}

/* A migration that fails part-way leaves no half-made schema behind. */
static void test_failed_migration_rolls_back(void **state)
{
    temp_db *t = *state;
    /* dbmcp_audit is created late in 0001_core.sql, after dbmcp_settings. */
    exec_ok(t->db, "CREATE TABLE dbmcp_audit (x INTEGER)");
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int applied = -1;
    assert_int_not_equal(store_migrate(t->db, &applied, &err), 0);
    assert_int_equal(applied, 0);
    assert_non_null(strstr(err.message, "migration 0001_core"));
    int version = -1;
    assert_int_equal(store_schema_version(t->db, &version, &err), 0);
    assert_int_equal(version, 0);
    int64_t settings = -1;
    assert_int_equal(store_query_int(t->db,
                                     "SELECT count(*) FROM sqlite_master WHERE name = "
                                     "'dbmcp_settings'",
                                     -1, &settings, &err),
                     0);
    assert_int_equal(settings, 0);
}

/* ----- seeds ----- */

static void test_seed_unknown_name(void **state)
{
    temp_db *t = *state;
    migrate_ok(t->db, store_schema_latest());
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(store_seed(t->db, "nonesuch", &err), DBMCP_ENOTFOUND);
    assert_int_equal(err.code, DBMCP_ENOTFOUND);
    assert_non_null(strstr(err.message, "nonesuch"));
}

static void test_seed_base_and_conformance(void **state)
{
    temp_db *t = *state;
    migrate_ok(t->db, store_schema_latest());
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(store_seed(t->db, "base", &err), 0);
    assert_int_equal(store_seed(t->db, "conformance", &err), 0);
    assert_int_equal(count_rows(t->db, "dbmcp_interfaces"), 2);
    int64_t enabled = -1;
    assert_int_equal(store_query_int(t->db,
                                     "SELECT enabled FROM dbmcp_interfaces WHERE name = "
                                     "'conformance'",
                                     -1, &enabled, &err),
                     0);
    assert_int_equal(enabled, 0); /* off until an operator enables it */
}

/* Seeding twice fails on a unique key, and the failed attempt adds nothing. */
static void test_seed_twice_changes_nothing(void **state)
{
    temp_db *t = *state;
    static const char *tables[] = {"dbmcp_interfaces", "dbmcp_tools", "dbmcp_interface_tools",
                                   "dbmcp_settings", NULL};
    migrate_ok(t->db, store_schema_latest());
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(store_seed(t->db, "base", &err), 0);
    int64_t before[4];
    for (int i = 0; tables[i]; i++)
        before[i] = count_rows(t->db, tables[i]);
    assert_int_not_equal(store_seed(t->db, "base", &err), 0);
    assert_non_null(strstr(err.message, "seed base"));
    assert_non_null(strstr(err.message, "UNIQUE"));
    for (int i = 0; tables[i]; i++)
        assert_int_equal(count_rows(t->db, tables[i]), before[i]);
}

/* A seed that fails on its last statement undoes the statements before it. */
static void test_seed_failure_rolls_back(void **state)
{
    temp_db *t = *state;
    migrate_ok(t->db, store_schema_latest());
    /* base.sql inserts this setting last, after interfaces and tools. */
    exec_ok(t->db, "INSERT INTO dbmcp_settings (key, value) VALUES ('http.max_body', '1')");
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_not_equal(store_seed(t->db, "base", &err), 0);
    assert_non_null(strstr(err.message, "seed base"));
    assert_int_equal(count_rows(t->db, "dbmcp_interfaces"), 0);
    assert_int_equal(count_rows(t->db, "dbmcp_tools"), 0);
    assert_int_equal(count_rows(t->db, "dbmcp_settings"), 1);
    /* No transaction is left open: the handle still writes. */
    exec_ok(t->db, "DELETE FROM dbmcp_settings");
    assert_int_equal(store_seed(t->db, "base", &err), 0);
    assert_int_equal(count_rows(t->db, "dbmcp_interfaces"), 1);
}

#define DB_TEST(fn) cmocka_unit_test_setup_teardown(fn, temp_db_setup, temp_db_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        DB_TEST(test_empty_database_is_version_zero),
        cmocka_unit_test(test_latest_is_positive),
        DB_TEST(test_migrate_to_latest),
        DB_TEST(test_migrate_again_applies_nothing),
        DB_TEST(test_newer_database_refused),
        DB_TEST(test_failed_migration_rolls_back),
        DB_TEST(test_seed_unknown_name),
        DB_TEST(test_seed_base_and_conformance),
        DB_TEST(test_seed_twice_changes_nothing),
        DB_TEST(test_seed_failure_rolls_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
