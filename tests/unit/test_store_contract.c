/*
 * test_store_contract.c — store.h's contract as tests, run against whichever
 * backend the environment names, through store.h only:
 *
 *   DBMCP_TEST_DB unset            a temporary SQLite file per test
 *   DBMCP_TEST_DB=postgresql://…   that PostgreSQL database (make unit-pg)
 *
 * Each test makes its own tables with names no other test (or run) uses and
 * drops them afterwards, so a shared PostgreSQL database stays clean. The
 * tables are qualified with the schema both handles see ("main." on
 * SQLite, "public." on PostgreSQL, where the read-write handle's own
 * search_path starts with dbmcp). A few tests are PostgreSQL's alone
 * (connection errors, a lost connection, numeric precision) and are
 * skipped on SQLite; notifications are PostgreSQL's, and SQLite's refusal
 * of them is tested.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/pg_guard.h"
#include "store/store.h"

#define MAX_TABLES 8

/* One test's database and handles. */
typedef struct fixture {
    int pg;                      /* the backend is PostgreSQL */
    char dir[512];               /* SQLite: the mkdtemp directory */
    char url[1024];              /* what store_open gets */
    store *rw;                   /* read-write handle */
    store *ro;                   /* read-only handle */
    char tables[MAX_TABLES][96]; /* qualified names to drop at the end */
    int n_tables;
} fixture;

static unsigned long table_counter;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* A fresh qualified table name ending in base, dropped at teardown. */
static const char *table(fixture *f, const char *base)
{
    assert_true(f->n_tables < MAX_TABLES);
    char *name = f->tables[f->n_tables++];
    snprintf(name, sizeof f->tables[0], "%sct%ld_%lu_%s", f->pg ? "public." : "main.",
             (long)getpid(), ++table_counter, base);
    return name;
}

/* A table's name without its schema, as REFERENCES wants it (SQLite takes no
 * schema there; PostgreSQL finds it on the search_path). */
static const char *bare(const char *qualified)
{
    return strchr(qualified, '.') + 1;
}

/* printf into one of a few rotating buffers (SQL text for one call). */
static const char *sqlf(const char *fmt, ...)
{
    static char bufs[4][4096];
    static int next;
    char *b = bufs[next++ % 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof bufs[0], fmt, ap);
    va_end(ap);
    return b;
}

static int fixture_setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    const char *db = getenv("DBMCP_TEST_DB");
    if (db && *db) {
        f->pg = 1;
        snprintf(f->url, sizeof f->url, "%s", db);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(f->dir, sizeof f->dir, "%s/dbmcp-contract-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(f->dir)) {
            free(f);
            return -1;
        }
        snprintf(f->url, sizeof f->url, "%s/contract.db", f->dir);
    }
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (store_open(f->url, STORE_READWRITE | STORE_CREATE, &f->rw, &err) != 0 ||
        store_open(f->url, STORE_READONLY, &f->ro, &err) != 0) {
        print_error("fixture: %s\n", err.message);
        return -1;
    }
    *state = f;
    return 0;
}

static int fixture_teardown(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    store_rollback(f->rw);
    for (int i = f->n_tables - 1; i >= 0; i--) /* children before parents */
        store_exec(f->rw, sqlf("DROP TABLE IF EXISTS %s", f->tables[i]), &err);
    store_close(f->ro);
    store_close(f->rw);
    if (!f->pg) {
        static const char *suffixes[] = {"", "-wal", "-shm", "-journal", NULL};
        for (int i = 0; suffixes[i]; i++)
            unlink(sqlf("%s%s", f->url, suffixes[i]));
        rmdir(f->dir);
    }
    free(f);
    return 0;
}

/* Run sql on db, which must succeed. */
static void exec_ok(store *db, const char *sql)
{
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = store_exec(db, sql, &err);
    if (rc)
        fail_msg("%s: %s", sql, err.message);
}

static store_stmt *prepare_ok(store *db, const char *sql)
{
    store_stmt *st = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = store_prepare(db, sql, &st, &err);
    if (rc)
        fail_msg("%s: %s", sql, err.message);
    return st;
}

static int64_t query_int(store *db, const char *sql)
{
    int64_t n = -1;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = store_query_int(db, sql, -1, &n, &err);
    if (rc)
        fail_msg("%s: %s", sql, err.message);
    return n;
}

/* The code of the first failing store_prepare/store_step of sql. */
static int run_code(store *db, const char *sql, dbmcp_error *err)
{
    store_stmt *st = NULL;
    dbmcp_error_clear(err);
    int rc = store_prepare(db, sql, &st, err);
    while (!rc && (rc = store_step(st, err)) == STORE_ROW)
        rc = 0;
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* --- connections and whole statements ------------------------------------------- */

static void test_open_close_identity(void **state)
{
    fixture *f = *state;
    assert_string_equal(store_dialect(f->rw), f->pg ? "postgres" : "sqlite");
    assert_false(store_is_readonly(f->rw));
    assert_true(store_is_readonly(f->ro));
    assert_string_equal(store_identity(f->rw), store_identity(f->ro));
    if (f->pg) {
        const char *id = store_identity(f->rw);
        assert_non_null(strchr(id, ':'));
        assert_non_null(strchr(id, '/'));
        assert_null(strchr(id, '@')); /* no user, no password */
    }
    store_close(NULL);
}

static void test_exec_and_changes(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "exec");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER PRIMARY KEY, v TEXT);"
                        " INSERT INTO %s VALUES (1, 'a'); INSERT INTO %s VALUES (2, 'b');"
                        " INSERT INTO %s VALUES (3, 'c')",
                        t, t, t, t));
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s", t)), 3);
    exec_ok(f->rw, sqlf("UPDATE %s SET v = 'x' WHERE id >= 2", t));
    assert_int_equal(store_changes(f->rw), 2);
    store_stmt *st = prepare_ok(f->rw, sqlf("DELETE FROM %s WHERE id = :id", t));
    assert_int_equal(store_bind_int(st, ":id", 1), 0);
    dbmcp_error err;
    assert_int_equal(store_step(st, &err), STORE_DONE);
    assert_int_equal(store_changes(f->rw), 1);
    store_finalize(st);
    /* A query leaves the count of the last change alone. */
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s", t)), 2);
    assert_int_equal(store_changes(f->rw), 1);
}

static void test_prepare_one_statement_only(void **state)
{
    fixture *f = *state;
    store_stmt *st = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(store_prepare(f->rw, "SELECT 1; SELECT 2", &st, &err), DBMCP_EINVAL);
    assert_null(st);
    assert_int_equal(err.code, DBMCP_EINVAL);
    assert_int_not_equal(store_prepare(f->ro, "SELECT 1; DELETE FROM x", &st, &err), 0);
    assert_int_not_equal(store_prepare(f->rw, "  -- nothing\n", &st, &err), 0);
    /* Trailing whitespace, comments and semicolons are fine. */
    st = prepare_ok(f->rw, "SELECT 1; -- done\n /* really */ ");
    assert_int_equal(store_step(st, &err), STORE_ROW);
    assert_int_equal(store_column_int(st, 0), 1);
    store_finalize(st);
    /* A syntax error is an error, not a crash. */
    assert_int_not_equal(store_prepare(f->rw, "SELEKT 1", &st, &err), 0);
    assert_int_equal(err.code, DBMCP_ESTORE);
}

