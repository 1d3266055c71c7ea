/*
 * fuzz_mythes.c — libFuzzer target for the MyThes parser (thesaurus/mythes)
 * and the MyThes import on top of it.
 *
 * Each input is a .dat file. The target checks that mythes_parse either
 * succeeds or fails with a negative code and a message naming a line; that
 * every term it hands out is non-empty, NUL-free valid UTF-8 and every
 * meaning has a line number; that the same input gives the same answer
 * twice; and that the import into an in-memory database succeeds exactly
 * when the parse does, and a failed import leaves the concept count as it
 * was; and that matching the input against the labels it defined gives
 * ordered offsets inside the text. A broken check aborts, which libFuzzer reports with the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textnorm.h"
#include "store/migrate.h"
#include "store/store.h"
#include "thesaurus/mythes.h"
#include "thesaurus/thesaurus.h"

static store *db;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_mythes: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static void close_db(void)
{
    store_close(db);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    dbmcp_error err;
    int applied;
    if (store_open(":memory:", STORE_READWRITE | STORE_CREATE, &db, &err) != 0 ||
        store_migrate(db, &applied, &err) != 0)
        die("cannot create the database", err.message);
    atexit(close_db);
    return 0;
}

typedef struct tally {
    long meanings, terms;
} tally;

static int check_meaning(void *ctx, const mythes_meaning *m, dbmcp_error *err)
{
    (void)err;
    tally *t = ctx;
    if (!m->entry || !m->pos || m->line < 2)
        die("meaning without entry, pos or line", NULL);
    for (size_t i = 0; i < m->nterms; i++) {
        size_t len = strlen(m->terms[i].text);
        if (len == 0)
            die("empty term", NULL);
        if (text_utf8_valid_prefix(m->terms[i].text, len) != len)
            die("term is not valid UTF-8", m->terms[i].text);
        if (m->terms[i].kind > MYTHES_ANTONYM)
            die("term kind out of range", NULL);
    }
    t->meanings++;
    t->terms += (long)m->nterms;
    return 0;
}

static int parse(const char *in, size_t size, tally *t)
{
    dbmcp_error err;
    memset(t, 0, sizeof *t);
    int rc = mythes_parse(in, size, 0, check_meaning, t, &err);
    if (rc && (rc >= 0 || !err.message[0] || !strstr(err.message, "line")))
        die("a failure must be negative with a message naming the line", err.message);
    return rc;
}

static int64_t concepts(void)
{
    int64_t n = -1;
    dbmcp_error err;
    if (store_query_int(db, "SELECT count(*) FROM dbmcp_thesaurus_concepts", 0, &n, &err))
        die("count failed", err.message);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    tally a, b;
    int rc = parse(in, size, &a);
    if (parse(in, size, &b) != rc || a.meanings != b.meanings || a.terms != b.terms)
        die("not deterministic", NULL);

    int64_t before = concepts();
    thesaurus_import_options opt = {.format = THESAURUS_FORMAT_MYTHES, .scheme = "fuzz"};
    thesaurus_import_stats st;
    dbmcp_error err;
    int irc = thesaurus_import_buffer(db, in, size, "th_de_fuzz", &opt, &st, &err);
    if ((irc == 0) != (rc == 0))
        die("import and parse disagree", irc ? err.message : "import succeeded");
    if (irc && concepts() != before)
        die("a failed import changed the database", err.message);

    /* Match the input itself against the labels it just defined. */
    char *text = strndup(in, size);
    if (!text)
        return 0;
    thesaurus_match_list m;
    if (thesaurus_match_text(db, text, &m, &err) == 0) {
        size_t len = strlen(text);
        for (size_t i = 0; i < m.count; i++)
            if (m.items[i].start >= m.items[i].end || m.items[i].end > len ||
                (i && m.items[i].start < m.items[i - 1].start))
                die("match offsets out of order or bounds", m.items[i].matched_label);
        thesaurus_match_list_free(&m);
    }
    free(text);
    return 0;
}
