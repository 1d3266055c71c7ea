/*
 * test_attach.c — user databases attached read-only to SQLite query
 * handles (store/attachments.h): names the catalog refuses, what a query
 * handle sees (NAME.table, unqualified names, schema discovery), what its
 * guard refuses on an attached database (writes, ATTACH, DETACH, PRAGMA,
 * the engine's catalog, dbmcp's tables through a qualified name), and that
 * the user's file is byte-identical after all of it.
 *
 * Each test gets a directory under $TMPDIR (default /tmp) with a catalog
 * (migrated) and a user's file in rollback-journal mode holding two tables.
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

#include "store/attachments.h"
#include "store/introspect.h"
#include "store/migrate.h"
#include "store/store.h"

static const char user_sql[] =
    "PRAGMA journal_mode = DELETE;"
    "CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT,"
    " author_id INTEGER REFERENCES authors (id));"
    "CREATE INDEX books_author ON books (author_id);"
    "INSERT INTO authors VALUES (1, 'Fontane'), (2, 'Mann');"
    "INSERT INTO books VALUES (1, 'Effi Briest', 1), (2, 'Buddenbrooks', 2);";

typedef struct fixture {
    char dir[512];
    char catalog[600]; /* dbmcp's own database */
    char user[600];    /* the user's file */
    char *user_bytes;  /* the user's file as it was before the test; owned */
    size_t user_size;
    store *rw; /* catalog, read-write */
} fixture;

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 20);
    *size = buf ? fread(buf, 1, 1 << 20, f) : 0;
    fclose(f);
    return buf;
}

static int fixture_setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/dbmcp-attach-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->catalog, sizeof f->catalog, "%s/dbmcp.db", f->dir);
    snprintf(f->user, sizeof f->user, "%s/books.db", f->dir);
    dbmcp_error err;
    store *user = NULL;
    if (store_open(f->user, STORE_READWRITE | STORE_CREATE, &user, &err) != 0 ||
        store_exec(user, user_sql, &err) != 0) {
        print_error("fixture: %s\n", err.message);
        return -1;
    }
    store_close(user);
    f->user_bytes = read_file(f->user, &f->user_size);
    if (store_open(f->catalog, STORE_READWRITE | STORE_CREATE, &f->rw, &err) != 0 ||
        store_migrate(f->rw, NULL, &err) != 0) {
        print_error("fixture: %s\n", err.message);
        return -1;
    }
    *state = f;
    return 0;
}

static int fixture_teardown(void **state)
{
    fixture *f = *state;
    store_close(f->rw);
    static const char *files[] = {"dbmcp.db", "dbmcp.db-wal",     "dbmcp.db-shm",
                                  "books.db", "books.db-journal", "moved.db",
                                  NULL};
    for (int i = 0; files[i]; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s/%s", f->dir, files[i]);
        unlink(p);
    }
    rmdir(f->dir);
    free(f->user_bytes);
    free(f);
    return 0;
}

/* The user's file is exactly as the fixture left it, and has no journal. */
static void assert_user_file_untouched(const fixture *f)
{
    size_t size = 0;
    char *now = read_file(f->user, &size);
    assert_non_null(now);
    assert_int_equal(size, f->user_size);
    assert_memory_equal(now, f->user_bytes, size);
    free(now);
    char journal[700];
    snprintf(journal, sizeof journal, "%s-journal", f->user);
    assert_int_not_equal(access(journal, F_OK), 0);
}

