/*
 * introspect_pg.c — PostgreSQL's catalog reader behind introspect.h
 * (introspect_dialect.h): pg_class, pg_namespace, pg_attribute, pg_attrdef,
 * pg_constraint, pg_index and the comments of pg_description, read inside a
 * trusted window of the read-only query connection.
 *
 * What appears is what the connected role may read and nothing of dbmcp's
 * or the engine's own: tables (relkind r, p), views (v, m) and foreign
 * tables (f) on which the role holds SELECT, in schemas on which it holds
 * USAGE, except
 *   - the schemas pg_* (pg_catalog, pg_toast, temporary schemas),
 *     information_schema and dbmcp (where dbmcp keeps its own tables),
 *     and names beginning "dbmcp_" in any schema;
 *   - views that read any of those, directly or through other views (the
 *     dependencies of their rewrite rules, followed to the end), and views
 *     the guard of the handle refuses to read (store_guard_explain), as
 *     on SQLite;
 *   - partitions (their parent is listed: a partition belongs to it as
 *     SQLite's shadow tables belong to their virtual table);
 *   - objects that belong to an extension.
 * A foreign key whose referenced table is not listed is left out too.
 *
 * Names: a relation of schema public is listed by its bare name, any other
 * as "schema.name" (neither part quoted). Kinds: r and p are tables; v and
 * m (materialized views, defined by a query and read-only as views are)
 * are views; f (foreign tables, whose rows may cost a remote scan) are
 * virtual tables and, like SQLite's, never counted. Row estimates are
 * pg_class.reltuples where VACUUM or ANALYZE left one (-1 means never,
 * and the table is counted); matviews and foreign tables get it too when
 * there is one. The sql field stays NULL: PostgreSQL keeps no CREATE text.
 *
 * The other functions find a listed object by its oid (object_id), bound
 * as a parameter, and test again that the role may read it (the count,
 * which puts the name into SQL text, repeats the whole test). Identifiers
 * reach SQL text only in the count, quoted by the server (quote_ident)
 * from the catalog, never from a caller's input. Functions and catalogs are
 * schema-qualified so no object of the role's search_path can stand in
 * for them; statements avoid "::" casts so the driver's :name rewriting
 * cannot mistake one for a parameter.
 */
#include "store/introspect_dialect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- what may appear ------------------------------------------------------------ */

/* The statements are spliced from the fragments below; clang-format would
 * scatter them. */
/* clang-format off */

/* The name an object is listed by, for pg_class c in pg_namespace n. */
#define PG_LISTED_NAME(c, n) \
    "CASE WHEN " n ".nspname = 'public' THEN " c ".relname" \
    " ELSE " n ".nspname || '.' || " c ".relname END"

/* A schema whose relations never appear (see the file comment). */
#define PG_HIDDEN_SCHEMA(n) \
    "(" n ".nspname IN ('dbmcp', 'information_schema')" \
    " OR pg_catalog.left(" n ".nspname, 3) = 'pg_')"

/* A name of dbmcp's own tables. */
#define PG_INTERNAL_NAME(c) "pg_catalog.lower(pg_catalog.left(" c ".relname, 6)) = 'dbmcp_'"

/* Relation c in schema n may appear (all but the rule on views, which
 * needs the dependency walk of LIST_SQL). */
#define PG_SHOWN(c, n) \
    c ".relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT " c ".relispartition" \
    " AND NOT " PG_HIDDEN_SCHEMA(n) " AND NOT " PG_INTERNAL_NAME(c) \
    " AND pg_catalog.has_schema_privilege(" n ".oid, 'USAGE')" \
    " AND pg_catalog.has_table_privilege(" c ".oid, 'SELECT')" \
    " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend x" \
    " WHERE x.classid = CAST('pg_catalog.pg_class' AS pg_catalog.regclass)" \
    " AND x.objid = " c ".oid AND x.deptype = 'e')"

/* The connected role may read relation oid: the cheap repeat of the
 * visibility test in the statements on one listed object, which run once
 * per table in a search over the whole schema (PG_SHOWN's joins cost more
 * to plan than the statement costs to run). */
#define PG_MAY_READ(oid) "pg_catalog.has_table_privilege(" oid ", 'SELECT')"

/* oid, name, relkind, estimate (NULL when none), comment, quoted name.
 * hidden: the relations of hidden schemas and names, then every view whose
 * rewrite rule depends on one of them, until none is added. (pg_depend
 * records no reference to pg_catalog's own tables; the guard check of the
 * views is there for those.) */
