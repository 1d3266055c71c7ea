/*
 * test_thesaurus.c — the thesaurus: SKOS (Turtle, RDF/XML) and MyThes
 * imports of the fixtures in tests/cases/thesaurus/ and of the real
 * /usr/share/mythes/th_de_DE_v2.dat (with a limit); broken files leave the
 * database as it was; lookup in German and English; graph walks over a
 * cycle; shortest paths; query expansion; label matching in text; the
 * three tools; and the demo thesaurus.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/jsonutil.h"
#include "store/migrate.h"
#include "store/store.h"
#include "thesaurus/thesaurus.h"
#include "tools/tool.h"

#define CASES "tests/cases/thesaurus/"
#define REAL_MYTHES "/usr/share/mythes/th_de_DE_v2.dat"

static char db_path[64];

/* A fresh migrated database. */
static store *open_db(void)
{
    snprintf(db_path, sizeof db_path, "/tmp/dbmcp-test-thes-XXXXXX");
    int fd = mkstemp(db_path);
    assert_true(fd >= 0);
    close(fd);
    unlink(db_path);
    store *db;
    dbmcp_error err;
    assert_int_equal(store_open(db_path, STORE_READWRITE | STORE_CREATE, &db, &err), 0);
    int applied;
    assert_int_equal(store_migrate(db, &applied, &err), 0);
    return db;
}

static void close_db(store *db)
{
    store_close(db);
    unlink(db_path);
    char side[80];
    snprintf(side, sizeof side, "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    unlink(side);
}

static thesaurus_import_stats import_ok(store *db, const char *path, thesaurus_format format,
                                        const char *scheme, const char *lang, long limit)
{
    thesaurus_import_options opt = {
        .format = format, .scheme = scheme, .lang = lang, .limit = limit};
    thesaurus_import_stats st;
    dbmcp_error err;
    int rc = thesaurus_import_file(db, path, &opt, &st, &err);
    if (rc)
        fail_msg("import %s: %s", path, err.message);
    return st;
}

/* Every row of every thesaurus table, as text: equal digests = equal data. */
static char *digest(store *db)
{
    static const char *const tables[] = {"dbmcp_thesaurus_schemes",   "dbmcp_thesaurus_concepts",
                                         "dbmcp_thesaurus_labels",    "dbmcp_thesaurus_notes",
                                         "dbmcp_thesaurus_relations", NULL};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    for (int t = 0; tables[t]; t++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT * FROM %s ORDER BY 1, 2, 3", tables[t]);
        store_stmt *st;
        dbmcp_error err;
        assert_int_equal(store_prepare(db, sql, &st, &err), 0);
        fprintf(f, "[%s]\n", tables[t]);
        while (store_step(st, &err) == STORE_ROW) {
            for (int i = 0; i < store_column_count(st); i++) {
                const char *v = store_column_text(st, i);
                fprintf(f, "%s|", v ? v : "NULL");
            }
            fputc('\n', f);
        }
        store_finalize(st);
    }
    fclose(f);
    return out;
}

static int strings_has(const thesaurus_strings *s, const char *v)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->items[i], v) == 0)
            return 1;
    return 0;
}

static long strings_index(const thesaurus_strings *s, const char *v)
{
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->items[i], v) == 0)
            return (long)i;
    return -1;
}

/* The concept id of a label or URI that names exactly one concept. */
static int64_t concept_of(store *db, const char *term)
{
    thesaurus_refs refs;
    dbmcp_error err;
    assert_int_equal(thesaurus_resolve(db, term, NULL, 0, &refs, &err), 0);
    if (refs.count != 1)
        fail_msg("'%s' names %zu concepts", term, refs.count);
    int64_t id = refs.items[0].id;
    thesaurus_refs_free(&refs);
    return id;
}

static store *small_db(void)
{
    store *db = open_db();
    import_ok(db, CASES "small.ttl", THESAURUS_FORMAT_AUTO, NULL, NULL, 0);
    return db;
}

