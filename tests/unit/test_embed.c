/*
 * test_embed.c — search/embed (the builtin lexical embedder, settings,
 * the process-wide default) and the SQL functions vector_distance() and
 * embed() that every store handle gets (store/sqlite_vecfn.h), embed()
 * through the store's hook (store/embed_hook.h).
 *
 * The http embedder is tested against a real local server by
 * tests/cli/embed_http.sh; here its configuration checks and the parser of
 * its replies, on the cases in tests/cases/embed_reply (every vector that
 * comes out is finite and of norm 1, or the reply is refused).
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "case_files.h"
#include "core/vector.h"
#include "search/embed.h"
#include "search/engine.h"
#include "search/embed_internal.h"
#include "store/embed_hook.h"
#include "store/migrate.h"
#include "store/store.h"

static embedder *open_builtin(int dim)
{
    embedder_config cfg = {.kind = "builtin", .dim = dim};
    embedder *e = NULL;
    dbmcp_error err;
    assert_int_equal(embedder_open(&cfg, &e, &err), 0);
    return e;
}

static float *embed_one(embedder *e, const char *text)
{
    float *v = malloc((size_t)embedder_dim(e) * sizeof *v);
    dbmcp_error err;
    assert_non_null(v);
    assert_int_equal(embedder_embed(e, &text, 1, v, &err), 0);
    return v;
}

static double norm(const float *v, int dim)
{
    double s = 0;
    for (int i = 0; i < dim; i++)
        s += (double)v[i] * v[i];
    return sqrt(s);
}

static void test_builtin_deterministic(void **state)
{
    (void)state;
    embedder *a = open_builtin(0), *b = open_builtin(384);
    assert_string_equal(embedder_model(a), "builtin-lexical-v1@384");
    assert_string_equal(embedder_kind(a), "builtin");
    /* Fusion weights by kind: the lexical list stays out of hybrid search,
     * a semantic model's list weighs as much as the keyword list. */
    assert_true(search_vector_weight_default("builtin") == 0);
    assert_true(search_vector_weight_default("http") == 1);
    assert_int_equal(embedder_dim(a), 384);
    const char *text = "Kündigungsfrist: drei Monate zum Quartalsende. Notice period 3 months.";
    float *x = embed_one(a, text), *y = embed_one(b, text), *z = embed_one(a, text);
    assert_memory_equal(x, y, 384 * sizeof *x);
    assert_memory_equal(x, z, 384 * sizeof *x);
    assert_true(fabs(norm(x, 384) - 1.0) < 1e-5);
    /* a batch gives the same vectors as single calls */
    const char *texts[] = {"first text", text, ""};
    float *batch = malloc(3 * 384 * sizeof *batch);
    dbmcp_error err;
    assert_int_equal(embedder_embed(a, texts, 3, batch, &err), 0);
    assert_memory_equal(batch + 384, x, 384 * sizeof *x);
    /* no tokens: all zeros */
    for (int i = 0; i < 384; i++)
        assert_true(batch[2 * 384 + i] == 0.0f);
    assert_int_equal(embedder_probe(a, &err), 0); /* a no-op */
    free(batch);
    free(x);
    free(y);
    free(z);
    embedder_free(a);
    embedder_free(b);

    embedder *small = open_builtin(64);
    assert_string_equal(embedder_model(small), "builtin-lexical-v1@64");
    embedder_free(small);
}

/* Texts sharing words and word parts are closer than unrelated ones. */
static void check_closer(embedder *e, const char *anchor, const char *similar,
                         const char *unrelated)
{
    int dim = embedder_dim(e);
    float *a = embed_one(e, anchor), *s = embed_one(e, similar), *u = embed_one(e, unrelated);
    float ds = vec_distance(a, s, dim, VEC_COSINE), du = vec_distance(a, u, dim, VEC_COSINE);
    if (!(ds < du))
        print_error("%s | %s (%f) vs %s (%f)\n", anchor, similar, ds, unrelated, du);
    assert_true(ds < du);
    assert_true(ds < 0.9f);
    free(a);
    free(s);
    free(u);
}

