/*
 * report_draft.c — normalising audited SQL and drafting report tools from
 * it (see report_draft.h). One tokenizer feeds both: the normaliser
 * re-joins tokens canonically; the drafter walks them with a stack of
 * parenthesis frames that remembers which clause each level is in and
 * whether it is a function call, an IN list or a group, and names each
 * literal it replaces after the column it is compared with.
 */
#include "tools/report_draft.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- tokens ------------------------------------------------------------------ */

typedef enum tok_kind {
    TOK_WORD,   /* keyword or unquoted identifier */
    TOK_QIDENT, /* "x", `x`, [x] */
    TOK_STRING, /* 'x' */
    TOK_NUMBER, /* 12, 1.5e3, 0x1F, -3 (sign absorbed) */
    TOK_BLOB,   /* x'00ff' */
    TOK_PARAM,  /* ?, ?1, :x, @x, $x */
    TOK_OP,     /* operators */
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_COMMA,
    TOK_DOT,
    TOK_OTHER /* ; and anything unexpected */
} tok_kind;

typedef struct sql_token {
    tok_kind kind;
    const char *s; /* into the SQL text */
    size_t len;
} sql_token;

typedef struct token_list {
    sql_token *v;
    size_t n, cap;
} token_list;

static int push_token(token_list *t, tok_kind kind, const char *s, size_t len)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        sql_token *grown = realloc(t->v, cap * sizeof *grown);
        if (!grown)
            return -1;
        t->v = grown;
        t->cap = cap;
    }
    t->v[t->n++] = (sql_token){kind, s, len};
    return 0;
}

static int word_start(unsigned char c)
{
    return isalpha(c) || c == '_' || c >= 0x80;
}

static int word_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* End of a quoted run starting at p (closing char close; doubled = escape). */
static const char *quoted_end(const char *p, char close)
{
    for (p++; *p; p++) {
        if (*p == close) {
            if (close != ']' && p[1] == close) {
                p++;
                continue;
            }
            return p + 1;
        }
    }
    return p;
}

