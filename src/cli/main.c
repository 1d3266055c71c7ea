/*
 * main.c — entry point: finds the subcommand, parses its flags with one
 * parser, prints help. See cli.h for the exit-code contract.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/ids.h"
#include "core/log.h"
#include "core/version.h"
#include "search/embed.h"
#include "store/migrate.h"

static const cli_command *const core_commands[] = {
    &cli_cmd_init,
    &cli_cmd_serve,
    &cli_cmd_call,
    &cli_cmd_audit,
    &cli_cmd_keys_create,
    &cli_cmd_keys_list,
    &cli_cmd_keys_revoke,
    &cli_cmd_oidc_show,
    &cli_cmd_oidc_set,
    &cli_cmd_oidc_check,
    &cli_cmd_audit_top_queries,
    &cli_cmd_tools_add_report,
    &cli_cmd_tools_promote,
    &cli_cmd_repair,
    &cli_cmd_memory_compact,
    &cli_cmd_memory_jobs,
    &cli_cmd_thesaurus_import,
    &cli_cmd_thesaurus_stats,
    &cli_cmd_embed,
    &cli_cmd_chat,
    &cli_cmd_ingest,
    &cli_cmd_reembed,
    &cli_cmd_collections_expose,
    &cli_cmd_sql,
    &cli_cmd_dump,
    &cli_cmd_status,
    &cli_cmd_databases_attach,
    &cli_cmd_databases_detach,
    &cli_cmd_databases_list,
    NULL,
};

const char *cli_flag(const cli_args *a, const char *name)
{
    for (int i = 0; a->cmd->flags && a->cmd->flags[i].name; i++)
        if (strcmp(a->cmd->flags[i].name, name) == 0)
            return a->values[i];
    return NULL;
}

static void print_usage(FILE *f, const cli_command *cmd)
{
    fprintf(f, "usage: dbmcp %s%s%s\n", cmd->name, cmd->usage ? " " : "",
            cmd->usage ? cmd->usage : "");
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "dbmcp %s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    print_usage(stderr, cmd);
    fprintf(stderr, "(see `dbmcp help %s`)\n", cmd->name);
    return CLI_USAGE;
}

/* The command being run: hints name its database. */
static const cli_args *running;

/* Whether s can be pasted into a shell as one word without quotes. */
static int shell_plain(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-", *s))
            return 0;
    return 1;
}

const char *cli_shell_word(const char *s, char *out, size_t size)
{
    if (shell_plain(s)) {
        snprintf(out, size, "%s", s);
        return out;
    }
    size_t n = 0;
    if (n + 1 < size)
        out[n++] = '\'';
    for (; *s && n + 5 < size; s++) {
        if (*s == '\'') {
            memcpy(out + n, "'\\''", 4);
            n += 4;
        } else {
            out[n++] = *s;
        }
    }
    if (n + 1 < size)
        out[n++] = '\'';
    out[n] = '\0';
    return out;
}

const char *cli_hint_db(void)
{
    static char hint[1100];
    if (!running)
        return "";
    const char *url = cli_db_url(running);
    char word[1024];
    if (store_url_is_postgres(url)) {
        /* Never print a password: without it libpq reads PGPASSWORD or
         * ~/.pgpass; a URI with one is shown as the variable to set. */
        const char *at = strchr(url, '@');
        const char *scheme = strstr(url, "://");
        const char *colon =
            scheme && at ? memchr(scheme + 3, ':', (size_t)(at - scheme - 3)) : NULL;
        if (strstr(url, "password"))
            return " --db \"$DBMCP_DB\"";
        if (colon) {
            char bare[1024];
            snprintf(bare, sizeof bare, "%.*s%s", (int)(colon - url), url, at);
            snprintf(hint, sizeof hint, " --db %s", cli_shell_word(bare, word, sizeof word));
            return hint;
        }
    }
    snprintf(hint, sizeof hint, " --db %s", cli_shell_word(url, word, sizeof word));
    return hint;
}

/* Every `dbmcp …` hint in text that names no --db gets the one of the
 * running command, so it works when pasted; into out. */
static void complete_hints(const char *text, char *out, size_t size)
{
    size_t n = 0;
    const char *p = text;
    out[0] = '\0';
    while (*p && n + 1 < size) {
        const char *open = strstr(p, "`dbmcp ");
        const char *close = open ? strchr(open + 1, '`') : NULL;
        if (!close) {
            snprintf(out + n, size - n, "%s", p);
            return;
        }
        int has_db = 0;
        for (const char *q = open; q < close; q++)
            if (strncmp(q, " --db", 5) == 0)
                has_db = 1;
        int wrote = snprintf(out + n, size - n, "%.*s%s`", (int)(close - p), p,
                             has_db || strncmp(open, "`dbmcp help", 11) == 0 ? "" : cli_hint_db());
        if (wrote < 0 || (size_t)wrote >= size - n)
            return;
        n += (size_t)wrote;
        p = close + 1;
    }
}

