/*
 * test_optlib.c — tests for opening optional libraries on first use
 * (core/optlib), and for the libcurl and libxml2 tables built on it.
 *
 * The generic cases open libm and libc (always present) and names that
 * cannot exist, so they check the contract without depending on what is
 * installed: a resolved table that calls the real function, a data symbol,
 * the soname fallback, the precise error for a missing library or symbol,
 * that a failure repeats without touching the loader and leaves no slot
 * filled, that on_open runs exactly once under concurrent first calls.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/curl_lib.h"
#include "core/optlib.h"
#include "core/xml_lib.h"

/* Declared for its type only: no library defines it, nothing calls it. */
void dbmcp_test_no_such_symbol(int);

static const char *const libm_sonames[] = {"libm.so.6", NULL};
static const char *const missing_sonames[] = {"libdbmcp-test-missing.so.0", NULL};
static const char *const fallback_sonames[] = {"libdbmcp-test-missing.so.0", "libm.so.6", NULL};

/* --- a resolved table calls the real functions -------------------------------- */

#define MATH_SYMBOLS(X) X(cos) X(sqrt)
static struct {
    MATH_SYMBOLS(OPTLIB_SLOT)
} math_api;
#define MATH_SYMBOL(fn) OPTLIB_SYMBOL(math_api, fn)
static const optlib_symbol math_symbols[] = {MATH_SYMBOLS(MATH_SYMBOL)};

static void test_open_and_call(void **state)
{
    (void)state;
    static optlib lib = {.feature = "Test maths",
                         .sonames = libm_sonames,
                         .package = "libc6",
                         .symbols = math_symbols,
                         .n_symbols = OPTLIB_COUNT(math_symbols),
                         .on_open = NULL};
    dbmcp_error err;
    dbmcp_error_clear(&err);
    assert_int_equal(optlib_open(&lib, &err), 0);
    assert_int_equal(err.code, DBMCP_OK);
    assert_non_null(math_api.cos);
    assert_true(math_api.sqrt(16.0) == 4.0);
    assert_true(math_api.cos(0.0) == 1.0);
    /* The second call answers from the state, with the same table. */
    double (*first)(double) = math_api.cos;
    assert_int_equal(optlib_open(&lib, NULL), 0);
    assert_ptr_equal(math_api.cos, first);
}

/* --- a data symbol's slot holds the variable's address --------------------------- */

static const char *const libc_sonames[] = {"libc.so.6", NULL};
#define LIBC_SYMBOLS(X) X(program_invocation_name)
static struct {
    LIBC_SYMBOLS(OPTLIB_SLOT)
} libc_api;
#define LIBC_SYMBOL(fn) OPTLIB_SYMBOL(libc_api, fn)
static const optlib_symbol libc_symbols[] = {LIBC_SYMBOLS(LIBC_SYMBOL)};

static void test_data_symbol(void **state)
{
    (void)state;
    static optlib lib = {.feature = "Test data",
                         .sonames = libc_sonames,
                         .package = "libc6",
                         .symbols = libc_symbols,
                         .n_symbols = OPTLIB_COUNT(libc_symbols),
                         .on_open = NULL};
    assert_int_equal(optlib_open(&lib, NULL), 0);
    /* Through the slot, libc's variable: the path this test runs as. (The
     * test names it nowhere else: a direct use would give the executable a
     * copy of the variable, which libc would then update instead.) */
    assert_non_null(*libc_api.program_invocation_name);
    assert_non_null(strstr(*libc_api.program_invocation_name, "test_optlib"));
}

/* --- a missing library: the precise error, every time ------------------------------ */

#define ONE_SYMBOLS(X) X(cos)
static struct {
    ONE_SYMBOLS(OPTLIB_SLOT)
} missing_api;
#define MISSING_SYMBOL(fn) OPTLIB_SYMBOL(missing_api, fn)
static const optlib_symbol missing_symbols[] = {ONE_SYMBOLS(MISSING_SYMBOL)};

