/*
 * test_store.c — the engine-neutral corners of store.h, through store.h
 * only: constraint violations as distinct codes.
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

#define STORE_TEST(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        STORE_TEST(test_constraint_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
