/*
 * introspect.c — schema discovery (see introspect.h), the part every
 * engine shares: the handle check, the choice of catalog reader by
 * store_dialect(db) (introspect_dialect.h), the order of the list, the
 * resolution of a caller's name against it, the capped row count, the
 * keys left out because they name dbmcp's own tables, and the free
 * functions. The catalog SQL of each engine lives in introspect_sqlite.c
 * and introspect_pg.c.
 *
 * A caller's name never reaches SQL text: introspect_describe resolves it
 * against the list first, and the count reads the quoted name its reader
 * gives for the listed object.
 */
#include "store/introspect.h"
#include "store/introspect_dialect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- helpers shared with the readers ------------------------------------------ */

int introspect_is_internal_name(const char *name)
{
    return strncasecmp(name, "dbmcp_", 6) == 0;
}

char *introspect_strdup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void introspect_names_add(introspect_names *names, const char *s)
{
    char **grown = realloc(names->v, (names->n + 1) * sizeof *grown);
    if (!grown)
        return;
    names->v = grown;
    names->v[names->n++] = strdup(s ? s : "");
}

void *introspect_grow(void **arr, size_t *n, size_t elem_size)
{
    char *grown = realloc(*arr, (*n + 1) * elem_size);
    if (!grown)
        return NULL;
    *arr = grown;
    memset(grown + *n * elem_size, 0, elem_size);
    return grown + (*n)++ * elem_size;
}

static void names_free(introspect_names *names)
{
    for (size_t i = 0; i < names->n; i++)
        free(names->v[i]);
    free(names->v);
    memset(names, 0, sizeof *names);
}

/* --- free ------------------------------------------------------------------------ */

const char *introspect_kind_label(introspect_kind kind)
{
    switch (kind) {
    case INTROSPECT_TABLE: return "table";
    case INTROSPECT_VIEW: return "view";
    case INTROSPECT_VIRTUAL: return "virtual table";
    }
    return "table";
}

void introspect_table_free(introspect_table *t)
{
    if (!t)
        return;
    free(t->name);
    free(t->comment);
    free(t->sql);
    free(t->schema);
    memset(t, 0, sizeof *t);
}

void introspect_table_array_free(introspect_table *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        introspect_table_free(&v[i]);
    free(v);
}

void introspect_column_array_free(introspect_column *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].type);
        free(v[i].default_sql);
        free(v[i].comment);
    }
    free(v);
}

static void foreign_key_free(introspect_foreign_key *fk)
{
    names_free(&fk->columns);
    names_free(&fk->ref_columns);
    free(fk->ref_table);
    free(fk->on_update);
    free(fk->on_delete);
    memset(fk, 0, sizeof *fk);
}

void introspect_detail_free(introspect_detail *d)
{
    if (!d)
        return;
    introspect_table_free(&d->table);
    introspect_column_array_free(d->columns, d->n_columns);
    for (size_t i = 0; i < d->n_foreign_keys; i++)
        foreign_key_free(&d->foreign_keys[i]);
    free(d->foreign_keys);
    for (size_t i = 0; i < d->n_indexes; i++) {
        free(d->indexes[i].name);
        names_free(&d->indexes[i].columns);
    }
    free(d->indexes);
    memset(d, 0, sizeof *d);
}

/* --- the reader of a handle ------------------------------------------------------- */

static const introspect_dialect *dialect_of(store *db)
{
    return strcmp(store_dialect(db), introspect_pg_dialect.name) == 0 ? &introspect_pg_dialect
                                                                      : &introspect_sqlite_dialect;
}

static int check_handle(store *db, dbmcp_error *err)
{
    if (!db || !store_is_readonly(db))
        return dbmcp_error_set_private(err, DBMCP_EINTERNAL, "the schema could not be read",
                                       "introspection needs the read-only query connection");
    return 0;
}

/* --- listing --------------------------------------------------------------------- */

/* Byte order, as SQLite's BINARY collation and PostgreSQL's "C" sort. */
static int compare_table(const void *a, const void *b)
{
    return strcmp(((const introspect_table *)a)->name, ((const introspect_table *)b)->name);
}

int introspect_list(store *db, introspect_table **out, size_t *n, dbmcp_error *err)
{
    *out = NULL;
    *n = 0;
    int rc = check_handle(db, err);
    if (rc)
        return rc;
    rc = dialect_of(db)->list(db, out, n, err);
    if (rc) {
        introspect_table_array_free(*out, *n);
        *out = NULL;
        *n = 0;
        return rc;
    }
    if (*n > 1)
        qsort(*out, *n, sizeof **out, compare_table);
    return 0;
}

/* The one listed object name names, or NULL: the exact name first, then
 * without the default schema's prefix, then an ASCII case-insensitive
 * match when exactly one object has it (SQLite resolves names that way;
 * on PostgreSQL "Sales" and "sales" may both exist, and then only the
 * exact spelling finds one), then the bare name of one table of an
 * attached SQLite database. */