/* --- imports ---------------------------------------------------------------------- */

static void test_turtle_import(void **state)
{
    (void)state;
    store *db = open_db();
    thesaurus_import_stats st =
        import_ok(db, CASES "small.ttl", THESAURUS_FORMAT_AUTO, NULL, NULL, 0);
    assert_int_equal(st.concepts, 18);
    assert_int_equal(st.relations, 13);
    assert_true(st.labels >= 40);
    thesaurus_stats s;
    dbmcp_error err;
    assert_int_equal(thesaurus_stats_get(db, &s, &err), 0);
    assert_int_equal(s.nschemes, 1);
    assert_string_equal(s.schemes[0].name, "small");
    assert_string_equal(s.schemes[0].uri, "http://example.org/t#scheme");
    assert_string_equal(s.schemes[0].format, "skos-turtle");
    assert_int_equal(s.schemes[0].concepts, 18);
    thesaurus_stats_free(&s);

    /* Importing again replaces the scheme: same counts, no duplicates. */
    st = import_ok(db, CASES "small.ttl", THESAURUS_FORMAT_SKOS_TURTLE, NULL, NULL, 0);
    assert_int_equal(st.concepts, 18);
    assert_int_equal(thesaurus_stats_get(db, &s, &err), 0);
    assert_int_equal(s.nschemes, 1);
    assert_int_equal(s.schemes[0].concepts, 18);
    thesaurus_stats_free(&s);

    /* --limit keeps the first N concepts and drops edges leaving them. */
    st = import_ok(db, CASES "small.ttl", THESAURUS_FORMAT_AUTO, "limited", NULL, 3);
    assert_int_equal(st.concepts, 3);
    close_db(db);
}

static void test_rdfxml_import(void **state)
{
    (void)state;
    store *db = open_db();
    thesaurus_import_stats st =
        import_ok(db, CASES "small.rdf", THESAURUS_FORMAT_AUTO, NULL, NULL, 0);
    assert_int_equal(st.concepts, 3);
    assert_int_equal(st.relations, 2);
    assert_int_equal(st.labels, 8);
    thesaurus_strings x;
    dbmcp_error err;
    assert_int_equal(thesaurus_expand(db, "holiday", NULL, &x, &err), 0);
    assert_true(strings_has(&x, "Urlaub"));
    assert_true(strings_has(&x, "Zusatzurlaub"));
    assert_false(strings_has(&x, "Urlaubsgeld")); /* related, not narrower */
    thesaurus_strings_free(&x);
    close_db(db);
}

static void test_mythes_import(void **state)
{
    (void)state;
    store *db = open_db();
    thesaurus_import_stats st =
        import_ok(db, CASES "small.dat", THESAURUS_FORMAT_AUTO, NULL, "de", 0);
    /* gehalt and lohn repeat one set: 4 sets + stubs Gasse, Verkehrsweg. */
    assert_int_equal(st.concepts, 6);
    assert_int_equal(st.relations, 3);
    assert_int_equal(st.skipped, 1); /* the antonym */
    dbmcp_error err;
    thesaurus_refs refs;
    /* ISO8859-1 converted: "Einkünfte" found as UTF-8. */
    assert_int_equal(thesaurus_resolve(db, "EINKÜNFTE", "de", 0, &refs, &err), 0);
    assert_int_equal(refs.count, 1);
    assert_string_equal(refs.items[0].pref_label, "Einkommen");
    thesaurus_refs_free(&refs);
    /* "Gehalt" has two meanings. */
    assert_int_equal(thesaurus_resolve(db, "gehalt", NULL, 0, &refs, &err), 0);
    assert_int_equal(refs.count, 2);
    thesaurus_refs_free(&refs);
    /* Annotations are stripped; (Oberbegriff) became a broader edge. */
    thesaurus_concept c;
    assert_int_equal(thesaurus_concept_get(db, concept_of(db, "Bezahlung"), NULL, &c, &err), 0);
    assert_string_equal(c.ref.pref_label, "Gehalt");
    assert_int_equal(c.nedges, 1);
    assert_int_equal(c.edges[0].kind, THESAURUS_BROADER);
    assert_string_equal(c.edges[0].target.pref_label, "Einkommen");
    assert_string_equal(c.labels[0].lang, "de");
    thesaurus_concept_free(&c);
    assert_int_equal(thesaurus_concept_get(db, concept_of(db, "strasse"), NULL, &c, &err), 0);
    assert_int_equal(c.nedges, 2); /* broader Verkehrsweg, narrower Gasse */
    thesaurus_concept_free(&c);
    close_db(db);
}

