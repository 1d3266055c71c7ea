/*
 * cmd_databases.c — user databases attached read-only: `databases attach`,
 * `databases detach`, `databases list` (store/attachments.h), and the
 * hint `init` prints when it is pointed at a user's own file.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "store/attachments.h"

#define DB_FLAG                                                                                    \
    {                                                                                              \
        "db", "PATH", "dbmcp's own database; default $DBMCP_DB or ./dbmcp.db"                      \
    }

/* s as one shell word: itself when it holds only safe bytes, else in
 * single quotes (inner quotes as '\''). Into out (size bytes). */
static const char *shell_word(const char *s, char *out, size_t size)
{
    if (s[0] &&
        strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-+=:,@%") ==
            strlen(s)) {
        snprintf(out, size, "%s", s);
        return out;
    }
    size_t used = 0;
    if (size < 3)
        return "''";
    out[used++] = '\'';
    for (const char *p = s; *p && used + 6 < size; p++) {
        if (*p == '\'') {
            memcpy(out + used, "'\\''", 4);
            used += 4;
        } else {
            out[used++] = *p;
        }
    }
    out[used++] = '\'';
    out[used] = '\0';
    return out;
}

void cli_attach_hint(const char *path, char *out, size_t size)
{
    /* The attachment name: the file's stem as an identifier. */
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char name[ATTACHMENT_NAME_MAX + 1];
    size_t n = 0;
    for (const char *p = base; *p && *p != '.' && n < ATTACHMENT_NAME_MAX; p++) {
        char c = *p;
        int word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        name[n++] = word ? c : '_';
    }
    name[n] = '\0';
    if (store_attachment_name_check(name, NULL) != 0)
        snprintf(name, sizeof name, "data");
    /* The catalog: dbmcp.db beside the user's file, never the file itself. */
    char catalog[PATH_MAX];
    size_t dir = (size_t)(base - path);
    const char *stem = strcmp(base, "dbmcp.db") == 0 ? "dbmcp-catalog.db" : "dbmcp.db";
    snprintf(catalog, sizeof catalog, "%.*s%s", (int)dir, path, stem);
    char q_catalog[PATH_MAX + 64], q_path[PATH_MAX + 64];
    shell_word(catalog, q_catalog, sizeof q_catalog);
    shell_word(path, q_path, sizeof q_path);
    snprintf(out, size, "dbmcp init --db %s && dbmcp databases attach --db %s %s %s", q_catalog,
             q_catalog, name, q_path);
}

/* --- databases attach ---------------------------------------------------------- */

static int run_attach(cli_args *a)
{
    const char *name = a->argv[0], *path = a->argv[1];
    dbmcp_error err;
    if (store_attachment_name_check(name, &err))
        return cli_usage_error(a->cmd, "%s", err.message);
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    /* PostgreSQL: store_attachment_add says what to do instead, whatever
     * the path. */
    int sqlite = strcmp(store_dialect(db), "sqlite") == 0;
    char absolute[PATH_MAX];
    if (!sqlite)
        snprintf(absolute, sizeof absolute, "%s", path);
    else if (!realpath(path, absolute)) {
        dbmcp_error_set(&err, DBMCP_EIO, "cannot attach %s: %s", path, strerror(errno));
        store_close(db);
        return cli_fail(&err);
    }
    if (sqlite && strcmp(store_identity(db), absolute) == 0) {
        store_close(db);
        return cli_usage_error(a->cmd, "%s is dbmcp's own database; attach a user's database",
                               path);
    }
    int rc = store_attachment_add(db, name, absolute, cli_flag(a, "immutable") != NULL, &err);
    if (rc) {
        store_close(db);
        return rc == DBMCP_EINVAL ? cli_usage_error(a->cmd, "%s", err.message) : cli_fail(&err);
    }
    /* Open a query connection as `serve` does: it attaches every row and
     * reads each file, so a file that is not a database is named now. */
    store *query = NULL;
    rc = store_open(cli_db_url(a), STORE_READONLY, &query, &err);
    store_close(query);
    if (rc) {
        dbmcp_error undo;
        store_attachment_remove(db, name, &undo);
        store_close(db);
        return cli_fail(&err);
    }
    store_close(db);
    fprintf(stderr,
            "dbmcp: %s attached read-only%s as %s; agent SQL reads its tables as %s.TABLE "
            "(restart a running `dbmcp serve` to see it)\n",
            cli_safe(absolute), cli_flag(a, "immutable") ? " and immutable" : "", name, name);
    return CLI_OK;
}