static void test_builtin_similarity(void **state)
{
    (void)state;
    embedder *e = open_builtin(384);
    check_closer(e, "The tenant must pay the rent by the third working day of each month.",
                 "Rent payments are due from tenants on the third working day of the month.",
                 "The museum opens at ten and closes at six on weekdays.");
    check_closer(e, "Der Mieter zahlt die Miete bis zum dritten Werktag des Monats.",
                 "Die Mietzahlung des Mieters ist am dritten Werktag fällig.",
                 "Das Museum öffnet werktags um zehn Uhr.");
    /* German compounds share parts: Kündigungsfrist ~ Kündigung, Frist */
    check_closer(e, "Kündigungsfrist", "Die Frist für die Kündigung", "Wetterbericht für Berlin");
    check_closer(e, "東京都の天気は晴れです。", "東京の天気は雨でした。", "契約書に署名しました。");
    /* inflections meet through the stemmer */
    check_closer(e, "contracts signed", "signing the contract", "blue whales migrate");
    embedder_free(e);
}

static void test_config_errors(void **state)
{
    (void)state;
    embedder *e = NULL;
    dbmcp_error err;
    embedder_config cfg = {.kind = "bogus"};
    assert_int_equal(embedder_open(&cfg, &e, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "embed.kind"));
    assert_null(e);
    cfg = (embedder_config){.kind = "builtin", .dim = 8};
    assert_int_equal(embedder_open(&cfg, &e, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "embed.dim"));
    cfg = (embedder_config){.kind = "builtin", .dim = EMBED_MAX_DIM + 1};
    assert_int_equal(embedder_open(&cfg, &e, &err), DBMCP_EINVAL);
    cfg = (embedder_config){.kind = "http", .model = "m"};
    assert_int_equal(embedder_open(&cfg, &e, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "embed.url"));
    cfg = (embedder_config){.kind = "http", .url = "ftp://x", .model = "m"};
    assert_int_equal(embedder_open(&cfg, &e, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "http://"));
    cfg = (embedder_config){.kind = "http", .url = "http://127.0.0.1:9"};
    assert_int_equal(embedder_open(&cfg, &e, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "embed.model"));
    unsetenv("DBMCP_TEST_NO_SUCH_KEY");
    cfg = (embedder_config){.kind = "http",
                            .url = "http://127.0.0.1:9",
                            .model = "m",
                            .api_key_env = "DBMCP_TEST_NO_SUCH_KEY"};
    assert_int_equal(embedder_open(&cfg, &e, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "DBMCP_TEST_NO_SUCH_KEY"));

    /* an http embedder of unknown dimension: model "@?", embed refused
     * until probed; a probe of a closed port fails as unreachable (a port
     * bound here but not listening: the kernel refuses connections to it,
     * and nothing else can listen on it meanwhile) */
    int closed_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in closed = {0};
    closed.sin_family = AF_INET;
    closed.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(closed_fd, (struct sockaddr *)&closed, sizeof closed), 0);
    socklen_t closed_len = sizeof closed;
    assert_int_equal(getsockname(closed_fd, (struct sockaddr *)&closed, &closed_len), 0);
    char closed_url[64], closed_endpoint[64];
    snprintf(closed_url, sizeof closed_url, "http://127.0.0.1:%d/v1/", ntohs(closed.sin_port));
    snprintf(closed_endpoint, sizeof closed_endpoint, "127.0.0.1:%d/v1/embeddings",
             ntohs(closed.sin_port));
    cfg = (embedder_config){
        .kind = "http", .url = closed_url, .model = "m", .retries = -1, .timeout_ms = 2000};
    assert_int_equal(embedder_open(&cfg, &e, &err), 0);
    assert_string_equal(embedder_model(e), "http:m@?");
    assert_string_equal(embedder_kind(e), "http");
    assert_int_equal(embedder_dim(e), 0);
    const char *t = "x";
    float v[4];
    assert_int_equal(embedder_embed(e, &t, 1, v, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "embedder_probe"));
    assert_int_equal(embedder_probe(e, &err), DBMCP_EIO);
    assert_non_null(strstr(err.message, closed_endpoint));
    assert_string_equal(err.public_message, "the embedding service is unreachable");
    embedder_free(e);
    close(closed_fd);

    /* text size limit */
    e = open_builtin(32);
    char *big = malloc(EMBED_MAX_TEXT_BYTES + 2);
    memset(big, 'a', EMBED_MAX_TEXT_BYTES + 1);
    big[EMBED_MAX_TEXT_BYTES + 1] = '\0';
    const char *bt = big;
    float *out = malloc(32 * sizeof *out);
    assert_int_equal(embedder_embed(e, &bt, 1, out, &err), DBMCP_ETOOBIG);
    assert_non_null(strstr(err.message, "limit"));
    free(out);
    free(big);
    embedder_free(e);
}