static void test_mythes_real_file(void **state)
{
    (void)state;
    if (access(REAL_MYTHES, R_OK) != 0) {
        print_message("skipped: %s not installed (apt-get install mythes-de)\n", REAL_MYTHES);
        skip();
    }
    store *db = open_db();
    /* The .idx path maps to the .dat beside it; the language comes from th_de_. */
    thesaurus_import_stats st =
        import_ok(db, "/usr/share/mythes/th_de_DE_v2.idx", THESAURUS_FORMAT_AUTO, NULL, NULL, 300);
    assert_true(st.concepts > 100);
    assert_true(st.labels > 300);
    assert_true(st.relations > 50);
    thesaurus_stats s;
    dbmcp_error err;
    assert_int_equal(thesaurus_stats_get(db, &s, &err), 0);
    assert_string_equal(s.schemes[0].name, "th_de_DE_v2");
    assert_string_equal(s.schemes[0].format, "mythes");
    thesaurus_stats_free(&s);
    /* Early entries of the file: "%" is "Prozent", "pro Hundert", "von Hundert"… */
    thesaurus_strings x;
    assert_int_equal(thesaurus_expand(db, "PROZENT", "de", &x, &err), 0);
    assert_true(strings_has(&x, "von Hundert"));
    thesaurus_strings_free(&x);
    /* "$" is "Dollar" with (Oberbegriff) "Geld": a broader edge to a concept labelled Geld. */
    thesaurus_refs refs, geld;
    assert_int_equal(thesaurus_resolve(db, "dollar", "de", 0, &refs, &err), 0);
    assert_true(refs.count >= 1);
    assert_int_equal(thesaurus_resolve(db, "Geld", "de", 0, &geld, &err), 0);
    thesaurus_concept c;
    assert_int_equal(thesaurus_concept_get(db, refs.items[0].id, "de", &c, &err), 0);
    int broader_geld = 0;
    for (size_t i = 0; i < c.nedges; i++)
        for (size_t j = 0; j < geld.count; j++)
            broader_geld |=
                c.edges[i].kind == THESAURUS_BROADER && c.edges[i].target.id == geld.items[j].id;
    assert_true(broader_geld);
    assert_string_equal(c.labels[0].lang, "de");
    thesaurus_refs_free(&geld);
    thesaurus_concept_free(&c);
    thesaurus_refs_free(&refs);
    close_db(db);
}

