/*
 * cmd_embed.c — `dbmcp embed TEXT…`: embed texts with the configured
 * embedder (settings embed.* of the database) or one given by flags, and
 * print {"model", "dim", "vectors": [[…], …]}. For operators checking an
 * embedding service before pointing dbmcp at it, and for the tests of the
 * http embedder.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/log.h"
#include "search/embed.h"

/* Flags that define the embedder without a database. */
static int has_embedder_flags(const cli_args *a)
{
    return cli_flag(a, "kind") || cli_flag(a, "url") || cli_flag(a, "model");
}

/* No database named and none in the current directory: nothing to read
 * settings from, so the builtin embedder. */
static int no_database(const cli_args *a)
{
    const char *env = getenv("DBMCP_DB");
    return !cli_flag(a, "db") && !(env && *env) && access("dbmcp.db", F_OK) != 0;
}

static int open_embedder(cli_args *a, embedder **e, dbmcp_error *err)
{
    if (!has_embedder_flags(a) && no_database(a)) {
        embedder_config cfg = {.kind = "builtin"};
        return embedder_open(&cfg, e, err) ? cli_fail(err) : 0;
    }
    if (!has_embedder_flags(a)) {
        store *db = cli_open_catalog(a);
        if (!db)
            return CLI_FAIL;
        int rc = embedder_open_from_settings(db, e, err);
        store_close(db);
        return rc ? cli_fail(err) : 0;
    }
    embedder_config cfg = {cli_flag(a, "kind"),
                           cli_flag(a, "url"),
                           cli_flag(a, "model"),
                           cli_flag(a, "api-key-env"),
                           0,
                           0,
                           0,
                           0};
    if (!cfg.kind)
        cfg.kind = cfg.url ? "http" : "builtin";
    int retries = 3;
    if (cli_int_flag(a, "dim", 0, EMBED_MAX_DIM, &cfg.dim) ||
        cli_int_flag(a, "batch", 1, 2048, &cfg.batch) ||
        cli_int_flag(a, "timeout-ms", 100, 600000, &cfg.timeout_ms) ||
        cli_int_flag(a, "retries", 0, 10, &retries))
        return CLI_USAGE;
    cfg.retries = retries ? retries : -1;
    return embedder_open(&cfg, e, err) ? cli_fail(err) : 0;
}

/* The texts: the arguments, or the JSON array of strings in --input. */
static int read_texts(cli_args *a, json_t **owned, const char ***texts, size_t *n)
{
    const char *path = cli_flag(a, "input");
    if (!path) {
        if (a->argc == 0)
            return cli_usage_error(a->cmd, "give texts to embed, or --input FILE");
        *texts = a->argv;
        *n = (size_t)a->argc;
        return 0;
    }
    if (a->argc > 0)
        return cli_usage_error(a->cmd, "give texts as arguments or with --input, not both");
    dbmcp_error err;
    char *text;
    if (cli_read_text_file(path, &text, &err))
        return cli_fail(&err);
    json_error_t jerr;
    *owned = json_loads(text, 0, &jerr);
    free(text);
    size_t count = json_array_size(*owned);
    int ok = json_is_array(*owned) && count > 0;
    for (size_t i = 0; ok && i < count; i++)
        ok = json_is_string(json_array_get(*owned, i));
    if (!ok) {
        fprintf(stderr, "dbmcp embed: %s: not a non-empty JSON array of strings%s%s\n", path,
                *owned ? "" : ": ", *owned ? "" : jerr.text);
        return CLI_FAIL;
    }
    *texts = calloc(count, sizeof **texts);
    if (!*texts)
        return CLI_FAIL;
    for (size_t i = 0; i < count; i++)
        (*texts)[i] = json_string_value(json_array_get(*owned, i));
    *n = count;
    return 0;
}