/* --- a temporary database ------------------------------------------------------ */

typedef struct tmpdb {
    char dir[256];
    char path[300];
} tmpdb;

static store *tmpdb_open(tmpdb *t, int migrate)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/dbmcp-embed-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof t->path, "%s/t.db", t->dir);
    store *db = NULL;
    dbmcp_error err;
    assert_int_equal(store_open(t->path, STORE_READWRITE | STORE_CREATE, &db, &err), 0);
    if (migrate && store_migrate(db, NULL, &err) != 0)
        fail_msg("migrate: %s", err.message);
    return db;
}

static void tmpdb_remove(tmpdb *t)
{
    char p[340];
    const char *suffix[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", t->path, suffix[i]);
        unlink(p);
    }
    rmdir(t->dir);
}

static void set_setting(store *db, const char *key, const char *value)
{
    store_stmt *st;
    dbmcp_error err;
    assert_int_equal(store_prepare(db,
                                   "INSERT OR REPLACE INTO dbmcp_settings (key, value) "
                                   "VALUES (:k, :v)",
                                   &st, &err),
                     0);
    store_bind_text(st, ":k", key);
    store_bind_text(st, ":v", value);
    assert_int_equal(store_step(st, &err), STORE_DONE);
    store_finalize(st);
}

static void test_open_from_settings(void **state)
{
    (void)state;
    tmpdb t;
    store *db = tmpdb_open(&t, 1);
    embedder *e = NULL;
    dbmcp_error err;
    assert_int_equal(embedder_open_from_settings(db, &e, &err), 0); /* unset: builtin 384 */
    assert_string_equal(embedder_model(e), "builtin-lexical-v1@384");
    embedder_free(e);
    set_setting(db, "embed.kind", "builtin");
    set_setting(db, "embed.dim", "128");
    assert_int_equal(embedder_open_from_settings(db, &e, &err), 0);
    assert_string_equal(embedder_model(e), "builtin-lexical-v1@128");
    embedder_free(e);
    set_setting(db, "embed.dim", "12x");
    assert_int_equal(embedder_open_from_settings(db, &e, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "embed.dim"));
    set_setting(db, "embed.dim", "");
    set_setting(db, "embed.kind", "http");
    assert_int_equal(embedder_open_from_settings(db, &e, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "embed.url"));
    set_setting(db, "embed.url", "http://127.0.0.1:9/v1");
    set_setting(db, "embed.model", "nomic-embed-text");
    set_setting(db, "embed.retries", "0");
    assert_int_equal(embedder_open_from_settings(db, &e, &err), 0);
    assert_string_equal(embedder_model(e), "http:nomic-embed-text@?");
    embedder_free(e);
    set_setting(db, "embed.retries", "11");
    assert_int_equal(embedder_open_from_settings(db, &e, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "embed.retries"));
    store_close(db);
    tmpdb_remove(&t);
}

/* --- SQL functions ---------------------------------------------------------------- */

/* Run SELECT sql with blobs/texts bound to :a and :b; returns the step
 * result and leaves *st for the caller to read and finalize. */
static int sql_run(store *db, const char *sql, store_stmt **st, dbmcp_error *err)
{
    if (store_prepare(db, sql, st, err) != 0)
        fail_msg("%s: %s", sql, err->message);
    return store_step(*st, err);
}

static double sql_double(store *db, const char *sql, const float *a, const float *b, int dim)
{
    store_stmt *st;
    dbmcp_error err;
    assert_int_equal(store_prepare(db, sql, &st, &err), 0);
    if (a)
        store_bind_blob(st, ":a", a, (size_t)dim * sizeof *a);
    if (b)
        store_bind_blob(st, ":b", b, (size_t)dim * sizeof *b);
    int rc = store_step(st, &err);
    if (rc != STORE_ROW)
        fail_msg("%s: %s", sql, err.message);
    assert_int_equal(store_column_type(st, 0), STORE_FLOAT);
    double d = store_column_double(st, 0);
    store_finalize(st);
    return d;
}

