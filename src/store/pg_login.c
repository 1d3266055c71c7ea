/*
 * pg_login.c — the query connection's URI and the query role's password
 * verifier, both through libpq (see pg_login.h).
 *
 * The URI is rebuilt from what PQconninfoParse read rather than edited as
 * text: the user and password may sit in the authority (user:pw@host) or
 * in the parameters (?user=…), percent-encoded or not, and a parameter
 * given twice counts once. Every parameter becomes a query parameter of
 * an empty authority (postgresql://?host=/run/postgresql&dbname=…), which
 * libpq reads like any other URI.
 */
#include "store/pg_login.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append key=value (value percent-encoded) to f, '?' before the first. */
static void put_param(FILE *f, int *first, const char *key, const char *value)
{
    fputc(*first ? '?' : '&', f);
    *first = 0;
    fprintf(f, "%s=", key);
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '_' || *p == '~';
        if (plain)
            fputc(*p, f);
        else
            fprintf(f, "%%%02X", *p);
    }
}

int pg_login_query_url(const char *url, const char *role, const char *password, char **out,
                       dbmcp_error *err)
{
    *out = NULL;
    if (!role || !*role)
        return dbmcp_error_set(err, DBMCP_EINVAL, "the query connection needs a role name");
    char *why = NULL;
    PQconninfoOption *opts = PQconninfoParse(url, &why);
    if (!opts) {
        /* libpq's reason may quote the URI, password and all: not shown. */
        PQfreemem(why);
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "the database URI cannot be read as a PostgreSQL connection URI");
    }
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) {
        PQconninfoFree(opts);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    fputs("postgresql://", f);
    int first = 1;
    for (const PQconninfoOption *o = opts; o->keyword; o++) {
        if (!o->val || strcmp(o->keyword, "user") == 0 || strcmp(o->keyword, "password") == 0)
            continue;
        put_param(f, &first, o->keyword, o->val);
    }
    put_param(f, &first, "user", role);
    if (password && *password)
        put_param(f, &first, "password", password);
    PQconninfoFree(opts);
    if (fclose(f) != 0 || !text) {
        free(text);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    *out = text;
    return 0;
}

int pg_login_password_verifier(const char *url, const char *role, const char *password, char **out,
                               dbmcp_error *err)
{
    *out = NULL;
    PGconn *conn = PQconnectdb(url);
    if (PQstatus(conn) != CONNECTION_OK) {
        PQfinish(conn);
        return dbmcp_error_set(err, DBMCP_EIO, "cannot connect to hash the query role's password");
    }
    /* The algorithm named, not asked of the server: a server still set to
     * md5 would otherwise get an md5 hash. */
    char *hashed = PQencryptPasswordConn(conn, password, role, "scram-sha-256");
    int rc = 0;
    if (!hashed || !(*out = strdup(hashed)))
        rc = dbmcp_error_set(err, hashed ? DBMCP_ENOMEM : DBMCP_ESTORE,
                             "cannot hash the query role's password: %s",
                             hashed ? "out of memory" : PQerrorMessage(conn));
    if (hashed) {
        explicit_bzero(hashed, strlen(hashed));
        PQfreemem(hashed);
    }
    PQfinish(conn);
    return rc;
}