static void test_missing_library(void **state)
{
    (void)state;
    static optlib lib = {.feature = "Test import",
                         .sonames = missing_sonames,
                         .package = "dbmcp-test-pkg",
                         .symbols = missing_symbols,
                         .n_symbols = OPTLIB_COUNT(missing_symbols),
                         .on_open = NULL};
    const char *expect = "Test import needs libdbmcp-test-missing.so.0 (Debian package "
                         "dbmcp-test-pkg): libdbmcp-test-missing.so.0: cannot open shared "
                         "object file";
    for (int round = 0; round < 3; round++) {
        dbmcp_error err;
        dbmcp_error_clear(&err);
        assert_int_equal(optlib_open(&lib, &err), DBMCP_EINTERNAL);
        assert_int_equal(err.code, DBMCP_EINTERNAL);
        if (strncmp(err.message, expect, strlen(expect)) != 0)
            fail_msg("round %d: operator message is \"%s\"", round, err.message);
        /* The public message names library and package, not the loader's text. */
        assert_string_equal(err.public_message, "Test import needs libdbmcp-test-missing.so.0 "
                                                "(Debian package dbmcp-test-pkg)");
        assert_null(missing_api.cos);
    }
    assert_int_equal(optlib_open(&lib, NULL), DBMCP_EINTERNAL); /* err may be NULL */
}

/* --- a missing symbol: the library opens, the table stays empty -------------------- */

#define PARTIAL_SYMBOLS(X) X(cos) X(dbmcp_test_no_such_symbol) X(sqrt)
static struct {
    PARTIAL_SYMBOLS(OPTLIB_SLOT)
} partial_api;
#define PARTIAL_SYMBOL(fn) OPTLIB_SYMBOL(partial_api, fn)
static const optlib_symbol partial_symbols[] = {PARTIAL_SYMBOLS(PARTIAL_SYMBOL)};

static void test_missing_symbol(void **state)
{
    (void)state;
    static optlib lib = {.feature = "Test maths",
                         .sonames = libm_sonames,
                         .package = "libc6",
                         .symbols = partial_symbols,
                         .n_symbols = OPTLIB_COUNT(partial_symbols),
                         .on_open = NULL};
    for (int round = 0; round < 2; round++) {
        dbmcp_error err;
        dbmcp_error_clear(&err);
        assert_int_equal(optlib_open(&lib, &err), DBMCP_EINTERNAL);
        assert_non_null(strstr(err.message, "Test maths needs libm.so.6 (Debian package libc6): "));
        assert_non_null(strstr(err.message, "undefined symbol: dbmcp_test_no_such_symbol"));
        /* cos resolved before the missing one: it must not stay usable. */
        assert_null(partial_api.cos);
        assert_null(partial_api.dbmcp_test_no_such_symbol);
        assert_null(partial_api.sqrt);
    }
}

/* --- the soname fallback ----------------------------------------------------------- */

static struct {
    ONE_SYMBOLS(OPTLIB_SLOT)
} fallback_api;
#define FALLBACK_SYMBOL(fn) OPTLIB_SYMBOL(fallback_api, fn)
static const optlib_symbol fallback_symbols[] = {ONE_SYMBOLS(FALLBACK_SYMBOL)};

static void test_soname_fallback(void **state)
{
    (void)state;
    static optlib lib = {.feature = "Test maths",
                         .sonames = fallback_sonames,
                         .package = "libc6",
                         .symbols = fallback_symbols,
                         .n_symbols = OPTLIB_COUNT(fallback_symbols),
                         .on_open = NULL};
    assert_int_equal(optlib_open(&lib, NULL), 0);
    assert_true(fallback_api.cos(0.0) == 1.0);
}

/* --- on_open: once, under concurrent first calls; its failure is the library's ----- */

static atomic_int race_calls, refuse_calls;

static int counting_hook(char *why, size_t size)
{
    (void)why;
    (void)size;
    atomic_fetch_add(&race_calls, 1);
    return 0;
}