static void test_names_refused(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    const char *bad[] = {
        "",        "main",    "TEMP",
        "dbmcp",   "dbmcp_x", "sqlite_x",
        "pg_x",    "1books",  "bo-oks",
        "bo\"oks", "a b",     "a234567890123456789012345678901234567890123456789012345678901234",
        NULL};
    for (int i = 0; bad[i]; i++) {
        assert_int_equal(store_attachment_add(f->rw, bad[i], f->user, 0, &err), DBMCP_EINVAL);
    }
    assert_int_equal(store_attachment_add(f->rw, "books", "books.db", 0, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "absolute"));
    assert_int_equal(store_attachment_add(f->rw, "books", f->user, 0, &err), 0);
    assert_int_equal(store_attachment_add(f->rw, "books", f->user, 0, &err),
                     DBMCP_ECONSTRAINT_UNIQUE);
    assert_int_equal(store_attachment_remove(f->rw, "nope", &err), DBMCP_ENOTFOUND);
    store_attachment *v = NULL;
    size_t n = 0;
    assert_int_equal(store_attachment_list(f->rw, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(v[0].name, "books");
    assert_string_equal(v[0].path, f->user);
    assert_int_equal(v[0].immutable, 0);
    store_attachment_array_free(v, n);
}

static int64_t count(store *db, const char *sql)
{
    dbmcp_error err;
    int64_t n = -1;
    if (store_query_int(db, sql, -1, &n, &err) != 0)
        print_error("%s: %s\n", sql, err.message);
    return n;
}

static void test_query_handle_reads_attached(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    assert_int_equal(store_attachment_add(f->rw, "books", f->user, 0, &err), 0);
    store *ro = NULL;
    assert_int_equal(store_open(f->catalog, STORE_READONLY, &ro, &err), 0);
    assert_int_equal(store_verify_readonly(ro, &err), 0);
    assert_int_equal(count(ro, "SELECT count(*) FROM books.authors"), 2);
    /* SQLite resolves an unqualified name no other schema has. */
    assert_int_equal(count(ro, "SELECT count(*) FROM books"), 2);
    /* The catalog's read-write handle never attaches. */
    store_stmt *st = NULL;
    assert_int_not_equal(store_prepare(f->rw, "SELECT 1 FROM books.authors", &st, &err), 0);
    store_close(ro);
    assert_user_file_untouched(f);
}

static void test_guard_on_attached(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    assert_int_equal(store_attachment_add(f->rw, "books", f->user, 0, &err), 0);
    store *ro = NULL;
    assert_int_equal(store_open(f->catalog, STORE_READONLY, &ro, &err), 0);
    static const struct {
        const char *sql;
        const char *reason;
    } refused[] = {
        {"INSERT INTO books.authors VALUES (3, 'Kafka')", "writes to the database"},
        {"UPDATE books.authors SET name = 'x'", "writes to the database"},
        {"DELETE FROM authors", "writes to the database"},
        {"DROP TABLE books.books", ""},
        {"CREATE TABLE books.t (x)", ""},
        {"ATTACH DATABASE 'other.db' AS other", "attaches or detaches"},
        {"DETACH DATABASE books", "attaches or detaches"},
        {"PRAGMA books.journal_mode = WAL", "PRAGMA journal_mode"},
        {"SELECT * FROM books.sqlite_master", "internal table sqlite_master"},
        {"SELECT * FROM main.dbmcp_attachments", "internal table dbmcp_attachments"},
        {"SELECT * FROM \"main\".\"dbmcp_api_keys\"", "internal table dbmcp_api_keys"},
        {"SELECT * FROM books.authors JOIN main.dbmcp_audit ON 1", "internal table dbmcp_audit"},
    };
    char reason[256];
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        int denied = store_guard_explain(ro, refused[i].sql, reason, sizeof reason);
        if (!denied) {
            /* CREATE/DROP on a read-only handle fail before the guard asks. */
            store_stmt *st = NULL;
            int rc = store_prepare(ro, refused[i].sql, &st, &err);
            if (rc == 0) {
                rc = store_step(st, &err);
                store_finalize(st);
            }
            if (rc >= 0)
                fail_msg("not refused: %s", refused[i].sql);
            continue;
        }
        if (!strstr(reason, refused[i].reason))
            fail_msg("%s: reason '%s' lacks '%s'", refused[i].sql, reason, refused[i].reason);
    }
    assert_int_equal(store_guard_explain(ro, "SELECT * FROM books.authors", reason, sizeof reason),
                     0);
    /* The engine itself: even past the guard, the file is opened read-only. */
    assert_int_not_equal(store_exec(ro, "UPDATE books.authors SET name = 'x'", &err), 0);
    store_close(ro);
    assert_user_file_untouched(f);
}

static void test_introspection_names(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    assert_int_equal(store_attachment_add(f->rw, "books", f->user, 0, &err), 0);
    store *ro = NULL;
    assert_int_equal(store_open(f->catalog, STORE_READONLY, &ro, &err), 0);
    introspect_table *v = NULL;
    size_t n = 0;
    assert_int_equal(introspect_list(ro, &v, &n, &err), 0);
    /* A fresh catalog holds no user table: only the attached ones. */
    assert_int_equal(n, 2);
    assert_string_equal(v[0].name, "books.authors");
    assert_string_equal(v[1].name, "books.books");
    assert_int_equal(introspect_count_rows(ro, &v[0], -1, &err), 0);
    assert_int_equal(v[0].rows, 2);
    introspect_table_array_free(v, n);
    introspect_detail d;
    assert_int_equal(introspect_describe(ro, "books.books", &d, &err), 0);
    assert_int_equal(d.n_columns, 3);
    assert_int_equal(d.n_foreign_keys, 1);
    assert_string_equal(d.foreign_keys[0].ref_table, "books.authors");
    assert_int_equal(d.n_indexes, 1);
    assert_string_equal(d.indexes[0].name, "books_author");
    assert_int_equal(d.indexes[0].columns.n, 1);
    introspect_detail_free(&d);
    assert_int_equal(introspect_describe(ro, "BOOKS.Authors", &d, &err), 0);
    introspect_detail_free(&d);
    /* The bare name, as SQLite resolves it when one database has it. */
    assert_int_equal(introspect_describe(ro, "authors", &d, &err), 0);
    assert_string_equal(d.table.name, "books.authors");
    introspect_detail_free(&d);
    assert_int_equal(introspect_describe(ro, "main.dbmcp_attachments", &d, &err), DBMCP_ENOTFOUND);
    store_close(ro);
    assert_user_file_untouched(f);
}

static void test_missing_file_names_attachment(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    assert_int_equal(store_attachment_add(f->rw, "books", f->user, 0, &err), 0);
    char moved[700];
    snprintf(moved, sizeof moved, "%s/moved.db", f->dir);
    assert_int_equal(rename(f->user, moved), 0);
    store *ro = NULL;
    assert_int_equal(store_open(f->catalog, STORE_READONLY, &ro, &err), DBMCP_EIO);
    assert_null(ro);
    assert_non_null(strstr(err.message, "attached as 'books'"));
    assert_non_null(strstr(err.message, "dbmcp databases detach books"));
    assert_int_equal(rename(moved, f->user), 0);
    /* Detached: the query handle opens again. */
    assert_int_equal(store_attachment_remove(f->rw, "books", &err), 0);
    assert_int_equal(rename(f->user, moved), 0);
    assert_int_equal(store_open(f->catalog, STORE_READONLY, &ro, &err), 0);
    store_close(ro);
    assert_int_equal(rename(moved, f->user), 0);
}

/* A process's query handles agree: rows written behind its back (plain
 * SQL, another process) show after a restart, or after this process
 * changes the attachments itself. */
static void test_handles_agree_until_changed_here(void **state)
{
    fixture *f = *state;
    dbmcp_error err;
    assert_int_equal(store_attachment_add(f->rw, "books", f->user, 0, &err), 0);
    store *first = NULL, *second = NULL, *third = NULL;
    assert_int_equal(store_open(f->catalog, STORE_READONLY, &first, &err), 0);
    char sql[1024];
    snprintf(sql, sizeof sql, "INSERT INTO dbmcp_attachments (name, path) VALUES ('again', '%s')",
             f->user);
    assert_int_equal(store_exec(f->rw, sql, &err), 0);
    assert_int_equal(store_open(f->catalog, STORE_READONLY, &second, &err), 0);
    store_stmt *st = NULL;
    assert_int_not_equal(store_prepare(second, "SELECT 1 FROM again.authors", &st, &err), 0);
    assert_int_equal(store_attachment_add(f->rw, "third", f->user, 1, &err), 0);
    assert_int_equal(store_open(f->catalog, STORE_READONLY, &third, &err), 0);
    assert_int_equal(count(third, "SELECT count(*) FROM again.authors"), 2);
    assert_int_equal(count(third, "SELECT count(*) FROM third.authors"), 2);
    store_close(first);
    store_close(second);
    store_close(third);
    assert_user_file_untouched(f);
}

#define ATTACH_TEST(fn) cmocka_unit_test_setup_teardown(fn, fixture_setup, fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        ATTACH_TEST(test_names_refused),
        ATTACH_TEST(test_query_handle_reads_attached),
        ATTACH_TEST(test_guard_on_attached),
        ATTACH_TEST(test_introspection_names),
        ATTACH_TEST(test_missing_file_names_attachment),
        ATTACH_TEST(test_handles_agree_until_changed_here),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