/* --- binding and reading values ------------------------------------------------------ */

static void test_named_binds(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "binds");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (a INTEGER, b INTEGER, c TEXT)", t));
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (1, 2, 'x'), (2, 1, 'y'), (3, 3, 'z')", t));
    store_stmt *st = prepare_ok(
        f->rw, sqlf("SELECT c FROM %s WHERE a = :v OR b = :v OR c = :name ORDER BY c", t));
    assert_int_equal(store_param_count(st), 2);
    assert_string_equal(store_param_name(st, 0), ":v");
    assert_string_equal(store_param_name(st, 1), ":name");
    assert_int_equal(store_bind_int(st, ":v", 1), 0);
    assert_int_equal(store_bind_text(st, ":name", "z"), 0);
    assert_int_equal(store_bind_int(st, ":nope", 1), DBMCP_ENOTFOUND);
    dbmcp_error err;
    const char *want[] = {"x", "y", "z"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(store_step(st, &err), STORE_ROW);
        assert_string_equal(store_column_text(st, 0), want[i]);
    }
    assert_int_equal(store_step(st, &err), STORE_DONE);
    store_finalize(st);
}

/* The report tools' optional parameter: (:p IS NULL OR col = :p), whose
 * type PostgreSQL cannot settle from IS NULL (it answers 42P08, not
 * 42P18) and whose error position counts characters, not bytes; on both
 * engines NULL matches every row and a value its own, for a text and an
 * integer column alike. */
static void test_optional_param(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "optional");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (region TEXT, n INTEGER)", t));
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES ('Nord', 1), ('Süd', 2), ('Nord', 3)", t));
    store *handles[] = {f->rw, f->ro};
    for (int h = 0; h < 2; h++) {
        store_stmt *st = prepare_ok(
            handles[h], sqlf("SELECT count(*), coalesce(sum(n), 0), 'ä→ü' FROM %s WHERE"
                             " (:region IS NULL OR region = :region) AND (:n IS NULL OR n = :n)",
                             t));
        dbmcp_error err;
        struct {
            const char *region; /* NULL: bound as SQL NULL */
            int64_t n;          /* 0: bound as SQL NULL */
            int64_t count, sum;
        } cases[] = {{NULL, 0, 3, 6}, {"Nord", 0, 2, 4}, {"Nord", 3, 1, 3}, {NULL, 2, 1, 2}};
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            store_reset(st);
            store_bind_text(st, ":region", cases[i].region);
            if (cases[i].n)
                store_bind_int(st, ":n", cases[i].n);
            else
                store_bind_null(st, ":n");
            assert_int_equal(store_step(st, &err), STORE_ROW);
            assert_int_equal(store_column_int(st, 0), cases[i].count);
            assert_int_equal(store_column_int(st, 1), cases[i].sum);
        }
        store_finalize(st);
    }
}

static void test_nulls_ints_doubles_text(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "values");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER, i BIGINT, d DOUBLE PRECISION, s TEXT)", t));
    store_stmt *ins = prepare_ok(f->rw, sqlf("INSERT INTO %s VALUES (:id, :i, :d, :s)", t));
    const int64_t ints[] = {INT64_C(1) << 40, INT64_MAX, INT64_MIN, -3};
    const double doubles[] = {3.141592653589793, 1e300, -0.5, 0.1};
    const char *texts[] = {"it's \"quoted\"; :notaparam -- nor this", "日本語 Grüße 🎉 ä",
                           "back\\slash E'x'", "$$ dollar $$"};
    dbmcp_error err;
    for (int k = 0; k < 4; k++) {
        store_reset(ins);
        store_bind_int(ins, ":id", k);
        store_bind_int(ins, ":i", ints[k]);
        store_bind_double(ins, ":d", doubles[k]);
        store_bind_text(ins, ":s", texts[k]);
        assert_int_equal(store_step(ins, &err), STORE_DONE);
    }
    /* NULL both ways: bind_null and bind_text(NULL). */
    store_reset(ins);
    store_bind_int(ins, ":id", 9);
    store_bind_null(ins, ":i");
    store_bind_null(ins, ":d");
    store_bind_text(ins, ":s", NULL);
    assert_int_equal(store_step(ins, &err), STORE_DONE);
    store_finalize(ins);

    store_stmt *st = prepare_ok(f->ro, sqlf("SELECT i, d, s FROM %s ORDER BY id", t));
    for (int k = 0; k < 4; k++) {
        assert_int_equal(store_step(st, &err), STORE_ROW);
        assert_int_equal(store_column_type(st, 0), STORE_INTEGER);
        assert_true(store_column_int(st, 0) == ints[k]);
        assert_int_equal(store_column_type(st, 1), STORE_FLOAT);
        assert_true(store_column_double(st, 1) == doubles[k]);
        assert_int_equal(store_column_type(st, 2), STORE_TEXT);
        assert_string_equal(store_column_text(st, 2), texts[k]);
        assert_int_equal(store_column_bytes(st, 2), strlen(texts[k]));
    }
    assert_int_equal(store_step(st, &err), STORE_ROW);
    for (int c = 0; c < 3; c++) {
        assert_int_equal(store_column_type(st, c), STORE_NULL);
        assert_null(store_column_text(st, c));
    }
    assert_int_equal(store_column_int(st, 0), 0);
    assert_int_equal(store_step(st, &err), STORE_DONE);
    store_finalize(st);
}

static void test_booleans_and_sums(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    store_stmt *st = prepare_ok(f->ro, "SELECT (1 = 1) AS yes, (1 = 2) AS no");
    assert_int_equal(store_step(st, &err), STORE_ROW);
    assert_int_equal(store_column_type(st, 0), STORE_INTEGER);
    assert_int_equal(store_column_int(st, 0), 1);
    assert_string_equal(store_column_text(st, 0), "1");
    assert_string_equal(store_column_text(st, 1), "0");
    store_finalize(st);
    /* sum of integers is an integer (numeric on PostgreSQL). */
    const char *t = table(f, "sums");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (n BIGINT)", t));
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (4000000000), (4000000000)", t));
    st = prepare_ok(f->ro, sqlf("SELECT sum(n) FROM %s", t));
    assert_int_equal(store_step(st, &err), STORE_ROW);
    assert_int_equal(store_column_type(st, 0), STORE_INTEGER);
    assert_true(store_column_int(st, 0) == INT64_C(8000000000));
    store_finalize(st);
}

