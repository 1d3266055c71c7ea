/*
 * pg_setup.c — the PostgreSQL half of `dbmcp init` and of the commands
 * that serve: the query role init creates and grants, and the URI the
 * query connection logs in with.
 *
 * init, before it writes anything, finds out whether its user may create
 * roles. A user who may not, on a server where the query role does not
 * exist yet, gets the statements that create it (pg_guard_role_script_parts)
 * on stdout and exit 1 with the database untouched; once someone ran them,
 * init goes on and gives the grants its user owns. After the migrations
 * (and the demo), init applies the role (pg_guard_role_apply) with exactly
 * the reads the operator asked for: --query-schemas, and with --demo the
 * demo's four tables. The password: DBMCP_QUERY_PASSWORD when set, else a
 * generated one for a role init creates, printed once on stderr; a role
 * that exists keeps its password. It reaches the server only as a
 * SCRAM-SHA-256 verifier made by libpq (store/pg_login.h).
 *
 * The query URI: --query-db or DBMCP_QUERY_DB when given (any libpq URI: a
 * hot-standby replica, PgBouncer); else the --db URI with its user replaced
 * by the query role (DBMCP_QUERY_ROLE or dbmcp_query) and its password by
 * DBMCP_QUERY_PASSWORD. SQLite: the same file. Neither URI is ever printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/ids.h"
#include "store/pg_guard.h"
#include "store/pg_login.h"

#define QUERY_SCHEMAS_MAX 16  /* --query-schemas entries */
#define QUERY_PASSWORD_LEN 32 /* characters of a generated password ([a-z0-9]) */

/* The demo's user tables (seed/postgres/demo.sql): what `init --demo`
 * lets the query role read, and nothing more. */
static const char *const demo_tables[] = {"public.regions", "public.products", "public.sales",
                                          "public.tarif_agreements", NULL};
static const char *const no_schemas[] = {NULL};

const char *cli_query_role(const cli_args *a)
{
    const char *role = cli_flag(a, "query-role");
    if (!role)
        role = getenv("DBMCP_QUERY_ROLE");
    return role && *role ? role : PG_GUARD_ROLE_DEFAULT;
}

