/*
 * test_pg_login.c — the query connection's URI derived from the catalog's
 * (store/pg_login.h): whatever form the catalog's URI takes, libpq reads the
 * derived one with the query role as its user, the given password or none,
 * and every other parameter unchanged. Checked by parsing the result with
 * libpq itself; no server needed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg_login.h"

/* The value libpq reads for keyword in uri (malloc'd), or NULL. */
static char *option_of(const char *uri, const char *keyword)
{
    char *why = NULL;
    PQconninfoOption *opts = PQconninfoParse(uri, &why);
    if (!opts) {
        PQfreemem(why);
        return NULL;
    }
    char *value = NULL;
    for (PQconninfoOption *o = opts; o->keyword; o++)
        if (strcmp(o->keyword, keyword) == 0 && o->val)
            value = strdup(o->val);
    PQconninfoFree(opts);
    return value;
}

static void expect_option(const char *uri, const char *keyword, const char *want)
{
    char *got = option_of(uri, keyword);
    if (want == NULL && got != NULL)
        fail_msg("%s: %s is \"%s\", want none", uri, keyword, got);
    if (want != NULL && (got == NULL || strcmp(got, want) != 0))
        fail_msg("%s: %s is \"%s\", want \"%s\"", uri, keyword, got ? got : "(none)", want);
    free(got);
}

static char *derive(const char *url, const char *role, const char *password)
{
    char *out = NULL;
    dbmcp_error err;
    if (pg_login_query_url(url, role, password, &out, &err) != 0)
        fail_msg("%s: %s", url, err.message);
    return out;
}

/* The user and password of the authority are replaced, the rest kept. */
static void test_authority(void **state)
{
    (void)state;
    char *q = derive("postgresql://owner:ownerpw@db.example.com:5433/shop?sslmode=require",
                     "dbmcp_query", "querypw");
    assert_true(strncmp(q, "postgresql://", 13) == 0);
    expect_option(q, "user", "dbmcp_query");
    expect_option(q, "password", "querypw");
    expect_option(q, "host", "db.example.com");
    expect_option(q, "port", "5433");
    expect_option(q, "dbname", "shop");
    expect_option(q, "sslmode", "require");
    assert_null(strstr(q, "ownerpw"));
    free(q);
}

/* A socket directory, the user as a parameter, several hosts. */
static void test_parameters_and_sockets(void **state)
{
    (void)state;
    char *q =
        derive("postgres:///shop?host=/run/postgresql&user=owner&password=x", "dbmcp_query", "p");
    expect_option(q, "host", "/run/postgresql");
    expect_option(q, "user", "dbmcp_query");
    expect_option(q, "dbname", "shop");
    free(q);
    q = derive("postgresql://owner@[::1]:5432,replica.example.com:5433/shop", "agent_sql", "p");
    expect_option(q, "host", "::1,replica.example.com");
    expect_option(q, "port", "5432,5433");
    expect_option(q, "user", "agent_sql");
    free(q);
}

/* No password: none in the URI (libpq then reads PGPASSWORD or
 * ~/.pgpass), not the catalog's. */
static void test_no_password(void **state)
{
    (void)state;
    char *q = derive("postgresql://owner:ownerpw@/shop?host=/tmp/pg", "dbmcp_query", NULL);
    expect_option(q, "password", NULL);
    expect_option(q, "passfile", NULL);
    assert_null(strstr(q, "ownerpw"));
    free(q);
    q = derive("postgresql://owner:ownerpw@/shop?host=/tmp/pg&passfile=/etc/dbmcp/pgpass",
               "dbmcp_query", "");
    expect_option(q, "password", NULL);
    expect_option(q, "passfile", "/etc/dbmcp/pgpass");
    free(q);
}

/* Characters that mean something in a URI survive in the password and
 * in other values. */
static void test_encoding(void **state)
{
    (void)state;
    const char *pw = "p@ss:w/rd?&=#% ü'\"";
    char *q =
        derive("postgresql://o@/shop%20db?host=/tmp/a%20b&options=-c%20x%3Dy", "dbmcp_query", pw);
    expect_option(q, "password", pw);
    expect_option(q, "dbname", "shop db");
    expect_option(q, "host", "/tmp/a b");
    expect_option(q, "options", "-c x=y");
    free(q);
}

/* What libpq cannot read is refused, and the message does not repeat it. */
static void test_refused(void **state)
{
    (void)state;
    char *out = (char *)"untouched";
    dbmcp_error err;
    assert_int_equal(pg_login_query_url("postgresql://o:secret@h/db?nosuchkey=1", "dbmcp_query",
                                        NULL, &out, &err),
                     DBMCP_EINVAL);
    assert_null(out);
    assert_null(strstr(err.message, "secret"));
    assert_int_equal(pg_login_query_url("postgresql://h/db", "", NULL, &out, &err), DBMCP_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_authority),   cmocka_unit_test(test_parameters_and_sockets),
        cmocka_unit_test(test_no_password), cmocka_unit_test(test_encoding),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