static void test_blobs(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "blobs");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER, b %s)", t, f->pg ? "BYTEA" : "BLOB"));
    const unsigned char bytes[] = {0, 1, 0, 255, 'a', 0, '\\', 'x', 0};
    store_stmt *ins = prepare_ok(f->rw, sqlf("INSERT INTO %s VALUES (:id, :b)", t));
    store_bind_int(ins, ":id", 1);
    assert_int_equal(store_bind_blob(ins, ":b", bytes, sizeof bytes), 0);
    dbmcp_error err;
    assert_int_equal(store_step(ins, &err), STORE_DONE);
    store_reset(ins);
    store_bind_int(ins, ":id", 2);
    store_bind_blob(ins, ":b", "", 0);
    assert_int_equal(store_step(ins, &err), STORE_DONE);
    store_finalize(ins);
    store_stmt *st = prepare_ok(f->ro, sqlf("SELECT b FROM %s ORDER BY id", t));
    assert_int_equal(store_step(st, &err), STORE_ROW);
    assert_int_equal(store_column_type(st, 0), STORE_BLOB);
    assert_int_equal(store_column_bytes(st, 0), sizeof bytes);
    assert_memory_equal(store_column_blob(st, 0), bytes, sizeof bytes);
    assert_int_equal(store_step(st, &err), STORE_ROW);
    assert_int_equal(store_column_type(st, 0), STORE_BLOB);
    assert_int_equal(store_column_bytes(st, 0), 0);
    store_finalize(st);
}

static void test_columns_before_first_step(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "cols");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER, name TEXT, score DOUBLE PRECISION)", t));
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (7, 'seven', 7.5)", t));
    store_stmt *st = prepare_ok(f->ro, sqlf("SELECT id, name, score AS s FROM %s", t));
    assert_int_equal(store_column_count(st), 3);
    assert_string_equal(store_column_name(st, 0), "id");
    assert_string_equal(store_column_name(st, 1), "name");
    assert_string_equal(store_column_name(st, 2), "s");
    for (int c = 0; c < 3; c++)
        assert_int_equal(store_column_kind(st, c), STORE_KIND_PLAIN);
    dbmcp_error err;
    assert_int_equal(store_step(st, &err), STORE_ROW);
    assert_int_equal(store_column_type(st, 0), STORE_INTEGER);
    assert_int_equal(store_column_type(st, 1), STORE_TEXT);
    assert_int_equal(store_column_type(st, 2), STORE_FLOAT);
    store_finalize(st);
    st = prepare_ok(f->rw, sqlf("UPDATE %s SET id = 8", t));
    assert_int_equal(store_column_count(st), 0);
    store_finalize(st);
}

/* --- errors ------------------------------------------------------------------------------ */

static void test_constraint_codes(void **state)
{
    fixture *f = *state;
    const char *p = table(f, "parent"), *c = table(f, "child");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)", p));
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES %s "
                        "(id), legs INTEGER CHECK (legs BETWEEN 0 AND 8))",
                        c, bare(p)));
    if (!f->pg)
        exec_ok(f->rw, "PRAGMA foreign_keys = ON");
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (1, 'Ada')", p));
    dbmcp_error err;
    assert_int_equal(store_exec(f->rw, sqlf("INSERT INTO %s VALUES (2, 'Ada')", p), &err),
                     DBMCP_ECONSTRAINT_UNIQUE);
    assert_int_equal(store_exec(f->rw, sqlf("INSERT INTO %s VALUES (1, 'Bo')", p), &err),
                     DBMCP_ECONSTRAINT_UNIQUE);
    assert_int_equal(store_exec(f->rw, sqlf("INSERT INTO %s VALUES (1, 99, 4)", c), &err),
                     DBMCP_ECONSTRAINT_FOREIGN_KEY);
    assert_int_equal(store_exec(f->rw, sqlf("INSERT INTO %s VALUES (1, 1, 9)", c), &err),
                     DBMCP_ECONSTRAINT_CHECK);
    assert_int_equal(store_exec(f->rw, sqlf("INSERT INTO %s VALUES (3, NULL)", p), &err),
                     DBMCP_ECONSTRAINT_NOT_NULL);
    /* The same codes from a prepared statement's step, the engine's words
     * kept out of the public message. */
    store_stmt *st = prepare_ok(f->rw, sqlf("INSERT INTO %s (id, name) VALUES (:id, :n)", p));
    store_bind_int(st, ":id", 5);
    store_bind_text(st, ":n", "Ada");
    assert_int_equal(store_step(st, &err), DBMCP_ECONSTRAINT_UNIQUE);
    assert_int_equal(err.code, DBMCP_ECONSTRAINT_UNIQUE);
    assert_null(strstr(err.public_message, "unique"));
    assert_null(strstr(err.public_message, "UNIQUE"));
    store_reset(st);
    store_bind_text(st, ":n", NULL);
    assert_int_equal(store_step(st, &err), DBMCP_ECONSTRAINT_NOT_NULL);
    store_finalize(st);
    /* The handle still works afterwards. */
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s", p)), 1);
}

/* The class store_last_failure gives sql's failure (prepare or first
 * step), its name copied to name. */
static store_failure_kind failure_of(store *db, const char *sql, char *name, size_t size)
{
    dbmcp_error err;
    store_stmt *st = NULL;
    int rc = store_prepare(db, sql, &st, &err);
    if (!rc) {
        rc = store_step(st, &err);
        rc = rc < 0 ? rc : 0;
    }
    store_failure f;
    store_last_failure(db, &f);
    store_finalize(st);
    snprintf(name, size, "%s", f.name);
    return rc ? f.kind : STORE_FAILURE_OTHER;
}

/* Engine errors become the same neutral classes on both engines, with the
 * offending name or token (store.h, "why a statement failed"). */
static void test_failure_classes(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "classes");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (a INTEGER, b TEXT)", t));
    char name[STORE_FAILURE_NAME_MAX];
    assert_int_equal(failure_of(f->rw, sqlf("SELECT nme FROM %s", t), name, sizeof name),
                     STORE_FAILURE_UNKNOWN_COLUMN);
    assert_string_equal(name, "nme");
    assert_int_equal(failure_of(f->rw, "SELECT * FROM no_such_table_x", name, sizeof name),
                     STORE_FAILURE_UNKNOWN_TABLE);
    assert_non_null(strstr(name, "no_such_table_x"));
    assert_int_equal(failure_of(f->rw, sqlf("SELECT * FORM %s", t), name, sizeof name),
                     STORE_FAILURE_SYNTAX);
    assert_string_equal(name, "FORM");
    assert_int_equal(failure_of(f->rw, sqlf("SELECT * FROM %s WHERE", t), name, sizeof name),
                     STORE_FAILURE_SYNTAX);
    assert_string_equal(name, "");
    assert_int_equal(failure_of(f->rw, sqlf("SELECT upper() FROM %s", t), name, sizeof name),
                     STORE_FAILURE_ARGUMENTS);
    assert_string_equal(name, "upper");
    assert_int_equal(failure_of(f->rw, sqlf("SELECT a FROM %s x, %s y", t, t), name, sizeof name),
                     STORE_FAILURE_AMBIGUOUS_COLUMN);
    /* A statement prepared after a failure starts clean. */
    assert_int_equal(failure_of(f->rw, sqlf("SELECT a FROM %s", t), name, sizeof name),
                     STORE_FAILURE_OTHER);
    store_failure clean;
    store_last_failure(f->rw, &clean);
    assert_int_equal(clean.kind, STORE_FAILURE_OTHER);
    if (!f->pg) /* SQLite: 1/0 is NULL, text + 1 a number */
        return;
    assert_int_equal(failure_of(f->rw, "SELECT 1 / 0", name, sizeof name),
                     STORE_FAILURE_DIVISION_BY_ZERO);
    assert_int_equal(failure_of(f->rw, "SELECT 'abc'::integer", name, sizeof name),
                     STORE_FAILURE_TYPE_MISMATCH);
    assert_string_equal(name, "'abc'");
    assert_int_equal(failure_of(f->rw, sqlf("SELECT b + 1 FROM %s", t), name, sizeof name),
                     STORE_FAILURE_TYPE_MISMATCH);
    assert_string_equal(name, "+");
    assert_int_equal(
        failure_of(f->rw, sqlf("SELECT a, b FROM %s GROUP BY a", t), name, sizeof name),
        STORE_FAILURE_GROUPING);
    assert_string_equal(name, "b");
}