int cli_query_db_url(const cli_args *a, char **out, dbmcp_error *err)
{
    *out = NULL;
    const char *db_url = cli_db_url(a);
    const char *given = cli_flag(a, "query-db");
    if (!given)
        given = getenv("DBMCP_QUERY_DB");
    if (given && *given) {
        if (store_url_is_postgres(given) != store_url_is_postgres(db_url))
            return dbmcp_error_set(err, DBMCP_EINVAL,
                                   "the query connection (--query-db, DBMCP_QUERY_DB) must be on "
                                   "the same engine as --db");
        *out = strdup(given);
        return *out ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    if (!store_url_is_postgres(db_url))
        return 0; /* SQLite: the same file, behind its own guard */
    return pg_login_query_url(db_url, cli_query_role(a), getenv("DBMCP_QUERY_PASSWORD"), out, err);
}

/* --- init ------------------------------------------------------------------------- */

/* --query-schemas "a,b" into st->schemas (pointers into st->schema_text). */
static int parse_schemas(const cli_args *a, cli_pg_init *st, dbmcp_error *err)
{
    st->schemas[0] = NULL;
    const char *list = cli_flag(a, "query-schemas");
    if (!list)
        return 0;
    snprintf(st->schema_text, sizeof st->schema_text, "%s", list);
    if (strlen(list) >= sizeof st->schema_text)
        return dbmcp_error_set(err, DBMCP_EINVAL, "--query-schemas is too long");
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(st->schema_text, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
        if (n == QUERY_SCHEMAS_MAX)
            return dbmcp_error_set(err, DBMCP_EINVAL, "--query-schemas names more than %d schemas",
                                   QUERY_SCHEMAS_MAX);
        st->schemas[n++] = tok;
    }
    st->schemas[n] = NULL;
    return 0;
}

/* The role as init applies or prints it. */
static pg_guard_role role_of(const cli_pg_init *st, int demo)
{
    pg_guard_role r = {0};
    r.role = st->role;
    r.database = st->database;
    r.data_schemas = st->schemas[0] ? (const char *const *)st->schemas : no_schemas;
    r.data_tables = demo ? demo_tables : NULL;
    return r;
}

static int current_database(store *db, char *out, size_t size, dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = store_prepare(db, "SELECT current_database()", &st, err);
    if (!rc && (rc = store_step(st, err)) == STORE_ROW) {
        const char *name = store_column_text(st, 0);
        snprintf(out, size, "%s", name ? name : "");
        rc = 0;
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

int cli_pg_init_prepare(const cli_args *a, store *db, cli_pg_init *st)
{
    memset(st, 0, sizeof *st);
    dbmcp_error err;
    snprintf(st->role, sizeof st->role, "%s", cli_query_role(a));
    int rc = parse_schemas(a, st, &err);
    if (rc)
        return cli_usage_error(a->cmd, "%s", err.message);
    rc = pg_guard_role_rights(db, &st->can_create, &st->superuser, &err);
    if (!rc)
        rc = pg_guard_role_exists(db, st->role, &st->existed, &err);
    if (!rc)
        rc = current_database(db, st->database, sizeof st->database, &err);
    if (rc)
        return cli_fail(&err);
    pg_guard_role r = role_of(st, 0);
    char *check = pg_guard_role_script(&r); /* refuses bad names before anything is written */
    if (!check)
        return cli_usage_error(a->cmd,
                               "the query role and --query-schemas must be plain lower-case names "
                               "(letters, digits, '_'; at most 63 bytes)");
    free(check);
    if (st->can_create || st->existed)
        return CLI_OK;
    char *script = pg_guard_role_script_parts(&r, PG_GUARD_PART_ROLE | PG_GUARD_PART_SUPERUSER);
    if (script)
        fputs(script, stdout);
    free(script);
    fprintf(stderr,
            "dbmcp init: nothing was changed. The query role %s does not exist and the user of "
            "--db may not create roles (it lacks CREATEROLE). Run the statements above as a "
            "superuser (or, but for the part marked for a superuser, as a role with CREATEROLE), "
            "e.g. `dbmcp init%s > role.sql` and then role.sql with psql, set the role's password "
            "with psql's \\password, then run dbmcp init again: it grants the rest.\n",
            st->role, cli_hint_db());
    return CLI_FAIL;
}

/* The password to give the role: *verifier (malloc'd, or NULL: leave it),
 * *generated (malloc'd clear text to show once, or NULL). */
static int choose_password(const char *url, const cli_pg_init *st, char **verifier,
                           char **generated, dbmcp_error *err)
{
    *verifier = *generated = NULL;
    const char *given = getenv("DBMCP_QUERY_PASSWORD");
    if (!st->can_create)
        return 0; /* the role is someone else's; a given password is only used to log in */
    if (!(given && *given) && st->existed)
        return 0;
    const char *password = given;
    if (!(given && *given)) {
        if (!(*generated = malloc(QUERY_PASSWORD_LEN + 1)))
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        ids_token(*generated, QUERY_PASSWORD_LEN);
        password = *generated;
    }
    int rc = pg_login_password_verifier(url, st->role, password, verifier, err);
    if (rc) {
        free(*generated);
        *generated = NULL;
    }
    return rc;
}

/* What the role may read now, for the summary line. */
static void describe_reads(const cli_pg_init *st, int demo, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; st->schemas[i] && n < size; i++)
        n += (size_t)snprintf(out + n, size - n, "%sschema %s", n ? ", " : "", st->schemas[i]);
    for (int i = 0; demo && demo_tables[i] && n < size; i++)
        n += (size_t)snprintf(out + n, size - n, "%s%s", n ? ", " : "", demo_tables[i]);
    if (!out[0])
        snprintf(out, size,
                 "nothing yet (grant it what agents may read: GRANT SELECT ON "
                 "schema.table TO %s, or init --query-schemas)",
                 st->role);
}

int cli_pg_init_finish(const cli_args *a, store *db, const char *url, const cli_pg_init *st,
                       int demo)
{
    (void)a;
    dbmcp_error err;
    char *verifier = NULL, *generated = NULL, *pending = NULL;
    int rc = choose_password(url, st, &verifier, &generated, &err);
    pg_guard_role r = role_of(st, demo);
    if (!rc)
        rc = pg_guard_role_apply(db, &r, verifier, &pending, &err);
    free(verifier);
    if (rc) {
        free(generated);
        dbmcp_error_prefix(&err, "the query role");
        return cli_fail(&err);
    }
    char reads[512];
    describe_reads(st, demo, reads, sizeof reads);
    fprintf(stderr, "dbmcp: query role %s %s; it %s %s\n", st->role,
            !st->existed     ? "created"
            : st->can_create ? "brought in line"
                             : "exists (its attributes and password left as they are: the user "
                               "of --db may not alter roles)",
            pending ? "is to read (once the statements below ran)" : "reads", reads);
    const char *given = getenv("DBMCP_QUERY_PASSWORD");
    if (generated) {
        fprintf(stderr,
                "dbmcp: the query role's password, shown this once (it is stored nowhere):\n"
                "  DBMCP_QUERY_PASSWORD=%s\n"
                "dbmcp: give it to every `dbmcp serve` on this database as the environment "
                "variable DBMCP_QUERY_PASSWORD (from a secret store or a file only its user "
                "reads), or as a line of that user's ~/.pgpass: HOST:PORT:DATABASE:%s:PASSWORD. "
                "Lost? Set a new one: DBMCP_QUERY_PASSWORD=… dbmcp init --db URI\n",
                generated, st->role);
    } else if (given && *given && !st->can_create) {
        fprintf(stderr, "dbmcp: DBMCP_QUERY_PASSWORD was not applied (the user of --db may not "
                        "alter roles); serve logs in with it, so it must be the role's password\n");
    } else if (!(given && *given) && st->existed) {
        fprintf(stderr, "dbmcp: the query role's password was left as it is (set "
                        "DBMCP_QUERY_PASSWORD to change it)\n");
    }
    free(generated);
    if (pending) {
        fputs(pending, stdout);
        fprintf(stderr,
                "dbmcp: the statements above were not run: the user of --db may not (a superuser "
                "or the owner of what they grant may). Until they are, serve warns about what "
                "they set, or reads less.\n");
        free(pending);
    }
    return CLI_OK;
}
