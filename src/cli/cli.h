/*
 * cli.h — the command line: a table of subcommands, each with its flags,
 * usage and help text, parsed by one parser. A flag is given at most once
 * (a repeated one is a usage error, never a silent override). Exit codes:
 * 0 ok, 1 runtime failure, 2 usage error. A command group named without
 * its subcommand (`dbmcp tools`) is a usage error: the group's commands
 * are listed on stderr (`dbmcp help tools` lists them on stdout, exit 0).
 * Only the CLI and the stdio transport write to stdout.
 */
#ifndef DBMCP_CLI_H
#define DBMCP_CLI_H

#include <jansson.h>

#include "core/error.h"
#include "store/registry.h"
#include "store/store.h"

#define CLI_OK 0
#define CLI_FAIL 1
#define CLI_USAGE 2
#define CLI_CANCELLED 3 /* serve --http: the shutdown grace ran out, requests cancelled */
#define CLI_MAX_FLAGS 24
/* max_args of a command taking any number of arguments (as many as the
 * system passes: its ARG_MAX is the bound). */
#define CLI_ANY_ARGS 0x7fffffff

typedef struct cli_flag_spec {
    const char *name;       /* without the leading "--" */
    const char *value_name; /* NULL for a boolean flag */
    const char *help;
} cli_flag_spec;

typedef struct cli_args cli_args;

typedef struct cli_command {
    const char *name;    /* "serve", or "keys create" for a sub-subcommand */
    const char *summary; /* one line for `dbmcp help` */
    const char *usage;   /* argument synopsis after the name */
    const char *details; /* paragraphs for `dbmcp help NAME` (may be NULL) */
    int min_args, max_args;
    const cli_flag_spec *flags; /* terminated by {NULL} */
    int (*run)(cli_args *a);
} cli_command;

struct cli_args {
    const cli_command *cmd;
    int argc;                          /* positional arguments */
    const char **argv;                 /* argc of them, in order (main's array, not owned) */
    const char *values[CLI_MAX_FLAGS]; /* per flag: value, "1" for booleans, or NULL */
};

/* Value of flag `name` (NULL when absent). */
const char *cli_flag(const cli_args *a, const char *name);
/* Print "dbmcp NAME: reason" and the usage to stderr; returns CLI_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print an error (operator message) to stderr; returns CLI_FAIL. Every
 * `dbmcp …` hint in it gets the running command's --db (cli_hint_db) when
 * it names none, and a missing database file gets the `dbmcp init` that
 * makes it: a hint works when pasted. */
int cli_fail(const dbmcp_error *err);
/* " --db WORD" naming the running command's database as a shell word
 * (a PostgreSQL URI without its password); "" outside a command. Static
 * storage, valid until the next call. Every hint the CLI prints ends
 * with it. */
const char *cli_hint_db(void);
/* s as one shell word (single-quoted when it needs it) in out. */
const char *cli_shell_word(const char *s, char *out, size_t size);
/* Text from the database (names, targets, errors a client chose) made
 * safe for the terminal: control characters, bidirectional overrides and
 * invalid bytes shown as escapes (\x1b, \n, \u202e; core/text_safe.h), so
 * a stored name cannot draw fake rows. Returns s itself when nothing needs
 * escaping, else an escaped copy that stays valid for the next 32 calls
 * (enough for one printed row); NULL stays NULL. */
const char *cli_safe(const char *s);
/* Flag values (flag_values.c). Each returns CLI_OK (also when the flag is
 * absent: the output is then left as it was) or prints a usage error that
 * names the accepted forms and returns CLI_USAGE. */
/* A whole number from lo to hi into *out. */
int cli_int_flag(const cli_args *a, const char *name, int lo, int hi, int *out);
/* A UTC time (YYYY-MM-DD[THH:MM[:SS[.fff]]][Z], a space for the T): *value
 * is the time as stored times are written (with a T, in out), NULL when
 * the flag is absent. */
int cli_time_flag(const cli_args *a, const char *name, char out[32], const char **value);
/* One of choices (NULL-terminated): *value is the flag's value or NULL. */
int cli_choice_flag(const cli_args *a, const char *name, const char *const *choices,
                    const char **value);
/* The database URL: --db, else $DBMCP_DB, else ./dbmcp.db. */
const char *cli_db_url(const cli_args *a);
/* Open the catalog database read-write, checking (and migrating) the
 * schema; prints the error and returns NULL on failure. */
store *cli_open_catalog(const cli_args *a);

/* Command tables, one per file. */
extern const cli_command cli_cmd_init, cli_cmd_serve, cli_cmd_call, cli_cmd_audit;
extern const cli_command cli_cmd_keys_create, cli_cmd_keys_list, cli_cmd_keys_revoke;
extern const cli_command cli_cmd_oidc_show, cli_cmd_oidc_set, cli_cmd_oidc_check;
/* Admin commands for interfaces, tools, prompts and resources (admin.c). */
extern const cli_command *const cli_admin_commands[];
/* Report tools from SQL files and from the audit log (cmd_report.c). */
extern const cli_command cli_cmd_tools_add_report, cli_cmd_tools_promote, cli_cmd_audit_top_queries;
/* The response repair engine as a filter (cmd_repair.c). */
extern const cli_command cli_cmd_repair;
/* Documents into collections, collections to another embedder (cmd_ingest.c). */
extern const cli_command cli_cmd_ingest, cli_cmd_reembed, cli_cmd_collections_expose;
/* Agent memory upkeep: compaction and embedding jobs (cmd_memory.c). */
extern const cli_command cli_cmd_memory_compact, cli_cmd_memory_jobs;
/* Thesaurus import and statistics (cmd_thesaurus.c). */
extern const cli_command cli_cmd_thesaurus_import, cli_cmd_thesaurus_stats;
/* `init --demo`: import the demo's SKOS resource thesaurus://tarif/skos. */
int cli_thesaurus_demo_import(store *db, dbmcp_error *err);
/* Embed texts with the configured embedder (cmd_embed.c). */
extern const cli_command cli_cmd_embed;
/* Make the embedder of the database's embed.* settings the process-wide
 * default (embedder_set_default), so embed() in SQL matches the stored
 * vectors; on failure log a warning and keep the builtin (cmd_embed.c). */
