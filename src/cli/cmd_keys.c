/*
 * cmd_keys.c — API keys (create, list, revoke) and the audit listing.
 * A key is shown once at creation; only the hash of its secret is stored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "cli/cli.h"
#include "core/ids.h"
#include "mcp/server.h"
#include "store/console_store.h"
#include "store/registry.h"

#define DB_FLAG                                                                                    \
    {                                                                                              \
        "db", "PATH", "database (SQLite file); default $DBMCP_DB or ./dbmcp.db"                    \
    }

static int run_keys_create(cli_args *a)
{
    int admin = cli_flag(a, "admin") != NULL;
    const char *iface = cli_flag(a, "interface");
    const char *user = cli_flag(a, "user");
    const char *principal = cli_flag(a, "principal");
    if (!iface && !admin)
        return cli_usage_error(a->cmd, "--interface is required (or --admin)");
    if (!iface)
        iface = "default";
    dbmcp_error err;
    if (catalog_validate_name("interface", iface, &err))
        return cli_usage_error(a->cmd, "%s", err.message);
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    reg_interface row;
    int rc = reg_interface_get(db, iface, &row, &err);
    reg_interface_free(&row);
    if (rc) {
        store_close(db);
        return cli_fail(&err);
    }
    reg_api_key spec = {0};
    spec.principal = (char *)(principal ? principal : user ? user : admin ? "admin" : iface);
    spec.interface = (char *)iface;
    spec.user_id = (char *)user;
    spec.agent_id = (char *)cli_flag(a, "agent");
    spec.description = (char *)cli_flag(a, "description");
    spec.role = admin ? "admin" : "client";
    char key[MCP_KEY_SIZE], id[13];
    rc = mcp_key_create(db, &spec, key, id, &err);
    if (!rc) {
        /* The console's shape of the same action (never the secret). */
        json_t *change =
            json_pack("{s:n,s:{s:s,s:s,s:s,s:s}}", "before", "after", "id", id, "principal",
                      spec.principal, "interface", iface, "role", spec.role);
        cli_audit_admin(db, "keys.create", id, change);
        json_decref(change);
    }
    store_close(db);
    if (rc)
        return cli_fail(&err);
    printf("%s\n", key);
    fprintf(stderr, "dbmcp: %skey %s created for interface %s; it is shown only once\n",
            admin ? "admin " : "", id, iface);
    return CLI_OK;
}

