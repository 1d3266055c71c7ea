/*
 * introspect_sqlite.c — SQLite's catalog reader behind introspect.h
 * (introspect_dialect.h): reads sqlite_master, sqlite_stat1 and the
 * table_xinfo, foreign_key_list, index_list and index_info pragmas inside a
 * trusted window of the read-only query connection, and recovers table and
 * column comments from the CREATE statement text with a small tokenizer
 * (strings, quoted identifiers and parentheses are respected, so a `--`
 * inside a string or a CHECK expression is never taken for a comment).
 *
 * Each database of the handle is read: main, then every attached one
 * (PRAGMA database_list; attachments.h), whose objects are listed as
 * "schema.name" and read through "schema".sqlite_master and
 * PRAGMA "schema".table_xinfo(…) and the like.
 *
 * Names reach SQL text only as double-quoted identifiers of objects just
 * read from sqlite_master (quotes doubled), never as raw caller input:
 * introspect_describe (introspect.c) resolves the caller's name against the
 * list first.
 */
#include "store/introspect_dialect.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- small helpers ---------------------------------------------------------- */

/* Objects agents never see: dbmcp's own tables and SQLite's. */
static int is_internal(const char *name)
{
    return introspect_is_internal_name(name) || strncasecmp(name, "sqlite_", 7) == 0;
}

/* Append piece (len bytes) to *dst, separated by a space. */
static void append_text(char **dst, const char *piece, size_t len)
{
    size_t old = *dst ? strlen(*dst) : 0;
    char *grown = realloc(*dst, old + len + 2);
    if (!grown)
        return;
    if (old)
        grown[old++] = ' ';
    memcpy(grown + old, piece, len);
    grown[old + len] = '\0';
    *dst = grown;
}

/* Prepare sql (built from a name, may be NULL when allocation failed). */
static int prepare_owned(store *db, char *sql, store_stmt **st, dbmcp_error *err)
{
    if (!sql)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    int rc = store_prepare(db, sql, st, err);
    free(sql);
    return rc;
}

/* "PRAGMA \"schema\".what(\"name\")", or without the schema for the main
 * database (schema NULL) (malloc'd). */
static char *pragma_sql(const char *what, const char *schema, const char *name)
{
    char *quoted = store_ident_quote(name), *quoted_schema = NULL, *sql = NULL;
    if (schema && !(quoted_schema = store_ident_quote(schema))) {
        free(quoted);
        return NULL;
    }
    if (quoted && asprintf(&sql, "PRAGMA %s%s%s(%s)", quoted_schema ? quoted_schema : "",
                           quoted_schema ? "." : "", what, quoted) < 0)
        sql = NULL;
    free(quoted);
    free(quoted_schema);
    return sql;
}

/* The table's name inside its own database: name without "schema.". */
static const char *bare_name(const introspect_table *t)
{
    return t->schema ? t->name + strlen(t->schema) + 1 : t->name;
}

/* t as a FROM target: "schema"."name" or "name" (malloc'd). */
static char *qualified_sql(const introspect_table *t)
{
    char *name = store_ident_quote(bare_name(t)), *schema = NULL, *sql = NULL;
    if (!name)
        return NULL;
    if (!t->schema)
        return name;
    if ((schema = store_ident_quote(t->schema)) && asprintf(&sql, "%s.%s", schema, name) < 0)
        sql = NULL;
    free(schema);
    free(name);
    return sql;
}

/* --- comments in CREATE statements ------------------------------------------- */

/* Comments found in one CREATE statement: the table's and one per
 * definition in the column list (column name, or NULL for a table
 * constraint). */
typedef struct comment_def {
    char *name;    /* unquoted column name; NULL for a constraint */
    char *comment; /* joined comment text, or NULL */
} comment_def;

typedef struct comment_scan {
    const char *sql;
    int is_view;
    char *table_comment;
    comment_def *defs;
    size_t n_defs;
    int depth;        /* parenthesis depth */
    int in_def;       /* a definition of the column list has started */
    long line_owner;  /* definition with content on the current line, -1 none */
    char *pending;    /* own-line comments waiting for the next definition */
    int body_started; /* views: the SELECT has begun */
} comment_scan;