static void print_vectors(const embedder *e, const float *v, size_t n)
{
    int dim = embedder_dim(e);
    json_t *model = json_string(embedder_model(e));
    printf("{\"model\":");
    json_dumpf(model, stdout, JSON_ENCODE_ANY);
    json_decref(model);
    printf(",\"dim\":%d,\"vectors\":[", dim);
    for (size_t i = 0; i < n; i++) {
        printf(i ? ",[" : "[");
        for (int j = 0; j < dim; j++)
            printf(j ? ",%.9g" : "%.9g", (double)v[i * (size_t)dim + (size_t)j]);
        printf("]");
    }
    printf("]}\n");
}

static int run_embed(cli_args *a)
{
    json_t *owned = NULL;
    const char **texts = NULL;
    size_t n = 0;
    int rc = read_texts(a, &owned, &texts, &n);
    embedder *e = NULL;
    dbmcp_error err;
    if (!rc)
        rc = open_embedder(a, &e, &err);
    if (!rc && embedder_probe(e, &err))
        rc = cli_fail(&err);
    float *v = NULL;
    if (!rc && !(v = malloc(n * (size_t)embedder_dim(e) * sizeof *v)))
        rc = CLI_FAIL;
    if (!rc && embedder_embed(e, texts, n, v, &err))
        rc = cli_fail(&err);
    if (!rc)
        print_vectors(e, v, n);
    free(v);
    embedder_free(e);
    if (owned)
        free(texts);
    json_decref(owned);
    return rc;
}

void cli_set_default_embedder(const char *db_url)
{
    store *db = NULL;
    embedder *e = NULL;
    dbmcp_error err;
    dbmcp_error_clear(&err);
    int rc = store_open(db_url, STORE_READWRITE, &db, &err);
    if (!rc)
        rc = embedder_open_from_settings(db, &e, &err);
    store_close(db);
    if (rc) {
        log_msg(LOG_WARN, "embed", "embed() in SQL uses the builtin embedder: %s", err.message);
        return;
    }
    embedder_set_default(e);
}

static const cli_flag_spec embed_flags[] = {
    {"db", "PATH", "database whose embed.* settings define the embedder"},
    {"input", "FILE", "embed the strings of the JSON array in FILE (\"-\": stdin)"},
    {"kind", "KIND", "builtin or http (instead of the settings)"},
    {"url", "URL", "http: base URL; POST URL/embeddings"},
    {"model", "NAME", "http: model name sent to the service"},
    {"api-key-env", "VAR", "http: environment variable holding the API key"},
    {"dim", "N", "builtin: dimension (default 384); http: expected dimension"},
    {"batch", "N", "http: texts per request (default 32)"},
    {"timeout-ms", "MS", "http: time limit per request (default 30000)"},
    {"retries", "N", "http: extra attempts on 429, 5xx and connection errors (default 3)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_embed = {
    "embed",
    "Embed texts with the configured embedder and print the vectors",
    "TEXT... | --input FILE [--kind builtin|http --url URL --model NAME ...]",
    "Prints one JSON object: {\"model\": NAME, \"dim\": N, \"vectors\": [[...], ...]}, one\n"
    "L2-normalised vector per text, in order. The model name is what dbmcp stores beside\n"
    "every vector (builtin-lexical-v1@384, http:MODEL@DIM).\n"
    "\n"
    "Without --kind, --url or --model the embedder comes from the database's settings\n"
    "embed.kind, embed.url, embed.model, embed.api_key_env, embed.dim, embed.batch,\n"
    "embed.timeout_ms and embed.retries (builtin when embed.kind is unset). With them, the\n"
    "flags alone define it and no database is opened. With neither flags nor a database\n"
    "(no --db, no $DBMCP_DB, no ./dbmcp.db) it is the builtin embedder. The API key is read from "
    "the\n"
    "environment variable named by --api-key-env (or embed.api_key_env), never from a flag.\n"
    "Texts are limited to 1 MiB each; see docs/embeddings.md.",
    0,
    CLI_ANY_ARGS,
    embed_flags,
    run_embed,
};