static const char *number_end(const char *p)
{
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        while (isxdigit((unsigned char)*p))
            p++;
        return p;
    }
    while (isdigit((unsigned char)*p) || *p == '_')
        p++;
    if (*p == '.')
        for (p++; isdigit((unsigned char)*p);)
            p++;
    if ((*p == 'e' || *p == 'E') &&
        (isdigit((unsigned char)p[1]) ||
         ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
        p += 2;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return p;
}

static size_t operator_len(const char *p)
{
    static const char *const ops[] = {
        "->>", "||", "<=", ">=", "<>", "!=", "==", "<<", ">>", "->", NULL};
    for (int i = 0; ops[i]; i++)
        if (strncmp(p, ops[i], strlen(ops[i])) == 0)
            return strlen(ops[i]);
    return 1;
}

static const char *const keywords[] = {
    "ALL",       "AND",       "AS",           "ASC",       "BETWEEN",   "BY",       "CASE",
    "CAST",      "COLLATE",   "CROSS",        "CURRENT",   "DESC",      "DISTINCT", "ELSE",
    "END",       "ESCAPE",    "EXCEPT",       "EXISTS",    "FALSE",     "FILTER",   "FOLLOWING",
    "FROM",      "FULL",      "GLOB",         "GROUP",     "HAVING",    "IN",       "INDEXED",
    "INNER",     "INTERSECT", "IS",           "ISNULL",    "JOIN",      "LEFT",     "LIKE",
    "LIMIT",     "MATCH",     "MATERIALIZED", "NATURAL",   "NOT",       "NOTNULL",  "NULL",
    "NULLS",     "OFFSET",    "ON",           "OR",        "ORDER",     "OUTER",    "OVER",
    "PARTITION", "PRECEDING", "RANGE",        "RECURSIVE", "REGEXP",    "RIGHT",    "ROW",
    "ROWS",      "SELECT",    "THEN",         "TRUE",      "UNBOUNDED", "UNION",    "USING",
    "VALUES",    "WHEN",      "WHERE",        "WINDOW",    "WITH",      NULL};

static int word_is(const sql_token *t, const char *word)
{
    return t && t->kind == TOK_WORD && strlen(word) == t->len &&
           strncasecmp(t->s, word, t->len) == 0;
}

static int is_keyword(const sql_token *t)
{
    if (!t || t->kind != TOK_WORD)
        return 0;
    for (int i = 0; keywords[i]; i++)
        if (word_is(t, keywords[i]))
            return 1;
    return 0;
}

/* Whether a sign at this point starts an operand (so "-5" is a literal):
 * at the start, after an operator, '(' or ',', or after a keyword. */
static int operand_expected(const token_list *t)
{
    if (t->n == 0)
        return 1;
    const sql_token *prev = &t->v[t->n - 1];
    return prev->kind == TOK_OP || prev->kind == TOK_LPAREN || prev->kind == TOK_COMMA ||
           (is_keyword(prev) && !word_is(prev, "NULL") && !word_is(prev, "END") &&
            !word_is(prev, "TRUE") && !word_is(prev, "FALSE"));
}

/* Split sql into tokens; comments and whitespace are dropped. */
static int tokenize(const char *sql, token_list *t)
{
    const char *p = sql;
    while (*p) {
        unsigned char c = (unsigned char)*p;
        const char *end;
        tok_kind kind;
        if (isspace(c)) {
            p++;
            continue;
        } else if (c == '-' && p[1] == '-') {
            end = strchr(p, '\n');
            p = end ? end : p + strlen(p);
            continue;
        } else if (c == '/' && p[1] == '*') {
            end = strstr(p + 2, "*/");
            p = end ? end + 2 : p + strlen(p);
            continue;
        } else if ((c == 'x' || c == 'X') && p[1] == '\'') {
            kind = TOK_BLOB, end = quoted_end(p + 1, '\'');
        } else if (c == '\'') {
            kind = TOK_STRING, end = quoted_end(p, '\'');
        } else if (c == '"' || c == '`' || c == '[') {
            kind = TOK_QIDENT, end = quoted_end(p, c == '[' ? ']' : (char)c);
        } else if (isdigit(c) || (c == '.' && isdigit((unsigned char)p[1]))) {
            kind = TOK_NUMBER, end = number_end(p);
        } else if (word_start(c)) {
            kind = TOK_WORD;
            for (end = p + 1; word_char((unsigned char)*end);)
                end++;
        } else if (c == '?' ||
                   ((c == ':' || c == '@' || c == '$') && word_start((unsigned char)p[1]))) {
            kind = TOK_PARAM;
            for (end = p + 1;
                 word_char((unsigned char)*end) || (c == '?' && isdigit((unsigned char)*end));)
                end++;
        } else if ((c == '-' || c == '+') && operand_expected(t)) {
            const char *q = p + 1;
            while (isspace((unsigned char)*q))
                q++;
            if (isdigit((unsigned char)*q) || (*q == '.' && isdigit((unsigned char)q[1])))
                kind = TOK_NUMBER, end = number_end(q);
            else
                kind = TOK_OP, end = p + 1;
        } else if (c == '(' || c == ')' || c == ',' || c == '.' || c == ';') {
            kind = c == '('   ? TOK_LPAREN
                   : c == ')' ? TOK_RPAREN
                   : c == ',' ? TOK_COMMA
                   : c == '.' ? TOK_DOT
                              : TOK_OTHER;
            end = p + 1;
        } else {
            kind = TOK_OP, end = p + operator_len(p);
        }
        if (push_token(t, kind, p, (size_t)(end - p)))
            return -1;
        p = end;
    }
    return 0;
}

static int is_literal(const sql_token *t)
{
    return t && (t->kind == TOK_STRING || t->kind == TOK_NUMBER || t->kind == TOK_BLOB);
}

/* --- normalising -------------------------------------------------------------------- */

/* A literal or parameter at index i (false past the end). */
static int value_at(const token_list *t, size_t i)
{
    return i < t->n && (is_literal(&t->v[i]) || t->v[i].kind == TOK_PARAM);
}

char *report_sql_normalize(const char *sql)
{
    token_list t = {0};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f || tokenize(sql ? sql : "", &t)) {
        if (f)
            fclose(f);
        free(buf);
        free(t.v);
        return NULL;
    }
    const sql_token *prev = NULL;
    for (size_t i = 0; i < t.n; i++) {
        const sql_token *tok = &t.v[i];
        int literal = value_at(&t, i);
        /* "?, ?" folds into one "?": drop the comma and the second value. */
        if ((tok->kind == TOK_COMMA && i > 0 && value_at(&t, i - 1) && value_at(&t, i + 1)) ||
            (literal && i >= 2 && t.v[i - 1].kind == TOK_COMMA && value_at(&t, i - 2)))
            continue;
        int glue = !prev || tok->kind == TOK_COMMA || tok->kind == TOK_RPAREN ||
                   tok->kind == TOK_DOT || prev->kind == TOK_LPAREN || prev->kind == TOK_DOT ||
                   (tok->kind == TOK_LPAREN &&
                    (prev->kind == TOK_WORD || prev->kind == TOK_QIDENT) && !is_keyword(prev));
        if (!glue)
            fputc(' ', f);
        if (literal) {
            fputc('?', f);
        } else if (tok->kind == TOK_WORD) {
            int upper = is_keyword(tok);
            for (size_t k = 0; k < tok->len; k++) {
                unsigned char ch = (unsigned char)tok->s[k];
                fputc(ch < 0x80 ? (upper ? toupper(ch) : tolower(ch)) : ch, f);
            }
        } else {
            fwrite(tok->s, 1, tok->len, f);
        }
        prev = tok;
    }
    fclose(f);
    free(t.v);
    return buf;
}