static int is_word_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* Keep a comment's text if it says something: trim, drop leading '-' and
 * '*' decoration, collapse whitespace; skip rulers with no letter or
 * digit. Appends to *dst. */
static void add_comment(char **dst, const char *text, size_t len)
{
    char *clean = malloc(len + 1);
    if (!clean)
        return;
    size_t n = 0;
    int space = 0, meaningful = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (isspace(c)) {
            space = n > 0;
            continue;
        }
        if (n == 0 && (c == '-' || c == '*'))
            continue;
        if (space)
            clean[n++] = ' ';
        space = 0;
        clean[n++] = (char)c;
        meaningful |= isalnum(c) || c >= 0x80;
    }
    if (meaningful)
        append_text(dst, clean, n);
    free(clean);
}

/* Block comments: strip the '*' that starts each continuation line. */
static void add_block_comment(char **dst, const char *text, size_t len)
{
    char *clean = malloc(len + 1);
    if (!clean)
        return;
    size_t n = 0;
    int line_start = 1;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (line_start && (c == ' ' || c == '\t'))
            continue;
        if (line_start && c == '*') {
            line_start = 0;
            continue;
        }
        line_start = c == '\n';
        clean[n++] = c;
    }
    add_comment(dst, clean, n);
    free(clean);
}

static void scan_comment(comment_scan *s, const char *text, size_t len, int block)
{
    char **dst;
    if (s->is_view)
        dst = s->body_started ? NULL : &s->table_comment;
    else if (s->depth == 0)
        dst = &s->table_comment;
    else if (s->line_owner >= 0)
        dst = s->defs[s->line_owner].name ? &s->defs[s->line_owner].comment : NULL;
    else if (s->n_defs == 0)
        dst = &s->table_comment;
    else
        dst = &s->pending;
    if (!dst)
        return;
    if (block)
        add_block_comment(dst, text, len);
    else
        add_comment(dst, text, len);
}

/* Table constraints open with these words; they name no column. */
static int is_constraint_word(const char *w, size_t len)
{
    static const char *const words[] = {"CONSTRAINT", "PRIMARY", "UNIQUE",
                                        "CHECK",      "FOREIGN", NULL};
    for (int i = 0; words[i]; i++)
        if (strlen(words[i]) == len && strncasecmp(words[i], w, len) == 0)
            return 1;
    return 0;
}

/* A token of the column list at depth 1 that starts a definition. */
static void start_definition(comment_scan *s, const char *tok, size_t len, int quoted)
{
    comment_def *d = introspect_grow((void **)&s->defs, &s->n_defs, sizeof *d);
    if (!d)
        return;
    if (quoted || !is_constraint_word(tok, len)) {
        d->name = strndup(tok, len);
        if (quoted && d->name) { /* undouble "" `` */
            char *w = d->name;
            for (char *r = d->name; *r; r++) {
                *w++ = *r;
                if ((*r == '"' || *r == '`') && r[1] == *r)
                    r++;
            }
            *w = '\0';
        }
    }
    d->comment = s->pending;
    s->pending = NULL;
    s->in_def = 1;
}

/* The end of a quoted token starting at p (quote char q, closing c). */
static const char *skip_quoted(const char *p, char q, char c)
{
    for (p++; *p; p++) {
        if (*p == c) {
            if (c == q && p[1] == c) {
                p++;
                continue;
            }
            return p + 1;
        }
    }
    return p;
}

/* A content token [tok, end) was seen: maybe a new definition, and the
 * current line now belongs to the current definition. */
static void scan_content(comment_scan *s, const char *tok, const char *end, int quoted)
{
    if (s->is_view) {
        size_t len = (size_t)(end - tok);
        if (s->depth == 0 && !quoted &&
            ((len == 6 && strncasecmp(tok, "SELECT", 6) == 0) ||
             (len == 4 && strncasecmp(tok, "WITH", 4) == 0) ||
             (len == 6 && strncasecmp(tok, "VALUES", 6) == 0)))
            s->body_started = 1;
        return;
    }
    if (s->depth == 1 && !s->in_def) {
        if (quoted)
            start_definition(s, tok + 1, (size_t)(end - tok - 2), 1);
        else
            start_definition(s, tok, (size_t)(end - tok), 0);
    }
    if (s->depth >= 1 && s->in_def)
        s->line_owner = (long)s->n_defs - 1;
}