/* Each broken file fails with a precise message and changes nothing. */
static void test_broken_files_change_nothing(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        thesaurus_format format;
        const char *expect; /* in the error message */
    } cases[] = {
        {"broken.ttl", THESAURUS_FORMAT_AUTO, "line 7"},
        {"broken.rdf", THESAURUS_FORMAT_AUTO, "line 8"},
        {"truncated.dat", THESAURUS_FORMAT_AUTO, "ends after 1 of 3 meanings of entry 'gehalt'"},
        {"badencoding.dat", THESAURUS_FORMAT_AUTO, "line 1: unsupported encoding 'KLINGON-8'"},
        {"invalid-utf8.dat", THESAURUS_FORMAT_AUTO, "line 3, column 11: invalid UTF-8"},
        {"small.dat", THESAURUS_FORMAT_SKOS_TURTLE, "line 1"}, /* wrong format */
        {"missing.ttl", THESAURUS_FORMAT_AUTO, "missing.ttl"},
    };
    store *db = open_db();
    /* Every broken import targets the scheme "victim" that exists already. */
    import_ok(db, CASES "small.ttl", THESAURUS_FORMAT_AUTO, "victim", NULL, 0);
    import_ok(db, CASES "small.dat", THESAURUS_FORMAT_AUTO, "other", "de", 0);
    char *before = digest(db);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, CASES "%s", cases[i].file);
        thesaurus_import_options opt = {.format = cases[i].format, .scheme = "victim"};
        thesaurus_import_stats st;
        dbmcp_error err;
        int rc = thesaurus_import_file(db, path, &opt, &st, &err);
        if (rc == 0)
            fail_msg("%s: imported, expected an error", cases[i].file);
        if (!strstr(err.message, cases[i].expect))
            fail_msg("%s: message '%s' lacks '%s'", cases[i].file, err.message, cases[i].expect);
        char *after = digest(db);
        if (strcmp(before, after) != 0)
            fail_msg("%s: the database changed", cases[i].file);
        free(after);
    }
    /* A size limit below the file's size is refused the same way. */
    thesaurus_import_options opt = {.scheme = "victim", .max_bytes = 100};
    dbmcp_error err;
    assert_int_equal(thesaurus_import_file(db, CASES "small.ttl", &opt, NULL, &err), DBMCP_ETOOBIG);
    char *after = digest(db);
    assert_string_equal(before, after);
    free(after);
    free(before);
    close_db(db);
}

/* --- lookups -------------------------------------------------------------------------- */

static void test_lookup_languages(void **state)
{
    (void)state;
    store *db = small_db();
    int64_t entgelt = concept_of(db, "Entgelt");
    assert_int_equal(concept_of(db, "remuneration"), entgelt);
    assert_int_equal(concept_of(db, "ENTGELT"), entgelt);
    assert_int_equal(concept_of(db, "vergütung"), entgelt);
    assert_int_equal(concept_of(db, "http://example.org/t#Entgelt"), entgelt);
    assert_int_equal(concept_of(db, "strassenbau"), concept_of(db, "STRAßENBAU"));

    thesaurus_concept c;
    dbmcp_error err;
    assert_int_equal(thesaurus_concept_get(db, entgelt, "en", &c, &err), 0);
    assert_string_equal(c.ref.pref_label, "remuneration");
    assert_string_equal(c.scheme, "small");
    for (size_t i = 0; i < c.nlabels; i++)
        assert_string_equal(c.labels[i].lang, "en");
    assert_int_equal(c.nlabels, 2); /* remuneration (pref), pay (alt) */
    assert_int_equal(c.labels[0].kind, THESAURUS_PREF);
    size_t narrower = 0, related = 0;
    for (size_t i = 0; i < c.nedges; i++) {
        narrower += c.edges[i].kind == THESAURUS_NARROWER;
        related += c.edges[i].kind == THESAURUS_RELATED;
    }
    assert_int_equal(narrower, 2);
    assert_int_equal(related, 1); /* 賃金 related Entgelt, stored both ways */
    thesaurus_concept_free(&c);

    assert_int_equal(thesaurus_concept_get(db, entgelt, "de", &c, &err), 0);
    assert_string_equal(c.ref.pref_label, "Entgelt");
    assert_int_equal(c.nnotes, 1);
    assert_string_equal(c.notes[0].kind, "definition");
    thesaurus_concept_free(&c);

    thesaurus_refs refs;
    assert_int_equal(thesaurus_resolve(db, "Bank", "en", 0, &refs, &err), 0);
    assert_int_equal(refs.count, 2);
    assert_string_equal(refs.items[0].pref_label, "bank");
    assert_string_equal(refs.items[1].pref_label, "bench");
    thesaurus_refs_free(&refs);
    assert_int_equal(thesaurus_resolve(db, "Lohnsteuer", NULL, 0, &refs, &err), 0);
    assert_int_equal(refs.count, 0);
    thesaurus_refs_free(&refs);
    assert_int_equal(thesaurus_resolve(db, "", NULL, 0, &refs, &err), DBMCP_EINVAL);
    close_db(db);
}

