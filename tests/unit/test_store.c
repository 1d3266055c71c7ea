/*
 * test_store.c — the engine-neutral corners of store.h, through store.h
 * only: constraint violations as distinct codes, whether a statement only
 * reads, why the guard of a read-only handle refuses a statement, the
 * database's identity, column kinds, the query budget, the statements of
 * a script one by one, and the tables `dbmcp dump` lists.
 *
 * Each test gets a fresh database file in its own directory under $TMPDIR
 * (default /tmp) with a small schema, a read-write handle and a read-only
 * (guarded) handle on it; both are closed and the files removed afterwards.
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

#include "store/driver.h"
#include "store/dump.h"
#include "store/store.h"

static const char schema_sql[] =
    "CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
    "CREATE TABLE pets (id INTEGER PRIMARY KEY,"
    " owner INTEGER REFERENCES owners (id),"
    " legs INTEGER CHECK (legs BETWEEN 0 AND 8),"
    " embedding VECTOR(2), photo BLOB);"
    "CREATE TABLE dbmcp_secrets (v TEXT);"
    "INSERT INTO owners (id, name) VALUES (1, 'Ada');"
    "INSERT INTO pets (owner, legs, embedding, photo) VALUES (1, 4, zeroblob(8), zeroblob(8));";

/* One test's database. */
typedef struct fixture {
    char dir[512];  /* mkdtemp directory holding the file */
    char path[600]; /* the database file */
    store *rw;      /* read-write handle */
    store *ro;      /* read-only (guarded) handle */
} fixture;

static int fixture_setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/dbmcp-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/test.db", f->dir);
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (store_open(f->path, STORE_READWRITE | STORE_CREATE, &f->rw, &err) != 0 ||
        store_exec(f->rw, schema_sql, &err) != 0 ||
        store_open(f->path, STORE_READONLY, &f->ro, &err) != 0) {
        print_error("fixture: %s\n", err.message);
        return -1;
    }
    *state = f;
    return 0;
}