/* --- drafting ------------------------------------------------------------------------ */

typedef enum clause {
    CLAUSE_NONE,
    CLAUSE_SELECT,
    CLAUSE_FROM,
    CLAUSE_WHERE,
    CLAUSE_GROUP,
    CLAUSE_HAVING,
    CLAUSE_ORDER,
    CLAUSE_LIMIT,
    CLAUSE_OFFSET,
    CLAUSE_ON,
    CLAUSE_OTHER
} clause;

typedef enum paren_kind { PAREN_TOP, PAREN_GROUP, PAREN_FUNC, PAREN_LIST } paren_kind;

#define DRAFT_MAX_DEPTH 64

typedef struct frame {
    clause clause;
    paren_kind kind;
    size_t open; /* token index of its '(' (PAREN_LIST: for the IN operand) */
} frame;

static clause clause_of(const sql_token *t)
{
    static const struct {
        const char *word;
        clause c;
    } map[] = {{"SELECT", CLAUSE_SELECT},   {"FROM", CLAUSE_FROM},    {"JOIN", CLAUSE_FROM},
               {"WHERE", CLAUSE_WHERE},     {"GROUP", CLAUSE_GROUP},  {"HAVING", CLAUSE_HAVING},
               {"ORDER", CLAUSE_ORDER},     {"LIMIT", CLAUSE_LIMIT},  {"OFFSET", CLAUSE_OFFSET},
               {"ON", CLAUSE_ON},           {"WINDOW", CLAUSE_OTHER}, {"VALUES", CLAUSE_OTHER},
               {"USING", CLAUSE_OTHER},     {"UNION", CLAUSE_OTHER},  {"EXCEPT", CLAUSE_OTHER},
               {"INTERSECT", CLAUSE_OTHER}, {NULL, CLAUSE_NONE}};
    for (int i = 0; map[i].word; i++)
        if (word_is(t, map[i].word))
            return map[i].c;
    return CLAUSE_NONE;
}

static int filtering(clause c)
{
    return c == CLAUSE_WHERE || c == CLAUSE_HAVING || c == CLAUSE_ON || c == CLAUSE_LIMIT ||
           c == CLAUSE_OFFSET;
}

static int is_comparison(const sql_token *t)
{
    static const char *const ops[] = {"=", "==", "!=", "<>", "<", "<=", ">", ">=", NULL};
    if (!t || t->kind != TOK_OP)
        return 0;
    for (int i = 0; ops[i]; i++)
        if (strlen(ops[i]) == t->len && strncmp(ops[i], t->s, t->len) == 0)
            return 1;
    return 0;
}

/* An identifier token usable as a name (not a keyword, not a function). */
static int is_name_token(const token_list *t, size_t i)
{
    const sql_token *tok = &t->v[i];
    if (tok->kind == TOK_QIDENT)
        return 1;
    if (tok->kind != TOK_WORD || is_keyword(tok))
        return 0;
    return !(i + 1 < t->n && (t->v[i + 1].kind == TOK_LPAREN || t->v[i + 1].kind == TOK_DOT));
}