static const char LIST_SQL[] =
    "WITH RECURSIVE hidden (oid) AS ("
    " SELECT c.oid FROM pg_catalog.pg_class c"
    " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
    " WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')"
    " AND (" PG_HIDDEN_SCHEMA("n") " OR " PG_INTERNAL_NAME("c") ")"
    " UNION"
    " SELECT r.ev_class FROM pg_catalog.pg_depend d"
    " JOIN hidden h ON h.oid = d.refobjid"
    " JOIN pg_catalog.pg_rewrite r ON r.oid = d.objid"
    " WHERE d.classid = CAST('pg_catalog.pg_rewrite' AS pg_catalog.regclass)"
    " AND d.refclassid = CAST('pg_catalog.pg_class' AS pg_catalog.regclass))"
    " SELECT CAST(c.oid AS bigint), " PG_LISTED_NAME("c", "n") ", CAST(c.relkind AS text),"
    " CASE WHEN c.relkind IN ('r', 'p', 'm', 'f') AND c.reltuples >= 0"
    " THEN CAST(c.reltuples AS bigint) END,"
    " pg_catalog.obj_description(c.oid, 'pg_class'),"
    " pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname)"
    " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
    " WHERE " PG_SHOWN("c", "n")
    " AND NOT EXISTS (SELECT 1 FROM hidden h WHERE h.oid = c.oid)";

/* The quoted name of listed relation :oid (the full test: the name goes
 * into SQL text). */
static const char SOURCE_SQL[] =
    "SELECT pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname)"
    " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
    " WHERE c.oid = CAST(:oid AS pg_catalog.oid) AND " PG_SHOWN("c", "n");

/* name, type, not null, default, position in the primary key (0 = none),
 * generated, comment; user columns only (attnum > 0), dropped ones left
 * out. A generated column's expression is not a default (SQLite shows
 * none either). */
static const char COLUMNS_SQL[] =
    "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),"
    " CAST(a.attnotnull AS integer),"
    " CASE WHEN a.attgenerated = '' THEN pg_catalog.pg_get_expr(d.adbin, d.adrelid) END,"
    " COALESCE(pg_catalog.array_position(k.conkey, a.attnum), 0),"
    " CAST(a.attgenerated <> '' AS integer),"
    " pg_catalog.col_description(a.attrelid, a.attnum)"
    " FROM pg_catalog.pg_attribute a"
    " LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
    " LEFT JOIN pg_catalog.pg_constraint k ON k.conrelid = a.attrelid AND k.contype = 'p'"
    " WHERE a.attrelid = CAST(:oid AS pg_catalog.oid) AND " PG_MAY_READ("a.attrelid")
    " AND a.attnum > 0 AND NOT a.attisdropped"
    " ORDER BY a.attnum";

/* The action of a foreign key's ON UPDATE / ON DELETE code, as SQLite
 * spells it. */
#define PG_FK_ACTION(code) \
    "CASE " code " WHEN 'a' THEN 'NO ACTION' WHEN 'r' THEN 'RESTRICT' WHEN 'c' THEN 'CASCADE'" \
    " WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' END"

/* constraint oid, column, referenced column, referenced table, on update,
 * on delete: one row per column pair, in key order. Only keys declared
 * on the table itself (conparentid 0: a key into a partitioned table is
 * repeated once per partition) and into tables that are listed. */
static const char FOREIGN_KEYS_SQL[] =
    "SELECT CAST(f.oid AS bigint), a.attname, ra.attname, " PG_LISTED_NAME("rc", "rn") ","
    " " PG_FK_ACTION("f.confupdtype") ", " PG_FK_ACTION("f.confdeltype")
    " FROM pg_catalog.pg_constraint f"
    " JOIN pg_catalog.pg_class rc ON rc.oid = f.confrelid"
    " JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace"
    " CROSS JOIN LATERAL ROWS FROM (pg_catalog.unnest(f.conkey), pg_catalog.unnest(f.confkey))"
    " WITH ORDINALITY AS k (attnum, ref_attnum, ord)"
    " JOIN pg_catalog.pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k.attnum"
    " JOIN pg_catalog.pg_attribute ra ON ra.attrelid = f.confrelid AND ra.attnum = k.ref_attnum"
    " WHERE f.conrelid = CAST(:oid AS pg_catalog.oid) AND " PG_MAY_READ("f.conrelid")
    " AND f.contype = 'f' AND f.conparentid = 0 AND " PG_SHOWN("rc", "rn")
    " ORDER BY f.conname, f.oid, k.ord";

/* index oid, name, unique, origin ('p' primary key, 'u' UNIQUE constraint,
 * 'i' otherwise), partial, column (NULL for an expression): one row per
 * key column in order (INCLUDE columns are not keys). Valid indexes only:
 * one a failed CREATE INDEX CONCURRENTLY left behind is never used. */