static struct {
    ONE_SYMBOLS(OPTLIB_SLOT)
} race_api;
#define RACE_SYMBOL(fn) OPTLIB_SYMBOL(race_api, fn)
static const optlib_symbol race_symbols[] = {ONE_SYMBOLS(RACE_SYMBOL)};
static optlib race_lib = {.feature = "Test race",
                          .sonames = libm_sonames,
                          .package = "libc6",
                          .symbols = race_symbols,
                          .n_symbols = OPTLIB_COUNT(race_symbols),
                          .on_open = counting_hook};

static void *race_open(void *arg)
{
    int *rc = arg;
    *rc = optlib_open(&race_lib, NULL);
    /* A 0 means the table is filled and visible to this thread. */
    if (*rc == 0 && race_api.cos(0.0) != 1.0)
        *rc = -100;
    return NULL;
}

static void test_concurrent_first_open(void **state)
{
    (void)state;
    enum { THREADS = 8 };
    pthread_t t[THREADS];
    int rc[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, race_open, &rc[i]), 0);
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(rc[i], 0);
    }
    assert_int_equal(atomic_load(&race_calls), 1);
}

static int refusing_hook(char *why, size_t size)
{
    atomic_fetch_add(&refuse_calls, 1);
    snprintf(why, size, "init refused (%d)", 42);
    return -1;
}

static struct {
    ONE_SYMBOLS(OPTLIB_SLOT)
} refused_api;
#define REFUSED_SYMBOL(fn) OPTLIB_SYMBOL(refused_api, fn)
static const optlib_symbol refused_symbols[] = {ONE_SYMBOLS(REFUSED_SYMBOL)};

static void test_on_open_failure(void **state)
{
    (void)state;
    static optlib lib = {.feature = "Test init",
                         .sonames = libm_sonames,
                         .package = "libc6",
                         .symbols = refused_symbols,
                         .n_symbols = OPTLIB_COUNT(refused_symbols),
                         .on_open = refusing_hook};
    for (int round = 0; round < 3; round++) {
        dbmcp_error err;
        dbmcp_error_clear(&err);
        assert_int_equal(optlib_open(&lib, &err), DBMCP_EINTERNAL);
        assert_string_equal(err.message,
                            "Test init needs libm.so.6 (Debian package libc6): init refused (42)");
        assert_null(refused_api.cos);
    }
    assert_int_equal(atomic_load(&refuse_calls), 1);
}

/* --- the production tables: libcurl and libxml2 open and resolve ------------------- */

static void test_curl_and_xml_tables(void **state)
{
    (void)state;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    if (curl_lib_open(&err) != 0)
        fail_msg("%s", err.message);
    assert_non_null(curl_api.curl_easy_init);
    CURL *c = curl_api.curl_easy_init();
    assert_non_null(c);
    assert_int_equal(curl_api.curl_easy_setopt(c, CURLOPT_URL, "http://127.0.0.1:1/"), CURLE_OK);
    curl_api.curl_easy_cleanup(c);
    assert_string_equal(curl_api.curl_easy_strerror(CURLE_OK), "No error");

    if (xml_lib_open(&err) != 0)
        fail_msg("%s", err.message);
    htmlDocPtr doc = xml_api.htmlReadMemory("<p>hi</p>", 9, NULL, "UTF-8", HTML_PARSE_NONET);
    assert_non_null(doc);
    xmlChar *text = xml_api.xmlNodeGetContent(xml_api.xmlDocGetRootElement(doc));
    assert_string_equal((const char *)text, "hi");
    (*xml_api.xmlFree)(text);
    xml_api.xmlFreeDoc(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_and_call),   cmocka_unit_test(test_data_symbol),
        cmocka_unit_test(test_missing_library), cmocka_unit_test(test_missing_symbol),
        cmocka_unit_test(test_soname_fallback), cmocka_unit_test(test_concurrent_first_open),
        cmocka_unit_test(test_on_open_failure), cmocka_unit_test(test_curl_and_xml_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
