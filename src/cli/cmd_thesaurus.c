/*
 * cmd_thesaurus.c — `dbmcp thesaurus import` and `dbmcp thesaurus stats`,
 * and the demo's thesaurus import called by `dbmcp init --demo`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "thesaurus/thesaurus.h"

#define DB_FLAG                                                                                    \
    {                                                                                              \
        "db", "PATH", "database (SQLite file); default $DBMCP_DB or ./dbmcp.db"                    \
    }

static void print_import(const char *what, const char *scheme, const thesaurus_import_stats *s)
{
    fprintf(stderr,
            "dbmcp: imported %s as scheme %s: %ld concepts, %ld labels, %ld relations"
            " (%ld statements skipped)\n",
            what, scheme, s->concepts, s->labels, s->relations, s->skipped);
}

static int run_import(cli_args *a)
{
    thesaurus_import_options opt = {0};
    const char *format = cli_flag(a, "format");
    if (format && thesaurus_format_parse(format, &opt.format))
        return cli_usage_error(a->cmd, "--format must be skos-turtle, skos-rdfxml or mythes");
    int limit = 0;
    if (cli_int_flag(a, "limit", 1, 100000000, &limit))
        return CLI_USAGE;
    opt.limit = limit;
    opt.scheme = cli_flag(a, "scheme");
    opt.lang = cli_flag(a, "lang");
    const char *src = a->argv[0];
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    dbmcp_error err;
    thesaurus_import_stats stats;
    int rc = strstr(src, "://") ? thesaurus_import_resource(db, src, &opt, &stats, &err)
                                : thesaurus_import_file(db, src, &opt, &stats, &err);
    store_close(db);
    if (rc)
        return cli_fail(&err);
    print_import(src, stats.scheme, &stats);
    return CLI_OK;
}

static const cli_flag_spec import_flags[] = {
    DB_FLAG,
    {"format", "FORMAT", "skos-turtle, skos-rdfxml or mythes (default: from the file name)"},
    {"scheme", "NAME", "scheme name (default: the file's base name); replaces a scheme so named"},
    {"lang", "LANG", "language of untagged labels (MyThes default: from th_xx_… in the name)"},
    {"limit", "N", "import only the first N entries (MyThes) or concepts (SKOS)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_thesaurus_import = {
    "thesaurus import",
    "Import a thesaurus (SKOS Turtle or RDF/XML, MyThes) into the database",
    "FILE|RESOURCE-URI [--format skos-turtle|skos-rdfxml|mythes] [--scheme NAME] [--lang L]"
    " [--limit N] [--db PATH]",
    "Reads FILE (.ttl: SKOS Turtle; .rdf/.xml/.owl: SKOS RDF/XML; .dat or .idx: MyThes, e.g.\n"
    "/usr/share/mythes/th_de_DE_v2.dat) or a text resource already in the catalog\n"
    "(thesaurus://tarif/skos) and stores its concepts, labels and relations. The import is one\n"
    "transaction: a scheme of the same name is replaced, and a file with an error (reported\n"
    "with its line and column) changes nothing. Files over 64 MB are refused.\n"
    "See docs/thesaurus.md.",
    1,
    1,
    import_flags,
    run_import,
};

static int run_stats(cli_args *a)
{
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    dbmcp_error err;
    thesaurus_stats s;
    int rc = thesaurus_stats_get(db, &s, &err);
    store_close(db);
    if (rc)
        return cli_fail(&err);
    long concepts = 0, labels = 0, relations = 0;
    printf("%-24s %-12s %9s %9s %9s  %s\n", "scheme", "format", "concepts", "labels", "relations",
           "source");
    for (size_t i = 0; i < s.nschemes; i++) {
        const thesaurus_scheme_stats *r = &s.schemes[i];
        printf("%-24s %-12s %9ld %9ld %9ld  %s\n", cli_safe(r->name), cli_safe(r->format),
               r->concepts, r->labels, r->relations, cli_safe(r->source));
        concepts += r->concepts;
        labels += r->labels;
        relations += r->relations;
    }
    printf("%-24s %-12s %9ld %9ld %9ld\n", "total", "", concepts, labels, relations);
    thesaurus_stats_free(&s);
    return CLI_OK;
}

static const cli_flag_spec stats_flags[] = {
    DB_FLAG,
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_thesaurus_stats = {
    "thesaurus stats",
    "Count the concepts, labels and relations of each thesaurus scheme",
    "[--db PATH]",
    "One line per scheme (relations counts asserted edges; their inverses are stored too).",
    0,
    0,
    stats_flags,
    run_stats,
};

int cli_thesaurus_demo_import(store *db, dbmcp_error *err)
{
    thesaurus_import_options opt = {.format = THESAURUS_FORMAT_SKOS_TURTLE, .scheme = "tarif"};
    thesaurus_import_stats stats;
    int rc = thesaurus_import_resource(db, "thesaurus://tarif/skos", &opt, &stats, err);
    if (!rc)
        print_import("thesaurus://tarif/skos", stats.scheme, &stats);
    return rc;
}