/* --- graph ------------------------------------------------------------------------------ */

static int graph_has(const thesaurus_graph *g, const char *label, int depth)
{
    for (size_t i = 0; i < g->nnodes; i++)
        if (strcmp(g->nodes[i].ref.pref_label, label) == 0)
            return g->nodes[i].depth == depth;
    return 0;
}

static void test_graph_cycle(void **state)
{
    (void)state;
    store *db = small_db();
    dbmcp_error err;
    thesaurus_graph g;
    thesaurus_graph_query q = {.start = concept_of(db, "Zyklus A"),
                               .relation = THESAURUS_BROADER,
                               .direction = THESAURUS_OUT,
                               .depth = 6,
                               .limit = 100};
    assert_int_equal(thesaurus_graph_walk(db, &q, &g, &err), 0);
    assert_int_equal(g.nnodes, 3);
    assert_true(graph_has(&g, "Zyklus A", 0));
    assert_true(graph_has(&g, "Zyklus B", 1));
    assert_true(graph_has(&g, "Zyklus C", 2));
    assert_int_equal(g.nedges, 3); /* C -> A closes the cycle */
    assert_false(g.truncated);
    thesaurus_graph_free(&g);

    q.direction = THESAURUS_BOTH;
    q.relation = THESAURUS_ANY;
    assert_int_equal(thesaurus_graph_walk(db, &q, &g, &err), 0);
    assert_int_equal(g.nnodes, 3);
    thesaurus_graph_free(&g);

    q.depth = 1;
    assert_int_equal(thesaurus_graph_walk(db, &q, &g, &err), 0);
    assert_int_equal(g.nnodes, 3); /* B (broader) and C (narrower) are both one step */
    thesaurus_graph_free(&g);

    q.relation = THESAURUS_BROADER;
    q.direction = THESAURUS_OUT;
    assert_int_equal(thesaurus_graph_walk(db, &q, &g, &err), 0);
    assert_int_equal(g.nnodes, 2);
    thesaurus_graph_free(&g);

    q.depth = 6;
    q.limit = 2;
    assert_int_equal(thesaurus_graph_walk(db, &q, &g, &err), 0);
    assert_int_equal(g.nnodes, 2);
    assert_true(g.truncated);
    thesaurus_graph_free(&g);

    /* Direction in: concepts whose broader is Entgelt, then theirs. */
    q = (thesaurus_graph_query){.start = concept_of(db, "Entgelt"),
                                .relation = THESAURUS_BROADER,
                                .direction = THESAURUS_IN,
                                .depth = 2,
                                .limit = 100,
                                .lang = "en"};
    assert_int_equal(thesaurus_graph_walk(db, &q, &g, &err), 0);
    assert_int_equal(g.nnodes, 5);
    assert_true(graph_has(&g, "base pay", 1));
    assert_true(graph_has(&g, "allowance", 1));
    assert_true(graph_has(&g, "hourly wage", 2));
    assert_true(graph_has(&g, "shift allowance", 2));
    for (size_t i = 0; i < g.nedges; i++)
        assert_int_equal(g.edges[i].kind, THESAURUS_BROADER);
    thesaurus_graph_free(&g);

    q.depth = 0;
    assert_int_equal(thesaurus_graph_walk(db, &q, &g, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "depth"));
    q.depth = 2;
    q.limit = 1001;
    assert_int_equal(thesaurus_graph_walk(db, &q, &g, &err), DBMCP_EINVAL);
    assert_non_null(strstr(err.message, "limit"));
    close_db(db);
}

