/*
 * schema_tools.c — the schema discovery builtins: list_tables,
 * describe_table and search_objects. They read the read-only query
 * connection through store/introspect.h, so an agent learns what it may
 * query without ever touching sqlite_master, and dbmcp's internal tables
 * never appear (an internal name fails exactly like an unknown one).
 *
 * Each answers with compact markdown for the model plus structuredContent
 * with the same facts. Every name, type, default and comment in the
 * markdown goes through render_cell (render.h), the one way dbmcp makes a
 * value safe in a markdown table, so a table cannot be broken from the
 * database. Output stays bounded on large schemas:
 *   - list_tables shows at most `limit` objects (default 100) and counts
 *     rows only for those, each count stopping past INTROSPECT_COUNT_CAP
 *     and all of them together past SCHEMA_COUNT_BUDGET rows;
 *   - search_objects shows at most `limit` matches (default 50, 10 at
 *     detail_level full) and says how many more there are.
 *
 * Patterns (list_tables.pattern, search_objects.pattern): without `%` a
 * case-insensitive substring; with `%` an SQL LIKE pattern (`%` any run,
 * `_` one character) over the whole name. Case folding is ASCII, as in
 * SQLite's LIKE.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/introspect.h"
#include "tools/builtins.h"
#include "tools/render.h"

#define SCHEMA_TIME_LIMIT_MS 10000  /* per call, all statements together */
#define SCHEMA_COUNT_BUDGET 2000000 /* rows list_tables counts in one call */
#define LIST_DEFAULT_LIMIT 100
#define SEARCH_DEFAULT_LIMIT 50
#define SEARCH_FULL_DEFAULT_LIMIT 10
#define LIST_COMMENT_CHARS 160 /* comment characters shown per row in listings */
#define CELL_CHARS 300         /* characters shown per cell in describe tables */

/* --- text output ---------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s, or 0 when invalid. */
static size_t utf8_seq_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (!n || (s[0] >= 0xF8))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xF0 && s[1] < 0x90) ||
        (s[0] == 0xF4 && s[1] > 0x8F) || (s[0] == 0xED && s[1] > 0x9F))
        return 0;
    return n;
}

/* Write s to f as render_cell writes a text cell (render.h): escaped so it
 * can break neither a table row nor a line, invalid UTF-8 replaced, cut
 * after max_chars characters (0 = all) with "…". Used for table cells and
 * for names and comments in prose alike, so every value reads one way.
 * Should the buffer for a very long value not be allocated, the value is
 * shown as "…" alone. */
static void put_text(FILE *f, const char *s, size_t max_chars)
{
    size_t bytes = s ? strlen(s) : 0;
    /* A character is at least one byte: cell_max = bytes cuts nothing. */
    size_t cell_max = max_chars && max_chars < bytes ? max_chars : bytes;
    char small[1024];
    size_t size = cell_max < (SIZE_MAX - 32) / 8 ? cell_max * 8 + 32 : SIZE_MAX;
    char *buf = size <= sizeof small ? small : malloc(size);
    if (!buf) {
        fputs("…", f);
        return;
    }
    render_cell(STORE_TEXT, STORE_KIND_PLAIN, s, bytes, cell_max, buf, size);
    fputs(buf, f);
    if (buf != small)
        free(buf);
}

/* A markdown cell (escaped, cut at max_chars). */
static void put_cell(FILE *f, const char *s, size_t max_chars)
{
    fputs(" ", f);
    put_text(f, s, max_chars);
    fputs(" |", f);
}

/* A copy of s with each invalid UTF-8 sequence replaced by U+FFFD (caller
 * frees), or NULL when out of memory. */
static char *utf8_clean(const char *s)
{
    size_t bytes = strlen(s);
    char *clean = malloc(bytes * 3 + 1); /* an invalid byte becomes 3 bytes */
    if (!clean)
        return NULL;
    char *out = clean;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = utf8_seq_len(p);
        if (n) {
            memcpy(out, p, n);
            p += n;
            out += n;
        } else {
            memcpy(out, "\xEF\xBF\xBD", 3);
            p++;
            out += 3;
        }
    }
    *out = '\0';
    return clean;
}

