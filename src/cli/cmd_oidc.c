/*
 * cmd_oidc.c — single sign-on settings (docs/security.md, "Single
 * sign-on"): show and set the oidc.* rows of dbmcp_settings with their
 * checks, and check the provider (discovery, keys, optionally one token)
 * the way `serve --http` will.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/jose.h"
#include "mcp/oidc.h"
#include "mcp/server.h"
#include "store/registry.h"

#define DB_FLAG                                                                                    \
    {                                                                                              \
        "db", "PATH", "database (SQLite file); default $DBMCP_DB or ./dbmcp.db"                    \
    }

/* The settings `oidc set` accepts, in the order `oidc show` prints them. */
static const char *const OIDC_KEYS[] = {
    "issuer",      "audience",  "ca_file",      "algorithms", "user_claim",    "interface_claim",
    "agent_claim", "scope_map", "clock_skew_s", "cache_s",    "refetch_min_s", NULL};

static int known_key(const char *key)
{
    for (int i = 0; OIDC_KEYS[i]; i++)
        if (strcmp(OIDC_KEYS[i], key) == 0)
            return 1;
    return 0;
}

static int run_oidc_show(cli_args *a)
{
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    for (int i = 0; OIDC_KEYS[i]; i++) {
        char key[64];
        snprintf(key, sizeof key, "oidc.%s", OIDC_KEYS[i]);
        char *v = reg_setting_get(db, key);
        printf("%-20s %s\n", key, v ? cli_safe(v) : "(default)");
        free(v);
    }
    store_close(db);
    return CLI_OK;
}

static const cli_flag_spec db_only_flags[] = {DB_FLAG, {NULL, NULL, NULL}};

const cli_command cli_cmd_oidc_show = {
    "oidc show",
    "Print the single sign-on settings (oidc.*)",
    "[--db PATH]",
    NULL,
    0,
    0,
    db_only_flags,
    run_oidc_show,
};

/* The checks serve applies, for one value, before it is written. */
static int check_value(const char *key, const char *value, dbmcp_error *err)
{
    if (!*value)
        return 0;
    if (strcmp(key, "issuer") == 0 && strncmp(value, "https://", 8) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL, "oidc.issuer must be an https:// URL");
    if (strcmp(key, "scope_map") == 0)
        return mcp_oidc_scope_map_parse(value, NULL, NULL, err);
    if (strcmp(key, "algorithms") == 0) {
        char list[128];
        if (strlen(value) >= sizeof list)
            return dbmcp_error_set(err, DBMCP_EINVAL, "oidc.algorithms is too long");
        snprintf(list, sizeof list, "%s", value);
        for (char *s = NULL, *alg = strtok_r(list, ", ", &s); alg; alg = strtok_r(NULL, ", ", &s))
            if (!jose_alg_supported(alg))
                return dbmcp_error_set(err, DBMCP_EINVAL,
                                       "oidc.algorithms: %.20s is not one of " JOSE_ALGS_SUPPORTED
                                       " (none and HS* are never accepted)",
                                       alg);
    }
    if (strstr(key, "_s") == key + strlen(key) - 2) {
        char *end = NULL;
        long n = strtol(value, &end, 10);
        if (!end || *end || n < 0 || n > 86400)
            return dbmcp_error_set(err, DBMCP_EINVAL, "oidc.%s must be a number of seconds", key);
    }
    return 0;
}

static int run_oidc_set(cli_args *a)
{
    const char *key = a->argv[0], *value = a->argv[1];
    if (strncmp(key, "oidc.", 5) == 0)
        key += 5;
    if (!known_key(key))
        return cli_usage_error(a->cmd, "unknown setting '%s' (see `dbmcp help oidc set`)", key);
    dbmcp_error err;
    if (check_value(key, value, &err) != 0)
        return cli_fail(&err);
    store *db = cli_open_catalog(a);
    if (!db)
        return CLI_FAIL;
    char full[64];
    snprintf(full, sizeof full, "oidc.%s", key);
    int rc = *value ? reg_setting_put(db, full, value, &err) : reg_setting_delete(db, full, &err);
    store_close(db);
    if (rc)
        return cli_fail(&err);
    fprintf(stderr, "dbmcp: %s %s; a running `dbmcp serve --http` applies it on SIGHUP\n", full,
            *value ? "set" : "reset to its default");
    return CLI_OK;
}