static const char INDEXES_SQL[] =
    "SELECT CAST(i.indexrelid AS bigint), ic.relname, CAST(i.indisunique AS integer),"
    " CASE WHEN i.indisprimary THEN 'p'"
    " WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_constraint u WHERE u.conindid = i.indexrelid"
    " AND u.conrelid = i.indrelid AND u.contype = 'u') THEN 'u' ELSE 'i' END,"
    " CAST(i.indpred IS NOT NULL AS integer), a.attname"
    " FROM pg_catalog.pg_index i"
    " JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid"
    " CROSS JOIN LATERAL pg_catalog.unnest(CAST(i.indkey AS pg_catalog.int2[]))"
    " WITH ORDINALITY AS k (attnum, ord)"
    " LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum"
    " AND k.attnum > 0"
    " WHERE i.indrelid = CAST(:oid AS pg_catalog.oid) AND " PG_MAY_READ("i.indrelid")
    " AND i.indisvalid AND k.ord <= i.indnkeyatts"
    " ORDER BY ic.relname, i.indexrelid, k.ord";

/* clang-format on */

/* --- listing --------------------------------------------------------------------- */

static introspect_kind kind_of(const char *relkind)
{
    if (relkind && (strcmp(relkind, "v") == 0 || strcmp(relkind, "m") == 0))
        return INTROSPECT_VIEW;
    if (relkind && strcmp(relkind, "f") == 0)
        return INTROSPECT_VIRTUAL;
    return INTROSPECT_TABLE;
}

/* Read LIST_SQL into *out; (*quoted)[i] is the quoted name of (*out)[i]
 * and *n_quoted counts the names (as many as *n, or one more after an
 * allocation failed). */
static int read_list(store *db, introspect_table **out, size_t *n, char ***quoted, size_t *n_quoted,
                     dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, LIST_SQL, &st, err);
    if (rc)
        return rc;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        const char *name = store_column_text(st, 1), *q = store_column_text(st, 5);
        if (!name || !q)
            continue;
        char **slot = introspect_grow((void **)quoted, n_quoted, sizeof *slot);
        introspect_table *t = slot ? introspect_grow((void **)out, n, sizeof *t) : NULL;
        if (t) {
            *slot = strdup(q);
            t->object_id = store_column_int(st, 0);
            t->name = strdup(name);
            t->kind = kind_of(store_column_text(st, 2));
            t->rows = -1;
            if (store_column_type(st, 3) != STORE_NULL) {
                t->rows = store_column_int(st, 3);
                t->rows_source = INTROSPECT_ROWS_STAT;
            }
            t->comment = introspect_strdup_or_null(store_column_text(st, 4));
        }
        if (!t || !*slot || !t->name) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* Views the guard of the handle would refuse to agent SQL are dropped, as
 * SQLite's reader drops them: asked with a plain read of each view,
 * outside the trusted window. On an allocation failure the rest are kept
 * and the list stays whole for the caller to free. */
static int drop_guarded_views(store *db, introspect_table *v, size_t *n, char **quoted,
                              dbmcp_error *err)
{
    size_t kept = 0;
    int rc = 0;
    for (size_t i = 0; i < *n; i++) {
        int refused = 0;
        char *sql, reason[256];
        if (!rc && v[i].kind == INTROSPECT_VIEW) {
            if (asprintf(&sql, "SELECT 1 FROM %s", quoted[i]) < 0) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            } else {
                refused = store_guard_explain(db, sql, reason, sizeof reason) == 1;
                free(sql);
            }
        }
        if (refused)
            introspect_table_free(&v[i]);
        else
            v[kept++] = v[i];
    }
    *n = kept;
    return rc;
}

static int pg_list(store *db, introspect_table **out, size_t *n, dbmcp_error *err)
{
    char **quoted = NULL;
    size_t n_quoted = 0;
    store_trusted_begin(db);
    int rc = read_list(db, out, n, &quoted, &n_quoted, err);
    store_trusted_end(db);
    if (!rc)
        rc = drop_guarded_views(db, *out, n, quoted, err);
    for (size_t i = 0; i < n_quoted; i++)
        free(quoted[i]);
    free(quoted);
    return rc;
}

/* Prepare sql and bind t's oid to :oid. */
static int prepare_for(store *db, const char *sql, const introspect_table *t, store_stmt **st,
                       dbmcp_error *err)
{
    int rc = store_prepare(db, sql, st, err);
    if (!rc)
        store_bind_int(*st, ":oid", t->object_id);
    return rc;
}