/* A JSON string of s with invalid UTF-8 replaced (json_string refuses it). */
static json_t *jstr(const char *s)
{
    if (!s)
        return json_null();
    json_t *v = json_string(s);
    if (v)
        return v;
    char *clean = utf8_clean(s);
    v = json_string(clean ? clean : "");
    free(clean);
    return v;
}

/* An output buffer: open_memstream text, turned into the text block. */
typedef struct text_out {
    FILE *f;
    char *buf;
    size_t len;
} text_out;

static int text_open(text_out *t, dbmcp_error *err)
{
    memset(t, 0, sizeof *t);
    t->f = open_memstream(&t->buf, &t->len);
    return t->f ? 0 : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
}

static void text_finish(text_out *t, tool_output *out)
{
    fclose(t->f);
    tool_output_text(out, t->buf ? t->buf : "");
    free(t->buf);
    memset(t, 0, sizeof *t);
}

static void text_discard(text_out *t)
{
    if (t->f)
        fclose(t->f);
    free(t->buf);
    memset(t, 0, sizeof *t);
}

/* --- patterns --------------------------------------------------------------------- */

static int fold(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static size_t char_len(const char *s)
{
    size_t n = utf8_seq_len((const unsigned char *)s);
    return n ? n : 1;
}

/* SQL LIKE over the whole name: % any run, _ one character, ASCII case
 * folding. Iterative with one backtrack point: O(len(p) * len(s)). */
static int like_match(const char *p, const char *s)
{
    const char *star_p = NULL, *star_s = NULL;
    while (*s) {
        if (*p == '%') {
            while (*p == '%')
                p++;
            star_p = p;
            star_s = s;
        } else if (*p == '_') {
            p++;
            s += char_len(s);
        } else if (*p && fold((unsigned char)*p) == fold((unsigned char)*s)) {
            p++;
            s++;
        } else if (star_p) {
            p = star_p;
            star_s += char_len(star_s);
            s = star_s;
        } else {
            return 0;
        }
    }
    while (*p == '%')
        p++;
    return *p == '\0';
}

/* Whether name matches pattern (NULL or "" matches everything). */
static int name_matches(const char *pattern, const char *name)
{
    if (!pattern || !*pattern)
        return 1;
    if (strchr(pattern, '%'))
        return like_match(pattern, name);
    return strcasestr(name, pattern) != NULL;
}

static const char *match_mode(const char *pattern)
{
    return pattern && strchr(pattern, '%') ? "like" : "substring";
}

/* --- shared pieces ------------------------------------------------------------------ */

/* The query connection with this call's time limit, or an error. */
static store *begin_call(tool_env *env, dbmcp_error *err)
{
    if (!env->query_db) {
        dbmcp_error_set_private(err, DBMCP_EINTERNAL, "the tool could not run",
                                "no query connection for %s", env->tool->name);
        return NULL;
    }
    store_set_time_limit(env->query_db, SCHEMA_TIME_LIMIT_MS);
    return env->query_db;
}

static void end_call(store *db)
{
    if (db)
        store_set_time_limit(db, 0);
}

static int cancelled(tool_env *env, dbmcp_error *err)
{
    if (env->cancelled && *env->cancelled)
        return dbmcp_error_set(err, DBMCP_ETIMEOUT, "cancelled by the client");
    return 0;
}

static json_int_t int_arg(const json_t *args, const char *key, json_int_t def)
{
    json_t *v = json_object_get(args, key);
    return json_is_integer(v) ? json_integer_value(v) : def;
}

/* "60000", ">100000", "~1200" or "?" — see rows_legend. */
static void put_rows(FILE *f, const introspect_table *t)
{
    switch (t->rows_source) {
    case INTROSPECT_ROWS_EXACT: fprintf(f, "%lld", (long long)t->rows); break;
    case INTROSPECT_ROWS_AT_LEAST: fprintf(f, ">%lld", (long long)t->rows); break;
    case INTROSPECT_ROWS_STAT: fprintf(f, "~%lld", (long long)t->rows); break;
    case INTROSPECT_ROWS_UNKNOWN: fputs(t->kind == INTROSPECT_TABLE ? "?" : "-", f); break;
    }
}

static const char *rows_source_name(introspect_rows r)
{
    switch (r) {
    case INTROSPECT_ROWS_EXACT: return "exact";
    case INTROSPECT_ROWS_AT_LEAST: return "at_least";
    case INTROSPECT_ROWS_STAT: return "estimate";
    case INTROSPECT_ROWS_UNKNOWN: return "unknown";
    }
    return "unknown";
}

/* {name, kind, rows, rows_estimate, comment} */
static json_t *table_json(const introspect_table *t)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", jstr(t->name));
    json_object_set_new(o, "kind", json_string(introspect_kind_label(t->kind)));
    json_object_set_new(
        o, "rows", t->rows_source == INTROSPECT_ROWS_UNKNOWN ? json_null() : json_integer(t->rows));
    json_object_set_new(o, "rows_estimate", json_string(rows_source_name(t->rows_source)));
    json_object_set_new(o, "comment", jstr(t->comment));
    return o;
}