static void test_shortest_path(void **state)
{
    (void)state;
    store *db = small_db();
    dbmcp_error err;
    thesaurus_graph g;
    /* Stundenlohn -broader-> Grundentgelt -broader-> Entgelt -narrower-> Zulage. */
    assert_int_equal(thesaurus_path(db, concept_of(db, "Stundenlohn"), concept_of(db, "Zulage"), 8,
                                    "de", &g, &err),
                     0);
    assert_int_equal(g.nnodes, 4);
    assert_int_equal(g.nedges, 3);
    assert_string_equal(g.nodes[0].ref.pref_label, "Stundenlohn");
    assert_string_equal(g.nodes[1].ref.pref_label, "Grundentgelt");
    assert_string_equal(g.nodes[2].ref.pref_label, "Entgelt");
    assert_string_equal(g.nodes[3].ref.pref_label, "Zulage");
    assert_int_equal(g.edges[0].kind, THESAURUS_BROADER);
    assert_int_equal(g.edges[2].kind, THESAURUS_NARROWER);
    thesaurus_graph_free(&g);
    /* Through a related edge: Überstunden (Mehrarbeit) -related-> Zulage -broader-> Entgelt. */
    assert_int_equal(thesaurus_path(db, concept_of(db, "Überstunden"), concept_of(db, "Entgelt"), 8,
                                    NULL, &g, &err),
                     0);
    assert_int_equal(g.nedges, 2);
    assert_int_equal(g.edges[0].kind, THESAURUS_RELATED);
    thesaurus_graph_free(&g);
    /* Too short a bound, and no connection at all. */
    assert_int_equal(thesaurus_path(db, concept_of(db, "Stundenlohn"), concept_of(db, "Zulage"), 2,
                                    NULL, &g, &err),
                     DBMCP_ENOTFOUND);
    assert_int_equal(thesaurus_path(db, concept_of(db, "Zyklus A"), concept_of(db, "Entgelt"), 8,
                                    NULL, &g, &err),
                     DBMCP_ENOTFOUND);
    assert_int_equal(thesaurus_path(db, 1, 2, 9, NULL, &g, &err), DBMCP_EINVAL);
    close_db(db);
}

/* --- expansion and text matching ---------------------------------------------------------------
 */

static void test_expand(void **state)
{
    (void)state;
    store *db = small_db();
    dbmcp_error err;
    thesaurus_strings x;
    assert_int_equal(thesaurus_expand(db, "LOHN", NULL, &x, &err), 0);
    static const char *const expected[] = {
        "Entgelt",      "remuneration", "Vergütung",   "pay",           "Entgeld",
        "Grundentgelt", "Zulage",       "Stundenlohn", "Schichtzulage", "shift allowance"};
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        if (!strings_has(&x, expected[i]))
            fail_msg("expansion of LOHN lacks %s", expected[i]);
    assert_false(strings_has(&x, "Lohn")); /* the term itself */
    assert_false(strings_has(&x, "Mehrarbeit"));
    /* Synonyms first, then depth 1, then depth 2. */
    assert_true(strings_index(&x, "pay") < strings_index(&x, "Zulage"));
    assert_true(strings_index(&x, "Zulage") < strings_index(&x, "Stundenlohn"));
    for (size_t i = 0; i < x.count; i++)
        for (size_t j = i + 1; j < x.count; j++)
            assert_string_not_equal(x.items[i], x.items[j]);
    thesaurus_strings_free(&x);

    assert_int_equal(thesaurus_expand(db, "Lohn", "en", &x, &err), 0);
    assert_true(strings_has(&x, "remuneration"));
    assert_true(strings_has(&x, "hourly wage"));
    assert_false(strings_has(&x, "Entgelt"));
    thesaurus_strings_free(&x);

    assert_int_equal(thesaurus_expand(db, "Unbekannt", NULL, &x, &err), 0);
    assert_int_equal(x.count, 0);
    thesaurus_strings_free(&x);
    close_db(db);
}

static const thesaurus_match *find_match(const thesaurus_match_list *m, const char *label)
{
    for (size_t i = 0; i < m->count; i++)
        if (strcmp(m->items[i].matched_label, label) == 0)
            return &m->items[i];
    return NULL;
}