static void test_readonly_refuses_writes(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "ro");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER)", t));
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (1)", t));
    dbmcp_error err;
    assert_int_equal(run_code(f->ro, sqlf("INSERT INTO %s VALUES (2)", t), &err), DBMCP_EDENIED);
    assert_int_equal(run_code(f->ro, sqlf("DELETE FROM %s", t), &err), DBMCP_EDENIED);
    assert_int_equal(run_code(f->ro, sqlf("UPDATE %s SET id = 3", t), &err), DBMCP_EDENIED);
    assert_int_equal(run_code(f->ro, sqlf("CREATE TABLE %sx (id INTEGER)", t), &err),
                     DBMCP_EDENIED);
    assert_int_equal(store_exec(f->ro, sqlf("DELETE FROM %s", t), &err), DBMCP_EDENIED);
    assert_int_not_equal(store_begin(f->ro, &err), 0);
    /* Reads still work, and nothing changed. */
    assert_int_equal(query_int(f->ro, sqlf("SELECT count(*) FROM %s", t)), 1);
    assert_int_equal(query_int(f->rw, sqlf("SELECT sum(id) FROM %s", t)), 1);
}

static void test_verify_readonly(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(store_verify_readonly(f->rw, &err), DBMCP_EDENIED);
    int rc = store_verify_readonly(f->ro, &err);
    if (!f->pg) {
        assert_int_equal(rc, 0);
        return;
    }
    /* PostgreSQL: 0 unless the role is a superuser, which is refused. */
    int64_t super = query_int(f->ro, "SELECT CAST(rolsuper AS INTEGER) FROM pg_roles"
                                     " WHERE rolname = current_user");
    if (super) {
        assert_int_equal(rc, DBMCP_EDENIED);
        assert_non_null(strstr(err.message, "superuser"));
    } else {
        assert_int_equal(rc, 0);
    }
}

/* A statement that runs for minutes unless stopped. */
static const char *slow_sql(fixture *f)
{
    return f->pg ? "SELECT pg_sleep(60)"
                 : "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
                   " SELECT max(x) FROM c";
}

static void test_time_limit(void **state)
{
    fixture *f = *state;
    store *handles[] = {f->ro, f->rw};
    for (int h = 0; h < 2; h++) {
        store_stmt *st = prepare_ok(handles[h], slow_sql(f));
        store_set_time_limit(handles[h], 200);
        dbmcp_error err;
        dbmcp_error_clear(&err);
        double start = now_ms();
        assert_int_equal(store_step(st, &err), DBMCP_ETIMEOUT);
        assert_true(now_ms() - start < 30000);
        assert_string_equal(err.public_message, "the query took too long");
        store_finalize(st);
        store_set_time_limit(handles[h], 0);
        /* The handle works again. */
        assert_int_equal(query_int(handles[h], "SELECT 41 + 1"), 42);
    }
}

typedef struct canceller {
    atomic_int flag;
    int after_ms;
} canceller;

static void *cancel_later(void *arg)
{
    canceller *c = arg;
    struct timespec ts = {0, (long)c->after_ms * 1000000L};
    nanosleep(&ts, NULL);
    atomic_store(&c->flag, 1);
    return NULL;
}

static void test_cancel_flag(void **state)
{
    fixture *f = *state;
    canceller c = {.after_ms = 200};
    atomic_init(&c.flag, 0);
    store_set_cancel_flag(f->ro, &c.flag);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, cancel_later, &c), 0);
    store_stmt *st = prepare_ok(f->ro, slow_sql(f));
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(store_step(st, &err), DBMCP_ETIMEOUT);
    assert_string_equal(err.message, "cancelled by the client");
    store_finalize(st);
    pthread_join(thread, NULL);
    store_set_cancel_flag(f->ro, NULL);
    assert_int_equal(query_int(f->ro, "SELECT 7"), 7);
}

static void count_call(void *arg)
{
    (*(int *)arg)++;
}

/* The slow hook runs once, from inside the step, while the statement runs. */
static void test_slow_hook(void **state)
{
    fixture *f = *state;
    int calls = 0;
    store_set_slow_hook(f->ro, 100, count_call, &calls);
    store_set_time_limit(f->ro, 600);
    store_stmt *st = prepare_ok(f->ro, slow_sql(f));
    dbmcp_error err;
    assert_int_equal(store_step(st, &err), DBMCP_ETIMEOUT);
    store_finalize(st);
    assert_int_equal(calls, 1);
    store_set_time_limit(f->ro, 0);
    store_set_slow_hook(f->ro, 0, NULL, NULL);
    assert_int_equal(query_int(f->ro, "SELECT 2"), 2);
    assert_int_equal(calls, 1);
}

/* What the query budget bounds on every backend: the statement's length and
 * the values a statement reads. */
static void test_query_budget(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "budget");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (v TEXT)", t));
    char big[1001];
    memset(big, 'x', 1000);
    big[1000] = '\0';
    store_stmt *ins = prepare_ok(f->rw, sqlf("INSERT INTO %s VALUES (:v)", t));
    store_bind_text(ins, ":v", big);
    dbmcp_error err;
    assert_int_equal(store_step(ins, &err), STORE_DONE);
    store_finalize(ins);
    const char *read = sqlf("SELECT v FROM %s", t);
    store_query_budget budget = {.value_bytes = 100, .sql_bytes = 200, .pattern_bytes = 0};
    store_set_query_budget(f->ro, &budget);
    assert_int_equal(run_code(f->ro, read, &err), DBMCP_ETOOBIG);
    char longer[400];
    snprintf(longer, sizeof longer, "SELECT 1 /* %0250d */", 0);
    assert_int_equal(run_code(f->ro, longer, &err), DBMCP_ETOOBIG);
    store_set_query_budget(f->ro, NULL);
    assert_int_equal(run_code(f->ro, read, &err), 0);
    assert_int_equal(run_code(f->ro, longer, &err), 0);
}

/* --- transactions, reset, finalize ----------------------------------------------------- */