static void sql_fails(store *db, const char *sql, const char *needle)
{
    store_stmt *st;
    dbmcp_error err;
    int rc = sql_run(db, sql, &st, &err);
    if (rc >= 0 || !strstr(err.message, needle))
        fail_msg("%s: rc %d, message '%s' lacks '%s'", sql, rc, err.message, needle);
    store_finalize(st);
}

static void check_vector_sql(store *db)
{
    float a[3] = {1, 2, 2}, b[3] = {2, 0, 1};
    /* |a| = 3, |b| = sqrt 5, a.b = 4 */
    double cos = sql_double(db, "SELECT vector_distance(:a, :b, 'cosine')", a, b, 3);
    assert_true(fabs(cos - (1 - 4 / (3 * sqrt(5)))) < 1e-6);
    assert_true(fabs(sql_double(db, "SELECT vector_distance(:a, :b)", a, b, 3) - cos) < 1e-12);
    assert_true(fabs(sql_double(db, "SELECT vector_distance(:a, :b, 'dot')", a, b, 3) + 4) < 1e-6);
    assert_true(fabs(sql_double(db, "SELECT vector_distance(:a, :b, 'euclidean')", a, b, 3) -
                     sqrt(1 + 4 + 1)) < 1e-6);
    /* JSON text, alone or mixed with a blob */
    assert_true(fabs(sql_double(db, "SELECT vector_distance('[1,2,2]', '[2,0,1.0]', 'dot')", NULL,
                                NULL, 0) +
                     4) < 1e-6);
    assert_true(
        fabs(sql_double(db, "SELECT vector_distance(:a, '[2, 0, 1]', 'EUCLIDEAN')", a, NULL, 3) -
             sqrt(6)) < 1e-6);
    /* NULL in, NULL out */
    store_stmt *st;
    dbmcp_error err;
    assert_int_equal(sql_run(db,
                             "SELECT vector_distance(NULL, '[1]'), vector_distance('[1]', "
                             "'[1]', NULL)",
                             &st, &err),
                     STORE_ROW);
    assert_int_equal(store_column_type(st, 0), STORE_NULL);
    assert_int_equal(store_column_type(st, 1), STORE_NULL);
    store_finalize(st);
    /* errors name the argument and the rule */
    sql_fails(db, "SELECT vector_distance('[1,2]', '[1,2,3]')", "differ in dimension (2 and 3");
    sql_fails(db, "SELECT vector_distance(x'00000000000000', '[1]')",
              "argument 1 is a 7-byte BLOB");
    sql_fails(db, "SELECT vector_distance('[1]', x'')", "argument 2 is a 0-byte BLOB");
    sql_fails(db, "SELECT vector_distance('[1,2', '[1,2]')", "argument 1 is not a JSON array");
    sql_fails(db, "SELECT vector_distance('{\"a\":1}', '[1]')", "not an array of numbers");
    sql_fails(db, "SELECT vector_distance('[1,\"x\"]', '[1,2]')", "element 1 is not a finite");
    sql_fails(db, "SELECT vector_distance('[]', '[]')", "empty array");
    sql_fails(db, "SELECT vector_distance(1, '[1]')", "argument 1 is a number");
    sql_fails(db, "SELECT vector_distance('[1]', '[1]', 'manhattan')",
              "argument 3 is 'manhattan'; the metric must be");
    sql_fails(db, "SELECT vector_distance(x'0000c07f', x'00000000')", "NaN or infinite");
    sql_fails(db, "SELECT vector_distance('[1e39]', '[1]')", "float32 range");
    /* finite values whose distances would overflow float32 */
    sql_fails(db, "SELECT vector_distance('[1e19, 1e19]', '[1, 1]')",
              "argument 1 has values so large that distances would overflow");
    sql_fails(db, "SELECT vector_distance('[1, 1]', x'0000807f00000000')",
              "argument 2 holds a NaN or infinite value at element 0");
    /* the largest accepted values and subnormal ones give finite distances */
    for (int m = 0; m < 3; m++) {
        char sql[200];
        snprintf(sql, sizeof sql, "SELECT vector_distance('[9.2e18]', '[-9.2e18]', '%s')",
                 vec_metric_name((vec_metric)m));
        assert_true(isfinite(sql_double(db, sql, NULL, NULL, 0)));
        snprintf(sql, sizeof sql, "SELECT vector_distance('[2e-39, 1e-45]', '[1, 0]', '%s')",
                 vec_metric_name((vec_metric)m));
        assert_true(isfinite(sql_double(db, sql, NULL, NULL, 0)));
    }

    /* embed(): a float32 blob of the default embedder's dimension */
    assert_int_equal(sql_run(db,
                             "SELECT embed('Kündigungsfrist drei Monate'), embed(NULL), "
                             "typeof(embed(''))",
                             &st, &err),
                     STORE_ROW);
    assert_int_equal(store_column_type(st, 0), STORE_BLOB);
    int dim = embedder_dim(embedder_default());
    assert_int_equal(store_column_bytes(st, 0), (size_t)dim * 4);
    float *v = malloc((size_t)dim * sizeof *v);
    memcpy(v, store_column_blob(st, 0), (size_t)dim * 4);
    float *want = embed_one(embedder_default(), "Kündigungsfrist drei Monate");
    assert_memory_equal(v, want, (size_t)dim * 4);
    assert_int_equal(store_column_type(st, 1), STORE_NULL);
    assert_string_equal(store_column_text(st, 2), "blob");
    store_finalize(st);
    free(v);
    free(want);
    /* ranking in SQL: the closer text first */
    assert_int_equal(sql_run(db,
                             "WITH x(t) AS (VALUES ('the museum opens at ten'), ('contract "
                             "notice period')) SELECT t FROM x ORDER BY vector_distance(embed(t), "
                             "embed('notice period of the contract')) LIMIT 1",
                             &st, &err),
                     STORE_ROW);
    assert_string_equal(store_column_text(st, 0), "contract notice period");
    store_finalize(st);
}