int cli_fail(const dbmcp_error *err)
{
    char text[sizeof err->message + 1200];
    complete_hints(err->message[0] ? err->message : "failed", text, sizeof text);
    /* The store names a missing file; the CLI says how to make one. */
    if (err->code == DBMCP_ENOTFOUND && strncmp(err->message, "database file ", 14) == 0) {
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "; create it with `dbmcp init%s`", cli_hint_db());
    }
    fprintf(stderr, "dbmcp: %s\n", text);
    return CLI_FAIL;
}

const char *cli_db_url(const cli_args *a)
{
    const char *db = cli_flag(a, "db");
    if (db)
        return db;
    db = getenv("DBMCP_DB");
    return db && *db ? db : "dbmcp.db";
}

store *cli_open_catalog(const cli_args *a)
{
    dbmcp_error err;
    store *db = NULL;
    const char *url = cli_db_url(a);
    if (store_open(url, STORE_READWRITE, &db, &err) != 0) {
        cli_fail(&err);
        return NULL;
    }
    int version = 0;
    int rc = store_schema_version(db, &version, &err);
    /* A PostgreSQL URI may hold a password: the message names the database
     * by its identity, the hint by the URI without it (cli_hint_db). */
    int pg = strcmp(store_dialect(db), "postgres") == 0;
    if (!rc && version == 0)
        rc = dbmcp_error_set(&err, DBMCP_EVERSION,
                             "database %s is not initialised; run `dbmcp init%s` first",
                             pg ? store_identity(db) : url, cli_hint_db());
    if (!rc && version < store_schema_latest())
        rc = store_migrate(db, NULL, &err);
    if (!rc)
        rc = store_schema_check(db, &err);
    if (rc) {
        cli_fail(&err);
        store_close(db);
        return NULL;
    }
    return db;
}

/* --- command lookup ------------------------------------------------------- */

static const cli_command *find_in(const cli_command *const *table, const char *name)
{
    for (int i = 0; table[i]; i++)
        if (strcmp(table[i]->name, name) == 0)
            return table[i];
    return NULL;
}

/* Match "keys create" style names against argv[1] (+ argv[2]). *used gets
 * how many words matched. */
static const cli_command *find_command(int argc, char **argv, int *used)
{
    char two[128];
    if (argc >= 3) {
        snprintf(two, sizeof two, "%s %s", argv[1], argv[2]);
        const cli_command *c = find_in(core_commands, two);
        if (!c)
            c = find_in(cli_admin_commands, two);
        if (c) {
            *used = 2;
            return c;
        }
    }
    *used = 1;
    const cli_command *c = find_in(core_commands, argv[1]);
    return c ? c : find_in(cli_admin_commands, argv[1]);
}

/* Whether word is the first word of some "word sub" command. */
static int is_group(const char *word)
{
    size_t len = strlen(word);
    const cli_command *const *tables[] = {core_commands, cli_admin_commands};
    for (size_t t = 0; t < 2; t++)
        for (int i = 0; tables[t][i]; i++)
            if (strncmp(tables[t][i]->name, word, len) == 0 && tables[t][i]->name[len] == ' ')
                return 1;
    return 0;
}

/* The commands of group word, one a line with their summaries. */
static void print_group(FILE *f, const char *word)
{
    size_t len = strlen(word);
    const cli_command *const *tables[] = {core_commands, cli_admin_commands};
    fprintf(f, "commands of dbmcp %s:\n", word);
    for (size_t t = 0; t < 2; t++)
        for (int i = 0; tables[t][i]; i++)
            if (strncmp(tables[t][i]->name, word, len) == 0 &&
                (tables[t][i]->name[len] == ' ' || tables[t][i]->name[len] == '\0'))
                fprintf(f, "  dbmcp %-26s %s\n", tables[t][i]->name, tables[t][i]->summary);
    fprintf(f, "(`dbmcp help %s list` and the like show one command's flags)\n", word);
}

static int flag_index(const cli_command *cmd, const char *name, size_t len)
{
    for (int i = 0; cmd->flags && cmd->flags[i].name; i++)
        if (strlen(cmd->flags[i].name) == len && strncmp(cmd->flags[i].name, name, len) == 0)
            return i;
    return -1;
}

/* a->argv must have room for argc entries. */
static int parse_args(const cli_command *cmd, int argc, char **argv, cli_args *a)
{
    const char **positional = a->argv;
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->argv = positional;
    int only_positional = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!only_positional && strcmp(arg, "--") == 0) {
            only_positional = 1;
            continue;
        }
        if (!only_positional && strncmp(arg, "--", 2) == 0) {
            const char *name = arg + 2;
            const char *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            int idx = flag_index(cmd, name, len);
            if (idx < 0)
                return cli_usage_error(cmd, "unknown flag --%.*s", (int)len, name);
            /* A repeated flag would silently keep only its last value. */
            if (a->values[idx])
                return cli_usage_error(cmd, "--%s given twice", cmd->flags[idx].name);
            if (!cmd->flags[idx].value_name) {
                if (eq)
                    return cli_usage_error(cmd, "--%s takes no value", cmd->flags[idx].name);
                a->values[idx] = "1";
            } else if (eq) {
                a->values[idx] = eq + 1;
            } else if (i + 1 < argc) {
                a->values[idx] = argv[++i];
            } else {
                return cli_usage_error(cmd, "--%s needs a value (%s)", cmd->flags[idx].name,
                                       cmd->flags[idx].value_name);
            }
            continue;
        }
        a->argv[a->argc++] = arg;
    }
    if (a->argc < cmd->min_args)
        return cli_usage_error(cmd, "missing argument");
    if (a->argc > cmd->max_args)
        return cli_usage_error(cmd, "unexpected argument '%s'", a->argv[cmd->max_args]);
    return CLI_OK;
}