static void test_match_text(void **state)
{
    (void)state;
    store *db = small_db();
    dbmcp_error err;
    thesaurus_match_list m;
    const char *text = "Der TARIFVERTRAG ÖFFENTLICHER DIENST regelt die Strassenbau-Zulage, "
                       "Überstunden und die Lohnsteuer. 最低賃金と賃金";
    assert_int_equal(thesaurus_match_text(db, text, &m, &err), 0);
    const thesaurus_match *tv = find_match(&m, "Tarifvertrag öffentlicher Dienst");
    assert_non_null(tv);
    assert_int_equal(tv->end - tv->start, strlen("TARIFVERTRAG ÖFFENTLICHER DIENST"));
    assert_memory_equal(text + tv->start, "TARIFVERTRAG ÖFFENTLICHER DIENST", tv->end - tv->start);
    /* The longest match wins: neither part is reported on its own. */
    assert_null(find_match(&m, "Tarifvertrag"));
    assert_null(find_match(&m, "öffentlicher Dienst"));
    const thesaurus_match *sb = find_match(&m, "Straßenbau");
    assert_non_null(sb);
    assert_memory_equal(text + sb->start, "Strassenbau", sb->end - sb->start);
    assert_non_null(find_match(&m, "Zulage"));
    const thesaurus_match *ue = find_match(&m, "Überstunden");
    assert_non_null(ue);
    assert_string_equal(ue->pref_label, "Mehrarbeit");
    assert_string_equal(ue->uri, "http://example.org/t#Mehrarbeit");
    assert_null(find_match(&m, "Lohn")); /* not inside Lohnsteuer */
    const thesaurus_match *saitei = find_match(&m, "最低賃金");
    assert_non_null(saitei);
    assert_memory_equal(text + saitei->start, "最低賃金", saitei->end - saitei->start);
    size_t wage = 0;
    for (size_t i = 0; i < m.count; i++)
        wage += strcmp(m.items[i].matched_label, "賃金") == 0;
    assert_int_equal(wage, 1); /* the second 賃金 only, not the one inside 最低賃金 */
    for (size_t i = 1; i < m.count; i++)
        assert_true(m.items[i].start >= m.items[i - 1].start);
    thesaurus_match_list_free(&m);

    /* An ambiguous label yields one match per concept. */
    assert_int_equal(thesaurus_match_text(db, "zur Bank gehen", &m, &err), 0);
    assert_int_equal(m.count, 2);
    assert_int_equal(m.items[0].start, 4);
    assert_int_equal(m.items[1].end, 8);
    thesaurus_match_list_free(&m);

    assert_int_equal(thesaurus_match_text(db, "", &m, &err), 0);
    assert_int_equal(m.count, 0);
    thesaurus_match_list_free(&m);
    close_db(db);
}

/* --- tools ----------------------------------------------------------------------------------- */

static int call_tool(store *db, const char *name, const char *json, tool_output *out,
                     dbmcp_error *err)
{
    tool_handler_fn fn = tools_builtin_find(name);
    assert_non_null(fn);
    assert_true(tools_builtin_needs_internal(name));
    tool_env env = {.internal_db = db, .interface = "test", .principal = "test"};
    json_t *args = json_parse_text(json);
    assert_non_null(args);
    memset(out, 0, sizeof *out);
    int rc = fn(&env, args, out, err);
    json_decref(args);
    return rc;
}