const cli_command cli_cmd_oidc_set = {
    "oidc set",
    "Set one single sign-on setting (checked); an empty value resets it",
    "KEY VALUE [--db PATH]",
    "KEY is one of issuer, audience, ca_file, algorithms, user_claim, interface_claim,\n"
    "agent_claim, scope_map, clock_skew_s, cache_s, refetch_min_s (the oidc. prefix is\n"
    "optional). scope_map is 'SCOPE=INTERFACE[/AGENT] ...': the first scope the token\n"
    "carries picks the caller's interface (and so its tools) and agent. See\n"
    "docs/security.md, \"Single sign-on\".\n\n"
    "  dbmcp oidc set issuer https://login.example.com/realms/acme\n"
    "  dbmcp oidc set scope_map 'mcp:admin=default mcp:read=reports'\n",
    2,
    2,
    db_only_flags,
    run_oidc_set,
};

/* Read a token from path ("-": standard input), at most JOSE_MAX_TOKEN + 1
 * bytes, trailing white space cut. */
static int read_token(const char *path, char *out, size_t size, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f)
        return -1;
    *len = fread(out, 1, size - 1, f);
    if (f != stdin)
        fclose(f);
    while (*len > 0 && (out[*len - 1] == '\n' || out[*len - 1] == '\r' || out[*len - 1] == ' '))
        (*len)--;
    out[*len] = '\0';
    return 0;
}

static int check_token(cli_args *a, mcp_oidc *o)
{
    static char token[JOSE_MAX_TOKEN + 2];
    size_t len = 0;
    const char *path = cli_flag(a, "token-file");
    if (read_token(path, token, sizeof token, &len) != 0) {
        fprintf(stderr, "dbmcp oidc check: cannot read %s\n", path);
        return CLI_FAIL;
    }
    const char *resource = cli_flag(a, "resource");
    mcp_identity who;
    oidc_refusal why;
    dbmcp_error err;
    int rc = mcp_oidc_authenticate(o, token, len, resource ? resource : "", &who, &why, &err);
    memset(token, 0, sizeof token);
    if (rc) {
        fprintf(stderr, "dbmcp oidc check: token refused (%s): %s\n",
                why == OIDC_INSUFFICIENT_SCOPE ? "insufficient_scope" : "invalid_token",
                err.message);
        return CLI_FAIL;
    }
    printf("principal %s\ninterface %s\nagent %s\nsubject %s\ntoken id %s\n",
           cli_safe(who.principal), cli_safe(who.interface),
           who.agent_id[0] ? cli_safe(who.agent_id) : "(any)", cli_safe(who.subject),
           who.token_id[0] ? cli_safe(who.token_id) : "(none)");
    return CLI_OK;
}

static int run_oidc_check(cli_args *a)
{
    mcp_server *srv = NULL;
    int rc = cli_make_server(a, &srv);
    if (rc)
        return rc;
    mcp_oidc *o = mcp_oidc_create(srv);
    dbmcp_error err;
    size_t keys = 0;
    rc = !o ? dbmcp_error_set(&err, DBMCP_ENOMEM, "out of memory") : mcp_oidc_configure(o, &err);
    if (!rc)
        rc = mcp_oidc_refresh(o, &keys, &err);
    if (rc) {
        rc = cli_fail(&err);
    } else {
        char issuer[257], scopes[OIDC_SCOPE_MAP_MAX + 1];
        mcp_oidc_issuer(o, issuer, sizeof issuer);
        mcp_oidc_scopes(o, scopes, sizeof scopes);
        printf("issuer %s: %zu signing key(s); scopes %s\n", cli_safe(issuer), keys,
               scopes[0] ? scopes : "(none: oidc.interface_claim picks the interface)");
        rc = cli_flag(a, "token-file") ? check_token(a, o) : CLI_OK;
    }
    mcp_oidc_free(o);
    mcp_server_free(srv);
    return rc;
}

static const cli_flag_spec check_flags[] = {
    DB_FLAG,
    {"token-file", "FILE", "also verify the access token in FILE ('-': standard input)"},
    {"resource", "URL", "the audience to expect when oidc.audience is unset"},
    {NULL, NULL, NULL}};

const cli_command cli_cmd_oidc_check = {
    "oidc check",
    "Fetch the OIDC provider's discovery document and keys; optionally verify a token",
    "[--token-file FILE] [--resource URL] [--db PATH]",
    "Does what `dbmcp serve --http` does at start with the oidc.* settings and prints the\n"
    "number of signing keys. With --token-file, also verifies that token and prints the\n"
    "identity it maps to (the token itself is never printed). Exit 1 when anything fails.\n"
    "The CA file for the provider's certificate comes from oidc.ca_file or\n"
    "DBMCP_OIDC_CA_FILE.\n",
    0,
    0,
    check_flags,
    run_oidc_check,
};
