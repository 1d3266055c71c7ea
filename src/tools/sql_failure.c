/*
 * sql_failure.c — the agent's sentence for failed SQL on the query
 * connection (see sql_failure.h for the rules that keep it from leaking).
 *
 * The statement's text is read with admission's lexer (sql_admission.h)
 * to find the tables it names after FROM and JOIN; the names the caller
 * can see come from store/introspect.h, never from the engine's message.
 * Suggestions: names within a small edit distance (ASCII case folded) of
 * the unknown one, nearest first, ties in byte order.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text_safe.h"
#include "core/textnorm.h"
#include "store/introspect.h"
#include "tools/sql_failure.h"

/* Tables named in one statement that are looked up, at most. */
#define FROM_NAMES_MAX 32
/* Tokens of a statement read to find them, at most. */
#define TOKENS_MAX 20000
/* Time limit of the schema reads that explain one failure. */
#define EXPLAIN_TIME_LIMIT_MS 5000
/* Columns listed when none is close to an unknown one, at most. */
#define COLUMNS_LISTED_MAX 12
/* Tables whose columns are searched for a close column name, at most. */
#define COLUMN_TABLES_MAX 16

/* A table the statement names: its name as the engine resolves it (for
 * lookup) and as written (for the message). */
typedef struct from_name {
    char resolved[STORE_FAILURE_NAME_MAX]; /* schema discovery's spelling */
    char written[STORE_FAILURE_NAME_MAX];  /* the text of the reference */
} from_name;

typedef struct statement_tables {
    from_name v[FROM_NAMES_MAX];
    size_t n;
    char ctes[FROM_NAMES_MAX][STORE_FAILURE_NAME_MAX]; /* WITH names: not tables */
    size_t n_ctes;
} statement_tables;

/* --- reading the statement -------------------------------------------------------- */

typedef struct token_list {
    const char *sql;
    size_t len;
    sql_dialect dialect;
    sql_token *v; /* owned */
    size_t n;
} token_list;

static int tokens_read(token_list *t, const char *sql, sql_dialect dialect)
{
    t->sql = sql;
    t->len = strlen(sql);
    t->dialect = dialect;
    t->n = 0;
    t->v = malloc(64 * sizeof *t->v);
    size_t cap = 64, pos = 0;
    if (!t->v)
        return -1;
    sql_token tok;
    while (t->n < TOKENS_MAX) {
        sql_token_kind k = sql_dialect_next_token(dialect, sql, t->len, &pos, &tok);
        if (k == SQL_TOKEN_END || k == SQL_TOKEN_UNTERMINATED)
            break;
        if (t->n == cap) {
            sql_token *grown = realloc(t->v, cap * 2 * sizeof *grown);
            if (!grown)
                break;
            t->v = grown;
            cap *= 2;
        }
        t->v[t->n++] = tok;
    }
    return 0;
}

static int is_word(const token_list *t, size_t i, const char *word)
{
    return i < t->n && t->v[i].kind == SQL_TOKEN_WORD && strlen(word) == t->v[i].length &&
           strncasecmp(t->sql + t->v[i].offset, word, t->v[i].length) == 0;
}

static int is_punct(const token_list *t, size_t i, char c)
{
    return i < t->n && t->v[i].length == 1 && t->sql[t->v[i].offset] == c &&
           (t->v[i].kind == SQL_TOKEN_OPERATOR || t->v[i].kind == SQL_TOKEN_LPAREN ||
            t->v[i].kind == SQL_TOKEN_RPAREN);
}

static int is_name(const token_list *t, size_t i)
{
    return i < t->n && (t->v[i].kind == SQL_TOKEN_WORD || t->v[i].kind == SQL_TOKEN_QUOTED_NAME);
}