static void scan_create(comment_scan *s)
{
    const char *p = s->sql;
    while (*p && !(s->is_view && s->body_started)) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n') {
            s->line_owner = -1;
            p++;
        } else if (isspace(c)) {
            p++;
        } else if (c == '-' && p[1] == '-') {
            const char *end = strchr(p, '\n');
            end = end ? end : p + strlen(p);
            scan_comment(s, p + 2, (size_t)(end - p - 2), 0);
            p = end;
        } else if (c == '/' && p[1] == '*') {
            const char *end = strstr(p + 2, "*/");
            const char *stop = end ? end : p + strlen(p);
            scan_comment(s, p + 2, (size_t)(stop - p - 2), 1);
            p = end ? end + 2 : stop;
        } else if (c == '\'' || c == '"' || c == '`' || c == '[') {
            const char *end = skip_quoted(p, (char)c, c == '[' ? ']' : (char)c);
            scan_content(s, p, end, c != '\'');
            p = end;
        } else if (is_word_char(c)) {
            const char *end = p;
            while (*end && is_word_char((unsigned char)*end))
                end++;
            scan_content(s, p, end, 0);
            p = end;
        } else {
            if (c == '(') {
                s->depth++;
            } else if (c == ')') {
                if (s->depth == 1)
                    s->in_def = 0;
                s->depth -= s->depth > 0;
            } else if (c == ',' && s->depth == 1) {
                s->in_def = 0;
                p++;
                continue;
            }
            if (s->depth >= 1 && s->in_def && c != '(')
                s->line_owner = (long)s->n_defs - 1;
            p++;
        }
    }
}

static void comment_scan_free(comment_scan *s)
{
    for (size_t i = 0; i < s->n_defs; i++) {
        free(s->defs[i].name);
        free(s->defs[i].comment);
    }
    free(s->defs);
    free(s->pending);
    free(s->table_comment);
}

/* Scan t's CREATE text; the caller frees with comment_scan_free. */
static void scan_comments_of(const introspect_table *t, comment_scan *s)
{
    memset(s, 0, sizeof *s);
    s->sql = t->sql ? t->sql : "";
    s->is_view = t->kind == INTROSPECT_VIEW;
    s->line_owner = -1;
    scan_create(s);
}

/* The comment of column `name` (borrowed from s), or NULL. */
static const char *column_comment(const comment_scan *s, const char *name)
{
    for (size_t i = 0; i < s->n_defs; i++)
        if (s->defs[i].name && strcasecmp(s->defs[i].name, name) == 0)
            return s->defs[i].comment;
    return NULL;
}

/* --- listing -------------------------------------------------------------------- */

static int starts_virtual(const char *sql)
{
    while (sql && isspace((unsigned char)*sql))
        sql++;
    return sql && strncasecmp(sql, "CREATE VIRTUAL", 14) == 0;
}

/* Whether v[i] is a shadow table of one of the virtual tables in v. */
static int is_shadow(const introspect_table *v, size_t n, size_t i)
{
    if (v[i].kind != INTROSPECT_TABLE)
        return 0;
    for (size_t j = 0; j < n; j++) {
        size_t len = strlen(v[j].name);
        if (v[j].kind == INTROSPECT_VIRTUAL && strncasecmp(v[i].name, v[j].name, len) == 0 &&
            v[i].name[len] == '_')
            return 1;
    }
    return 0;
}

/* Shadow tables of virtual tables (FTS5's x_data, x_idx, …) belong to
 * their virtual table: drop them from the list. Marked first, removed
 * after, so the scan never meets a freed entry. */