static json_t *names_json(const introspect_names *names)
{
    json_t *a = json_array();
    for (size_t i = 0; i < names->n; i++)
        json_array_append_new(a, jstr(names->v[i]));
    return a;
}

static void put_names(FILE *f, const introspect_names *names)
{
    for (size_t i = 0; i < names->n; i++) {
        fputs(i ? ", " : "", f);
        put_text(f, names->v[i], 0);
    }
}

/* --- list_tables ------------------------------------------------------------------- */

/* Count rows of the shown tables within the per-call budget. */
static int count_shown(tool_env *env, store *db, introspect_table **shown, size_t n,
                       dbmcp_error *err)
{
    int64_t budget = SCHEMA_COUNT_BUDGET;
    for (size_t i = 0; i < n && budget > 0; i++) {
        int rc = cancelled(env, err);
        if (!rc)
            rc = introspect_count_rows(
                db, shown[i],
                budget < INTROSPECT_COUNT_CAP ? budget : (int64_t)INTROSPECT_COUNT_CAP, err);
        if (rc)
            return rc;
        if (shown[i]->rows_source == INTROSPECT_ROWS_EXACT ||
            shown[i]->rows_source == INTROSPECT_ROWS_AT_LEAST)
            budget -= shown[i]->rows + 1;
    }
    return 0;
}

/* The line explaining the row notations that occur. */
static void rows_legend(FILE *f, introspect_table **shown, size_t n)
{
    int seen[4] = {0};
    for (size_t i = 0; i < n; i++)
        if (shown[i]->kind == INTROSPECT_TABLE)
            seen[shown[i]->rows_source] = 1;
    if (seen[INTROSPECT_ROWS_AT_LEAST])
        fprintf(f, "\nRows: >N means counting stopped after N rows.");
    if (seen[INTROSPECT_ROWS_STAT])
        fprintf(f, "\nRows: ~N is the estimate of the last ANALYZE.");
    if (seen[INTROSPECT_ROWS_UNKNOWN])
        fprintf(f, "\nRows: ? was not counted (row budget of this call spent); describe_table "
                   "counts one table.");
}

static void render_list(FILE *f, const char *pattern, introspect_table **shown, size_t n_shown,
                        size_t total)
{
    if (total == 0) {
        if (pattern && *pattern) {
            fputs("No table or view name matches '", f);
            put_text(f, pattern, 200);
            fputs("'.", f);
        } else {
            fputs("The database has no tables or views.", f);
        }
        return;
    }
    fputs("| table | kind | rows | comment |\n| --- | --- | --- | --- |\n", f);
    for (size_t i = 0; i < n_shown; i++) {
        const introspect_table *t = shown[i];
        fputs("|", f);
        put_cell(f, t->name, 0);
        put_cell(f, introspect_kind_label(t->kind), 0);
        fputs(" ", f);
        put_rows(f, t);
        fputs(" |", f);
        put_cell(f, t->comment ? t->comment : "", LIST_COMMENT_CHARS);
        fputs("\n", f);
    }
    if (n_shown < total)
        fprintf(f, "\n%zu of %zu tables and views shown; narrow with pattern or raise limit.",
                n_shown, total);
    else
        fprintf(f, "\n%zu table%s and view%s.", total, total == 1 ? "" : "s",
                total == 1 ? "" : "s");
    rows_legend(f, shown, n_shown);
}