/* Index of the '(' matching the ')' at i, or SIZE_MAX. */
static size_t matching_open(const token_list *t, size_t i)
{
    int depth = 0;
    for (size_t k = i + 1; k-- > 0;) {
        if (t->v[k].kind == TOK_RPAREN)
            depth++;
        else if (t->v[k].kind == TOK_LPAREN && --depth == 0)
            return k;
    }
    return (size_t)-1;
}

/* The operand ending just before token i: an identifier, or the first
 * identifier inside a parenthesised expression such as
 * strftime('%Y', sale_date). NULL when there is none. */
static const sql_token *operand_before(const token_list *t, size_t i)
{
    if (i == 0)
        return NULL;
    size_t k = i - 1;
    if (word_is(&t->v[k], "NOT") && k > 0)
        k--;
    if (is_name_token(t, k))
        return &t->v[k];
    if (t->v[k].kind != TOK_RPAREN)
        return NULL;
    size_t open = matching_open(t, k);
    for (size_t j = open + 1; open != (size_t)-1 && j < k; j++)
        if (is_name_token(t, j))
            return &t->v[j];
    return NULL;
}

/* A parameter name from an identifier: lower-case [a-z0-9_], no leading
 * underscore (those are identity parameters), at most 48 characters. */
static void name_from(const sql_token *tok, char *out, size_t size)
{
    const char *s = tok->s;
    size_t len = tok->len;
    if (tok->kind == TOK_QIDENT && len >= 2)
        s++, len -= 2;
    size_t n = 0;
    for (size_t i = 0; i < len && n + 1 < size && n < 48; i++) {
        unsigned char c = (unsigned char)s[i];
        char o = isalnum(c) && c < 0x80 ? (char)tolower(c) : '_';
        if (o == '_' && (n == 0 || out[n - 1] == '_'))
            continue;
        out[n++] = o;
    }
    while (n && out[n - 1] == '_')
        n--;
    out[n] = '\0';
    if (n == 0 || isdigit((unsigned char)out[0])) {
        char tmp[64];
        snprintf(tmp, sizeof tmp, "p_%s", out);
        snprintf(out, size, "%s", tmp);
    }
}

typedef struct literal_value {
    json_t *value;    /* parsed literal (new ref) */
    const char *type; /* "integer", "number" or "string" */
} literal_value;

static int parse_literal(const sql_token *tok, literal_value *lv)
{
    if (tok->kind == TOK_STRING) {
        char *s = malloc(tok->len), *o = s;
        if (!s)
            return -1;
        for (size_t i = 1; i + 1 < tok->len; i++) {
            *o++ = tok->s[i];
            if (tok->s[i] == '\'' && tok->s[i + 1] == '\'')
                i++;
        }
        *o = '\0';
        lv->value = json_string(s);
        free(s);
        lv->type = "string";
        return lv->value ? 0 : -1;
    }
    char text[128];
    size_t n = 0;
    for (size_t i = 0; i < tok->len && n + 1 < sizeof text; i++)
        if (!isspace((unsigned char)tok->s[i]) && tok->s[i] != '_' && tok->s[i] != '+')
            text[n++] = tok->s[i];
    text[n] = '\0';
    int neg = text[0] == '-';
    const char *digits = text + neg;
    char *end;
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        long long v = strtoll(digits, &end, 16);
        lv->value = json_integer(neg ? -v : v);
        lv->type = "integer";
    } else if (!strpbrk(text, ".eE")) {
        long long v = strtoll(text, &end, 10);
        lv->value = json_integer(v);
        lv->type = "integer";
    } else {
        lv->value = json_real(strtod(text, &end));
        lv->type = "number";
    }
    return lv->value ? 0 : -1;
}