/* --- help ----------------------------------------------------------------------- */

static void help_command(const cli_command *cmd)
{
    print_usage(stdout, cmd);
    printf("\n%s\n", cmd->summary);
    if (cmd->details)
        printf("\n%s\n", cmd->details);
    if (cmd->flags && cmd->flags[0].name) {
        printf("\nflags:\n");
        for (int i = 0; cmd->flags[i].name; i++) {
            char left[64];
            snprintf(left, sizeof left, "--%s%s%s", cmd->flags[i].name,
                     cmd->flags[i].value_name ? " " : "",
                     cmd->flags[i].value_name ? cmd->flags[i].value_name : "");
            printf("  %-26s %s\n", left, cmd->flags[i].help);
        }
    }
    printf("\nexit status: 0 ok, 1 runtime failure, 2 usage error\n");
}

static void help_all(void)
{
    printf("dbmcp — a database as an MCP server and agent runtime\n\n"
           "usage: dbmcp COMMAND [ARGS] [FLAGS]\n\ncommands:\n");
    for (int i = 0; core_commands[i]; i++)
        printf("  %-26s %s\n", core_commands[i]->name, core_commands[i]->summary);
    for (int i = 0; cli_admin_commands[i]; i++)
        printf("  %-26s %s\n", cli_admin_commands[i]->name, cli_admin_commands[i]->summary);
    printf("  %-26s %s\n", "help [COMMAND]",
           "Show this list, a group's commands or one command's flags");
    printf("  %-26s %s\n", "--version", "Print dbmcp's version");
    printf("\nThe database is --db PATH, else $DBMCP_DB, else ./dbmcp.db.\n"
           "A command group without its subcommand (`dbmcp tools`) is a usage error that\n"
           "lists the group's commands on stderr; `dbmcp help tools` lists them on stdout.\n"
           "Exit status: 0 ok, 1 runtime failure, 2 usage error, 3 serve --http stopped\n"
           "after cancelling requests past http.shutdown_grace_ms.\n");
}

static int run_help(int argc, char **argv)
{
    if (argc <= 2) {
        help_all();
        return CLI_OK;
    }
    int used;
    const cli_command *cmd = find_command(argc - 1, argv + 1, &used);
    if (!cmd && argc == 3 && is_group(argv[2])) {
        print_group(stdout, argv[2]);
        return CLI_OK;
    }
    if (!cmd) {
        fprintf(stderr, "dbmcp help: no command named '%s'\n", argv[2]);
        return CLI_USAGE;
    }
    help_command(cmd);
    return CLI_OK;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    log_init();
    if (ids_init() != 0) {
        fprintf(stderr, "dbmcp: cannot initialise libsodium\n");
        return CLI_FAIL;
    }
    embedder_install_sql_hook(); /* embed() in SQL: the default embedder */
    if (argc < 2) {
        help_all();
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0)
        return run_help(argc, argv);
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("dbmcp %s\n", DBMCP_VERSION);
        return CLI_OK;
    }
    int used = 0;
    const cli_command *cmd = find_command(argc, argv, &used);
    if (!cmd && is_group(argv[1])) {
        /* A group without (or with an unknown) subcommand: a usage error
         * that shows what the group holds. */
        if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
            print_group(stdout, argv[1]);
            return CLI_OK;
        }
        if (argc == 2 || strncmp(argv[2], "-", 1) == 0)
            fprintf(stderr, "dbmcp %s: missing subcommand\n", argv[1]);
        else
            fprintf(stderr, "dbmcp %s: unknown subcommand '%s'\n", argv[1], argv[2]);
        print_group(stderr, argv[1]);
        return CLI_USAGE;
    }
    if (!cmd) {
        fprintf(stderr, "dbmcp: unknown command '%s'\n", argv[1]);
        fprintf(stderr, "usage: dbmcp COMMAND [ARGS] [FLAGS] (see `dbmcp help`)\n");
        return CLI_USAGE;
    }
    for (int i = 1 + used; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            help_command(cmd);
            return CLI_OK;
        }
    }
    cli_args a = {.argv = calloc((size_t)argc, sizeof(char *))};
    if (!a.argv) {
        fprintf(stderr, "dbmcp: out of memory\n");
        return CLI_FAIL;
    }
    int rc = parse_args(cmd, argc - 1 - used, argv + 1 + used, &a);
    running = &a;
    if (rc == CLI_OK)
        rc = cmd->run(&a);
    running = NULL;
    free(a.argv);
    return rc;
}