int tools_schema_list_tables(tool_env *env, const json_t *args, tool_output *out, dbmcp_error *err)
{
    const char *pattern = json_string_value(json_object_get(args, "pattern"));
    json_int_t limit = int_arg(args, "limit", LIST_DEFAULT_LIMIT);
    store *db = begin_call(env, err);
    if (!db)
        return err->code;
    introspect_table *v = NULL;
    size_t n = 0, total = 0, n_shown = 0;
    int rc = introspect_list(db, &v, &n, err);
    introspect_table **shown = rc ? NULL : calloc(n ? n : 1, sizeof *shown);
    if (!rc && !shown)
        rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    for (size_t i = 0; !rc && i < n; i++) {
        if (!name_matches(pattern, v[i].name))
            continue;
        if ((json_int_t)n_shown < limit)
            shown[n_shown++] = &v[i];
        total++;
    }
    if (!rc)
        rc = count_shown(env, db, shown, n_shown, err);
    text_out t;
    if (!rc)
        rc = text_open(&t, err);
    if (!rc) {
        render_list(t.f, pattern, shown, n_shown, total);
        text_finish(&t, out);
        json_t *tables = json_array();
        for (size_t i = 0; i < n_shown; i++)
            json_array_append_new(tables, table_json(shown[i]));
        out->structured = json_pack("{s:o, s:I, s:I}", "tables", tables, "total", (json_int_t)total,
                                    "shown", (json_int_t)n_shown);
        env->rows = (int64_t)n_shown;
    }
    free(shown);
    introspect_table_array_free(v, n);
    end_call(db);
    return rc;
}

/* --- describe_table ------------------------------------------------------------------ */

/* The single-column foreign key starting at column `name`, if any. */
static const introspect_foreign_key *single_fk(const introspect_detail *d, const char *name)
{
    for (size_t i = 0; i < d->n_foreign_keys; i++)
        if (d->foreign_keys[i].columns.n == 1 &&
            strcasecmp(d->foreign_keys[i].columns.v[0], name) == 0)
            return &d->foreign_keys[i];
    return NULL;
}

static void put_fk_target(FILE *f, const introspect_foreign_key *fk)
{
    put_text(f, fk->ref_table, 0);
    fputs("(", f);
    if (fk->ref_columns.n)
        put_names(f, &fk->ref_columns);
    else
        fputs("primary key", f);
    fputs(")", f);
}

static int pk_columns(const introspect_detail *d)
{
    int n = 0;
    for (size_t i = 0; i < d->n_columns; i++)
        n += d->columns[i].pk > 0;
    return n;
}

static void put_key_cell(FILE *f, const introspect_detail *d, const introspect_column *c)
{
    fputs(" ", f);
    int keys = 0;
    if (c->pk) {
        if (pk_columns(d) > 1)
            fprintf(f, "PK %d", c->pk);
        else
            fputs("PK", f);
        keys++;
    }
    const introspect_foreign_key *fk = single_fk(d, c->name);
    if (fk) {
        fputs(keys ? ", FK → " : "FK → ", f);
        put_fk_target(f, fk);
    }
    fputs(" |", f);
}

