/*
 * pg_login.h — how the query connection logs in on PostgreSQL: its URI,
 * derived from the catalog connection's, and the hashed password `dbmcp
 * init` gives the query role. Both are read and made by libpq
 * (PQconninfoParse, PQencryptPasswordConn), so every URI form libpq
 * accepts works (host and port in the authority or as parameters, a
 * socket directory as host=/dir, several hosts, sslmode, options, a
 * service name) and no password is hashed by dbmcp's own code.
 *
 * Private to store/ and the CLI (init, and the commands that serve).
 * Ownership: the strings returned through *out are malloc'd; the caller
 * frees them. They hold passwords: never print or log them.
 */
#ifndef DBMCP_STORE_PG_LOGIN_H
#define DBMCP_STORE_PG_LOGIN_H

#include "core/error.h"

/* The query connection's URI: url (a postgres:// or postgresql:// URI)
 * with its user replaced by role and its password by password, every
 * other parameter kept. password NULL or "" leaves the password out, so
 * libpq looks for it where it always does (PGPASSWORD, PGPASSFILE or
 * ~/.pgpass). Written as postgresql://?key=value&…, every value
 * percent-encoded. DBMCP_EINVAL when libpq cannot read url (the message
 * repeats libpq's reason, never the URI). */
int pg_login_query_url(const char *url, const char *role, const char *password, char **out,
                       dbmcp_error *err);

/* The SCRAM-SHA-256 verifier of password for role, computed by libpq
 * (PQencryptPasswordConn) on a connection to the server of url, which is
 * closed again: what ALTER ROLE … PASSWORD is given instead of the clear
 * text, so the password reaches neither the server's log nor
 * pg_stat_activity. DBMCP_EIO when the server cannot be reached. */
int pg_login_password_verifier(const char *url, const char *role, const char *password, char **out,
                               dbmcp_error *err);

#endif