static const cli_flag_spec attach_flags[] = {
    DB_FLAG,
    {"immutable", NULL,
     "the file never changes while dbmcp runs: no locks, no journal (read-only media)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_databases_attach = {
    "databases attach",
    "Attach a user's SQLite database read-only under NAME",
    "NAME PATH [--immutable] [--db PATH]",
    "dbmcp keeps its catalog, audit and memory in its own database (--db) and never writes\n"
    "into yours. Every query connection (execute_query, report tools, sql templates, the\n"
    "schema tools) opens PATH read-only as `file:PATH?mode=ro` under NAME, so agent SQL\n"
    "reads books.authors (or authors, when no other database has a table of that name).\n"
    "Writes, ATTACH, DETACH and PRAGMA stay refused; the journal mode of PATH never changes.\n"
    "--immutable adds immutable=1: SQLite then takes no locks, for a file on read-only media\n"
    "that nothing changes while dbmcp runs (a change would be read as corruption).\n"
    "NAME: letters, digits and _, not main, temp, dbmcp, dbmcp_*, sqlite_*, pg_*. Up to 10.\n"
    "The path is stored absolute. A running server sees the change after a restart.\n"
    "PostgreSQL needs no attach step: agent SQL reads the schemas the query role is granted\n"
    "(`dbmcp init --query-schemas A,B`, docs/postgres.md).",
    2,
    2,
    attach_flags,
    run_attach,
};

/* --- databases detach ---------------------------------------------------------- */

static int run_detach(cli_args *a)
{
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    dbmcp_error err;
    int rc = store_attachment_remove(db, a->argv[0], &err);
    store_close(db);
    if (rc)
        return cli_fail(&err);
    fprintf(stderr, "dbmcp: %s detached (restart a running `dbmcp serve` to drop it)\n",
            cli_safe(a->argv[0]));
    return CLI_OK;
}

static const cli_flag_spec db_only_flags[] = {DB_FLAG, {NULL, NULL, NULL}};

const cli_command cli_cmd_databases_detach = {
    "databases detach",
    "Stop attaching the user's database NAME (the file is left as it is)",
    "NAME [--db PATH]",
    NULL,
    1,
    1,
    db_only_flags,
    run_detach,
};

/* --- databases list ------------------------------------------------------------ */

static int run_list(cli_args *a)
{
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    store_attachment *v = NULL;
    size_t n = 0;
    dbmcp_error err;
    int rc = store_attachment_list(db, &v, &n, &err);
    int pg = strcmp(store_dialect(db), "postgres") == 0;
    store_close(db);
    if (rc)
        return cli_fail(&err);
    printf("%-20s %-10s %s\n", "NAME", "MODE", "PATH");
    for (size_t i = 0; i < n; i++)
        printf("%-20s %-10s %s\n", cli_safe(v[i].name), v[i].immutable ? "immutable" : "read-only",
               cli_safe(v[i].path));
    store_attachment_array_free(v, n);
    if (pg)
        fprintf(stderr, "dbmcp: PostgreSQL attaches nothing: agent SQL reads the schemas the "
                        "query role is granted (docs/postgres.md)\n");
    return CLI_OK;
}

const cli_command cli_cmd_databases_list = {
    "databases list",
    "List the user databases attached read-only",
    "[--db PATH]",
    NULL,
    0,
    0,
    db_only_flags,
    run_list,
};