static void test_transactions(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "txn");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER PRIMARY KEY)", t));
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (1)", t));
    dbmcp_error err;
    assert_int_equal(store_begin(f->rw, &err), 0);
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (2)", t));
    exec_ok(f->rw, sqlf("DELETE FROM %s WHERE id = 1", t));
    store_rollback(f->rw);
    assert_int_equal(query_int(f->rw, sqlf("SELECT sum(id) FROM %s", t)), 1);
    store_rollback(f->rw); /* nothing open: harmless */
    assert_int_equal(store_begin(f->rw, &err), 0);
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (3)", t));
    assert_int_equal(store_commit(f->rw, &err), 0);
    assert_int_equal(query_int(f->ro, sqlf("SELECT sum(id) FROM %s", t)), 4);
    /* A failed statement inside a transaction: the caller rolls back. */
    assert_int_equal(store_begin(f->rw, &err), 0);
    assert_int_equal(store_exec(f->rw, sqlf("INSERT INTO %s VALUES (3)", t), &err),
                     DBMCP_ECONSTRAINT_UNIQUE);
    store_rollback(f->rw);
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s", t)), 2);
}

static void test_deferred_constraint_at_commit(void **state)
{
    fixture *f = *state;
    const char *p = table(f, "dparent"), *c = table(f, "dchild");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER PRIMARY KEY)", p));
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES %s "
                        "(id) DEFERRABLE INITIALLY DEFERRED)",
                        c, bare(p)));
    if (!f->pg)
        exec_ok(f->rw, "PRAGMA foreign_keys = ON");
    dbmcp_error err;
    assert_int_equal(store_begin(f->rw, &err), 0);
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (1, 42)", c));
    assert_int_equal(store_commit(f->rw, &err), DBMCP_ECONSTRAINT_FOREIGN_KEY);
    store_rollback(f->rw);
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s", c)), 0);
}

static void test_reset_keeps_bindings(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "reset");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER, v TEXT)", t));
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (1, 'one'), (2, 'two'), (3, 'three')", t));
    store_stmt *st = prepare_ok(f->ro, sqlf("SELECT v FROM %s WHERE id >= :min ORDER BY id", t));
    store_bind_int(st, ":min", 2);
    dbmcp_error err;
    for (int run = 0; run < 3; run++) {
        assert_int_equal(store_step(st, &err), STORE_ROW);
        assert_string_equal(store_column_text(st, 0), "two");
        if (run == 1) {
            store_reset(st); /* mid-result */
            continue;
        }
        assert_int_equal(store_step(st, &err), STORE_ROW);
        assert_string_equal(store_column_text(st, 0), "three");
        assert_int_equal(store_step(st, &err), STORE_DONE);
        store_reset(st);
    }
    store_bind_int(st, ":min", 3);
    assert_int_equal(store_step(st, &err), STORE_ROW);
    assert_string_equal(store_column_text(st, 0), "three");
    store_finalize(st);
}

/* store_prepare_cached: the same text on the same handle gives back the
 * kept statement, reset, its parameters NULL again; a text already handed
 * out gets a statement of its own; read-only handles keep nothing; more
 * texts than the cache holds still run right. */
static void test_prepare_cached(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "kept");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER, v TEXT)", t));
    char insert[256], select[256];
    snprintf(insert, sizeof insert, "INSERT INTO %s (id, v) VALUES (:id, :v)", t);
    snprintf(select, sizeof select, "SELECT id FROM %s ORDER BY id", t);
    dbmcp_error err;
    store_stmt *first, *again, *nested;
    assert_int_equal(store_prepare_cached(f->rw, insert, &first, &err), 0);
    store_bind_int(first, ":id", 1);
    store_bind_text(first, ":v", "one");
    assert_int_equal(store_step(first, &err), STORE_DONE);
    store_finalize(first);
    assert_int_equal(store_prepare_cached(f->rw, insert, &again, &err), 0);
    assert_ptr_equal(again, first);  /* kept, not prepared again */
    store_bind_int(again, ":id", 2); /* :v left unbound: NULL, not "one" */
    assert_int_equal(store_prepare_cached(f->rw, insert, &nested, &err), 0);
    assert_ptr_not_equal(nested, again);
    store_bind_int(nested, ":id", 3);
    store_bind_text(nested, ":v", "three");
    assert_int_equal(store_step(nested, &err), STORE_DONE);
    store_finalize(nested); /* not kept: finalized */
    assert_int_equal(store_step(again, &err), STORE_DONE);
    store_finalize(again);
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s WHERE v IS NULL", t)), 1);
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s", t)), 3);

    /* Given back mid-result: the next hand-out starts from the first row. */
    store_stmt *q;
    assert_int_equal(store_prepare_cached(f->rw, select, &q, &err), 0);
    assert_int_equal(store_step(q, &err), STORE_ROW);
    assert_int_equal(store_step(q, &err), STORE_ROW);
    store_finalize(q);
    assert_int_equal(store_prepare_cached(f->rw, select, &q, &err), 0);
    assert_int_equal(store_step(q, &err), STORE_ROW);
    assert_int_equal(store_column_int(q, 0), 1);
    store_finalize(q);
    /* A write on the handle after a statement went back mid-result. */
    exec_ok(f->rw, sqlf("DELETE FROM %s WHERE id = 3", t));

    /* Read-only handles keep nothing (their guard decides at prepare). */
    store_stmt *r1, *r2;
    assert_int_equal(store_prepare_cached(f->ro, select, &r1, &err), 0);
    assert_int_equal(store_prepare_cached(f->ro, select, &r2, &err), 0);
    assert_ptr_not_equal(r1, r2);
    store_finalize(r1);
    store_finalize(r2);

    /* More texts than the cache holds: the least recently used make room. */
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < STORE_KEPT_MAX + 8; i++) {
            char sql[64];
            snprintf(sql, sizeof sql, "SELECT %d AS n", i);
            store_stmt *st;
            assert_int_equal(store_prepare_cached(f->rw, sql, &st, &err), 0);
            assert_int_equal(store_step(st, &err), STORE_ROW);
            assert_int_equal(store_column_int(st, 0), i);
            store_finalize(st);
        }
    /* A failed prepare keeps nothing and reports the error. */
    assert_true(store_prepare_cached(f->rw, "SELEC nonsense", &q, &err) < 0);
}

/* A statement with (practically) endless rows: finalize after a few must
 * stop it rather than read the rest. */
static const char *endless_sql(fixture *f)
{
    return f->pg
               ? "SELECT generate_series(1, 1000000000000) AS n"
               : "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n FROM c";
}

static void test_finalize_mid_result(void **state)
{
    fixture *f = *state;
    store *handles[] = {f->ro, f->rw};
    const char *sqls[] = {endless_sql(f),
                          f->pg ? "SELECT generate_series(1, 1000000) AS n"
                                : "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c"
                                  " WHERE n < 1000000) SELECT n FROM c"};
    for (int h = 0; h < 2; h++) {
        for (int s = 0; s < 2; s++) {
            store_stmt *st = prepare_ok(handles[h], sqls[s]);
            dbmcp_error err;
            for (int i = 1; i <= 11; i++) {
                assert_int_equal(store_step(st, &err), STORE_ROW);
                assert_int_equal(store_column_int(st, 0), i);
            }
            store_finalize(st);
            assert_int_equal(query_int(handles[h], "SELECT 5"), 5);
        }
    }
}