static const cli_flag_spec keys_create_flags[] = {
    DB_FLAG,
    {"interface", "NAME", "interface the key may use (required unless --admin: default)"},
    {"user", "USER", "user scope (default: the principal)"},
    {"agent", "AGENT", "agent scope (default: any agent of the user)"},
    {"principal", "NAME", "principal name for audit (default: the user, else the interface)"},
    {"description", "TEXT", "what the key is for"},
    {"admin", NULL, "an admin key: it also opens the console at /admin/ (docs/console.md)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_keys_create = {
    "keys create",
    "Create an API key for HTTP clients (printed once)",
    "(--interface NAME | --admin) [--user U] [--agent A] [--principal P] [--db PATH]",
    "The key is dbmcp_<id>_<secret>. Its interface and user/agent scope apply to everything\n"
    "done with it. Only a BLAKE2b hash of the secret is stored. An --admin key (interface\n"
    "'default' and principal 'admin' unless given) also logs in to the admin console at\n"
    "http://HOST:PORT/admin/ of `dbmcp serve --http`; other keys get 403 there.",
    0,
    0,
    keys_create_flags,
    run_keys_create,
};

static int run_keys_list(cli_args *a)
{
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    reg_api_key *keys = NULL;
    size_t n = 0;
    dbmcp_error err;
    int rc = reg_api_key_list(db, &keys, &n, &err);
    store_close(db);
    if (rc)
        return cli_fail(&err);
    printf("%-14s %-18s %-18s %-7s %-12s %-12s %-25s %s\n", "ID", "PRINCIPAL", "INTERFACE", "ROLE",
           "USER", "AGENT", "LAST USED", "STATUS");
    for (size_t i = 0; i < n; i++)
        printf("%-14s %-18s %-18s %-7s %-12s %-12s %-25s %s\n", cli_safe(keys[i].id),
               cli_safe(keys[i].principal), cli_safe(keys[i].interface),
               keys[i].role ? cli_safe(keys[i].role) : "client",
               keys[i].user_id ? cli_safe(keys[i].user_id) : "-",
               keys[i].agent_id ? cli_safe(keys[i].agent_id) : "-",
               keys[i].last_used_at ? cli_safe(keys[i].last_used_at) : "-",
               keys[i].revoked_at ? "revoked" : "active");
    reg_api_key_array_free(keys, n);
    return CLI_OK;
}

static const cli_flag_spec db_only_flags[] = {DB_FLAG, {NULL, NULL, NULL}};

const cli_command cli_cmd_keys_list = {
    "keys list",   "List API keys (never their secrets)", "[--db PATH]", NULL, 0, 0, db_only_flags,
    run_keys_list,
};

static int run_keys_revoke(cli_args *a)
{
    const char *id = a->argv[0];
    if (strncmp(id, "dbmcp_", 6) == 0)
        return cli_usage_error(a->cmd, "give the key id (the part after dbmcp_), not the key");
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    dbmcp_error err;
    int rc = reg_api_key_revoke(db, id, &err);
    reg_api_key k;
    if (!rc && !reg_api_key_get(db, id, &k, &err)) {
        json_t *change = json_pack("{s:{s:n},s:{s:s?}}", "before", "revoked_at", "after",
                                   "revoked_at", k.revoked_at);
        cli_audit_admin(db, "keys.revoke", id, change);
        json_decref(change);
        reg_api_key_free(&k);
    }
    store_close(db);
    if (rc)
        return cli_fail(&err);
    fprintf(stderr, "dbmcp: key %s revoked\n", id);
    return CLI_OK;
}

const cli_command cli_cmd_keys_revoke = {
    "keys revoke",
    "Revoke an API key; requests with it get 401 from then on",
    "ID [--db PATH]",
    NULL,
    1,
    1,
    db_only_flags,
    run_keys_revoke,
};

/* --- audit ----------------------------------------------------------------------- */

/* Every column may hold what a client sent (the target is the tool name
 * it asked for): printed through cli_safe. */
static void print_audit_row(void *ctx, const char *const *cols)
{
    (void)ctx;
    const char *c[13];
    for (int i = 0; i < 13; i++)
        c[i] = cols[i] ? cli_safe(cols[i]) : "-";
    printf("%-24s %-36s %-12s %-16s %-10s %-20s %-13s %-40s %-9s %-16s %8.1f %8s\n", c[0], c[1],
           c[2], c[4], c[6], c[7], c[3], c[8], c[9], c[10], atof(c[11]), c[12]);
}

/* --json: the rows as the console's audit API gives them (every column,
 * an admin action's change parsed as "change"), oldest first like the table. */
static int audit_json(store *db, const reg_audit_filter *f)
{
    console_audit_filter cf = {0};
    cf.since = f->since;
    cf.target = f->target;
    cf.status = f->status;
    cf.limit = f->limit;
    json_t *rows = NULL, *ordered = json_array();
    dbmcp_error err;
    int rc = console_audit_query(db, &cf, &rows, &err);
    store_close(db);
    for (size_t i = json_array_size(rows); !rc && i > 0; i--)
        json_array_append(ordered, json_array_get(rows, i - 1));
    if (!rc)
        rc = cli_print_json(ordered, &err);
    json_decref(rows);
    json_decref(ordered);
    return rc ? cli_fail(&err) : CLI_OK;
}

static int run_audit(cli_args *a)
{
    static const char *const statuses[] = {"ok", "error", "denied", "cancelled", NULL};
    char since_buf[32];
    reg_audit_filter f = {NULL, cli_flag(a, "tool"), NULL, 100};
    int rc = cli_time_flag(a, "since", since_buf, &f.since);
    if (!rc)
        rc = cli_choice_flag(a, "status", statuses, &f.status);
    int as_json = cli_flag(a, "json") != NULL;
    if (!rc)
        rc = cli_int_flag(a, "limit", 1, as_json ? 1000 : 1000000, &f.limit);
    if (rc)
        return rc;
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    if (as_json)
        return audit_json(db, &f);
    printf("%-24s %-36s %-12s %-16s %-10s %-20s %-13s %-40s %-9s %-16s %8s %8s\n", "TIME",
           "CALL ID", "PRINCIPAL", "CLIENT", "TRANSPORT", "METHOD", "INTERFACE", "TARGET", "STATUS",
           "ERROR", "MS", "BYTES");
    dbmcp_error err;
    rc = reg_audit_list(db, &f, print_audit_row, NULL, &err);
    store_close(db);
    return rc ? cli_fail(&err) : CLI_OK;
}

static const cli_flag_spec audit_flags[] = {
    DB_FLAG,
    {"since", "TIME", "only rows at or after this UTC time (e.g. 2026-12-01 or 2026-12-01T09:00)"},
    {"tool", "NAME", "only calls of this tool (or reads of this URI, gets of this prompt)"},
    {"status", "S", "only this status: ok, error, denied, cancelled"},
    {"limit", "N", "newest N rows (default 100; with --json at most 1000)"},
    {"json", NULL, "print the rows as JSON with every column (admin changes: \"change\")"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_audit = {
    "audit",
    "Show the audit log (one row per tools/call, resources/read, prompts/get, admin change)",
    "[--since TIME] [--tool NAME] [--status S] [--limit N] [--json] [--db PATH]",
    "Oldest first. Admin changes made with the CLI (`dbmcp plans update`, `tools enable`,\n"
    "`interfaces add-tool`, …) and in the console are rows too: METHOD admin/KIND.VERB,\n"
    "TARGET the row's key, TRANSPORT cli or console, PRINCIPAL the OS user (CLI) or the\n"
    "admin key's principal; --json adds the row before and after as \"change\".\n"
    "The log is the table dbmcp_audit: query it with plain SQL for anything else.",
    0,
    0,
    audit_flags,
    run_audit,
};