static void test_sql_functions(void **state)
{
    (void)state;
    tmpdb t;
    store *db = tmpdb_open(&t, 0);
    check_vector_sql(db);
    store_exec(db, "CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT)", NULL);
    store_close(db);
    /* read-only handles have them too, with the guard's authorizer on */
    dbmcp_error err;
    assert_int_equal(store_open(t.path, STORE_READONLY, &db, &err), 0);
    check_vector_sql(db);
    /* and they pass an allowlist that names them */
    assert_int_equal(store_set_function_allowlist(db, "vector_distance,embed", &err), 0);
    assert_true(
        fabs(sql_double(db, "SELECT vector_distance('[1,0]', '[0,1]')", NULL, NULL, 0) - 1) < 1e-6);
    store_close(db);
    tmpdb_remove(&t);
}

/* embedder_set_default changes what embed() in SQL uses. */
static void test_default_embedder(void **state)
{
    (void)state;
    embedder *d = embedder_default();
    assert_non_null(d);
    assert_ptr_equal(d, embedder_default());
    assert_string_equal(embedder_model(d), "builtin-lexical-v1@384");
    embedder_set_default(open_builtin(32));
    assert_string_equal(embedder_model(embedder_default()), "builtin-lexical-v1@32");
    store *db;
    dbmcp_error err;
    assert_int_equal(store_open(":memory:", STORE_READWRITE, &db, &err), 0);
    store_stmt *st;
    assert_int_equal(sql_run(db, "SELECT length(embed('hello world'))", &st, &err), STORE_ROW);
    assert_int_equal(store_column_int(st, 0), 32 * 4);
    store_finalize(st);
    store_close(db);
    embedder_default_release();
    assert_string_equal(embedder_model(embedder_default()), "builtin-lexical-v1@384");
    embedder_default_release();
}

/* embed() reaches its embedder only through the store's hook: without one
 * it fails and says so; a registered hook is what it calls. */
static int fixed_hook(void *ctx, const char *text, float **vec, int *dim, dbmcp_error *err)
{
    (void)err;
    *dim = (int)strlen(text);
    *vec = calloc((size_t)*dim, sizeof **vec);
    if (!*vec)
        return DBMCP_ENOMEM;
    for (int i = 0; i < *dim; i++)
        (*vec)[i] = *(const float *)ctx;
    return 0;
}

static int failing_hook(void *ctx, const char *text, float **vec, int *dim, dbmcp_error *err)
{
    (void)ctx, (void)text, (void)vec, (void)dim;
    return dbmcp_error_set_private(err, DBMCP_EIO, "the embedding service is unreachable",
                                   "connect to 10.0.0.1:11434 refused");
}