static int pg_count_source(store *db, const introspect_table *t, char **out, dbmcp_error *err)
{
    *out = NULL;
    store_stmt *st;
    store_trusted_begin(db);
    int rc = prepare_for(db, SOURCE_SQL, t, &st, err);
    if (!rc) {
        rc = store_step(st, err);
        if (rc == STORE_ROW && store_column_text(st, 0)) {
            *out = strdup(store_column_text(st, 0));
            rc = *out ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        } else if (rc >= 0) {
            rc = dbmcp_error_set(err, DBMCP_ENOTFOUND, "no table named %.200s", t->name);
        }
        store_finalize(st);
    }
    store_trusted_end(db);
    return rc;
}

/* --- columns, keys, indexes ----------------------------------------------------- */

static int read_columns(store *db, const introspect_table *t, introspect_column **out, size_t *n,
                        dbmcp_error *err)
{
    store_stmt *st;
    int rc = prepare_for(db, COLUMNS_SQL, t, &st, err);
    if (rc)
        return rc;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        introspect_column *c = introspect_grow((void **)out, n, sizeof *c);
        if (!c) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
        c->name = introspect_strdup_or_null(store_column_text(st, 0));
        c->type = strdup(store_column_text(st, 1) ? store_column_text(st, 1) : "");
        c->not_null = store_column_int(st, 2) != 0;
        c->default_sql = introspect_strdup_or_null(store_column_text(st, 3));
        c->pk = (int)store_column_int(st, 4);
        c->generated = store_column_int(st, 5) != 0;
        c->comment = introspect_strdup_or_null(store_column_text(st, 6));
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

static int pg_columns(store *db, const introspect_table *t, introspect_column **out, size_t *n,
                      dbmcp_error *err)
{
    store_trusted_begin(db);
    int rc = read_columns(db, t, out, n, err);
    store_trusted_end(db);
    return rc;
}

static int read_foreign_keys(store *db, introspect_detail *d, dbmcp_error *err)
{
    store_stmt *st;
    int rc = prepare_for(db, FOREIGN_KEYS_SQL, &d->table, &st, err);
    if (rc)
        return rc;
    int64_t last_id = 0;
    introspect_foreign_key *fk = NULL;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (!fk || store_column_int(st, 0) != last_id) {
            fk = introspect_grow((void **)&d->foreign_keys, &d->n_foreign_keys, sizeof *fk);
            if (!fk) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                break;
            }
            last_id = store_column_int(st, 0);
            fk->ref_table = introspect_strdup_or_null(store_column_text(st, 3));
            fk->on_update = introspect_strdup_or_null(store_column_text(st, 4));
            fk->on_delete = introspect_strdup_or_null(store_column_text(st, 5));
        }
        introspect_names_add(&fk->columns, store_column_text(st, 1));
        introspect_names_add(&fk->ref_columns, store_column_text(st, 2));
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

static const char *index_origin(const char *code)
{
    if (code && strcmp(code, "p") == 0)
        return "primary key";
    if (code && strcmp(code, "u") == 0)
        return "unique";
    return "index";
}

static int read_indexes(store *db, introspect_detail *d, dbmcp_error *err)
{
    store_stmt *st;
    int rc = prepare_for(db, INDEXES_SQL, &d->table, &st, err);
    if (rc)
        return rc;
    int64_t last_id = 0;
    introspect_index *ix = NULL;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (!ix || store_column_int(st, 0) != last_id) {
            ix = introspect_grow((void **)&d->indexes, &d->n_indexes, sizeof *ix);
            if (!ix) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                break;
            }
            last_id = store_column_int(st, 0);
            ix->name = strdup(store_column_text(st, 1) ? store_column_text(st, 1) : "");
            ix->unique = store_column_int(st, 2) != 0;
            ix->origin = index_origin(store_column_text(st, 3));
            ix->partial = store_column_int(st, 4) != 0;
        }
        introspect_names_add(&ix->columns,
                             store_column_text(st, 5) ? store_column_text(st, 5) : "(expression)");
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* Foreign keys of tables; indexes of tables and materialized views (a
 * plain view has none). */
static int pg_keys(store *db, introspect_detail *d, dbmcp_error *err)
{
    store_trusted_begin(db);
    int rc = read_foreign_keys(db, d, err);
    if (!rc)
        rc = read_indexes(db, d, err);
    store_trusted_end(db);
    return rc;
}

const introspect_dialect introspect_pg_dialect = {
    .name = "postgres",
    .default_schema = "public",
    .is_internal = introspect_is_internal_name,
    .list = pg_list,
    .count_source = pg_count_source,
    .columns = pg_columns,
    .keys = pg_keys,
};