/* Past the parenthesised group opening at i (or i when none opens). */
static size_t past_parens(const token_list *t, size_t i)
{
    if (!is_punct(t, i, '('))
        return i;
    int depth = 0;
    for (; i < t->n; i++) {
        if (t->v[i].kind == SQL_TOKEN_LPAREN)
            depth++;
        else if (t->v[i].kind == SQL_TOKEN_RPAREN && --depth == 0)
            return i + 1;
    }
    return i;
}

/* Words that end a table reference instead of naming its alias. */
static int ends_reference(const token_list *t, size_t i)
{
    static const char *const words[] = {
        "where",   "join",   "left",   "right",  "inner",     "outer",       "cross",
        "natural", "full",   "on",     "using",  "group",     "order",       "limit",
        "having",  "window", "union",  "except", "intersect", "offset",      "fetch",
        "for",     "not",    "select", "from",   "values",    "tablesample", "indexed"};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (is_word(t, i, words[k]))
            return 1;
    return 0;
}

/* The part of a name token as the engine resolves it: PostgreSQL folds a
 * bare word to lower case. */
static void resolved_part(const token_list *t, size_t i, char *out, size_t size)
{
    sql_dialect_token_name(t->dialect, t->sql, t->len, &t->v[i], out, size);
    if (t->dialect == SQL_DIALECT_POSTGRES && t->v[i].kind == SQL_TOKEN_WORD)
        for (char *p = out; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
}

/* Read the (qualified) name at *i into n; *i moves past it. */
static void read_reference(const token_list *t, size_t *i, from_name *n)
{
    char parts[3][STORE_FAILURE_NAME_MAX];
    size_t n_parts = 0, first = *i, last = *i;
    while (is_name(t, *i) && n_parts < 3) {
        resolved_part(t, *i, parts[n_parts++], sizeof parts[0]);
        last = *i;
        if (!is_punct(t, *i + 1, '.') || !is_name(t, *i + 2)) {
            (*i)++;
            break;
        }
        *i += 2;
    }
    /* The default schema's qualifier names the same table without it. */
    size_t from = 0;
    if (n_parts == 2 && ((t->dialect == SQL_DIALECT_POSTGRES && strcmp(parts[0], "public") == 0) ||
                         (t->dialect == SQL_DIALECT_SQLITE && strcasecmp(parts[0], "main") == 0)))
        from = 1;
    n->resolved[0] = '\0';
    for (size_t k = from; k < n_parts; k++) {
        size_t used = strlen(n->resolved);
        snprintf(n->resolved + used, sizeof n->resolved - used, "%s%s", k > from ? "." : "",
                 parts[k]);
    }
    size_t start = t->v[first].offset, end = t->v[last].offset + t->v[last].length;
    snprintf(n->written, sizeof n->written, "%.*s", (int)(end - start), t->sql + start);
}

/* The names a WITH defines (name [(columns)] AS [NOT] [MATERIALIZED] (…)). */
static void collect_ctes(const token_list *t, statement_tables *s)
{
    for (size_t i = 0; i + 2 < t->n && s->n_ctes < FROM_NAMES_MAX; i++) {
        if (!is_name(t, i) || !(i == 0 || is_word(t, i - 1, "with") ||
                                is_word(t, i - 1, "recursive") || is_punct(t, i - 1, ',')))
            continue;
        size_t j = past_parens(t, i + 1);
        if (!is_word(t, j, "as"))
            continue;
        j++;
        if (is_word(t, j, "not"))
            j++;
        if (is_word(t, j, "materialized"))
            j++;
        if (is_punct(t, j, '('))
            resolved_part(t, i, s->ctes[s->n_ctes++], sizeof s->ctes[0]);
    }
}

static int is_cte(const statement_tables *s, const from_name *n, sql_dialect dialect)
{
    for (size_t k = 0; k < s->n_ctes; k++)
        if (dialect == SQL_DIALECT_POSTGRES ? strcmp(s->ctes[k], n->resolved) == 0
                                            : strcasecmp(s->ctes[k], n->resolved) == 0)
            return 1;
    return 0;
}

/* The table references after FROM, JOIN and a first TABLE, in text
 * order: a list `a x, b AS y` gives both; a subquery, a table function
 * (name followed by '(') and a WITH name give none. */
static void collect_tables(const token_list *t, statement_tables *s)
{
    collect_ctes(t, s);
    for (size_t i = 0; i < t->n && s->n < FROM_NAMES_MAX; i++) {
        int table_statement =
            i == 0 && t->dialect == SQL_DIALECT_POSTGRES && is_word(t, i, "table");
        if (!is_word(t, i, "from") && !is_word(t, i, "join") && !table_statement)
            continue;
        size_t j = i + 1;
        for (;;) {
            if (is_word(t, j, "only") || is_word(t, j, "lateral"))
                j++;
            if (!is_name(t, j) || ends_reference(t, j))
                break;
            from_name n;
            read_reference(t, &j, &n);
            if (is_punct(t, j, '(')) /* a table function: json_each(…), generate_series(…) */
                break;
            if (!is_cte(s, &n, t->dialect) && s->n < FROM_NAMES_MAX)
                s->v[s->n++] = n;
            if (is_word(t, j, "as"))
                j++;
            if (is_name(t, j) && !ends_reference(t, j))
                j = past_parens(t, j + 1); /* the alias and its column list */
            if (!is_punct(t, j, ','))
                break;
            j++;
        }
    }
}

/* --- what the caller can see ------------------------------------------------------- */

typedef struct visible {
    introspect_table *tables; /* owned */
    size_t n;
    int known; /* the list was read */
} visible;

static int same_name(sql_dialect dialect, const char *a, const char *b)
{
    return dialect == SQL_DIALECT_POSTGRES ? strcmp(a, b) == 0 : strcasecmp(a, b) == 0;
}

static const introspect_table *visible_find(const visible *v, sql_dialect dialect, const char *name)
{
    for (size_t i = 0; i < v->n; i++)
        if (same_name(dialect, v->tables[i].name, name))
            return &v->tables[i];
    /* SQLite lists an attached database's tables by their bare names
     * (its hidden ones are dbmcp_* and sqlite_*, which admission refuses
     * whatever qualifies them); PostgreSQL lists "schema.name": there
     * only an exact match counts. */
    const char *dot = strrchr(name, '.');
    return dialect == SQL_DIALECT_SQLITE && dot ? visible_find(v, dialect, dot + 1) : NULL;
}

/* --- close names ------------------------------------------------------------------- */

typedef struct suggestions {
    char shown[SQL_FAILURE_SUGGESTIONS][2 * STORE_FAILURE_NAME_MAX];
    size_t distance[SQL_FAILURE_SUGGESTIONS];
    size_t n;
} suggestions;

/* How far a name may be from the unknown one to be offered. */
static size_t tolerance(const char *unknown)
{
    size_t n = strlen(unknown);
    return n <= 4 ? 1 : n <= 8 ? 2 : 3;
}

/* Offer candidate (compared) as shown when close enough to unknown. */
static void suggest(suggestions *s, const char *unknown, const char *candidate, const char *shown)
{
    if (strcmp(unknown, candidate) == 0) /* the name itself, e.g. on an allowlist */
        return;
    size_t d = text_edit_distance(unknown, candidate, 1);
    if (d == SIZE_MAX || d > tolerance(unknown))
        return;
    for (size_t k = 0; k < s->n; k++)
        if (strcmp(s->shown[k], shown) == 0)
            return;
    size_t at = s->n;
    while (at > 0 && (s->distance[at - 1] > d ||
                      (s->distance[at - 1] == d && strcmp(s->shown[at - 1], shown) > 0)))
        at--;
    if (at >= SQL_FAILURE_SUGGESTIONS)
        return;
    size_t last = s->n < SQL_FAILURE_SUGGESTIONS ? s->n : SQL_FAILURE_SUGGESTIONS - 1;
    for (size_t k = last; k > at; k--) {
        memcpy(s->shown[k], s->shown[k - 1], sizeof s->shown[k]);
        s->distance[k] = s->distance[k - 1];
    }
    snprintf(s->shown[at], sizeof s->shown[at], "%s", shown);
    s->distance[at] = d;
    if (s->n < SQL_FAILURE_SUGGESTIONS)
        s->n++;
}

/* The last part of a (qualified, maybe quoted) name as written: "p.nme"
 * gives nme, "t"."Nme" gives Nme. */
static void last_part(const char *name, sql_dialect dialect, char *out, size_t size)
{
    token_list t;
    out[0] = '\0';
    if (tokens_read(&t, name, dialect))
        return;
    for (size_t i = 0; i < t.n; i++)
        if (is_name(&t, i))
            sql_dialect_token_name(dialect, name, t.len, &t.v[i], out, size);
    if (!out[0])
        snprintf(out, size, "%s", name);
    free(t.v);
}

/* --- the sentence ------------------------------------------------------------------ */

/* name escaped for the agent and cut (malloc'd, or NULL). */
static char *shown_name(const char *name)
{
    char *escaped = text_safe_escape(name ? name : "");
    char *bounded = escaped ? text_safe_bound(escaped, SQL_FAILURE_NAME_SHOWN, 0) : NULL;
    free(escaped);
    return bounded;
}

typedef struct sentence {
    char *buf;
    size_t size;
} sentence;

static void say(sentence *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(sentence *s, const char *fmt, ...)
{
    size_t used = strlen(s->buf);
    if (used + 1 >= s->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->buf + used, s->size - used, fmt, ap);
    va_end(ap);
}

/* name in double quotes (escaped, cut); a name written "quoted" keeps its
 * own. */
static void say_name(sentence *s, const char *name)
{
    char *shown = shown_name(name);
    const char *q = name && name[0] == '"' ? "" : "\"";
    say(s, "%s%s%s", q, shown ? shown : "", q);
    free(shown);
}

static void say_suggestions(sentence *s, const suggestions *sg, const char *what)
{
    if (!sg->n)
        return;
    say(s, ". Close %s names you can query: ", what);
    for (size_t k = 0; k < sg->n; k++) {
        char *shown = shown_name(sg->shown[k]);
        say(s, "%s%s", k ? ", " : "", shown ? shown : "");
        free(shown);
    }
}

/* The tail for SQL the agent did not write. */
static void say_operator(sentence *s, const sql_failure_context *c)
{
    if (c->operator_sql)
        say(s, " (in the operator's SQL, which only they can fix)");
}

static void explain_unknown_table(sentence *s, const char *written, const visible *v,
                                  const sql_failure_context *c)
{
    char unknown[STORE_FAILURE_NAME_MAX];
    last_part(written, c->dialect, unknown, sizeof unknown);
    suggestions sg = {0};
    for (size_t i = 0; i < v->n; i++) {
        const char *name = v->tables[i].name, *dot = strrchr(name, '.');
        suggest(&sg, unknown, dot ? dot + 1 : name, name);
    }
    say(s, "Unknown table ");
    say_name(s, written);
    say_suggestions(s, &sg, "table");
    say_operator(s, c);
    if (!c->operator_sql)
        say(s, ". list_tables shows the tables you can query");
}

static void explain_unknown_column(store *db, sentence *s, const char *written,
                                   const statement_tables *st, const visible *v,
                                   const sql_failure_context *c)
{
    char unknown[STORE_FAILURE_NAME_MAX];
    last_part(written, c->dialect, unknown, sizeof unknown);
    suggestions sg = {0};
    size_t searched = 0, listed = 0;
    char all[320] = ""; /* every column, when the query's tables have few */
    for (size_t i = 0; i < st->n && searched < COLUMN_TABLES_MAX; i++) {
        const introspect_table *table = visible_find(v, c->dialect, st->v[i].resolved);
        introspect_column *cols = NULL;
        size_t n = 0;
        dbmcp_error ignored;
        if (!table || introspect_columns(db, table, &cols, &n, &ignored))
            continue;
        searched++;
        for (size_t k = 0; k < n; k++) {
            char shown[2 * STORE_FAILURE_NAME_MAX];
            snprintf(shown, sizeof shown, "%s (%s)", cols[k].name, table->name);
            suggest(&sg, unknown, cols[k].name, st->n > 1 ? shown : cols[k].name);
            char *name = shown_name(st->n > 1 ? shown : cols[k].name);
            size_t used = strlen(all);
            if (name && listed++ < COLUMNS_LISTED_MAX)
                snprintf(all + used, sizeof all - used, "%s%s", used ? ", " : "", name);
            free(name);
        }
        introspect_column_array_free(cols, n);
    }
    say(s, "Unknown column ");
    say_name(s, written);
    say_suggestions(s, &sg, "column");
    if (!sg.n && listed && listed <= COLUMNS_LISTED_MAX && strlen(all) < sizeof all - 1)
        say(s, ". The columns you can query there: %s", all);
    say_operator(s, c);
    if (!c->operator_sql)
        say(s, ". describe_table shows a table's columns");
}

static void explain_unknown_function(sentence *s, const char *name, const sql_failure_context *c)
{
    suggestions sg = {0};
    for (const char *p = c->functions ? c->functions : ""; *p;) {
        p += strspn(p, ", \t\n");
        size_t n = strcspn(p, ",");
        char fn[TEXT_EDIT_DISTANCE_MAX + 1];
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\n'))
            n--;
        if (n && n < sizeof fn) {
            memcpy(fn, p, n);
            fn[n] = '\0';
            suggest(&sg, name, fn, fn);
        }
        p += strcspn(p, ",");
    }
    say(s, "Unknown function ");
    say_name(s, name);
    for (size_t k = 0; k < sg.n; k++) {
        char *shown = shown_name(sg.shown[k]);
        say(s, "%s%s", k ? ", " : ". Close function names you can call: ", shown ? shown : "");
        free(shown);
    }
    say_operator(s, c);
}

/* A time or size limit: the sentence, or 0 when f is none of them. */
static int explain_limit(sentence *s, int rc, const store_failure *f, const sql_failure_context *c)
{
    if (f->kind == STORE_FAILURE_CANCELLED) {
        say(s, "The query was cancelled");
    } else if (f->kind == STORE_FAILURE_TIME_LIMIT) {
        say(s,
            "The query was stopped at the time limit of %d ms (setting %s). Filter or aggregate "
            "in SQL so it finishes sooner",
            c->timeout_ms, c->timeout_setting ? c->timeout_setting : "query.timeout_ms");
    } else if (f->kind == STORE_FAILURE_MEMORY) {
        say(s, "The query needed more memory than this server allows for one call");
        if (c->memory_bytes)
            say(s, " (%zu bytes, setting query.max_memory_bytes)", c->memory_bytes);
        say(s, ". Filter or aggregate in SQL so it holds less");
    } else if (f->kind == STORE_FAILURE_VALUE_TOO_BIG && c->value_bytes > 0) {
        say(s,
            "A value the query builds or reads is larger than this server allows (%d bytes, "
            "setting query.max_value_bytes). Select a part of it, e.g. substr(x, 1, 1000), or its "
            "length()",
            c->value_bytes);
    } else if (rc == DBMCP_ENOMEM) {
        say(s, "The server ran out of memory for this query");
    } else {
        return 0;
    }
    return 1;
}

/* The sentence for a failure that names something: 0 when f names none. */
static int explain_named(store *db, sentence *s, const store_failure *f, const statement_tables *st,
                         const visible *v, const sql_failure_context *c)
{
    switch (f->kind) {
    case STORE_FAILURE_UNKNOWN_TABLE: explain_unknown_table(s, f->name, v, c); return 1;
    case STORE_FAILURE_UNKNOWN_COLUMN: explain_unknown_column(db, s, f->name, st, v, c); return 1;
    case STORE_FAILURE_AMBIGUOUS_COLUMN:
        say(s, "Column ");
        say_name(s, f->name);
        say(s, " is in more than one table of the query: qualify it with its table or alias");
        break;
    case STORE_FAILURE_UNKNOWN_FUNCTION: explain_unknown_function(s, f->name, c); return 1;
    case STORE_FAILURE_ARGUMENTS:
        say(s, "Function ");
        say_name(s, f->name);
        say(s, c->dialect == SQL_DIALECT_POSTGRES
                   ? " does not take these arguments: check their number and types (cast one, "
                     "e.g. CAST(x AS numeric))"
                   : " was called with the wrong number of arguments");
        break;
    case STORE_FAILURE_SYNTAX:
        if (f->name[0]) {
            say(s, "Syntax error near ");
            say_name(s, f->name);
        } else {
            say(s, "Syntax error: the query ends too early (is something missing at its end?)");
        }
        break;
    case STORE_FAILURE_TYPE_MISMATCH:
        say(s, "Type mismatch");
        if (f->name[0]) {
            say(s, " near ");
            say_name(s, f->name);
        }
        say(s, ": a value or operand has the wrong type or format for how it is used. Compare "
               "like with like, or convert with CAST(x AS type)");
        return 1; /* a value's fault: in a report tool, maybe an argument's */
    case STORE_FAILURE_DIVISION_BY_ZERO:
        say(s, "Division by zero. Guard the divisor, e.g. x / NULLIF(y, 0)");
        return 1; /* a value's fault: in a report tool, maybe an argument's */
    case STORE_FAILURE_GROUPING:
        say(s, "Column ");
        say_name(s, f->name);
        say(s, " must appear in GROUP BY or be used inside an aggregate function");
        break;
    default: return 0;
    }
    say_operator(s, c);
    return 1;
}

int sql_failure_explain(store *db, int rc, const store_failure *f, const sql_failure_context *c,
                        dbmcp_error *err)
{
    char text[sizeof err->public_message];
    text[0] = '\0';
    sentence s = {text, sizeof text};
    size_t used = strlen(err->message);
    snprintf(err->message + used, sizeof err->message - used, " [class %s]",
             store_failure_kind_name(f->kind));
    if (explain_limit(&s, rc, f, c)) {
        snprintf(err->public_message, sizeof err->public_message, "%s", text);
        return rc;
    }
    token_list t;
    statement_tables *st = calloc(1, sizeof *st);
    if (!st || tokens_read(&t, c->sql ? c->sql : "", c->dialect)) {
        free(st);
        return rc; /* out of memory: the store's own sentence stays */
    }
    collect_tables(&t, st);
    free(t.v);
    visible v = {0};
    int wants_schema = st->n > 0 || f->kind == STORE_FAILURE_UNKNOWN_TABLE ||
                       f->kind == STORE_FAILURE_UNKNOWN_COLUMN;
    dbmcp_error ignored;
    store_set_time_limit(db, EXPLAIN_TIME_LIMIT_MS);
    if (wants_schema)
        v.known = introspect_list(db, &v.tables, &v.n, &ignored) == 0;
    /* A table the caller cannot see, whether it exists or not, is the
     * first thing reported: exactly what a missing one gives. */
    const from_name *hidden = NULL;
    for (size_t i = 0; v.known && !hidden && i < st->n; i++)
        if (!visible_find(&v, c->dialect, st->v[i].resolved))
            hidden = &st->v[i];
    if (hidden)
        explain_unknown_table(&s, hidden->written, &v, c);
    else if (v.known ||
             (f->kind != STORE_FAILURE_UNKNOWN_TABLE && f->kind != STORE_FAILURE_UNKNOWN_COLUMN))
        explain_named(db, &s, f, st, &v, c);
    store_set_time_limit(db, 0);
    introspect_table_array_free(v.tables, v.n);
    free(st);
    if (text[0])
        snprintf(err->public_message, sizeof err->public_message, "%s", text);
    return rc;
}