void cli_set_default_embedder(const char *db_url);
/* The operator's SQL and a deterministic dump of every table (cmd_sql.c). */
extern const cli_command cli_cmd_sql, cli_cmd_dump;
/* A chat with the LLM orchestrator (cmd_chat.c). */
extern const cli_command cli_cmd_chat;
/* User databases attached read-only (cmd_databases.c). */
extern const cli_command cli_cmd_databases_attach, cli_cmd_databases_detach, cli_cmd_databases_list;
/* The commands that attach the user's SQLite file path instead of writing
 * into it, one line a user can paste, into out (size bytes): for `init`. */
void cli_attach_hint(const char *path, char *out, size_t size);
/* A running HTTP server's GET /status (cmd_status.c). */
extern const cli_command cli_cmd_status;

/* The server and the local identity as serve/call build them from --db,
 * --allowed-tools, --principal, --interface (cmd_core.c); both print the
 * error and return CLI_FAIL on failure. */
typedef struct mcp_server mcp_server;
typedef struct mcp_identity mcp_identity;
int cli_make_server(cli_args *a, mcp_server **srv);
int cli_local_identity(cli_args *a, mcp_server *srv, mcp_identity *id);

/* --- PostgreSQL: the query role and the query connection (pg_setup.c) --- */

/* The query role's name: --query-role, $DBMCP_QUERY_ROLE or dbmcp_query. */
const char *cli_query_role(const cli_args *a);
/* The query connection's database into *out (malloc'd; NULL: the catalog's
 * own, as on SQLite): --query-db, else $DBMCP_QUERY_DB, else on PostgreSQL
 * the --db URI logged in as cli_query_role with $DBMCP_QUERY_PASSWORD. It
 * may hold a password: never print it. */
int cli_query_db_url(const cli_args *a, char **out, dbmcp_error *err);

/* What `dbmcp init` learns about the query role before it writes. */
typedef struct cli_pg_init {
    char role[64];         /* the query role's name */
    char database[128];    /* current_database() */
    int can_create;        /* the user of --db may create roles */
    int superuser;         /* … and is a superuser */
    int existed;           /* the role existed before init */
    char schema_text[512]; /* --query-schemas, split in place */
    char *schemas[17];     /* its names, NULL-terminated */
} cli_pg_init;
/* Before anything is written: CLI_OK to go on; CLI_FAIL (the statements
 * that create the role printed on stdout, why on stderr, the database
 * untouched) when the role is missing and may not be created here;
 * CLI_USAGE for bad names. */
int cli_pg_init_prepare(const cli_args *a, store *db, cli_pg_init *st);
/* After the migrations and seeds: the role, its password and its reads
 * (the demo's tables with demo), with what was done on stderr and what is
 * left for someone else on stdout. url is --db (for libpq's hashing). */
int cli_pg_init_finish(const cli_args *a, store *db, const char *url, const cli_pg_init *st,
                       int demo);

/* Shared by the command files (admin.c). */
/* Print v as pretty JSON (2-space indent) and a newline on stdout. */
int cli_print_json(const json_t *v, dbmcp_error *err);
/* Audit an admin change the CLI made (store/registry.h reg_audit_admin):
 * principal the OS user (else "cli"), client "dbmcp cli", transport
 * "cli", status ok, method "admin/ACTION" ("plans.add"), target the row's
 * key, change {"before", "after"} or NULL. A failure to write it is a
 * warning on stderr: the change itself is made. */
void cli_audit_admin(store *db, const char *action, const char *target, const json_t *change);
/* Parse a file (path "-": stdin) holding one JSON object; *out is a new ref. */
int cli_read_json_object(const char *path, json_t **out, dbmcp_error *err);
/* Read a whole text file (path "-": stdin) into a malloc'd NUL-terminated
 * string; a NUL byte inside is refused. */
int cli_read_text_file(const char *path, char **out, dbmcp_error *err);
/* Validate a tool row (the `tools add` file shape, memberships excluded)
 * exactly as `tools add` does — catalog rules, and for SQL handlers the
 * check on a read-only connection to cli_db_url(a) — then insert it with
 * the interfaces ifaces (may be NULL) in one transaction. */
int cli_tool_insert_checked(cli_args *a, store *db, const json_t *row, const reg_names *ifaces,
                            dbmcp_error *err);
/* The handler-SQL check of cli_tool_insert_checked alone, for tool `tool`
 * with input_schema: on success *used is a new object {param: true} of
 * the :params the SQL uses (without the colon). Writes nothing. */
int cli_tool_sql_params(cli_args *a, const char *tool, const char *sql, const json_t *input_schema,
                        json_t **used, dbmcp_error *err);

#endif