static void test_tools(void **state)
{
    (void)state;
    store *db = small_db();
    tool_output out;
    dbmcp_error err;
    assert_int_equal(
        call_tool(db, "thesaurus_lookup", "{\"term\":\"Lohn\",\"lang\":\"de\"}", &out, &err), 0);
    json_t *c = json_array_get(json_object_get(out.structured, "concepts"), 0);
    assert_string_equal(json_get_str(c, "uri"), "http://example.org/t#Entgelt");
    assert_string_equal(json_get_str(json_get_obj(c, "pref_labels"), "de"), "Entgelt");
    assert_int_equal(json_array_size(json_object_get(c, "narrower")), 2);
    const char *text = json_get_str(json_array_get(out.content, 0), "text");
    assert_non_null(strstr(text, "narrower: Grundentgelt, Zulage"));
    tool_output_free(&out);

    assert_int_equal(call_tool(db, "graph_query", "{\"start\":\"Bank\"}", &out, &err),
                     DBMCP_EINVAL);
    assert_non_null(strstr(err.public_message, "start: 'Bank' is ambiguous"));
    assert_non_null(strstr(err.public_message, "http://example.org/t#Bank1"));
    assert_non_null(strstr(err.public_message, "http://example.org/t#Bank2"));
    tool_output_free(&out);
    assert_int_equal(call_tool(db, "graph_query", "{\"start\":\"Nirgendwo\"}", &out, &err),
                     DBMCP_ENOTFOUND);
    assert_non_null(strstr(err.public_message, "start: no concept"));
    tool_output_free(&out);

    assert_int_equal(call_tool(db, "graph_query",
                               "{\"start\":\"Zyklus A\",\"relation\":\"broader\",\"depth\":6}",
                               &out, &err),
                     0);
    assert_int_equal(json_array_size(json_object_get(out.structured, "nodes")), 3);
    assert_int_equal(json_array_size(json_object_get(out.structured, "edges")), 3);
    tool_output_free(&out);

    assert_int_equal(call_tool(db, "thesaurus_path",
                               "{\"from\":\"hourly wage\",\"to\":\"shift allowance\","
                               "\"lang\":\"en\"}",
                               &out, &err),
                     0);
    assert_true(json_is_true(json_object_get(out.structured, "found")));
    assert_int_equal(json_integer_value(json_object_get(out.structured, "length")), 4);
    tool_output_free(&out);
    assert_int_equal(
        call_tool(db, "thesaurus_path", "{\"from\":\"Zyklus A\",\"to\":\"Entgelt\"}", &out, &err),
        0);
    assert_true(json_is_false(json_object_get(out.structured, "found")));
    tool_output_free(&out);
    assert_int_equal(call_tool(db, "thesaurus_path",
                               "{\"from\":\"Lohn\",\"to\":\"Entgelt\",\"max_depth\":9}", &out,
                               &err),
                     DBMCP_EINVAL);
    assert_non_null(strstr(err.public_message, "max_depth"));
    tool_output_free(&out);
    close_db(db);
}

/* --- the demo ------------------------------------------------------------------------------------
 */

static void test_demo_thesaurus(void **state)
{
    (void)state;
    store *db = open_db();
    dbmcp_error err;
    if (store_seed(db, "base", &err) || store_seed(db, "demo", &err))
        fail_msg("seed: %s", err.message);
    thesaurus_import_options opt = {.scheme = "tarif"};
    thesaurus_import_stats st;
    if (thesaurus_import_resource(db, "thesaurus://tarif/skos", &opt, &st, &err))
        fail_msg("demo import: %s", err.message);
    assert_int_equal(st.concepts, 50);
    assert_int_equal(concept_of(db, "Gehalt"), concept_of(db, "thesaurus://tarif/skos#Gehalt"));
    thesaurus_graph g;
    assert_int_equal(thesaurus_path(db, concept_of(db, "Weihnachtsgeld"), concept_of(db, "Entgelt"),
                                    6, "de", &g, &err),
                     0);
    assert_true(g.nedges >= 1);
    thesaurus_graph_free(&g);
    close_db(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_turtle_import),
        cmocka_unit_test(test_rdfxml_import),
        cmocka_unit_test(test_mythes_import),
        cmocka_unit_test(test_mythes_real_file),
        cmocka_unit_test(test_broken_files_change_nothing),
        cmocka_unit_test(test_lookup_languages),
        cmocka_unit_test(test_graph_cycle),
        cmocka_unit_test(test_shortest_path),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_match_text),
        cmocka_unit_test(test_tools),
        cmocka_unit_test(test_demo_thesaurus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