static void put_column_row(FILE *f, const introspect_detail *d, const introspect_column *c,
                           const char *table_prefix)
{
    fputs("| ", f);
    if (table_prefix) {
        put_text(f, table_prefix, 0);
        fputs(".", f);
    }
    put_text(f, c->name, 0);
    fputs(" |", f);
    fputs(" ", f);
    put_text(f, c->type, CELL_CHARS);
    fputs(c->generated ? " (generated) |" : " |", f);
    put_cell(f, c->not_null ? "yes" : "", 0);
    /* DEFAULT NULL is SQL's NULL: not quoted as text that only looks like it. */
    if (c->default_sql && strcmp(c->default_sql, "NULL") == 0)
        fputs(" NULL |", f);
    else
        put_cell(f, c->default_sql ? c->default_sql : "", CELL_CHARS);
    if (d)
        put_key_cell(f, d, c);
    else
        put_cell(f, c->pk ? "PK" : "", 0);
    put_cell(f, c->comment ? c->comment : "", CELL_CHARS);
    fputs("\n", f);
}

#define COLUMN_HEADER                                                                              \
    "| column | type | not null | default | key | comment |\n"                                     \
    "| --- | --- | --- | --- | --- | --- |\n"

/* The markdown of one table: heading, comment, columns, keys, indexes. */
static void render_detail(FILE *f, const introspect_detail *d)
{
    const introspect_table *t = &d->table;
    fputs("## ", f);
    put_text(f, t->name, 0);
    fprintf(f, " (%s", introspect_kind_label(t->kind));
    if (t->rows_source != INTROSPECT_ROWS_UNKNOWN) {
        fputs(", ", f);
        put_rows(f, t);
        fputs(t->rows == 1 && t->rows_source == INTROSPECT_ROWS_EXACT ? " row" : " rows", f);
    }
    fputs(")\n", f);
    if (t->comment) {
        put_text(f, t->comment, 0);
        fputs("\n", f);
    }
    if (d->columns_denied) {
        fputs("\nIts columns cannot be shown: the view reads objects you cannot query.\n", f);
        return;
    }
    fputs("\n" COLUMN_HEADER, f);
    for (size_t i = 0; i < d->n_columns; i++)
        put_column_row(f, d, &d->columns[i], NULL);
    int composite = 0;
    for (size_t i = 0; i < d->n_foreign_keys; i++)
        composite += d->foreign_keys[i].columns.n > 1;
    if (composite) {
        fputs("\nComposite foreign keys:", f);
        for (size_t i = 0; i < d->n_foreign_keys; i++) {
            if (d->foreign_keys[i].columns.n < 2)
                continue;
            fputs(" (", f);
            put_names(f, &d->foreign_keys[i].columns);
            fputs(") → ", f);
            put_fk_target(f, &d->foreign_keys[i]);
            fputs(";", f);
        }
        fputs("\n", f);
    }
    /* The primary key's automatic index is already the PK mark of its columns. */
    size_t shown = 0;
    for (size_t i = 0; i < d->n_indexes; i++) {
        const introspect_index *ix = &d->indexes[i];
        if (strcmp(ix->origin, "primary key") == 0)
            continue;
        fprintf(f, "%s %s", shown++ ? ";" : "\nIndexes:", ix->unique ? "UNIQUE " : "");
        put_text(f, ix->name, 0);
        fputs(" (", f);
        put_names(f, &ix->columns);
        fprintf(f, ")%s", ix->partial ? " partial" : "");
    }
    if (shown)
        fputs("\n", f);
}

static json_t *column_json(const introspect_column *c)
{
    return json_pack("{s:o, s:o, s:b, s:o, s:i, s:b, s:o}", "name", jstr(c->name), "type",
                     jstr(c->type), "not_null", c->not_null, "default", jstr(c->default_sql), "pk",
                     c->pk, "generated", c->generated, "comment", jstr(c->comment));
}

static json_t *detail_json(const introspect_detail *d)
{
    json_t *o = table_json(&d->table);
    json_t *columns = json_array(), *fks = json_array(), *indexes = json_array();
    for (size_t i = 0; i < d->n_columns; i++)
        json_array_append_new(columns, column_json(&d->columns[i]));
    for (size_t i = 0; i < d->n_foreign_keys; i++) {
        const introspect_foreign_key *fk = &d->foreign_keys[i];
        json_array_append_new(
            fks, json_pack("{s:o, s:o, s:o, s:o, s:o}", "columns", names_json(&fk->columns),
                           "references_table", jstr(fk->ref_table), "references_columns",
                           names_json(&fk->ref_columns), "on_update", jstr(fk->on_update),
                           "on_delete", jstr(fk->on_delete)));
    }
    for (size_t i = 0; i < d->n_indexes; i++) {
        const introspect_index *ix = &d->indexes[i];
        json_array_append_new(indexes,
                              json_pack("{s:o, s:b, s:s, s:b, s:o}", "name", jstr(ix->name),
                                        "unique", ix->unique, "origin", ix->origin, "partial",
                                        ix->partial, "columns", names_json(&ix->columns)));
    }
    json_object_set_new(o, "columns", columns);
    json_object_set_new(o, "foreign_keys", fks);
    json_object_set_new(o, "indexes", indexes);
    return o;
}