static introspect_table *find_listed(introspect_table *v, size_t n, const char *name,
                                     const char *default_schema)
{
    const char *bare = NULL;
    size_t schema_len = default_schema ? strlen(default_schema) : 0;
    if (schema_len && strncasecmp(name, default_schema, schema_len) == 0 &&
        name[schema_len] == '.' && name[schema_len + 1])
        bare = name + schema_len + 1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    for (size_t i = 0; bare && i < n; i++)
        if (strcmp(v[i].name, bare) == 0)
            return &v[i];
    const char *forms[] = {name, bare};
    for (size_t f = 0; f < 2 && forms[f]; f++) {
        introspect_table *found = NULL;
        size_t matches = 0;
        for (size_t i = 0; i < n; i++)
            if (strcasecmp(v[i].name, forms[f]) == 0) {
                found = &v[i];
                matches++;
            }
        if (matches == 1)
            return found;
    }
    /* SQLite: a table of one attached database by its bare name, when no
     * other database has one of that name (as the engine resolves it). */
    introspect_table *found = NULL;
    size_t matches = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].schema && strcasecmp(v[i].name + strlen(v[i].schema) + 1, name) == 0) {
            found = &v[i];
            matches++;
        }
    return matches == 1 ? found : NULL;
}

int introspect_count_rows(store *db, introspect_table *t, int64_t cap, dbmcp_error *err)
{
    if (t->kind != INTROSPECT_TABLE || t->rows_source == INTROSPECT_ROWS_STAT)
        return 0;
    if (cap < 0)
        cap = INTROSPECT_COUNT_CAP;
    char *source = NULL, *sql = NULL;
    int rc = dialect_of(db)->count_source(db, t, &source, err);
    if (rc)
        return rc;
    /* Counted inside the engine: one row comes back, however many are read. */
    if (asprintf(&sql, "SELECT count(*) FROM (SELECT 1 FROM %s LIMIT :limit) AS counted", source) <
        0)
        sql = NULL;
    free(source);
    if (!sql)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    store_stmt *st;
    rc = store_prepare(db, sql, &st, err);
    free(sql);
    if (rc)
        return rc;
    store_bind_int(st, ":limit", cap + 1);
    rc = store_step(st, err);
    int64_t rows = rc == STORE_ROW ? store_column_int(st, 0) : 0;
    store_finalize(st);
    if (rc < 0)
        return rc;
    t->rows = rows > cap ? cap : rows;
    t->rows_source = rows > cap ? INTROSPECT_ROWS_AT_LEAST : INTROSPECT_ROWS_EXACT;
    return 0;
}

/* --- columns, keys, indexes ----------------------------------------------------- */

int introspect_columns(store *db, const introspect_table *t, introspect_column **out, size_t *n,
                       dbmcp_error *err)
{
    *out = NULL;
    *n = 0;
    int rc = check_handle(db, err);
    if (rc)
        return rc;
    rc = dialect_of(db)->columns(db, t, out, n, err);
    if (rc) {
        introspect_column_array_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* A key into dbmcp's own tables would name one: leave it out. */
static void drop_internal_foreign_keys(const introspect_dialect *dialect, introspect_detail *d)
{
    size_t kept = 0;
    for (size_t i = 0; i < d->n_foreign_keys; i++) {
        if (d->foreign_keys[i].ref_table && dialect->is_internal(d->foreign_keys[i].ref_table))
            foreign_key_free(&d->foreign_keys[i]);
        else
            d->foreign_keys[kept++] = d->foreign_keys[i];
    }
    d->n_foreign_keys = kept;
}

static int compare_index(const void *a, const void *b)
{
    return strcmp(((const introspect_index *)a)->name, ((const introspect_index *)b)->name);
}

int introspect_describe(store *db, const char *name, introspect_detail *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    const introspect_dialect *dialect = NULL;
    introspect_table *v = NULL;
    size_t n = 0;
    int rc = introspect_list(db, &v, &n, err);
    if (rc)
        return rc;
    dialect = dialect_of(db);
    introspect_table *t = name ? find_listed(v, n, name, dialect->default_schema) : NULL;
    if (!t) {
        introspect_table_array_free(v, n);
        return dbmcp_error_set(err, DBMCP_ENOTFOUND, "no table named %.200s", name ? name : "");
    }
    out->table = *t;
    memset(t, 0, sizeof *t);
    introspect_table_array_free(v, n);
    rc = introspect_columns(db, &out->table, &out->columns, &out->n_columns, err);
    if (rc == DBMCP_EDENIED && out->table.kind == INTROSPECT_VIEW) {
        out->columns_denied = 1;
        rc = 0;
    }
    if (!rc && !out->columns_denied)
        rc = dialect->keys(db, out, err);
    if (rc) {
        introspect_detail_free(out);
        return rc;
    }
    drop_internal_foreign_keys(dialect, out);
    if (out->n_indexes > 1)
        qsort(out->indexes, out->n_indexes, sizeof *out->indexes, compare_index);
    return 0;
}