static void drop_shadow_tables(introspect_table *v, size_t *n)
{
    unsigned char *shadow = calloc(*n ? *n : 1, 1);
    if (!shadow)
        return;
    for (size_t i = 0; i < *n; i++)
        shadow[i] = (unsigned char)is_shadow(v, *n, i);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        if (shadow[i])
            introspect_table_free(&v[i]);
        else
            v[kept++] = v[i];
    }
    free(shadow);
    *n = kept;
}

/* Views the query connection may not read — windows on dbmcp's own
 * tables, or broken ones — are dropped: the engine resolves a view's
 * columns without asking the authorizer, so listing them would show what
 * lies behind. Preparing a plain read of each view, outside the trusted
 * window, asks the same question agent SQL would. On an allocation
 * failure the rest are kept and the list stays whole for the caller to
 * free. */
static int drop_unreadable_views(store *db, introspect_table *v, size_t *n, dbmcp_error *err)
{
    size_t kept = 0;
    int failed = 0;
    for (size_t i = 0; i < *n; i++) {
        int readable = 1;
        if (!failed && v[i].kind == INTROSPECT_VIEW) {
            char *quoted = qualified_sql(&v[i]), *sql = NULL;
            if (quoted && asprintf(&sql, "SELECT 1 FROM %s", quoted) < 0)
                sql = NULL;
            free(quoted);
            store_stmt *st = NULL;
            dbmcp_error ignored;
            int rc = prepare_owned(db, sql, &st, &ignored);
            store_finalize(st);
            failed = rc == DBMCP_ENOMEM;
            readable = rc == 0 || failed;
        }
        if (readable)
            v[kept++] = v[i];
        else
            introspect_table_free(&v[i]);
    }
    *n = kept;
    return failed ? dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory") : 0;
}

/* The listed object named name (ASCII case-insensitive, as SQLite resolves
 * names), or NULL. */