/* Two statements stepped in turn on one handle, as a nested loop does. */
static void test_interleaved_statements(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "nest");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER, parent INTEGER)", t));
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (1, 0), (2, 0), (3, 1), (4, 1), (5, 2)", t));
    store_stmt *outer =
        prepare_ok(f->ro, sqlf("SELECT id FROM %s WHERE parent = 0 ORDER BY id", t));
    store_stmt *inner = prepare_ok(f->ro, sqlf("SELECT count(*) FROM %s WHERE parent = :p", t));
    dbmcp_error err;
    int64_t counts[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(store_step(outer, &err), STORE_ROW);
        store_reset(inner);
        store_bind_int(inner, ":p", store_column_int(outer, 0));
        assert_int_equal(store_step(inner, &err), STORE_ROW);
        counts[i] = store_column_int(inner, 0);
    }
    assert_int_equal(store_step(outer, &err), STORE_DONE);
    assert_int_equal(counts[0], 2);
    assert_int_equal(counts[1], 1);
    store_finalize(inner);
    store_finalize(outer);
}

static int readonly_of(store *db, const char *sql)
{
    store_stmt *st = prepare_ok(db, sql);
    int readonly = -1;
    dbmcp_error err;
    assert_int_equal(store_stmt_is_readonly(st, &readonly, &err), 0);
    store_finalize(st);
    return readonly;
}

static void test_stmt_is_readonly(void **state)
{
    fixture *f = *state;
    const char *t = table(f, "rdo");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER, v TEXT)", t));
    assert_int_equal(readonly_of(f->rw, sqlf("SELECT v FROM %s WHERE id = :id", t)), 1);
    assert_int_equal(readonly_of(f->ro, sqlf("SELECT v FROM %s", t)), 1);
    assert_int_equal(readonly_of(f->rw, "WITH o AS (SELECT 1 AS x) SELECT x FROM o"), 1);
    assert_int_equal(readonly_of(f->rw, sqlf("EXPLAIN SELECT v FROM %s", t)), 1);
    assert_int_equal(readonly_of(f->rw, sqlf("UPDATE %s SET v = :v", t)), 0);
    assert_int_equal(readonly_of(f->rw, sqlf("INSERT INTO %s VALUES (1, 'y') RETURNING id", t)), 0);
    assert_int_equal(readonly_of(f->rw, sqlf("DELETE FROM %s", t)), 0);
    assert_int_equal(readonly_of(f->rw, sqlf("CREATE TABLE %sx (id INTEGER)", t)), 0);
    /* Inside a transaction the question leaves the transaction usable. */
    dbmcp_error err;
    assert_int_equal(store_begin(f->rw, &err), 0);
    assert_int_equal(readonly_of(f->rw, sqlf("DROP TABLE %s", t)), 0);
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (1, 'kept')", t));
    assert_int_equal(store_commit(f->rw, &err), 0);
    assert_int_equal(query_int(f->rw, sqlf("SELECT count(*) FROM %s", t)), 1);
}

/* --- PostgreSQL only ---------------------------------------------------------------------- */

/* f->url with its password replaced by pw, or its database by db (NULL:
 * kept as it is). */
static const char *url_with(fixture *f, const char *pw, const char *db)
{
    static char out[1100];
    const char *scheme_end = strstr(f->url, "://") + 3;
    const char *at = strchr(scheme_end, '@');
    const char *colon = memchr(scheme_end, ':', (size_t)(at - scheme_end));
    const char *path = strchr(at, '/');
    const char *query = strchr(at, '?');
    int n;
    if (pw)
        n = snprintf(out, sizeof out, "%.*s:%s", (int)(colon - f->url), f->url, pw);
    else
        n = snprintf(out, sizeof out, "%.*s", (int)(at - f->url), f->url);
    n += snprintf(out + n, sizeof out - (size_t)n, "%.*s", (int)(path - at), at);
    if (db)
        snprintf(out + n, sizeof out - (size_t)n, "/%s%s", db, query ? query : "");
    else
        snprintf(out + n, sizeof out - (size_t)n, "%s", path);
    return out;
}

/* f->url for another user and password. */
static const char *url_as(fixture *f, const char *user, const char *pw)
{
    static char out[1100];
    const char *scheme_end = strstr(f->url, "://") + 3;
    const char *at = strchr(scheme_end, '@');
    snprintf(out, sizeof out, "%.*s%s:%s%s", (int)(scheme_end - f->url), f->url, user, pw, at);
    return out;
}

/* A query connection as a role that is not a superuser passes
 * store_verify_readonly (the fixture's superuser does not). */
static void test_pg_verify_readonly_role(void **state)
{
    fixture *f = *state;
    if (!f->pg)
        skip();
    char role[64];
    snprintf(role, sizeof role, "ct_reader_%ld", (long)getpid());
    exec_ok(f->rw, sqlf("CREATE ROLE %s LOGIN PASSWORD 'reader-pw'", role));
    store *ro = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = store_open(url_as(f, role, "reader-pw"), STORE_READONLY, &ro, &err);
    if (rc == 0) {
        rc = store_verify_readonly(ro, &err);
        store_close(ro);
    }
    exec_ok(f->rw, sqlf("DROP ROLE %s", role));
    if (rc)
        fail_msg("%s", err.message);
}

static void test_pg_connection_errors(void **state)
{
    fixture *f = *state;
    if (!f->pg)
        skip();
    store *db = NULL;
    dbmcp_error err;
    assert_int_equal(store_open(url_with(f, "wrong-password-x", NULL), STORE_READWRITE, &db, &err),
                     DBMCP_EDENIED);
    assert_null(db);
    assert_non_null(strstr(err.message, "password"));
    assert_null(strstr(err.message, "wrong-password-x"));
    assert_int_equal(store_open(url_with(f, NULL, "no_such_db_x"), STORE_READWRITE, &db, &err),
                     DBMCP_ENOTFOUND);
    assert_non_null(strstr(err.message, "no_such_db_x"));
    assert_int_equal(
        store_open("postgresql://u:secret-pw@/x?host=/nonexistent/dir", STORE_READWRITE, &db, &err),
        DBMCP_EIO);
    assert_non_null(strstr(err.message, "/nonexistent/dir"));
    assert_null(strstr(err.message, "secret-pw"));
    assert_int_equal(store_open("postgresql://[bad", STORE_READWRITE, &db, &err), DBMCP_EINVAL);
}