static int is_iso_date(const json_t *v)
{
    const char *s = json_string_value(v);
    if (!s || strlen(s) != 10)
        return 0;
    for (int i = 0; i < 10; i++)
        if (i == 4 || i == 7 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

/* What a literal is compared with: the base name and how. */
typedef struct literal_role {
    char name[64];       /* base parameter name; "" = none found */
    const char *suffix;  /* "", "_min", "_max", "_from", "_to" */
    const char *phrase;  /* for the description: "region =", "LIMIT", … */
    char phrase_buf[96]; /* storage for phrase */
} literal_role;

static void role_set(literal_role *r, const sql_token *operand, const char *op, size_t op_len)
{
    name_from(operand, r->name, sizeof r->name);
    snprintf(r->phrase_buf, sizeof r->phrase_buf, "%.*s %.*s", (int)operand->len, operand->s,
             (int)op_len, op);
    r->phrase = r->phrase_buf;
}

/* The bound direction of an operator: -1 upper bound (<, <=), 1 lower. */
static int bound_of(const sql_token *op)
{
    if (op->len >= 1 && op->s[0] == '<' && !(op->len == 2 && op->s[1] == '>'))
        return -1;
    if (op->len >= 1 && op->s[0] == '>')
        return 1;
    return 0;
}

static const char *bound_suffix(int bound, int is_string)
{
    if (bound < 0)
        return is_string ? "_to" : "_max";
    if (bound > 0)
        return is_string ? "_from" : "_min";
    return "";
}

/* Work out the role of the literal at i in frame f. */
static void literal_role_of(const token_list *t, size_t i, const frame *f, literal_role *r)
{
    memset(r, 0, sizeof *r);
    r->suffix = "";
    const sql_token *lit = &t->v[i], *prev = i ? &t->v[i - 1] : NULL;
    int is_string = lit->kind == TOK_STRING;
    const sql_token *operand;
    if (prev && is_comparison(prev) && (operand = operand_before(t, i - 1))) {
        role_set(r, operand, prev->s, prev->len);
        r->suffix = bound_suffix(bound_of(prev), is_string);
    } else if (prev && (word_is(prev, "LIKE") || word_is(prev, "GLOB") || word_is(prev, "IS")) &&
               (operand = operand_before(t, i - 1))) {
        role_set(r, operand, prev->s, prev->len);
    } else if (prev && word_is(prev, "BETWEEN") && (operand = operand_before(t, i - 1))) {
        role_set(r, operand, "BETWEEN", 7);
        r->suffix = bound_suffix(1, is_string);
    } else if (prev && word_is(prev, "AND") && i >= 3 && is_literal(&t->v[i - 2]) &&
               word_is(&t->v[i - 3], "BETWEEN") && (operand = operand_before(t, i - 3))) {
        role_set(r, operand, "BETWEEN … AND", strlen("BETWEEN … AND"));
        r->suffix = bound_suffix(-1, is_string);
    } else if (f->kind == PAREN_LIST && f->open > 0 && (operand = operand_before(t, f->open - 1))) {
        role_set(r, operand, "IN", 2);
    } else if (prev &&
               (word_is(prev, "LIMIT") || (prev->kind == TOK_COMMA && f->clause == CLAUSE_LIMIT))) {
        snprintf(r->name, sizeof r->name, "limit");
        r->phrase = "LIMIT";
    } else if (prev && word_is(prev, "OFFSET")) {
        snprintf(r->name, sizeof r->name, "offset");
        r->phrase = "OFFSET";
    } else if (i + 2 < t->n && is_comparison(&t->v[i + 1]) && is_name_token(t, i + 2)) {
        role_set(r, &t->v[i + 2], t->v[i + 1].s, t->v[i + 1].len);
        r->suffix = bound_suffix(-bound_of(&t->v[i + 1]), is_string);
    }
}

/* A parameter name not yet in properties: base + suffix, then _2, _3 … */
static void unique_name(const json_t *properties, const char *base, const char *suffix, char *out,
                        size_t size)
{
    snprintf(out, size, "%s%s", base, suffix);
    for (int k = 2; json_object_get(properties, out); k++)
        snprintf(out, size, "%s%s_%d", base, suffix, k);
}

static json_t *param_schema(const literal_role *r, const literal_value *lv)
{
    char *shown = json_dumps(lv->value, JSON_ENCODE_ANY);
    char description[256];
    if (r->phrase)
        snprintf(description, sizeof description, "%s this value (the audited query used %.80s).",
                 r->phrase, shown ? shown : "?");
    else
        snprintf(description, sizeof description, "A literal of the audited query (it used %.80s).",
                 shown ? shown : "?");
    free(shown);
    json_t *s = json_pack("{s:s, s:s, s:O, s:[O]}", "type", lv->type, "description", description,
                          "default", lv->value, "examples", lv->value);
    if (is_iso_date(lv->value))
        json_object_set_new(s, "format", json_string("date"));
    if (r->phrase && (strcmp(r->phrase, "LIMIT") == 0 || strcmp(r->phrase, "OFFSET") == 0))
        json_object_set_new(s, "minimum", json_integer(0));
    return s;
}

/* Skip a leading "dbmcp call_id=…" tag comment (and the space after it). */
static const char *skip_tag(const char *sql)
{
    const char *p = sql;
    while (isspace((unsigned char)*p))
        p++;
    if (strncmp(p, "/* dbmcp ", 9) != 0)
        return sql;
    const char *end = strstr(p, "*/");
    if (!end)
        return sql;
    for (p = end + 2; isspace((unsigned char)*p);)
        p++;
    return p;
}

void report_draft_free(report_draft *d)
{
    if (!d)
        return;
    free(d->sql);
    json_decref(d->input_schema);
    memset(d, 0, sizeof *d);
}

/* Open a frame for the '(' at i; -1 past DRAFT_MAX_DEPTH. */
static int push_frame(frame *stack, int *depth, const token_list *t, size_t i)
{
    const sql_token *prev = i ? &t->v[i - 1] : NULL;
    frame f = {stack[*depth].clause, PAREN_GROUP, i};
    if (prev && word_is(prev, "IN"))
        f.kind = PAREN_LIST;
    else if (prev && (word_is(prev, "CAST") || word_is(prev, "FILTER") || word_is(prev, "OVER") ||
                      ((prev->kind == TOK_WORD || prev->kind == TOK_QIDENT) && !is_keyword(prev))))
        f.kind = PAREN_FUNC;
    if (*depth + 1 >= DRAFT_MAX_DEPTH)
        return -1;
    stack[++*depth] = f;
    return 0;
}

/* The literal at i becomes a parameter: add its schema, write ":name". */
static int replace_literal(const token_list *t, size_t i, const frame *f, json_t *properties,
                           int *counter, FILE *sql_out)
{
    literal_role role;
    literal_role_of(t, i, f, &role);
    literal_value lv = {0};
    if (parse_literal(&t->v[i], &lv))
        return -1;
    char base[64], name[80];
    if (role.name[0])
        snprintf(base, sizeof base, "%s", role.name);
    else
        snprintf(base, sizeof base, "p%d", ++*counter);
    unique_name(properties, base, role.name[0] ? role.suffix : "", name, sizeof name);
    json_object_set_new(properties, name, param_schema(&role, &lv));
    json_decref(lv.value);
    fprintf(sql_out, ":%s", name);
    return 0;
}

int report_draft_from_sql(const char *sql, report_draft *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    const char *text = skip_tag(sql ? sql : "");
    token_list t = {0};
    if (tokenize(text, &t)) {
        free(t.v);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    json_t *properties = json_object();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    frame stack[DRAFT_MAX_DEPTH] = {{CLAUSE_NONE, PAREN_TOP, 0}};
    int depth = 0, counter = 0, too_deep = 0, rc = f && properties ? 0 : -1;
    const char *copied = text; /* text up to here is written */
    for (size_t i = 0; !rc && i < t.n; i++) {
        const sql_token *tok = &t.v[i];
        clause c = clause_of(tok);
        if (c != CLAUSE_NONE)
            stack[depth].clause = c;
        if (tok->kind == TOK_LPAREN) {
            too_deep = push_frame(stack, &depth, &t, i) != 0;
            if (too_deep)
                break;
        } else if (tok->kind == TOK_RPAREN) {
            depth -= depth > 0;
        } else if ((tok->kind == TOK_STRING || tok->kind == TOK_NUMBER) &&
                   stack[depth].kind != PAREN_FUNC && filtering(stack[depth].clause)) {
            fwrite(copied, 1, (size_t)(tok->s - copied), f);
            rc = replace_literal(&t, i, &stack[depth], properties, &counter, f);
            copied = tok->s + tok->len;
            out->n_params++;
        }
    }
    if (f) {
        if (!rc)
            fputs(copied, f);
        fclose(f);
    }
    free(t.v);
    if (rc || too_deep) {
        free(buf);
        json_decref(properties);
        return too_deep ? dbmcp_error_set(err, DBMCP_EINVAL,
                                          "the query nests parentheses more than %d deep; write "
                                          "this report tool by hand (tools add-report)",
                                          DRAFT_MAX_DEPTH - 1)
                        : dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    out->sql = buf;
    out->input_schema = json_pack("{s:s, s:o, s:b}", "type", "object", "properties", properties,
                                  "additionalProperties", 0);
    return 0;
}