/* Describe name with its row count (for describe_table and full search). */
static int describe_counted(store *db, const char *name, introspect_detail *d, dbmcp_error *err)
{
    int rc = introspect_describe(db, name, d, err);
    if (!rc)
        rc = introspect_count_rows(db, &d->table, INTROSPECT_COUNT_CAP, err);
    return rc;
}

int tools_schema_describe_table(tool_env *env, const json_t *args, tool_output *out,
                                dbmcp_error *err)
{
    const char *name = json_string_value(json_object_get(args, "table"));
    store *db = begin_call(env, err);
    if (!db)
        return err->code;
    introspect_detail d;
    int rc = describe_counted(db, name, &d, err);
    text_out t;
    if (!rc)
        rc = text_open(&t, err);
    if (!rc) {
        render_detail(t.f, &d);
        text_finish(&t, out);
        out->structured = detail_json(&d);
        env->rows = (int64_t)d.n_columns;
    }
    introspect_detail_free(&d);
    end_call(db);
    return rc;
}

/* --- search_objects ------------------------------------------------------------------ */

typedef enum detail_level { LEVEL_NAMES, LEVEL_SUMMARY, LEVEL_FULL } detail_level;

/* One table with its columns, read once for matching and output. */
typedef struct search_table {
    introspect_table *table; /* borrowed from the list */
    introspect_column *columns;
    size_t n_columns;
    int name_matched;
} search_table;

/* A matched column: table index and column index. */
typedef struct column_match {
    size_t table, column;
} column_match;

typedef struct search_state {
    const char *pattern;
    detail_level level;
    size_t limit;
    introspect_table *list; /* owned */
    size_t n_list;
    search_table *tables; /* owned, n_list entries */
    size_t table_matches;
    column_match *columns; /* owned */
    size_t column_matches;
    size_t tables_shown, columns_shown;
} search_state;

static void search_free(search_state *s)
{
    for (size_t i = 0; s->tables && i < s->n_list; i++)
        introspect_column_array_free(s->tables[i].columns, s->tables[i].n_columns);
    free(s->tables);
    free(s->columns);
    introspect_table_array_free(s->list, s->n_list);
}

static int search_collect(tool_env *env, store *db, search_state *s, dbmcp_error *err)
{
    int rc = introspect_list(db, &s->list, &s->n_list, err);
    if (rc)
        return rc;
    s->tables = calloc(s->n_list ? s->n_list : 1, sizeof *s->tables);
    if (!s->tables)
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    size_t cap = 0;
    for (size_t i = 0; i < s->n_list; i++) {
        if ((rc = cancelled(env, err)))
            return rc;
        search_table *st = &s->tables[i];
        st->table = &s->list[i];
        st->name_matched = name_matches(s->pattern, st->table->name);
        s->table_matches += st->name_matched;
        rc = introspect_columns(db, st->table, &st->columns, &st->n_columns, err);
        if (rc == DBMCP_EDENIED) /* a view over internal tables: no columns to match */
            rc = 0;
        if (rc)
            return rc;
        for (size_t c = 0; c < st->n_columns; c++) {
            if (!name_matches(s->pattern, st->columns[c].name))
                continue;
            if (s->column_matches == cap) {
                cap = cap ? cap * 2 : 64;
                column_match *grown = realloc(s->columns, cap * sizeof *grown);
                if (!grown)
                    return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                s->columns = grown;
            }
            s->columns[s->column_matches++] = (column_match){i, c};
        }
    }
    s->tables_shown = s->table_matches < s->limit ? s->table_matches : s->limit;
    size_t room = s->limit - s->tables_shown;
    s->columns_shown = s->column_matches < room ? s->column_matches : room;
    return 0;
}