static void test_pg_numeric(void **state)
{
    fixture *f = *state;
    if (!f->pg)
        skip();
    store_stmt *st = prepare_ok(f->ro, "SELECT CAST(1.25 AS numeric), CAST(5.00 AS numeric(5,2)),"
                                       " CAST('12345678901234567890.123456789' AS numeric),"
                                       " CAST(99999999999999999999 AS numeric)");
    dbmcp_error err;
    assert_int_equal(store_step(st, &err), STORE_ROW);
    assert_int_equal(store_column_type(st, 0), STORE_FLOAT);
    assert_true(store_column_double(st, 0) == 1.25);
    assert_int_equal(store_column_type(st, 1), STORE_FLOAT);
    assert_string_equal(store_column_text(st, 1), "5.00");
    assert_int_equal(store_column_type(st, 2), STORE_TEXT);
    assert_string_equal(store_column_text(st, 2), "12345678901234567890.123456789");
    assert_int_equal(store_column_type(st, 3), STORE_TEXT);
    store_finalize(st);
}

/* pg_guard's call on the query connection: its own read-only transaction
 * and savepoint around the agent's statements, which run inside it; its end
 * (DEALLOCATE ALL included) leaves the handle as it was. */
static void test_pg_guard_call(void **state)
{
    fixture *f = *state;
    if (!f->pg)
        skip();
    const char *t = table(f, "guarded");
    exec_ok(f->rw, sqlf("CREATE TABLE %s (id INTEGER)", t));
    exec_ok(f->rw, sqlf("INSERT INTO %s VALUES (1), (2)", t));
    store_stmt *kept = prepare_ok(f->ro, sqlf("SELECT count(*) FROM %s", t));
    for (int call = 0; call < 2; call++) {
        pg_guard_call c = {.call_id = "c-1", .tool = "execute_query", .statement_timeout_ms = 2000};
        dbmcp_error err;
        dbmcp_error_clear(&err);
        if (pg_guard_call_begin(f->ro, &c, &err))
            fail_msg("%s", err.message);
        assert_int_equal(query_int(f->ro, sqlf("SELECT sum(id) FROM %s", t)), 3);
        assert_int_equal(run_code(f->ro, sqlf("INSERT INTO %s VALUES (3)", t), &err),
                         DBMCP_EDENIED);
        assert_int_equal(pg_guard_call_end(f->ro), 0);
        /* A statement prepared before the calls still runs after them. */
        store_reset(kept);
        assert_int_equal(store_step(kept, &err), STORE_ROW);
        assert_int_equal(store_column_int(kept, 0), 2);
    }
    store_finalize(kept);

    /* Prepared before the call, as execute_query does: the opening goes out
     * with its first step, in one pipeline, and the statement runs inside
     * the call's transaction with the call's settings. The end is not
     * waited for; the same session serves the next command, as it was. */
    int64_t pid = query_int(f->ro, "SELECT pg_backend_pid()");
    for (int call = 0; call < 2; call++) {
        store_stmt *in = prepare_ok(
            f->ro, "SELECT current_setting('application_name') || ' ' || "
                   "current_setting('transaction_read_only') || ' ' || "
                   "current_setting('statement_timeout') || ' ' || current_setting('jit')");
        pg_guard_call c = {.call_id = "c-2", .tool = "execute_query", .statement_timeout_ms = 2000};
        dbmcp_error err;
        dbmcp_error_clear(&err);
        if (pg_guard_call_begin(f->ro, &c, &err))
            fail_msg("%s", err.message);
        assert_int_equal(store_step(in, &err), STORE_ROW);
        assert_string_equal(store_column_text(in, 0), "dbmcp execute_query c-2 on 2s off");
        assert_int_equal(store_step(in, &err), STORE_DONE);
        store_finalize(in);
        assert_int_equal(pg_guard_call_end(f->ro), 0);
        assert_int_equal(query_int(f->ro, "SELECT pg_backend_pid()"), pid);
        assert_int_equal(query_int(f->ro, "SELECT (current_setting('application_name') = 'dbmcp'"
                                          " AND current_setting('jit') = 'on')::int"),
                         1);
    }

    /* A statement that fails inside the pipeline fails its step; the call
     * ends as usual and the session stays. */
    {
        store_stmt *bad = prepare_ok(f->ro, "SELECT 1 / (SELECT count(*) FROM pg_class "
                                            "WHERE false)");
        pg_guard_call c = {.call_id = "c-3", .tool = "execute_query", .statement_timeout_ms = 2000};
        dbmcp_error err;
        dbmcp_error_clear(&err);
        assert_int_equal(pg_guard_call_begin(f->ro, &c, &err), 0);
        assert_true(store_step(bad, &err) < 0);
        assert_non_null(strstr(err.message, "division by zero"));
        store_finalize(bad);
        assert_int_equal(pg_guard_call_end(f->ro), 0);
        assert_int_equal(query_int(f->ro, "SELECT pg_backend_pid()"), pid);
    }

    /* A call whose statement ended the call's transaction itself: the end
     * fails on the server, and the next command runs on a new session, so
     * nothing the call left (here a session setting) outlives it. */
    {
        pg_guard_call c = {.call_id = "c-4", .tool = "execute_query", .statement_timeout_ms = 2000};
        dbmcp_error err;
        dbmcp_error_clear(&err);
        assert_int_equal(pg_guard_call_begin(f->ro, &c, &err), 0);
        exec_ok(f->ro, "ROLLBACK");
        exec_ok(f->ro, "SET work_mem = '77kB'");
        assert_int_equal(pg_guard_call_end(f->ro), 0);
        assert_true(query_int(f->ro, "SELECT pg_backend_pid()") != pid);
        assert_int_equal(query_int(f->ro, "SELECT (current_setting('work_mem') <> '77kB')::int"),
                         1);
    }

    dbmcp_error err;
    assert_int_equal(store_verify_readonly(f->ro, &err), DBMCP_EDENIED); /* superuser */
    assert_non_null(strstr(err.message, "superuser"));
}

/* Ends the session of backend pid from another connection, a little later. */
typedef struct terminator {
    store *db;
    int64_t pid;
} terminator;

static void *terminate_later(void *arg)
{
    terminator *t = arg;
    struct timespec ts = {0, 300 * 1000000L};
    nanosleep(&ts, NULL);
    dbmcp_error err;
    store_exec(t->db, sqlf("SELECT pg_terminate_backend(%lld)", (long long)t->pid), &err);
    return NULL;
}

/* The server ends the read-only handle's session: a call in flight fails
 * with DBMCP_EIO, and the next one reconnects by itself. */