static int fixture_teardown(void **state)
{
    fixture *f = *state;
    static const char *suffixes[] = {"", "-wal", "-shm", "-journal", NULL};
    store_close(f->ro);
    store_close(f->rw);
    for (int i = 0; suffixes[i]; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s%s", f->path, suffixes[i]);
        unlink(p);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

/* The code store_exec returns for sql, which must fail. */
static int exec_code(store *db, const char *sql)
{
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = store_exec(db, sql, &err);
    assert_int_equal(err.code, rc);
    return rc;
}

static void test_constraint_codes(void **state)
{
    fixture *f = *state;
    assert_int_equal(exec_code(f->rw, "INSERT INTO owners (name) VALUES ('Ada')"),
                     DBMCP_ECONSTRAINT_UNIQUE);
    assert_int_equal(exec_code(f->rw, "INSERT INTO owners (id, name) VALUES (1, 'Bo')"),
                     DBMCP_ECONSTRAINT_UNIQUE);
    assert_int_equal(exec_code(f->rw, "INSERT INTO pets (owner, legs) VALUES (99, 4)"),
                     DBMCP_ECONSTRAINT_FOREIGN_KEY);
    assert_int_equal(exec_code(f->rw, "DELETE FROM owners WHERE id = 1"),
                     DBMCP_ECONSTRAINT_FOREIGN_KEY);
    assert_int_equal(exec_code(f->rw, "INSERT INTO pets (owner, legs) VALUES (1, 9)"),
                     DBMCP_ECONSTRAINT_CHECK);
    assert_int_equal(exec_code(f->rw, "INSERT INTO owners (name) VALUES (NULL)"),
                     DBMCP_ECONSTRAINT_NOT_NULL);
    assert_string_equal(dbmcp_code_name(DBMCP_ECONSTRAINT_UNIQUE), "unique_violation");

    /* The same code from a prepared statement's step, with a safe public message. */
    store_stmt *st = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(store_prepare(f->rw, "INSERT INTO owners (name) VALUES (:n)", &st, &err), 0);
    assert_int_equal(store_bind_text(st, ":n", "Ada"), 0);
    assert_int_equal(store_step(st, &err), DBMCP_ECONSTRAINT_UNIQUE);
    assert_null(strstr(err.public_message, "UNIQUE"));
    store_finalize(st);
}

static int readonly_of(store *db, const char *sql)
{
    store_stmt *st = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(store_prepare(db, sql, &st, &err), 0);
    int readonly = -1;
    assert_int_equal(store_stmt_is_readonly(st, &readonly, &err), 0);
    store_finalize(st);
    return readonly;
}

static void test_stmt_is_readonly(void **state)
{
    fixture *f = *state;
    assert_int_equal(readonly_of(f->rw, "SELECT name FROM owners"), 1);
    assert_int_equal(readonly_of(f->rw, "WITH o AS (SELECT 1) SELECT * FROM o"), 1);
    assert_int_equal(readonly_of(f->rw, "UPDATE owners SET name = 'x'"), 0);
    assert_int_equal(readonly_of(f->rw, "INSERT INTO owners (name) VALUES ('y') RETURNING id"), 0);
    assert_int_equal(readonly_of(f->ro, "SELECT legs FROM pets"), 1);
}

/* The reason the guard of the read-only handle gives for sql ("" if none). */
static const char *refusal(fixture *f, const char *sql, int want_refused)
{
    static char reason[200];
    assert_int_equal(store_guard_explain(f->ro, sql, reason, sizeof reason), want_refused);
    return reason;
}

static void test_guard_explain(void **state)
{
    fixture *f = *state;
    assert_string_equal(refusal(f, "DELETE FROM pets", 1),
                        "it writes to the database (table pets)");
    assert_string_equal(refusal(f, "SELECT v FROM dbmcp_secrets", 1),
                        "it reads the internal table dbmcp_secrets");
    assert_string_equal(refusal(f, "PRAGMA user_version = 3", 1), "it uses PRAGMA user_version");
    assert_string_equal(refusal(f, "BEGIN", 1), "it controls transactions");
    assert_string_equal(refusal(f, "SELECT name FROM owners", 0), "");
    /* A table-valued function reads its own bookkeeping: not a refusal. */
    assert_string_equal(refusal(f, "SELECT value FROM json_each('[1]')", 0), "");
    /* The handle itself still refuses and still reads afterwards. */
    store_stmt *st = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(store_prepare(f->ro, "DELETE FROM pets", &st, &err), DBMCP_EDENIED);
    int64_t n = 0;
    assert_int_equal(store_query_int(f->ro, "SELECT count(*) FROM pets", 0, &n, &err), 0);
    assert_int_equal(n, 1);
    /* A read-write handle has no guard to explain. */
    char reason[64] = "x";
    assert_int_equal(store_guard_explain(f->rw, "DELETE FROM pets", reason, sizeof reason), 0);
    assert_string_equal(reason, "");
}

static void test_identity(void **state)
{
    fixture *f = *state;
    const char *rw = store_identity(f->rw), *ro = store_identity(f->ro);
    assert_non_null(strstr(rw, "test.db"));
    assert_string_equal(rw, ro);
    store *mem = NULL;
    dbmcp_error err;
    assert_int_equal(store_open(":memory:", STORE_READWRITE, &mem, &err), 0);
    assert_string_equal(store_identity(mem), "");
    store_close(mem);
}

static void test_column_kind(void **state)
{
    fixture *f = *state;
    store_stmt *st = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(
        store_prepare(f->ro, "SELECT embedding, photo, legs, embedding || '' FROM pets", &st, &err),
        0);
    assert_int_equal(store_column_kind(st, 0), STORE_KIND_VECTOR);
    assert_int_equal(store_column_kind(st, 1), STORE_KIND_PLAIN);
    assert_int_equal(store_column_kind(st, 2), STORE_KIND_PLAIN);
    assert_int_equal(store_column_kind(st, 3), STORE_KIND_PLAIN);
    store_finalize(st);
}

/* store_query_int on the read-only handle: its code. */
static int ro_query(fixture *f, const char *sql)
{
    int64_t n = 0;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    return store_query_int(f->ro, sql, 0, &n, &err);
}

static void test_query_budget(void **state)
{
    fixture *f = *state;
    const char *big = "SELECT length(zeroblob(100000))";
    const char *like = "SELECT count(*) FROM owners WHERE name LIKE '%abcdefgh%'";
    char deep[1000] = "SELECT 1"; /* an expression 300 deep: past the fixed bound */
    for (int i = 0; i < 299; i++)
        strcat(deep, "+1");
    assert_int_equal(ro_query(f, big), 0);
    assert_int_equal(ro_query(f, like), 0);
    assert_int_equal(ro_query(f, deep), 0);
    store_query_budget budget = {.value_bytes = 4096, .sql_bytes = 100000, .pattern_bytes = 4};
    store_set_query_budget(f->ro, &budget);
    assert_int_equal(ro_query(f, big), DBMCP_ETOOBIG);
    assert_int_not_equal(ro_query(f, like), 0);
    assert_int_not_equal(ro_query(f, deep), 0);
    /* Fields <= 0 set no bound of their own. */
    store_query_budget unbounded = {0, 0, 0};
    store_set_query_budget(f->ro, &unbounded);
    assert_int_equal(ro_query(f, big), 0);
    assert_int_equal(ro_query(f, like), 0);
    assert_int_not_equal(ro_query(f, deep), 0); /* the fixed bounds stay */
    /* Lifted: as opened. */
    store_set_query_budget(f->ro, &budget);
    store_set_query_budget(f->ro, NULL);
    assert_int_equal(ro_query(f, big), 0);
    assert_int_equal(ro_query(f, like), 0);
    assert_int_equal(ro_query(f, deep), 0);
    store_set_query_budget(f->ro, NULL); /* twice is harmless */
    assert_int_equal(ro_query(f, big), 0);
}

/* Where store_statement_length ends the first statement of a script. */
static void test_statement_length(void **state)
{
    (void)state;
    static const struct {
        const char *sql;   /* a script */
        const char *first; /* its first statement as store_statement_length cuts it */
    } cases[] = {
        {"", ""},
        {"SELECT 1", "SELECT 1"},
        {"SELECT 1; SELECT 2", "SELECT 1;"},
        {"SELECT 'a;b'';c'; x", "SELECT 'a;b'';c';"},
        {"SELECT \"a;\"\"b\", `c;d`, [e;f]; x", "SELECT \"a;\"\"b\", `c;d`, [e;f];"},
        {"SELECT 1 -- a; comment\n; x", "SELECT 1 -- a; comment\n;"},
        {"SELECT /* a; b */ 1; x", "SELECT /* a; b */ 1;"},
        {"SELECT E'it\\'s;' ; x", "SELECT E'it\\'s;' ;"},
        {"SELECT $$a;b$$, $t$ $$; $t$; x", "SELECT $$a;b$$, $t$ $$; $t$;"},
        {"SELECT $1; x", "SELECT $1;"},
        {"SELECT a$b; x", "SELECT a$b;"},
        {"CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT INTO b VALUES (1); "
         "UPDATE c SET d = CASE WHEN 1 THEN 2 END; END; x",
         "CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT INTO b VALUES (1); "
         "UPDATE c SET d = CASE WHEN 1 THEN 2 END; END;"},
        {"create temp trigger t before delete on a begin select raise(abort, 'no'); end; x",
         "create temp trigger t before delete on a begin select raise(abort, 'no'); end;"},
        {"CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END; x",
         "CREATE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;"},
        {"BEGIN; COMMIT;", "BEGIN;"},
        {"CREATE TABLE t (a CHECK (a <> ';')); x", "CREATE TABLE t (a CHECK (a <> ';'));"},
        {"SELECT 'unterminated; x", "SELECT 'unterminated; x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = store_statement_length(cases[i].sql);
        if (n != strlen(cases[i].first) || strncmp(cases[i].sql, cases[i].first, n) != 0)
            fail_msg("case %zu: cut '%.*s', want '%s'", i, (int)n, cases[i].sql, cases[i].first);
    }
}

/* store_prepare_next runs a script statement by statement. */
static void test_prepare_next(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    const char *script = "-- a script\n"
                         "CREATE TABLE log (v TEXT);;\n"
                         "CREATE TRIGGER owners_log AFTER INSERT ON owners BEGIN\n"
                         "  INSERT INTO log VALUES ('a;' || NEW.name); END;\n"
                         "INSERT INTO owners (name) VALUES ('Bo');\n"
                         "SELECT v FROM log; /* done */ ";
    const char *next = script;
    store_stmt *st = NULL;
    int statements = 0;
    for (;;) {
        assert_int_equal(store_prepare_next(f->rw, &next, &st, &err), 0);
        if (!st)
            break;
        statements++;
        int rc;
        while ((rc = store_step(st, &err)) == STORE_ROW)
            assert_string_equal(store_column_text(st, 0), "a;Bo");
        assert_int_equal(rc, STORE_DONE);
        store_finalize(st);
    }
    assert_int_equal(statements, 4);
    next = "SELECT 1; SELECT nope FROM nowhere; SELECT 3";
    assert_int_equal(store_prepare_next(f->rw, &next, &st, &err), 0);
    store_finalize(st);
    const char *failing = next;
    assert_true(store_prepare_next(f->rw, &next, &st, &err) < 0);
    assert_null(st);
    assert_ptr_equal(next, failing);
    assert_non_null(strstr(err.message, "nowhere"));
}

static void test_ident_quote(void **state)
{
    (void)state;
    char *q = store_ident_quote("a\"b");
    assert_string_equal(q, "\"a\"\"b\"");
    free(q);
}

/* dump_objects_list: tables (dbmcp's too), views and virtual tables by
 * name in byte order, shadow tables as tables, no sqlite_* table. */
static void test_dump_objects(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    assert_int_equal(store_exec(f->rw,
                                "CREATE VIEW big_pets AS SELECT * FROM pets WHERE legs > 2;"
                                "CREATE VIRTUAL TABLE notes USING fts5(body);"
                                "CREATE TABLE auto (id INTEGER PRIMARY KEY AUTOINCREMENT);"
                                "INSERT INTO auto DEFAULT VALUES; ANALYZE;",
                                &err),
                     0);
    dump_object *v = NULL;
    size_t n = 0;
    assert_int_equal(dump_objects_list(f->rw, &v, &n, &err), 0);
    char got[1024] = "";
    for (size_t i = 0; i < n; i++) {
        const char *kind = v[i].kind == DUMP_VIEW      ? "view"
                           : v[i].kind == DUMP_VIRTUAL ? "virtual"
                                                       : "table";
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s:%s", i ? " " : "", kind,
                 v[i].name);
    }
    assert_string_equal(got, "table:auto view:big_pets table:dbmcp_secrets virtual:notes "
                             "table:notes_config table:notes_content table:notes_data "
                             "table:notes_docsize table:notes_idx table:owners table:pets");
    dump_objects_free(v, n);
    store_stmt *st = NULL;
    assert_int_equal(dump_table_scan(f->rw, "owners", &st, &err), 0);
    assert_int_equal(store_column_count(st), 2);
    assert_int_equal(store_step(st, &err), STORE_ROW);
    assert_string_equal(store_column_text(st, 1), "Ada");
    store_finalize(st);
}

/* The function a failure names only in its message (PostgreSQL's 42501
 * on a function the role may not run), found among the statement's calls
 * whatever the message's language; never a word in a literal or a name
 * not called. */
static void test_failure_call_in(void **state)
{
    (void)state;
    char name[64];
    store_failure_call_in("SELECT pg_read_file('/etc/hostname') AS f",
                          "permission denied for function pg_read_file", name, sizeof name);
    assert_string_equal(name, "pg_read_file");
    store_failure_call_in("SELECT upper(x), PG_LS_DIR ('d') FROM t",
                          "Keine Berechtigung für Funktion pg_ls_dir", name, sizeof name);
    assert_string_equal(name, "PG_LS_DIR");
    store_failure_call_in("SELECT 'pg_read_file(' || f FROM t",
                          "permission denied for function "
                          "pg_read_file",
                          name, sizeof name);
    assert_string_equal(name, "");
    store_failure_call_in("SELECT * FROM secret", "permission denied for table secret", name,
                          sizeof name);
    assert_string_equal(name, "");
    store_failure_call_in("SELECT my_fn(1)", "permission denied for function my_fn_2", name,
                          sizeof name);
    assert_string_equal(name, "");
    char small[4];
    store_failure_call_in("SELECT abcdef(1)", "denied: abcdef", small, sizeof small);
    assert_string_equal(small, "abc");
    store_failure_call_in(NULL, "x", name, sizeof name);
    assert_string_equal(name, "");
}

#define STORE_TEST(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        STORE_TEST(test_constraint_codes),      STORE_TEST(test_stmt_is_readonly),
        STORE_TEST(test_guard_explain),         STORE_TEST(test_identity),
        STORE_TEST(test_column_kind),           STORE_TEST(test_query_budget),
        STORE_TEST(test_statement_length),      STORE_TEST(test_prepare_next),
        STORE_TEST(test_ident_quote),           STORE_TEST(test_dump_objects),
        cmocka_unit_test(test_failure_call_in),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