static void put_more(FILE *f, const search_state *s)
{
    size_t more_tables = s->table_matches - s->tables_shown;
    size_t more_columns = s->column_matches - s->columns_shown;
    if (!more_tables && !more_columns)
        return;
    fprintf(f,
            "\n%zu more table%s and %zu more column%s match; narrow the pattern or raise "
            "limit.\n",
            more_tables, more_tables == 1 ? "" : "s", more_columns, more_columns == 1 ? "" : "s");
}

static void render_names(FILE *f, const search_state *s)
{
    fprintf(f, "Tables and views (%zu):", s->table_matches);
    size_t shown = 0;
    for (size_t i = 0; i < s->n_list && shown < s->tables_shown; i++) {
        if (!s->tables[i].name_matched)
            continue;
        fputs(shown++ ? ", " : " ", f);
        put_text(f, s->tables[i].table->name, 0);
        if (s->tables[i].table->kind != INTROSPECT_TABLE)
            fprintf(f, " (%s)", introspect_kind_label(s->tables[i].table->kind));
    }
    fprintf(f, "\nColumns (%zu):", s->column_matches);
    for (size_t i = 0; i < s->columns_shown; i++) {
        const search_table *st = &s->tables[s->columns[i].table];
        fputs(i ? ", " : " ", f);
        put_text(f, st->table->name, 0);
        fputs(".", f);
        put_text(f, st->columns[s->columns[i].column].name, 0);
    }
    fputs("\n", f);
}

static void render_summary(FILE *f, const search_state *s)
{
    if (s->tables_shown) {
        fputs("| table | kind | columns | comment |\n| --- | --- | --- | --- |\n", f);
        size_t shown = 0;
        for (size_t i = 0; i < s->n_list && shown < s->tables_shown; i++) {
            const search_table *st = &s->tables[i];
            if (!st->name_matched)
                continue;
            shown++;
            fputs("|", f);
            put_cell(f, st->table->name, 0);
            put_cell(f, introspect_kind_label(st->table->kind), 0);
            fprintf(f, " %zu |", st->n_columns);
            put_cell(f, st->table->comment ? st->table->comment : "", LIST_COMMENT_CHARS);
            fputs("\n", f);
        }
    }
    if (s->columns_shown) {
        fputs(s->tables_shown ? "\n" : "", f);
        fputs("| column | type | comment |\n| --- | --- | --- |\n", f);
        for (size_t i = 0; i < s->columns_shown; i++) {
            const search_table *st = &s->tables[s->columns[i].table];
            const introspect_column *c = &st->columns[s->columns[i].column];
            fputs("| ", f);
            put_text(f, st->table->name, 0);
            fputs(".", f);
            put_text(f, c->name, 0);
            fputs(" |", f);
            put_cell(f, c->type, CELL_CHARS);
            put_cell(f, c->comment ? c->comment : "", LIST_COMMENT_CHARS);
            fputs("\n", f);
        }
    }
}

static int render_full(store *db, FILE *f, const search_state *s, json_t *tables_json,
                       dbmcp_error *err)
{
    size_t shown = 0;
    for (size_t i = 0; i < s->n_list && shown < s->tables_shown; i++) {
        if (!s->tables[i].name_matched)
            continue;
        introspect_detail d;
        int rc = describe_counted(db, s->tables[i].table->name, &d, err);
        if (rc)
            return rc;
        fputs(shown++ ? "\n" : "", f);
        render_detail(f, &d);
        json_array_append_new(tables_json, detail_json(&d));
        introspect_detail_free(&d);
    }
    if (s->columns_shown) {
        fputs(shown ? "\n## Matching columns\n\n" : "", f);
        fputs(COLUMN_HEADER, f);
        for (size_t i = 0; i < s->columns_shown; i++) {
            const search_table *st = &s->tables[s->columns[i].table];
            put_column_row(f, NULL, &st->columns[s->columns[i].column], st->table->name);
        }
    }
    return 0;
}