static void test_pg_lost_connection(void **state)
{
    fixture *f = *state;
    if (!f->pg)
        skip();
    int64_t pid = query_int(f->ro, "SELECT pg_backend_pid()");
    exec_ok(f->rw, sqlf("SELECT pg_terminate_backend(%lld)", (long long)pid));
    /* Idle when it was closed: noticed before the next command (once the
     * backend is gone: pg_terminate_backend only signals it). */
    while (query_int(f->rw, sqlf("SELECT count(*) FROM pg_stat_activity WHERE pid = %lld",
                                 (long long)pid)) > 0) {
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(query_int(f->ro, "SELECT 3"), 3);
    /* In flight: that call fails, the next one works. */
    store_stmt *st = prepare_ok(f->ro, "SELECT pg_sleep(5)");
    terminator t = {NULL, query_int(f->ro, "SELECT pg_backend_pid()")};
    dbmcp_error err;
    assert_int_equal(store_open(f->url, STORE_READWRITE, &t.db, &err), 0);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, terminate_later, &t), 0);
    dbmcp_error_clear(&err);
    assert_int_equal(store_step(st, &err), DBMCP_EIO);
    assert_non_null(strstr(err.public_message, "went away"));
    pthread_join(thread, NULL);
    store_close(t.db);
    /* The statement prepared before runs again on the new session. */
    store_reset(st);
    store_finalize(st);
    assert_int_equal(query_int(f->ro, "SELECT 4"), 4);
    /* Inside a transaction nothing is re-established behind the caller. */
    assert_int_equal(store_begin(f->rw, &err), 0);
    exec_ok(f->rw, "SELECT 1");
    pid = query_int(f->rw, "SELECT pg_backend_pid()");
    exec_ok(f->ro, "SELECT 1");
    store *killer = NULL;
    assert_int_equal(store_open(f->url, STORE_READWRITE, &killer, &err), 0);
    exec_ok(killer, sqlf("SELECT pg_terminate_backend(%lld)", (long long)pid));
    store_close(killer);
    assert_int_equal(store_exec(f->rw, "SELECT 1", &err), DBMCP_EIO);
    assert_int_equal(store_exec(f->rw, "SELECT 1", &err), DBMCP_EIO);
    assert_int_equal(store_commit(f->rw, &err), DBMCP_EIO);
    store_rollback(f->rw);
    assert_int_equal(query_int(f->rw, "SELECT 6"), 6);
}

/* --- notifications --------------------------------------------------------------- */

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static void *write_later(void *arg)
{
    struct timespec ts = {0, 100 * 1000000L};
    nanosleep(&ts, NULL);
    ssize_t n = write(*(int *)arg, "w", 1);
    (void)n;
    return NULL;
}

/* store_wait_notify: a notification from another session ends the wait with
 * 1 and is consumed; a timeout or the wake fd with 0, the fd's byte left
 * unread; waiting uses no CPU; a notification that came with another
 * command's answer is not lost; a dropped connection is DBMCP_EIO. SQLite
 * has none: DBMCP_ESTORE. */
static void test_wait_notify(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    if (!f->pg) {
        assert_int_equal(store_wait_notify(f->rw, 10, -1, &err), DBMCP_ESTORE);
        return;
    }
    char channel[64], notify[96];
    snprintf(channel, sizeof channel, "dbmcp_ct_%ld", (long)getpid());
    snprintf(notify, sizeof notify, "NOTIFY %s", channel);
    exec_ok(f->rw, sqlf("LISTEN %s", channel));
    store *other = NULL;
    assert_int_equal(store_open(f->url, STORE_READWRITE, &other, &err), 0);

    double t0 = now_ms(), cpu0 = thread_cpu_ms();
    assert_int_equal(store_wait_notify(f->rw, 300, -1, &err), 0); /* nothing yet */
    assert_true(now_ms() - t0 >= 290);
    assert_true(thread_cpu_ms() - cpu0 < 30); /* slept, did not spin */

    exec_ok(other, notify);
    t0 = now_ms();
    assert_int_equal(store_wait_notify(f->rw, 10000, -1, &err), 1);
    assert_true(now_ms() - t0 < 5000);

    /* Two at one commit, reaching the idle handle before its next
     * statement, which reads them off the socket: libpq keeps them for the
     * wait, and one wait consumes both. */
    exec_ok(other, sqlf("BEGIN; NOTIFY %s; NOTIFY %s, 'second'; COMMIT", channel, channel));
    struct timespec settle = {0, 100 * 1000000L};
    nanosleep(&settle, NULL);
    assert_int_equal(query_int(f->rw, "SELECT 7"), 7);
    assert_int_equal(store_wait_notify(f->rw, 5000, -1, &err), 1);
    assert_int_equal(store_wait_notify(f->rw, 100, -1, &err), 0);

    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(write(fds[1], "x", 1), 1);
    t0 = now_ms();
    assert_int_equal(store_wait_notify(f->rw, 10000, fds[0], &err), 0);
    assert_true(now_ms() - t0 < 5000);
    char byte = 0;
    assert_int_equal(read(fds[0], &byte, 1), 1); /* left unread by the wait */
    assert_int_equal(byte, 'x');
    pthread_t writer;
    assert_int_equal(pthread_create(&writer, NULL, write_later, &fds[1]), 0);
    assert_int_equal(store_wait_notify(f->rw, -1, fds[0], &err), 0); /* no limit, woken */
    pthread_join(writer, NULL);
    close(fds[0]);
    close(fds[1]);

    int64_t pid = query_int(f->rw, "SELECT pg_backend_pid()");
    exec_ok(other, sqlf("SELECT pg_terminate_backend(%lld)", (long long)pid));
    dbmcp_error_clear(&err);
    assert_int_equal(store_wait_notify(f->rw, 10000, -1, &err), DBMCP_EIO);
    assert_int_equal(store_wait_notify(f->rw, 10, -1, &err), DBMCP_EIO); /* no quiet reconnect */
    assert_int_equal(query_int(f->rw, "SELECT 8"), 8);                   /* a command reconnects */
    store_close(other);
}

#define CONTRACT_TEST(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        CONTRACT_TEST(test_open_close_identity),
        CONTRACT_TEST(test_exec_and_changes),
        CONTRACT_TEST(test_prepare_one_statement_only),
        CONTRACT_TEST(test_named_binds),
        CONTRACT_TEST(test_optional_param),
        CONTRACT_TEST(test_nulls_ints_doubles_text),
        CONTRACT_TEST(test_booleans_and_sums),
        CONTRACT_TEST(test_blobs),
        CONTRACT_TEST(test_columns_before_first_step),
        CONTRACT_TEST(test_constraint_codes),
        CONTRACT_TEST(test_failure_classes),
        CONTRACT_TEST(test_readonly_refuses_writes),
        CONTRACT_TEST(test_verify_readonly),
        CONTRACT_TEST(test_time_limit),
        CONTRACT_TEST(test_cancel_flag),
        CONTRACT_TEST(test_slow_hook),
        CONTRACT_TEST(test_query_budget),
        CONTRACT_TEST(test_transactions),
        CONTRACT_TEST(test_deferred_constraint_at_commit),
        CONTRACT_TEST(test_reset_keeps_bindings),
        CONTRACT_TEST(test_prepare_cached),
        CONTRACT_TEST(test_finalize_mid_result),
        CONTRACT_TEST(test_interleaved_statements),
        CONTRACT_TEST(test_stmt_is_readonly),
        CONTRACT_TEST(test_pg_connection_errors),
        CONTRACT_TEST(test_pg_verify_readonly_role),
        CONTRACT_TEST(test_pg_numeric),
        CONTRACT_TEST(test_pg_guard_call),
        CONTRACT_TEST(test_pg_lost_connection),
        CONTRACT_TEST(test_wait_notify),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