static void test_embed_hook(void **state)
{
    (void)state;
    store *db;
    dbmcp_error err;
    assert_int_equal(store_open(":memory:", STORE_READWRITE, &db, &err), 0);
    store_set_embed_hook(NULL, NULL);
    sql_fails(db, "SELECT embed('hello')", "embed: no embedder is registered in this process");
    store_stmt *st;
    assert_int_equal(sql_run(db, "SELECT embed(NULL) IS NULL", &st, &err), STORE_ROW);
    assert_int_equal(store_column_int(st, 0), 1);
    store_finalize(st);

    float half = 0.5f;
    store_set_embed_hook(fixed_hook, &half);
    assert_int_equal(sql_run(db, "SELECT embed('abc')", &st, &err), STORE_ROW);
    assert_int_equal(store_column_bytes(st, 0), 3 * sizeof(float));
    const float want[3] = {0.5f, 0.5f, 0.5f};
    assert_memory_equal(store_column_blob(st, 0), want, sizeof want);
    store_finalize(st);

    /* the statement shows the public message, never the operator's detail */
    store_set_embed_hook(failing_hook, NULL);
    sql_fails(db, "SELECT embed('abc')", "embed: the embedding service is unreachable");
    assert_int_equal(sql_run(db, "SELECT embed('abc')", &st, &err), DBMCP_ESTORE);
    assert_null(strstr(err.message, "10.0.0.1"));
    store_finalize(st);

    embedder_install_sql_hook();
    assert_int_equal(sql_run(db, "SELECT length(embed('abc'))", &st, &err), STORE_ROW);
    assert_int_equal(store_column_int(st, 0), EMBED_BUILTIN_DIM * 4);
    store_finalize(st);
    store_close(db);
    embedder_default_release();
}

/* One reply case: "inputs", "body", then "vectors" (expected, within 1e-6)
 * or "error" (a substring of the operator message). */
static const char *check_reply_case(const json_t *c, char *why, size_t size)
{
    const char *body = json_string_value(json_object_get(c, "body"));
    size_t n = (size_t)json_integer_value(json_object_get(c, "inputs"));
    const json_t *want = json_object_get(c, "vectors");
    const char *want_error = json_string_value(json_object_get(c, "error"));
    if (!body || n == 0 || (!want == !want_error))
        return "a case needs \"body\", \"inputs\" and one of \"vectors\" or \"error\"";
    float *v = NULL;
    int dim = 0;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = embed_http_parse_reply(body, strlen(body), n, &v, &dim, &err);
    const char *failed = NULL;
    if (want_error) {
        if (rc == 0)
            failed = "accepted a reply the case refuses";
        else if (!strstr(err.message, want_error))
            snprintf(why, size, "error \"%s\" lacks \"%s\"", err.message, want_error), failed = why;
    } else if (rc != 0) {
        snprintf(why, size, "refused: %s", err.message), failed = why;
    } else if (json_array_size(want) != n ||
               (size_t)dim != json_array_size(json_array_get(want, 0))) {
        snprintf(why, size, "got %zu vectors of %d", n, dim), failed = why;
    } else {
        for (size_t i = 0; i < n && !failed; i++)
            for (int j = 0; j < dim && !failed; j++) {
                float got = v[i * (size_t)dim + (size_t)j];
                double x = json_number_value(json_array_get(json_array_get(want, i), (size_t)j));
                if (!isfinite(got) || fabs(got - x) > 1e-6)
                    snprintf(why, size, "vector %zu element %d is %g, want %g", i, j, got, x),
                        failed = why;
            }
    }
    free(v);
    return failed;
}

static void test_http_reply_cases(void **state)
{
    (void)state;
    case_files_check("embed_reply", 0, check_reply_case, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_deterministic),
        cmocka_unit_test(test_builtin_similarity),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_open_from_settings),
        cmocka_unit_test(test_sql_functions),
        cmocka_unit_test(test_default_embedder),
        cmocka_unit_test(test_embed_hook),
        cmocka_unit_test(test_http_reply_cases),
    };
    embedder_install_sql_hook(); /* what dbmcp's main does: embed() in SQL */
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    embedder_default_release();
    return rc;
}