static json_t *search_json(const search_state *s, json_t *tables)
{
    if (!tables) {
        tables = json_array();
        size_t shown = 0;
        for (size_t i = 0; i < s->n_list && shown < s->tables_shown; i++) {
            if (!s->tables[i].name_matched)
                continue;
            shown++;
            json_t *t = table_json(s->tables[i].table);
            if (s->level == LEVEL_NAMES) {
                json_t *slim = json_pack("{s:O, s:O}", "name", json_object_get(t, "name"), "kind",
                                         json_object_get(t, "kind"));
                json_decref(t);
                t = slim;
            } else {
                json_object_del(t, "rows");
                json_object_del(t, "rows_estimate");
                json_object_set_new(t, "column_count",
                                    json_integer((json_int_t)s->tables[i].n_columns));
            }
            json_array_append_new(tables, t);
        }
    }
    json_t *columns = json_array();
    for (size_t i = 0; i < s->columns_shown; i++) {
        const search_table *st = &s->tables[s->columns[i].table];
        const introspect_column *c = &st->columns[s->columns[i].column];
        json_t *o =
            s->level == LEVEL_NAMES ? json_pack("{s:o}", "name", jstr(c->name)) : column_json(c);
        json_object_set_new(o, "table", jstr(st->table->name));
        json_array_append_new(columns, o);
    }
    static const char *const levels[] = {"names", "summary", "full"};
    return json_pack("{s:o, s:s, s:s, s:o, s:o, s:I, s:I}", "pattern", jstr(s->pattern), "match",
                     match_mode(s->pattern), "detail_level", levels[s->level], "tables", tables,
                     "columns", columns, "total_tables", (json_int_t)s->table_matches,
                     "total_columns", (json_int_t)s->column_matches);
}

static detail_level level_of(const char *text)
{
    if (text && strcmp(text, "summary") == 0)
        return LEVEL_SUMMARY;
    if (text && strcmp(text, "full") == 0)
        return LEVEL_FULL;
    return LEVEL_NAMES;
}

int tools_schema_search_objects(tool_env *env, const json_t *args, tool_output *out,
                                dbmcp_error *err)
{
    search_state s = {0};
    s.pattern = json_string_value(json_object_get(args, "pattern"));
    s.level = level_of(json_string_value(json_object_get(args, "detail_level")));
    json_int_t limit = int_arg(
        args, "limit", s.level == LEVEL_FULL ? SEARCH_FULL_DEFAULT_LIMIT : SEARCH_DEFAULT_LIMIT);
    s.limit = limit > 0 ? (size_t)limit : 1;
    if (!s.pattern || !*s.pattern)
        return dbmcp_error_set(err, DBMCP_EINVAL, "pattern must not be empty");
    store *db = begin_call(env, err);
    if (!db)
        return err->code;
    int rc = search_collect(env, db, &s, err);
    text_out t = {0};
    json_t *full_tables = NULL;
    if (!rc)
        rc = text_open(&t, err);
    if (!rc && s.table_matches + s.column_matches == 0) {
        fputs("No table, view or column name matches '", t.f);
        put_text(t.f, s.pattern, 200);
        fprintf(t.f, "' (%s match).\n", match_mode(s.pattern));
    } else if (!rc && s.level == LEVEL_NAMES) {
        render_names(t.f, &s);
    } else if (!rc && s.level == LEVEL_SUMMARY) {
        render_summary(t.f, &s);
    } else if (!rc) {
        full_tables = json_array();
        rc = render_full(db, t.f, &s, full_tables, err);
    }
    if (!rc) {
        put_more(t.f, &s);
        text_finish(&t, out);
        out->structured = search_json(&s, full_tables);
        env->rows = (int64_t)(s.tables_shown + s.columns_shown);
    } else {
        text_discard(&t);
        json_decref(full_tables);
    }
    search_free(&s);
    end_call(db);
    return rc;
}