static introspect_table *find_listed(introspect_table *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

/* Row estimates from sqlite_stat1: the first number of each stat is the
 * row count of the table (idx NULL) or of one of its indexes; the largest
 * wins (partial indexes hold fewer rows). */
static int read_stat1(store *db, const char *schema, introspect_table *v, size_t n,
                      dbmcp_error *err)
{
    store_stmt *st;
    /* schema is an attachment name ([A-Za-z0-9_], attachments.h): safe in
     * quotes. The first column is the table's listed name. */
    char *sql = NULL;
    if (!schema)
        sql = strdup("SELECT tbl, stat FROM sqlite_stat1");
    else if (asprintf(&sql, "SELECT '%s.' || tbl, stat FROM \"%s\".sqlite_stat1", schema, schema) <
             0)
        sql = NULL;
    int rc = prepare_owned(db, sql, &st, err);
    if (rc)
        return rc;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        const char *tbl = store_column_text(st, 0), *stat = store_column_text(st, 1);
        introspect_table *t = tbl && stat ? find_listed(v, n, tbl) : NULL;
        if (!t || t->kind != INTROSPECT_TABLE)
            continue;
        long long rows = strtoll(stat, NULL, 10);
        if (t->rows_source != INTROSPECT_ROWS_STAT || rows > t->rows) {
            t->rows = rows;
            t->rows_source = INTROSPECT_ROWS_STAT;
        }
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* The objects of one database: main (schema NULL) or an attachment. */
static int list_objects(store *db, const char *schema, introspect_table **out, size_t *n,
                        int *has_stat1, dbmcp_error *err)
{
    store_stmt *st;
    char *sql = NULL;
    if (asprintf(&sql,
                 "SELECT type, name, sql FROM %s%s%ssqlite_master"
                 " WHERE type IN ('table', 'view')",
                 schema ? "\"" : "", schema ? schema : "", schema ? "\"." : "") < 0)
        sql = NULL;
    int rc = prepare_owned(db, sql, &st, err);
    if (rc)
        return rc;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        const char *type = store_column_text(st, 0), *name = store_column_text(st, 1);
        const char *sql = store_column_text(st, 2);
        if (name && strcmp(name, "sqlite_stat1") == 0)
            *has_stat1 = 1;
        if (!name || !type || !sql || is_internal(name))
            continue;
        introspect_table *t = introspect_grow((void **)out, n, sizeof *t);
        if (!t) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
        if (schema) {
            t->schema = strdup(schema);
            if (asprintf(&t->name, "%s.%s", schema, name) < 0)
                t->name = NULL;
        } else {
            t->name = strdup(name);
        }
        t->sql = strdup(sql);
        t->kind = strcmp(type, "view") == 0 ? INTROSPECT_VIEW
                  : starts_virtual(sql)     ? INTROSPECT_VIRTUAL
                                            : INTROSPECT_TABLE;
        t->rows = -1;
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* The user databases attached to db (attachments.h), from the engine:
 * every database but main and temp. */
static int attached_schemas(store *db, introspect_names *out, dbmcp_error *err)
{
    store_stmt *st;
    int rc = store_prepare(db, "PRAGMA database_list", &st, err);
    if (rc)
        return rc;
    /* seq, name, file */
    while ((rc = store_step(st, err)) == STORE_ROW) {
        const char *name = store_column_text(st, 1);
        if (name && strcmp(name, "main") != 0 && strcmp(name, "temp") != 0)
            introspect_names_add(out, name);
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* The objects and row estimates of one database into *out. */
static int list_database(store *db, const char *schema, introspect_table **out, size_t *n,
                         dbmcp_error *err)
{
    int has_stat1 = 0;
    size_t first = *n;
    int rc = list_objects(db, schema, out, n, &has_stat1, err);
    if (!rc && has_stat1)
        rc = read_stat1(db, schema, *out + first, *n - first, err);
    return rc;
}

static int sqlite_list(store *db, introspect_table **out, size_t *n, dbmcp_error *err)
{
    introspect_names schemas = {0};
    store_trusted_begin(db);
    int rc = attached_schemas(db, &schemas, err);
    if (!rc)
        rc = list_database(db, NULL, out, n, err);
    for (size_t i = 0; !rc && i < schemas.n; i++)
        rc = list_database(db, schemas.v[i], out, n, err);
    store_trusted_end(db);
    for (size_t i = 0; i < schemas.n; i++)
        free(schemas.v[i]);
    free(schemas.v);
    if (rc)
        return rc;
    drop_shadow_tables(*out, n);
    rc = drop_unreadable_views(db, *out, n, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < *n; i++) {
        comment_scan s;
        scan_comments_of(&(*out)[i], &s);
        (*out)[i].comment = s.table_comment;
        s.table_comment = NULL;
        comment_scan_free(&s);
    }
    return 0;
}

static int sqlite_count_source(store *db, const introspect_table *t, char **out, dbmcp_error *err)
{
    (void)db;
    *out = qualified_sql(t);
    return *out ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
}

/* --- columns, keys, indexes ----------------------------------------------------- */

static int read_columns(store *db, const introspect_table *t, const comment_scan *s,
                        introspect_column **out, size_t *n, dbmcp_error *err)
{
    store_stmt *st;
    /* cid, name, type, notnull, dflt_value, pk, hidden */
    int rc = prepare_owned(db, pragma_sql("table_xinfo", t->schema, bare_name(t)), &st, err);
    if (rc)
        return rc;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        int64_t hidden = store_column_int(st, 6);
        if (hidden == 1) /* a virtual table's hidden column */
            continue;
        introspect_column *c = introspect_grow((void **)out, n, sizeof *c);
        if (!c) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
        c->name = introspect_strdup_or_null(store_column_text(st, 1));
        c->type = strdup(store_column_text(st, 2) ? store_column_text(st, 2) : "");
        c->not_null = store_column_int(st, 3) != 0;
        c->default_sql = introspect_strdup_or_null(store_column_text(st, 4));
        c->pk = (int)store_column_int(st, 5);
        c->generated = hidden == 2 || hidden == 3;
        c->comment = c->name ? introspect_strdup_or_null(column_comment(s, c->name)) : NULL;
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

/* Keys of d->table; a referenced table of an attached database is named
 * as listed ("schema.table"): SQLite keys never leave their database. */
static int read_foreign_keys(store *db, introspect_detail *d, dbmcp_error *err)
{
    store_stmt *st;
    const introspect_table *t = &d->table;
    /* id, seq, table, from, to, on_update, on_delete, match */
    int rc = prepare_owned(db, pragma_sql("foreign_key_list", t->schema, bare_name(t)), &st, err);
    if (rc)
        return rc;
    int64_t last_id = -1;
    introspect_foreign_key *fk = NULL;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (!fk || store_column_int(st, 0) != last_id) {
            fk = introspect_grow((void **)&d->foreign_keys, &d->n_foreign_keys, sizeof *fk);
            if (!fk) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                break;
            }
            last_id = store_column_int(st, 0);
            const char *ref = store_column_text(st, 2);
            if (ref && t->schema && !is_internal(ref)) {
                if (asprintf(&fk->ref_table, "%s.%s", t->schema, ref) < 0)
                    fk->ref_table = NULL;
            } else {
                fk->ref_table = introspect_strdup_or_null(ref);
            }
            fk->on_update = introspect_strdup_or_null(store_column_text(st, 5));
            fk->on_delete = introspect_strdup_or_null(store_column_text(st, 6));
        }
        introspect_names_add(&fk->columns, store_column_text(st, 3));
        if (store_column_text(st, 4))
            introspect_names_add(&fk->ref_columns, store_column_text(st, 4));
    }
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

static int read_index_columns(store *db, const char *schema, introspect_index *ix, dbmcp_error *err)
{
    store_stmt *st;
    /* seqno, cid, name (NULL for an expression) */
    int rc = prepare_owned(db, pragma_sql("index_info", schema, ix->name), &st, err);
    if (rc)
        return rc;
    while ((rc = store_step(st, err)) == STORE_ROW)
        introspect_names_add(&ix->columns,
                             store_column_text(st, 2) ? store_column_text(st, 2) : "(expression)");
    store_finalize(st);
    return rc < 0 ? rc : 0;
}

static int read_indexes(store *db, introspect_detail *d, dbmcp_error *err)
{
    store_stmt *st;
    const introspect_table *t = &d->table;
    /* seq, name, unique, origin, partial */
    int rc = prepare_owned(db, pragma_sql("index_list", t->schema, bare_name(t)), &st, err);
    if (rc)
        return rc;
    while ((rc = store_step(st, err)) == STORE_ROW) {
        introspect_index *ix = introspect_grow((void **)&d->indexes, &d->n_indexes, sizeof *ix);
        if (!ix) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
        const char *origin = store_column_text(st, 3);
        ix->name = strdup(store_column_text(st, 1) ? store_column_text(st, 1) : "");
        ix->unique = store_column_int(st, 2) != 0;
        ix->origin = origin && strcmp(origin, "pk") == 0  ? "primary key"
                     : origin && strcmp(origin, "u") == 0 ? "unique"
                                                          : "index";
        ix->partial = store_column_int(st, 4) != 0;
    }
    store_finalize(st);
    for (size_t i = 0; rc >= 0 && i < d->n_indexes; i++)
        rc = read_index_columns(db, t->schema, &d->indexes[i], err);
    return rc < 0 ? rc : 0;
}

static int sqlite_columns(store *db, const introspect_table *t, introspect_column **out, size_t *n,
                          dbmcp_error *err)
{
    comment_scan s;
    scan_comments_of(t, &s);
    store_trusted_begin(db);
    int rc = read_columns(db, t, &s, out, n, err);
    store_trusted_end(db);
    comment_scan_free(&s);
    return rc;
}

/* Views have neither foreign keys nor indexes in SQLite. */
static int sqlite_keys(store *db, introspect_detail *d, dbmcp_error *err)
{
    if (d->table.kind == INTROSPECT_VIEW)
        return 0;
    store_trusted_begin(db);
    int rc = read_foreign_keys(db, d, err);
    if (!rc)
        rc = read_indexes(db, d, err);
    store_trusted_end(db);
    return rc;
}

const introspect_dialect introspect_sqlite_dialect = {
    .name = "sqlite",
    .default_schema = NULL,
    .is_internal = is_internal,
    .list = sqlite_list,
    .count_source = sqlite_count_source,
    .columns = sqlite_columns,
    .keys = sqlite_keys,
};
