/*
 * migrate.h — versioned schema migrations and seed data sets.
 *
 * Migrations are numbered SQL files per dialect (store/schema/<dialect>/),
 * embedded in the binary. Each applies in its own transaction and records
 * itself in dbmcp_schema_migrations, so a failed migration leaves the
 * database at the previous version. A database whose version is newer than
 * the binary is refused: an old binary must not write a newer schema.
 */
#ifndef DBMCP_STORE_MIGRATE_H
#define DBMCP_STORE_MIGRATE_H

#include <stdint.h>

#include "store/store.h"

/* The schema version this binary writes. */
int store_schema_latest(void);
/* The database's schema version (0 for an empty database). */
int store_schema_version(store *db, int *out, dbmcp_error *err);
/* Apply every pending migration; *applied gets how many ran (may be NULL).
 * A database newer than the binary fails with DBMCP_EVERSION. */
int store_migrate(store *db, int *applied, dbmcp_error *err);
/* For commands that need an initialised catalog: 0 when the schema is
 * current; DBMCP_EVERSION with a message saying to run `dbmcp init` (older
 * or empty) or to upgrade dbmcp (newer). */
int store_schema_check(store *db, dbmcp_error *err);
/* What the existing SQLite file at path holds, read on a read-only handle
 * that writes nothing (its journal mode stays): *is_catalog 1 when it
 * holds dbmcp's tables; *n_user the number of the other tables and views,
 * the first three of them by name, comma-separated, in names (size
 * bytes). All
 * zero for a file that does not exist or is empty. For `dbmcp init`,
 * which must not write into a user's database unless told. */
int store_survey_file(const char *path, int *is_catalog, size_t *n_user, char *names, size_t size,
                      dbmcp_error *err);
/* Load a named seed data set ("base", "demo", "conformance") in one
 * transaction. Seeds are not idempotent: `dbmcp init` loads base and
 * conformance only into a new database, and demo only once. */
int store_seed(store *db, const char *name, dbmcp_error *err);

#endif
