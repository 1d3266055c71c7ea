/*
 * sql_admission.c — text admission of agent SQL: a lexer that tokenises
 * like SQLite's own tokenizer (tokenize.c) and one pass over its tokens
 * that applies the rules listed in sql_admission.h.
 *
 * Where this lexer and SQLite's could disagree, they do so only on text
 * SQLite refuses as an illegal token (a malformed blob, a lone ':'), so a
 * query that passes here and runs there was read the same way by both.
 *
 * PostgreSQL text is read by sql_lexer_pg.c and judged by the same pass,
 * with the word lists and rules of that dialect (the pg_ tables and
 * functions below); where the two dialects share a rule, they share its
 * code and its sentence.
 *
 * Function calls are found as a name (bare or quoted) followed by '('. The
 * one other thing with that shape in a query is a common table expression
 * with a column list, `WITH name(a, b) AS (…)`: a name before '(' is
 * therefore judged when its ')' is reached — followed by AS [NOT]
 * [MATERIALIZED] '(' it named a CTE, otherwise it was a call. Open '('
 * are kept on a small fixed stack; deeper than that, a name before '(' is
 * judged as a call at once (stricter, never looser).
 */
#include "tools/sql_admission.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Open parentheses tracked for CTE-versus-call decisions. */
#define ADMISSION_PAREN_STACK 128
/* Longest name quoted back in a refusal, in bytes. */
#define ADMISSION_NAME_SHOWN 64

const char sql_admission_default_functions[] =
    /* core scalar */
    "abs,char,coalesce,concat,concat_ws,glob,hex,ifnull,iif,instr,length,like,likelihood,likely,"
    "lower,ltrim,max,min,nullif,octet_length,quote,random,randomblob,replace,round,rtrim,sign,"
    "soundex,substr,substring,trim,typeof,unhex,unicode,unlikely,upper,zeroblob,"
    /* aggregate */
    "avg,count,group_concat,string_agg,sum,total,"
    /* window */
    "row_number,rank,dense_rank,percent_rank,cume_dist,ntile,lag,lead,first_value,last_value,"
    "nth_value,"
    /* date and time */
    "date,time,datetime,julianday,unixepoch,strftime,timediff,current_date,current_time,"
    "current_timestamp,"
    /* math */
    "acos,acosh,asin,asinh,atan,atan2,atanh,ceil,ceiling,cos,cosh,degrees,exp,floor,ln,log,log10,"
    "log2,mod,pi,pow,power,radians,sin,sinh,sqrt,tan,tanh,trunc,"
    /* JSON (values; json_each and json_tree are read-only table functions) */
    "json,json_array,json_array_length,json_extract,json_insert,json_object,json_quote,"
    "json_remove,json_replace,json_set,json_type,json_valid,json_group_array,json_group_object,"
    "json_each,json_tree,->,->>,"
    /* full-text search on the user's own FTS tables */
    "match,bm25,highlight,snippet,"
    /* vectors (store/sqlite_vecfn.h). Not embed(): one call runs the
     * embedder (tokenising its input, or an HTTP request), far more work
     * per row than any other function here; an operator may add it. */
    "vector_distance";

/* Never callable, whatever query.functions says: they reach files or
 * engine state. */
static const char *const never_functions[] = {
    "load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "fsdir", NULL};

/* Bare words that start a statement which changes something. */
static const char *const write_keywords[] = {
    "insert",   "update",    "delete",  "replace",   "create", "drop",
    "alter",    "vacuum",    "reindex", "analyze",   "begin",  "commit",
    "rollback", "savepoint", "release", "returning", NULL};

/* Keywords that may stand before '(' without being a function call. */
static const char *const paren_keywords[] = {
    "all",       "and",       "as",        "asc",       "between",   "by",           "case",
    "cast",      "collate",   "cross",     "current",   "default",   "desc",         "distinct",
    "do",        "else",      "end",       "escape",    "except",    "exclude",      "exists",
    "filter",    "first",     "following", "from",      "full",      "group",        "groups",
    "having",    "in",        "indexed",   "inner",     "intersect", "into",         "is",
    "isnull",    "join",      "last",      "left",      "limit",     "materialized", "natural",
    "not",       "notnull",   "null",      "nulls",     "offset",    "on",           "or",
    "order",     "outer",     "over",      "partition", "preceding", "raise",        "range",
    "recursive", "right",     "row",       "rows",      "select",    "set",          "table",
    "then",      "unbounded", "union",     "using",     "values",    "when",         "where",
    "window",    "with",      NULL};

/* Bare words that are function calls without parentheses. */
static const char *const operator_functions[] = {
    "like", "glob", "match", "regexp", "current_date", "current_time", "current_timestamp", NULL};

const char sql_admission_pg_default_functions[] =
    /* math */
    "abs,acos,acosd,acosh,asin,asind,asinh,atan,atan2,atan2d,atand,atanh,cbrt,ceil,ceiling,cos,"
    "cosd,cosh,cot,cotd,degrees,div,exp,factorial,floor,gcd,lcm,ln,log,log10,min_scale,mod,pi,"
    "power,radians,random,round,scale,sign,sin,sind,sinh,sqrt,tan,tand,tanh,trim_scale,trunc,"
    "width_bucket,"
    /* strings and bytes (not repeat, lpad, rpad, format: sql_admission.h) */
    "ascii,bit_count,bit_length,btrim,char_length,character_length,chr,concat,concat_ws,convert,"
    "convert_from,convert_to,decode,encode,get_bit,get_byte,initcap,left,length,lower,ltrim,md5,"
    "normalize,octet_length,overlay,position,quote_ident,quote_literal,quote_nullable,replace,"
    "reverse,right,rtrim,set_bit,set_byte,sha224,sha256,sha384,sha512,split_part,starts_with,"
    "string_to_array,string_to_table,strpos,substr,substring,to_hex,translate,trim,unistr,upper,"
    /* pattern matching: LIKE, ILIKE, SIMILAR TO, the ~ operators, regular expressions */
    "like,ilike,similar,~,regexp_count,regexp_instr,regexp_like,regexp_match,regexp_matches,"
    "regexp_replace,regexp_split_to_array,regexp_split_to_table,regexp_substr,"
    /* formatting and function-style casts */
    "to_char,to_date,to_number,to_timestamp,bool,date,float4,float8,int2,int4,int8,text,"
    "timestamptz,timetz,"
    /* date and time */
    "age,clock_timestamp,current_date,current_time,current_timestamp,date_bin,date_part,"
    "date_trunc,extract,isfinite,justify_days,justify_hours,justify_interval,localtime,"
    "localtimestamp,make_date,make_interval,make_time,make_timestamp,make_timestamptz,now,"
    "statement_timestamp,timeofday,timezone,transaction_timestamp,"
    /* conditional */
    "coalesce,greatest,least,nullif,num_nonnulls,num_nulls,"
    /* aggregate */
    "array_agg,avg,bit_and,bit_or,bit_xor,bool_and,bool_or,count,every,json_agg,json_object_agg,"
    "jsonb_agg,jsonb_object_agg,max,min,range_agg,range_intersect_agg,string_agg,sum,xmlagg,corr,"
    "covar_pop,covar_samp,regr_avgx,regr_avgy,regr_count,regr_intercept,regr_r2,regr_slope,"
    "regr_sxx,regr_sxy,regr_syy,stddev,stddev_pop,stddev_samp,variance,var_pop,var_samp,mode,"
    "percentile_cont,percentile_disc,grouping,"
    /* window */
    "row_number,rank,dense_rank,percent_rank,cume_dist,ntile,lag,lead,first_value,last_value,"
    "nth_value,"
    /* arrays and row sources (not array_fill) */
    "array_append,array_cat,array_dims,array_length,array_lower,array_ndims,array_position,"
    "array_positions,array_prepend,array_remove,array_replace,array_to_string,array_upper,"
    "cardinality,trim_array,unnest,generate_subscripts,generate_series,"
    /* JSON (not jsonb_pretty) */
    "array_to_json,json_array_elements,json_array_elements_text,json_array_length,"
    "json_build_array,json_build_object,json_each,json_each_text,json_extract_path,"
    "json_extract_path_text,json_object,json_object_keys,json_populate_record,"
    "json_populate_recordset,json_strip_nulls,json_to_record,json_to_recordset,json_typeof,"
    "jsonb_array_elements,jsonb_array_elements_text,jsonb_array_length,jsonb_build_array,"
    "jsonb_build_object,jsonb_each,jsonb_each_text,jsonb_extract_path,jsonb_extract_path_text,"
    "jsonb_insert,jsonb_object,jsonb_object_keys,jsonb_path_exists,jsonb_path_match,"
    "jsonb_path_query,jsonb_path_query_array,jsonb_path_query_first,jsonb_populate_record,"
    "jsonb_populate_recordset,jsonb_set,jsonb_set_lax,jsonb_strip_nulls,jsonb_to_record,"
    "jsonb_to_recordset,jsonb_typeof,row_to_json,to_json,to_jsonb,"
    /* XML values (not the *_to_xml functions, which run SQL given as text) */
    "xmlcomment,xmlconcat,xmlelement,xmlexists,xmlforest,xmlparse,xmlpi,xmlroot,xmlserialize,"
    "xmltable,xpath,xpath_exists,xml_is_well_formed,xml_is_well_formed_content,"
    "xml_is_well_formed_document,"
    /* full-text search */
    "to_tsvector,to_tsquery,plainto_tsquery,phraseto_tsquery,websearch_to_tsquery,ts_rank,"
    "ts_rank_cd,ts_headline,setweight,strip,numnode,querytree,tsvector_to_array,"
    "array_to_tsvector,ts_delete,ts_filter,"
    /* ranges */
    "isempty,lower_inc,lower_inf,upper_inc,upper_inf,range_merge,int4range,int8range,numrange,"
    "tsrange,tstzrange,daterange,"
    /* network addresses */
    "abbrev,broadcast,family,host,hostmask,inet_merge,inet_same_family,masklen,netmask,network,"
    "set_masklen,"
    /* identifiers; the TABLESAMPLE methods */
    "gen_random_uuid,bernoulli,system";

/* Never callable on PostgreSQL, whatever query.functions says; a name
 * ending in '*' is a prefix. The reason completes "it …". */
static const struct pg_never {
    const char *name;
    const char *reason;
} pg_never_functions[] = {{"pg_read_file", "reads the server's files"},
                          {"pg_read_binary_file", "reads the server's files"},
                          {"pg_ls_*", "lists the server's directories"},
                          {"pg_stat_file", "reads the server's files"},
                          {"pg_file_*", "writes the server's files"},
                          {"pg_logdir_ls", "lists the server's directories"},
                          {"lo_*", "reads or writes large objects, which are not tables"},
                          {"loread", "reads large objects, which are not tables"},
                          {"lowrite", "writes large objects"},
                          {"dblink*", "connects to other servers"},
                          {"postgres_fdw_*", "manages connections to other servers"},
                          {"set_config", "changes the session's settings"},
                          {"setseed", "changes the session's random state"},
                          {"pg_advisory*", "takes locks that outlive the statement"},
                          {"pg_try_advisory*", "takes locks that outlive the statement"},
                          {"pg_notify", "sends notifications to other sessions"},
                          {"nextval", "changes a sequence"},
                          {"setval", "changes a sequence"},
                          {"currval", "reads the session's sequence state"},
                          {"lastval", "reads the session's sequence state"},
                          {"pg_sleep*", "holds the connection without doing work"},
                          {"pg_terminate_backend", "signals other sessions"},
                          {"pg_cancel_backend", "signals other sessions"},
                          {"pg_reload_conf", "signals the server"},
                          {"pg_rotate_logfile", "signals the server"},
                          {"pg_log_backend_memory_contexts", "signals other sessions"},
                          {"txid_*", "assigns or reads transaction ids"},
                          {"pg_current_xact*", "assigns transaction ids"},
                          {"pg_xact*", "reads transaction ids"},
                          {"pg_logical_emit_message", "writes to the write-ahead log"},
                          {"query_to_xml*", "runs SQL given as text"},
                          {"table_to_xml*", "reads a table named in text"},
                          {"cursor_to_xml*", "reads a cursor"},
                          {"schema_to_xml*", "reads a schema named in text"},
                          {"database_to_xml*", "reads the whole database"},
                          {"ts_stat", "runs SQL given as text"},
                          {"ts_rewrite", "can run SQL given as text"},
                          {"treat", "calls the function named after AS"},
                          {NULL, NULL}};

/* PostgreSQL: bare words that change something, anywhere in the text. */
static const char *const pg_write_keywords[] = {
    "insert", "update", "delete",  "merge",   "create",  "drop",    "alter",   "truncate",  "grant",
    "revoke", "vacuum", "analyze", "analyse", "reindex", "cluster", "refresh", "returning", NULL};

/* PostgreSQL: bare words that control transactions, anywhere. */
static const char *const pg_transaction_keywords[] = {"begin",     "commit",  "rollback", "abort",
                                                      "savepoint", "release", NULL};

/* PostgreSQL: statements refused under a rule of their own when they are
 * the first word (anywhere else they could not start a statement). */
static const struct pg_statement {
    const char *word;
    sql_admission_rule rule;
} pg_statements[] = {{"comment", SQL_RULE_WRITE},       {"security", SQL_RULE_WRITE},
                     {"reassign", SQL_RULE_WRITE},      {"import", SQL_RULE_WRITE},
                     {"start", SQL_RULE_TRANSACTION},   {"end", SQL_RULE_TRANSACTION},
                     {"copy", SQL_RULE_COPY},           {"set", SQL_RULE_SESSION},
                     {"reset", SQL_RULE_SESSION},       {"show", SQL_RULE_SESSION},
                     {"discard", SQL_RULE_SESSION},     {"load", SQL_RULE_SESSION},
                     {"listen", SQL_RULE_NOTIFY},       {"notify", SQL_RULE_NOTIFY},
                     {"unlisten", SQL_RULE_NOTIFY},     {"lock", SQL_RULE_LOCK},
                     {"do", SQL_RULE_PROCEDURAL},       {"call", SQL_RULE_PROCEDURAL},
                     {"prepare", SQL_RULE_PREPARED},    {"execute", SQL_RULE_PREPARED},
                     {"deallocate", SQL_RULE_PREPARED}, {NULL, SQL_RULE_NONE}};

/* PostgreSQL: keywords that may stand before '(' without calling a
 * function: SQLite's, PostgreSQL's own syntax, and the type names that
 * take modifiers (numeric(10, 2)), which PostgreSQL never reads as calls. */
static const char *const pg_paren_keywords[] = {"all",
                                                "and",
                                                "any",
                                                "array",
                                                "as",
                                                "asc",
                                                "asymmetric",
                                                "between",
                                                "bigint",
                                                "bit",
                                                "boolean",
                                                "breadth",
                                                "by",
                                                "case",
                                                "cast",
                                                "char",
                                                "character",
                                                "collate",
                                                "columns",
                                                "content",
                                                "cross",
                                                "cube",
                                                "current",
                                                "cycle",
                                                "dec",
                                                "decimal",
                                                "default",
                                                "depth",
                                                "desc",
                                                "distinct",
                                                "do",
                                                "document",
                                                "else",
                                                "end",
                                                "escape",
                                                "except",
                                                "exclude",
                                                "exists",
                                                "fetch",
                                                "filter",
                                                "first",
                                                "float",
                                                "following",
                                                "for",
                                                "from",
                                                "full",
                                                "group",
                                                "groups",
                                                "having",
                                                "in",
                                                "inner",
                                                "int",
                                                "integer",
                                                "intersect",
                                                "interval",
                                                "into",
                                                "is",
                                                "join",
                                                "last",
                                                "lateral",
                                                "left",
                                                "limit",
                                                "materialized",
                                                "national",
                                                "natural",
                                                "nchar",
                                                "next",
                                                "not",
                                                "null",
                                                "nulls",
                                                "numeric",
                                                "of",
                                                "offset",
                                                "on",
                                                "only",
                                                "operator",
                                                "or",
                                                "order",
                                                "ordinality",
                                                "outer",
                                                "over",
                                                "overlaps",
                                                "partition",
                                                "passing",
                                                "preceding",
                                                "precision",
                                                "range",
                                                "real",
                                                "recursive",
                                                "repeatable",
                                                "right",
                                                "rollup",
                                                "row",
                                                "rows",
                                                "search",
                                                "select",
                                                "set",
                                                "sets",
                                                "smallint",
                                                "some",
                                                "symmetric",
                                                "table",
                                                "then",
                                                "time",
                                                "timestamp",
                                                "to",
                                                "unbounded",
                                                "union",
                                                "using",
                                                "values",
                                                "varchar",
                                                "variadic",
                                                "varying",
                                                "when",
                                                "where",
                                                "window",
                                                "with",
                                                "within",
                                                "xmlattributes",
                                                "xmlnamespaces",
                                                "zone",
                                                NULL};

/* PostgreSQL: bare words that are function calls without parentheses. */
static const char *const pg_operator_functions[] = {"like",
                                                    "ilike",
                                                    "similar",
                                                    "current_date",
                                                    "current_time",
                                                    "current_timestamp",
                                                    "localtime",
                                                    "localtimestamp",
                                                    "current_user",
                                                    "current_role",
                                                    "session_user",
                                                    "user",
                                                    "current_catalog",
                                                    "current_schema",
                                                    "system_user",
                                                    NULL};

/* The session's names among them: facts about the server, not data. */
static const char *const pg_session_names[] = {
    "current_user",    "current_role",   "session_user", "user",
    "current_catalog", "current_schema", "system_user",  NULL};

/* Types whose input and output look names up in the system catalog. */
static const char *const pg_catalog_types[] = {
    "regclass",    "regcollation", "regconfig",    "regdictionary", "regnamespace", "regoper",
    "regoperator", "regproc",      "regprocedure", "regrole",       "regtype",      NULL};

/* ------------------------------------------------------------------------ */
/* characters                                                                */

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* SQLite's IdChar: letters, digits, '_', '$' and every byte of a non-ASCII
 * character. */
static int is_id_char(unsigned char c)
{
    return is_alpha(c) || is_digit(c) || c == '_' || c == '$' || c >= 0x80;
}

static int is_id_start(unsigned char c)
{
    return is_alpha(c) || c == '_' || c >= 0x80;
}

/* ------------------------------------------------------------------------ */
/* the lexer                                                                 */

/* Skip whitespace and comments from *pos. Returns 0, or -1 when a block
 * comment is never closed (*pos is then at its start). */
static int skip_blank(const char *s, size_t len, size_t *pos)
{
    size_t i = *pos;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (is_space(c)) {
            i++;
        } else if (c == '-' && i + 1 < len && s[i + 1] == '-') {
            while (i < len && s[i] != '\n')
                i++;
        } else if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < len && !(s[j] == '*' && s[j + 1] == '/'))
                j++;
            if (j + 1 >= len) {
                *pos = i;
                return -1;
            }
            i = j + 2;
        } else {
            break;
        }
    }
    *pos = i;
    return 0;
}

/* End of a quoted token opened at s[start] with quote q, where a doubled
 * q stands for itself; 0 when never closed. */
static size_t quoted_end(const char *s, size_t len, size_t start, char q)
{
    for (size_t i = start + 1; i < len; i++) {
        if (s[i] != q)
            continue;
        if (i + 1 < len && s[i + 1] == q) {
            i++;
            continue;
        }
        return i + 1;
    }
    return 0;
}

static size_t number_end(const char *s, size_t len, size_t i)
{
    int hex = s[i] == '0' && i + 1 < len && (s[i + 1] == 'x' || s[i + 1] == 'X');
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        if (!hex && (c == 'e' || c == 'E') && i + 1 < len && (s[i + 1] == '+' || s[i + 1] == '-'))
            i += 2;
        else if (is_id_char(c) || c == '.')
            i++;
        else
            break;
    }
    return i;
}

static sql_token_kind set_token(sql_token *tok, sql_token_kind kind, size_t offset, size_t end,
                                size_t *pos)
{
    tok->kind = kind;
    tok->offset = offset;
    tok->length = end - offset;
    *pos = end;
    return kind;
}

sql_token_kind sql_next_token(const char *s, size_t len, size_t *pos, sql_token *tok)
{
    size_t i = *pos;
    if (skip_blank(s, len, &i) != 0)
        return set_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    if (i >= len)
        return set_token(tok, SQL_TOKEN_END, len, len, pos);
    unsigned char c = (unsigned char)s[i];
    size_t end;
    switch (c) {
    case '\'':
        end = quoted_end(s, len, i, '\'');
        return end ? set_token(tok, SQL_TOKEN_STRING, i, end, pos)
                   : set_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    case '"':
    case '`':
        end = quoted_end(s, len, i, (char)c);
        return end ? set_token(tok, SQL_TOKEN_QUOTED_NAME, i, end, pos)
                   : set_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    case '[': {
        const char *close = memchr(s + i, ']', len - i);
        return close ? set_token(tok, SQL_TOKEN_QUOTED_NAME, i, (size_t)(close - s) + 1, pos)
                     : set_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    }
    case '(': return set_token(tok, SQL_TOKEN_LPAREN, i, i + 1, pos);
    case ')': return set_token(tok, SQL_TOKEN_RPAREN, i, i + 1, pos);
    case ';': return set_token(tok, SQL_TOKEN_SEMICOLON, i, i + 1, pos);
    case '?':
        for (end = i + 1; end < len && is_digit((unsigned char)s[end]); end++)
            ;
        return set_token(tok, SQL_TOKEN_PARAMETER, i, end, pos);
    case ':':
    case '@':
    case '$':
    case '#':
        for (end = i + 1; end < len && is_id_char((unsigned char)s[end]); end++)
            ;
        return set_token(tok, SQL_TOKEN_PARAMETER, i, end, pos);
    case '-':
        if (i + 1 < len && s[i + 1] == '>')
            return set_token(tok, SQL_TOKEN_OPERATOR, i,
                             i + (i + 2 < len && s[i + 2] == '>' ? 3 : 2), pos);
        return set_token(tok, SQL_TOKEN_OPERATOR, i, i + 1, pos);
    default: break;
    }
    if ((c == 'x' || c == 'X') && i + 1 < len && s[i + 1] == '\'') {
        const char *close = memchr(s + i + 2, '\'', len - i - 2);
        return close ? set_token(tok, SQL_TOKEN_BLOB, i, (size_t)(close - s) + 1, pos)
                     : set_token(tok, SQL_TOKEN_UNTERMINATED, i, len, pos);
    }
    if (is_digit(c) || (c == '.' && i + 1 < len && is_digit((unsigned char)s[i + 1])))
        return set_token(tok, SQL_TOKEN_NUMBER, i, number_end(s, len, i), pos);
    if (is_id_start(c)) {
        for (end = i + 1; end < len && is_id_char((unsigned char)s[end]); end++)
            ;
        return set_token(tok, SQL_TOKEN_WORD, i, end, pos);
    }
    return set_token(tok, SQL_TOKEN_OPERATOR, i, i + 1, pos);
}

/* ------------------------------------------------------------------------ */
/* names                                                                     */

/* A token's name: a bare word as is, a quoted name without its quotes and
 * with doubled quotes undone. Cut to fit out (size > 0). */
static void token_name(const char *s, const sql_token *t, char *out, size_t size)
{
    size_t n = 0;
    if (t->kind != SQL_TOKEN_QUOTED_NAME) {
        n = t->length < size - 1 ? t->length : size - 1;
        memcpy(out, s + t->offset, n);
        out[n] = '\0';
        return;
    }
    char close = s[t->offset] == '[' ? ']' : s[t->offset];
    size_t end = t->offset + t->length - 1;
    for (size_t i = t->offset + 1; i < end && n + 1 < size; i++) {
        out[n++] = s[i];
        if (s[i] == close && close != ']' && i + 1 < end && s[i + 1] == close)
            i++;
    }
    out[n] = '\0';
}

/* Is the bare word at t (case-insensitively) `word`? */
static int word_is(const char *s, const sql_token *t, const char *word)
{
    return t->kind == SQL_TOKEN_WORD && strlen(word) == t->length &&
           strncasecmp(s + t->offset, word, t->length) == 0;
}

static int word_in(const char *s, const sql_token *t, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (word_is(s, t, list[i]))
            return 1;
    return 0;
}

static int name_in(const char *name, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (strcasecmp(name, list[i]) == 0)
            return 1;
    return 0;
}

static int has_prefix(const char *name, const char *prefix)
{
    return strncasecmp(name, prefix, strlen(prefix)) == 0;
}

/* Is name an entry of the comma-separated list (spaces around entries
 * ignored, case-insensitive)? */
static int csv_contains(const char *csv, const char *name)
{
    size_t n = strlen(name);
    const char *p = csv;
    while (*p) {
        while (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n')
            p++;
        size_t len = strcspn(p, ",");
        size_t trimmed = len;
        while (trimmed > 0 &&
               (p[trimmed - 1] == ' ' || p[trimmed - 1] == '\t' || p[trimmed - 1] == '\n'))
            trimmed--;
        if (trimmed == n && n > 0 && strncasecmp(p, name, n) == 0)
            return 1;
        p += len;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* refusals                                                                  */

typedef struct admission {
    const char *sql;         /* the text (not owned) */
    size_t len;              /* its bytes */
    const char *functions;   /* allowlist in effect */
    sql_dialect dialect;     /* how the text is read */
    sql_admission_rule rule; /* out: the rule broken */
    dbmcp_error *err;        /* out: the sentence */
} admission;

static int is_pg(const admission *a)
{
    return a->dialect == SQL_DIALECT_POSTGRES;
}

/* The next token in the admission's dialect. */
static sql_token_kind next_token(const admission *a, size_t *pos, sql_token *t)
{
    return sql_dialect_next_token(a->dialect, a->sql, a->len, pos, t);
}

/* The name in token t as the admission's dialect reads it. */
static void name_of(const admission *a, const sql_token *t, char *out, size_t size)
{
    if (is_pg(a))
        sql_pg_token_name(a->sql, a->len, t, out, size);
    else
        token_name(a->sql, t, out, size);
}

void sql_dialect_token_name(sql_dialect dialect, const char *sql, size_t len, const sql_token *t,
                            char *out, size_t size)
{
    if (dialect == SQL_DIALECT_POSTGRES)
        sql_pg_token_name(sql, len, t, out, size);
    else
        token_name(sql, t, out, size);
}

/* Characters before byte offset `at` (the text is valid UTF-8). */
static size_t char_offset(const char *s, size_t at)
{
    size_t n = 0;
    for (size_t i = 0; i < at; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            n++;
    return n;
}

/* Copy a name for a message: at most ADMISSION_NAME_SHOWN bytes, cut on a
 * character boundary, control characters shown as '?'. */
static void shown_name(const char *name, char out[ADMISSION_NAME_SHOWN + 4])
{
    size_t n = strlen(name);
    int cut = n > ADMISSION_NAME_SHOWN;
    if (cut) {
        n = ADMISSION_NAME_SHOWN;
        while (n > 0 && ((unsigned char)name[n] & 0xC0) == 0x80)
            n--;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
    memcpy(out + n, cut ? "…" : "", cut ? 4 : 1);
    if (cut)
        out[n + 3] = '\0';
}

static int refuse(admission *a, sql_admission_rule rule, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(admission *a, sql_admission_rule rule, int code, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    a->rule = rule;
    return dbmcp_error_set(a->err, code, "Query refused: %s", text);
}

/* ------------------------------------------------------------------------ */
/* the rules                                                                 */

/* Valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF),
 * no NUL, at most max_chars characters. */
static int check_text(admission *a, size_t max_chars)
{
    const unsigned char *s = (const unsigned char *)a->sql;
    size_t chars = 0;
    for (size_t i = 0; i < a->len; chars++) {
        if (chars >= max_chars)
            return refuse(a, SQL_RULE_TOO_LONG, DBMCP_ETOOBIG,
                          "the query is longer than %zu characters; shorten it or aggregate "
                          "in SQL",
                          max_chars);
        unsigned char c = s[i];
        size_t need;
        unsigned lo = 0x80, hi = 0xBF;
        if (c == 0)
            return refuse(a, SQL_RULE_ENCODING, DBMCP_EINVAL,
                          "the query contains a NUL character at offset %zu", chars);
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            need = 1;
        else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            need = 0;
        }
        int ok = need > 0 && i + need < a->len;
        for (size_t k = 1; ok && k <= need; k++) {
            unsigned b = s[i + k];
            ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
        }
        if (!ok)
            return refuse(a, SQL_RULE_ENCODING, DBMCP_EINVAL,
                          "the query is not valid UTF-8 (bad byte 0x%02X at offset %zu)", c, chars);
        i += need + 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* PostgreSQL's rules                                                        */

/* Word t in upper case for a message. */
static void upper_word(const admission *a, const sql_token *t, char *out, size_t size)
{
    token_name(a->sql, t, out, size);
    for (char *p = out; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
}

/* Why name may never be called on PostgreSQL ("it …"), or NULL. */
static const char *pg_never_reason(const char *name)
{
    for (size_t i = 0; pg_never_functions[i].name; i++) {
        const char *entry = pg_never_functions[i].name;
        size_t n = strlen(entry);
        if (entry[n - 1] == '*' ? strncasecmp(name, entry, n - 1) == 0
                                : strcasecmp(name, entry) == 0)
            return pg_never_functions[i].reason;
    }
    return NULL;
}

/* A reg* type, or an array of one (_regclass). */
static int pg_catalog_type(const char *name)
{
    return name_in(name[0] == '_' ? name + 1 : name, pg_catalog_types);
}

/* The function rule on PostgreSQL. A quoted name (exact) matches the
 * lower-case list only as written: "UPPER"(x) calls a function named
 * UPPER, not upper. With alias_hint the name followed another name, as
 * an alias without AS does (FROM t x(a, b)), and the refusal says how to
 * write one. */
static int pg_check_function(admission *a, const char *name, size_t offset, int exact,
                             int alias_hint)
{
    char shown[ADMISSION_NAME_SHOWN + 4];
    shown_name(name, shown);
    size_t at = char_offset(a->sql, offset);
    const char *reason = pg_never_reason(name);
    if (reason)
        return refuse(a, SQL_RULE_FUNCTION, DBMCP_EDENIED,
                      "%s() is never allowed: it %s (offset %zu)", shown, reason, at);
    int listed = csv_contains(a->functions, name);
    for (const char *p = name; exact && listed && *p; p++)
        listed = !(*p >= 'A' && *p <= 'Z');
    if (listed)
        return 0;
    if (name_in(name, pg_session_names))
        return refuse(a, SQL_RULE_FUNCTION, DBMCP_EDENIED,
                      "%s (offset %zu) names the session, not data, and is not on this server's "
                      "list of allowed functions (a column named like it must be written in "
                      "double quotes)",
                      shown, at);
    return refuse(a, SQL_RULE_FUNCTION, DBMCP_EDENIED,
                  "the function %s (offset %zu) is not on this server's list of allowed "
                  "functions; use the common PostgreSQL scalar, aggregate, window, date, math, "
                  "string and JSON functions%s",
                  shown, at,
                  alias_hint ? " (an alias with column names is written with AS: AS x(a, b))" : "");
}

/* The refusal of a statement word t under rule (first words, and the
 * write and transaction words anywhere). */
static int pg_refuse_statement(admission *a, sql_admission_rule rule, const sql_token *t)
{
    char word[32];
    upper_word(a, t, word, sizeof word);
    size_t at = char_offset(a->sql, t->offset);
    switch (rule) {
    case SQL_RULE_WRITE:
        return refuse(a, rule, DBMCP_EDENIED,
                      "only reading is allowed: %s at offset %zu would change the database (a "
                      "column named like a keyword must be written in double quotes)",
                      word, at);
    case SQL_RULE_TRANSACTION:
        return refuse(a, rule, DBMCP_EDENIED,
                      "%s at offset %zu controls transactions: each query runs in a read-only "
                      "transaction of its own, which it may not end or change (a column named "
                      "like a keyword must be written in double quotes)",
                      word, at);
    case SQL_RULE_COPY:
        return refuse(a, rule, DBMCP_EDENIED,
                      "COPY is not allowed (offset %zu): it moves data between tables and files, "
                      "programs or the client; write a SELECT instead",
                      at);
    case SQL_RULE_SESSION:
        return refuse(a, rule, DBMCP_EDENIED,
                      "%s is not allowed (offset %zu): the session's settings are not the "
                      "query's to read or change; write a SELECT",
                      word, at);
    case SQL_RULE_NOTIFY:
        return refuse(a, rule, DBMCP_EDENIED,
                      "%s is not allowed (offset %zu): notifications pass between sessions; "
                      "write a SELECT",
                      word, at);
    case SQL_RULE_LOCK:
        return refuse(a, rule, DBMCP_EDENIED,
                      "LOCK is not allowed (offset %zu): reading needs no explicit lock", at);
    case SQL_RULE_PROCEDURAL:
        return refuse(a, rule, DBMCP_EDENIED,
                      "%s is not allowed (offset %zu): it runs procedural code; write the query "
                      "as one SELECT",
                      word, at);
    case SQL_RULE_PREPARED:
        return refuse(a, rule, DBMCP_EDENIED,
                      "%s is not allowed (offset %zu): prepared statements outlive the call; "
                      "send the query itself",
                      word, at);
    default: break;
    }
    char first[ADMISSION_NAME_SHOWN + 4], name[256];
    name_of(a, t, name, sizeof name);
    shown_name(name, first);
    return refuse(a, SQL_RULE_FIRST_KEYWORD, DBMCP_EDENIED,
                  "only SELECT, WITH, VALUES or TABLE queries are allowed, and this one starts "
                  "with \"%s\" (offset %zu)",
                  first, at);
}

static int pg_check_first(admission *a)
{
    size_t pos = 0;
    sql_token t;
    int parens = 0;
    while (next_token(a, &pos, &t) == SQL_TOKEN_LPAREN)
        parens = 1;
    if (t.kind == SQL_TOKEN_END && !parens)
        return refuse(a, SQL_RULE_EMPTY, DBMCP_EINVAL,
                      "the query is empty; send one SELECT, WITH, VALUES or TABLE statement");
    if (t.kind == SQL_TOKEN_UNTERMINATED)
        return 0; /* reported by the main pass, which names what is open */
    if (word_is(a->sql, &t, "select") || word_is(a->sql, &t, "with") ||
        word_is(a->sql, &t, "values") || word_is(a->sql, &t, "table"))
        return 0;
    if (t.kind == SQL_TOKEN_END) {
        size_t at = char_offset(a->sql, t.offset);
        return refuse(a, SQL_RULE_FIRST_KEYWORD, DBMCP_EDENIED,
                      "only SELECT, WITH, VALUES or TABLE queries are allowed, and this one "
                      "starts with \"(\" (offset %zu)",
                      at);
    }
    sql_admission_rule rule = SQL_RULE_FIRST_KEYWORD;
    if (word_in(a->sql, &t, pg_write_keywords))
        rule = SQL_RULE_WRITE;
    else if (word_in(a->sql, &t, pg_transaction_keywords))
        rule = SQL_RULE_TRANSACTION;
    for (size_t i = 0; pg_statements[i].word; i++)
        if (word_is(a->sql, &t, pg_statements[i].word))
            rule = pg_statements[i].rule;
    return pg_refuse_statement(a, rule, &t);
}

/* FOR UPDATE, FOR NO KEY UPDATE, FOR SHARE, FOR KEY SHARE: the clause's
 * words after FOR into out, or 0 when the FOR at t starts none. */
static int pg_locking_clause(const admission *a, const sql_token *t, char *out, size_t size)
{
    size_t pos = t->offset + t->length;
    sql_token w[3];
    for (int i = 0; i < 3; i++)
        next_token(a, &pos, &w[i]);
    const char *clause = word_is(a->sql, &w[0], "update")  ? "UPDATE"
                         : word_is(a->sql, &w[0], "share") ? "SHARE"
                         : word_is(a->sql, &w[0], "no") && word_is(a->sql, &w[1], "key") &&
                                 word_is(a->sql, &w[2], "update")
                             ? "NO KEY UPDATE"
                         : word_is(a->sql, &w[0], "key") && word_is(a->sql, &w[1], "share")
                             ? "KEY SHARE"
                             : NULL;
    if (clause)
        snprintf(out, size, "%s", clause);
    return clause != NULL;
}

/* Rules on a bare word on PostgreSQL; next is the token after it. */
static int pg_check_word(admission *a, const sql_token *t, const sql_token *next)
{
    char clause[16];
    if (word_in(a->sql, t, pg_write_keywords))
        return pg_refuse_statement(a, SQL_RULE_WRITE, t);
    if (word_in(a->sql, t, pg_transaction_keywords))
        return pg_refuse_statement(a, SQL_RULE_TRANSACTION, t);
    if (word_is(a->sql, t, "for") && pg_locking_clause(a, t, clause, sizeof clause))
        return refuse(a, SQL_RULE_LOCKING, DBMCP_EDENIED,
                      "FOR %s at offset %zu locks rows, and only reading is allowed: remove the "
                      "locking clause",
                      clause, char_offset(a->sql, t->offset));
    if (word_is(a->sql, t, "into"))
        return refuse(a, SQL_RULE_INTO, DBMCP_EDENIED,
                      "INTO at offset %zu would store the result in a new table (SELECT … "
                      "INTO), and only reading is allowed: remove INTO and the table name",
                      char_offset(a->sql, t->offset));
    if (word_in(a->sql, t, pg_operator_functions) && next->kind != SQL_TOKEN_LPAREN) {
        char lower[32];
        token_name(a->sql, t, lower, sizeof lower);
        for (char *p = lower; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        return pg_check_function(a, lower, t->offset, 0, 0);
    }
    return 0;
}

/* Rules on one name (bare or quoted) on PostgreSQL: functions never
 * allowed, dbmcp's schema, the system catalog. */
static int pg_check_name(admission *a, const sql_token *t, const sql_token *next)
{
    char name[256];
    char shown[ADMISSION_NAME_SHOWN + 4];
    name_of(a, t, name, sizeof name);
    shown_name(name, shown);
    size_t at = char_offset(a->sql, t->offset);
    const char *reason = pg_never_reason(name);
    if (reason && next->kind == SQL_TOKEN_LPAREN)
        return refuse(a, SQL_RULE_FUNCTION, DBMCP_EDENIED,
                      "%s() is never allowed: it %s (offset %zu)", shown, reason, at);
    if (strcasecmp(name, "dbmcp") == 0 || has_prefix(name, "dbmcp_"))
        return refuse(a, SQL_RULE_INTERNAL, DBMCP_EDENIED,
                      "%s (offset %zu) is internal: the schema dbmcp and names starting with "
                      "dbmcp_ belong to the server, not to the data you may query",
                      shown, at);
    if (has_prefix(name, "pg_") || strcasecmp(name, "information_schema") == 0 ||
        pg_catalog_type(name))
        return refuse(a, SQL_RULE_CATALOG, DBMCP_EDENIED,
                      "%s (offset %zu) belongs to PostgreSQL's system catalog (pg_catalog, "
                      "information_schema, names starting with pg_, the reg* types), and queries "
                      "read only user data: use the schema discovery tools to learn about tables",
                      shown, at);
    return 0;
}

/* A name (bare, not a keyword, or quoted) on PostgreSQL. */
static int pg_is_name(const admission *a, const sql_token *t)
{
    return (t->kind == SQL_TOKEN_WORD && !word_in(a->sql, t, pg_paren_keywords)) ||
           t->kind == SQL_TOKEN_QUOTED_NAME;
}

/* A name before '(' that may call a function on PostgreSQL: not a
 * keyword, and not a type or an alias (after AS, :: or ')'). 2 when it
 * follows another name, as an alias without AS would. */
static int pg_callable(const admission *a, const sql_token *t, const sql_token *before)
{
    if (!pg_is_name(a, t))
        return 0;
    int cast = before->kind == SQL_TOKEN_OPERATOR && before->length == 2 &&
               memcmp(a->sql + before->offset, "::", 2) == 0;
    if (cast || before->kind == SQL_TOKEN_RPAREN || word_is(a->sql, before, "as"))
        return 0;
    return pg_is_name(a, before) ? 2 : 1;
}

/* What an unterminated token leaves open, by its first bytes. */
static const char *unterminated_what(const admission *a, const sql_token *t)
{
    const char *p = a->sql + t->offset;
    size_t n = t->length;
    if (p[0] == '/')
        return "comment";
    if (!is_pg(a))
        return p[0] == '\'' || p[0] == 'x' || p[0] == 'X' ? "string literal" : "quoted name";
    if (p[0] == '"' || (n > 2 && p[1] == '&' && p[2] == '"'))
        return "quoted name";
    return p[0] == '$' ? "dollar-quoted string" : "string literal";
}

static int check_function(admission *a, const char *name, size_t offset)
{
    char shown[ADMISSION_NAME_SHOWN + 4];
    shown_name(name, shown);
    if (name_in(name, never_functions))
        return refuse(
            a, strcasecmp(name, "load_extension") == 0 ? SQL_RULE_EXTENSION : SQL_RULE_FUNCTION,
            DBMCP_EDENIED,
            "%s() is never allowed: it reaches files or the engine's state (offset %zu)", shown,
            char_offset(a->sql, offset));
    if (!csv_contains(a->functions, name))
        return refuse(a, SQL_RULE_FUNCTION, DBMCP_EDENIED,
                      "the function %s (offset %zu) is not on this server's list of allowed "
                      "functions; use the common SQLite scalar, aggregate, window, date, math "
                      "and JSON functions",
                      shown, char_offset(a->sql, offset));
    return 0;
}

/* Rules on one name (bare word or quoted): load_extension, pragma_*,
 * internal tables. */
static int check_name(admission *a, const sql_token *t)
{
    char name[256];
    char shown[ADMISSION_NAME_SHOWN + 4];
    token_name(a->sql, t, name, sizeof name);
    shown_name(name, shown);
    if (strcasecmp(name, "load_extension") == 0)
        return refuse(a, SQL_RULE_EXTENSION, DBMCP_EDENIED,
                      "load_extension is never allowed (offset %zu)",
                      char_offset(a->sql, t->offset));
    if (has_prefix(name, "pragma_"))
        return refuse(a, SQL_RULE_PRAGMA, DBMCP_EDENIED,
                      "PRAGMA functions such as %s are not allowed (offset %zu); use the schema "
                      "discovery tools to learn about tables",
                      shown, char_offset(a->sql, t->offset));
    if (has_prefix(name, "dbmcp_") || has_prefix(name, "sqlite_") ||
        strcasecmp(name, "dbstat") == 0)
        return refuse(a, SQL_RULE_INTERNAL, DBMCP_EDENIED,
                      "%s (offset %zu) is internal: names starting with dbmcp_ or sqlite_ and "
                      "dbstat belong to the server and the engine, not to the data you may query",
                      shown, char_offset(a->sql, t->offset));
    return 0;
}

/* Rules on a bare word: statements that write, ATTACH, PRAGMA, operator
 * functions. next is the token after it. */
static int check_word(admission *a, const sql_token *t, const sql_token *next)
{
    char word[32];
    token_name(a->sql, t, word, sizeof word);
    for (char *p = word; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    if (word_in(a->sql, t, write_keywords) &&
        !(word_is(a->sql, t, "replace") && next->kind == SQL_TOKEN_LPAREN))
        return refuse(a, SQL_RULE_WRITE, DBMCP_EDENIED,
                      "only reading is allowed: %s at offset %zu would change the database (a "
                      "column named like a keyword must be written in double quotes)",
                      word, char_offset(a->sql, t->offset));
    if (word_is(a->sql, t, "attach") || word_is(a->sql, t, "detach"))
        return refuse(a, SQL_RULE_ATTACH, DBMCP_EDENIED,
                      "%s is not allowed (offset %zu): only this database may be queried", word,
                      char_offset(a->sql, t->offset));
    if (word_is(a->sql, t, "pragma"))
        return refuse(a, SQL_RULE_PRAGMA, DBMCP_EDENIED,
                      "PRAGMA is not allowed (offset %zu); use the schema discovery tools to "
                      "learn about tables",
                      char_offset(a->sql, t->offset));
    if (word_in(a->sql, t, operator_functions) && next->kind != SQL_TOKEN_LPAREN) {
        char lower[32];
        token_name(a->sql, t, lower, sizeof lower);
        for (char *p = lower; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        return check_function(a, lower, t->offset);
    }
    return 0;
}

/* Does the text after a ')' at *pos read AS [NOT] [MATERIALIZED] '(' — the
 * shape that makes the name before the matching '(' a CTE name? */
static int cte_follows(const admission *a, size_t pos)
{
    sql_token t;
    next_token(a, &pos, &t);
    if (!word_is(a->sql, &t, "as"))
        return 0;
    next_token(a, &pos, &t);
    if (word_is(a->sql, &t, "not"))
        next_token(a, &pos, &t);
    if (word_is(a->sql, &t, "materialized"))
        next_token(a, &pos, &t);
    return t.kind == SQL_TOKEN_LPAREN;
}

/* An open '(' and what stood before it. */
typedef struct paren_entry {
    sql_token name; /* the token before '(' */
    int candidate;  /* that token is a name that may be a call (callable) */
} paren_entry;

/* Judge name as a call; candidate as callable returned it. */
static int check_call(admission *a, const sql_token *name, int candidate)
{
    char fn[256];
    name_of(a, name, fn, sizeof fn);
    if (is_pg(a))
        return pg_check_function(a, fn, name->offset, name->kind == SQL_TOKEN_QUOTED_NAME,
                                 candidate == 2);
    return check_function(a, fn, name->offset);
}

/* A name that, before '(', calls a function (or names a CTE); before is
 * the token ahead of it. */
static int callable(const admission *a, const sql_token *t, const sql_token *before)
{
    if (is_pg(a))
        return pg_callable(a, t, before);
    return (t->kind == SQL_TOKEN_WORD && !word_in(a->sql, t, paren_keywords)) ||
           t->kind == SQL_TOKEN_QUOTED_NAME;
}

static int check_first(admission *a)
{
    size_t pos = 0;
    sql_token t;
    int parens = 0;
    if (is_pg(a))
        return pg_check_first(a);
    while (sql_next_token(a->sql, a->len, &pos, &t) == SQL_TOKEN_LPAREN)
        parens = 1;
    if (t.kind == SQL_TOKEN_END && !parens)
        return refuse(a, SQL_RULE_EMPTY, DBMCP_EINVAL,
                      "the query is empty; send one SELECT, WITH or VALUES statement");
    if (t.kind == SQL_TOKEN_UNTERMINATED)
        return 0; /* reported by the main pass, which names what is open */
    if (word_is(a->sql, &t, "select") || word_is(a->sql, &t, "with") ||
        word_is(a->sql, &t, "values"))
        return 0;
    char first[ADMISSION_NAME_SHOWN + 4], name[256];
    if (t.kind == SQL_TOKEN_END)
        snprintf(name, sizeof name, "(");
    else
        token_name(a->sql, &t, name, sizeof name);
    shown_name(name, first);
    return refuse(a, SQL_RULE_FIRST_KEYWORD, DBMCP_EDENIED,
                  "only SELECT, WITH or VALUES queries are allowed, and this one starts with "
                  "\"%s\" (offset %zu)",
                  first, char_offset(a->sql, t.offset));
}

static int check_token(admission *a, const sql_token *t, const sql_token *next)
{
    switch (t->kind) {
    case SQL_TOKEN_UNTERMINATED:
        return refuse(a, SQL_RULE_UNTERMINATED, DBMCP_EINVAL,
                      "a %s starting at offset %zu is never closed", unterminated_what(a, t),
                      char_offset(a->sql, t->offset));
    case SQL_TOKEN_SEMICOLON: {
        size_t after = t->offset + 1;
        sql_token rest;
        int trailing = next_token(a, &after, &rest) == SQL_TOKEN_END;
        return refuse(a, SQL_RULE_SEMICOLON, DBMCP_EDENIED,
                      trailing ? "only one statement is allowed and ';' may not appear outside "
                                 "string literals: remove the trailing ';' at offset %zu"
                               : "only one statement is allowed (found ';' at offset %zu)",
                      char_offset(a->sql, t->offset));
    }
    case SQL_TOKEN_PARAMETER: {
        char name[ADMISSION_NAME_SHOWN + 4], raw[256];
        token_name(a->sql, t, raw, sizeof raw);
        shown_name(raw, name);
        return refuse(a, SQL_RULE_PARAMETER, DBMCP_EDENIED,
                      "parameters such as %s (offset %zu) are not allowed: nothing is bound to "
                      "this query, so write values as literals%s",
                      name, char_offset(a->sql, t->offset),
                      is_pg(a) && raw[0] == ':' ? " (an array slice is written a[1 : n])" : "");
    }
    case SQL_TOKEN_OPERATOR:
        if (is_pg(a))
            return memchr(a->sql + t->offset, '~', t->length)
                       ? pg_check_function(a, "~", t->offset, 0, 0)
                       : 0;
        if (t->length >= 2 && a->sql[t->offset] == '-' && a->sql[t->offset + 1] == '>')
            return check_function(a, t->length == 3 ? "->>" : "->", t->offset);
        return 0;
    case SQL_TOKEN_WORD: {
        int rc = is_pg(a) ? pg_check_word(a, t, next) : check_word(a, t, next);
        return rc ? rc : is_pg(a) ? pg_check_name(a, t, next) : check_name(a, t);
    }
    case SQL_TOKEN_QUOTED_NAME: return is_pg(a) ? pg_check_name(a, t, next) : check_name(a, t);
    default: return 0;
    }
}

/* The main pass: every token, with '(' tracked to tell calls from CTE
 * names. */
static int check_tokens(admission *a)
{
    paren_entry stack[ADMISSION_PAREN_STACK];
    size_t depth = 0; /* open '(' (may exceed the stack) */
    size_t pos = 0;
    sql_token before = {SQL_TOKEN_END, 0, 0}, prev = {SQL_TOKEN_END, 0, 0}, t, next;
    next_token(a, &pos, &t);
    while (t.kind != SQL_TOKEN_END) {
        size_t after = pos;
        next_token(a, &after, &next);
        int rc = check_token(a, &t, &next);
        if (rc)
            return rc;
        if (t.kind == SQL_TOKEN_LPAREN) {
            int maybe_call = callable(a, &prev, &before);
            if (depth < ADMISSION_PAREN_STACK)
                stack[depth] = (paren_entry){prev, maybe_call};
            else if (maybe_call && (rc = check_call(a, &prev, maybe_call)) != 0)
                return rc;
            depth++;
        } else if (t.kind == SQL_TOKEN_RPAREN && depth > 0) {
            depth--;
            if (depth < ADMISSION_PAREN_STACK && stack[depth].candidate && !cte_follows(a, pos) &&
                (rc = check_call(a, &stack[depth].name, stack[depth].candidate)) != 0)
                return rc;
        }
        before = prev;
        prev = t;
        t = next;
        pos = after;
    }
    /* Never closed: no AS can follow, so each was a call. */
    while (depth > 0) {
        depth--;
        int rc;
        if (depth < ADMISSION_PAREN_STACK && stack[depth].candidate &&
            (rc = check_call(a, &stack[depth].name, stack[depth].candidate)) != 0)
            return rc;
    }
    return 0;
}

int sql_admit(const char *sql, size_t len, const sql_admission_policy *p, sql_admission_rule *rule,
              dbmcp_error *err)
{
    sql_dialect dialect = p ? p->dialect : SQL_DIALECT_SQLITE;
    admission a = {sql ? sql : "", sql ? len : 0, sql_admission_dialect_functions(dialect),
                   dialect,        SQL_RULE_NONE, err};
    size_t max_chars = SQL_ADMISSION_MAX_CHARS_DEFAULT;
    if (p && p->max_chars > 0)
        max_chars = p->max_chars;
    if (p && p->functions && *p->functions)
        a.functions = p->functions;
    if (rule)
        *rule = SQL_RULE_NONE;
    int rc = check_text(&a, max_chars);
    if (!rc)
        rc = check_first(&a);
    if (!rc)
        rc = check_tokens(&a);
    if (rule)
        *rule = a.rule;
    return rc;
}

const char *sql_admission_rule_name(sql_admission_rule rule)
{
    switch (rule) {
    case SQL_RULE_NONE: return "ok";
    case SQL_RULE_TOO_LONG: return "too_long";
    case SQL_RULE_ENCODING: return "encoding";
    case SQL_RULE_UNTERMINATED: return "unterminated";
    case SQL_RULE_EMPTY: return "empty";
    case SQL_RULE_SEMICOLON: return "semicolon";
    case SQL_RULE_FIRST_KEYWORD: return "first_keyword";
    case SQL_RULE_WRITE: return "write";
    case SQL_RULE_ATTACH: return "attach";
    case SQL_RULE_PRAGMA: return "pragma";
    case SQL_RULE_EXTENSION: return "extension";
    case SQL_RULE_PARAMETER: return "parameter";
    case SQL_RULE_INTERNAL: return "internal";
    case SQL_RULE_FUNCTION: return "function";
    case SQL_RULE_TRANSACTION: return "transaction";
    case SQL_RULE_LOCKING: return "locking";
    case SQL_RULE_INTO: return "into";
    case SQL_RULE_COPY: return "copy";
    case SQL_RULE_SESSION: return "session";
    case SQL_RULE_NOTIFY: return "notify";
    case SQL_RULE_LOCK: return "lock";
    case SQL_RULE_PROCEDURAL: return "procedural";
    case SQL_RULE_PREPARED: return "prepared";
    case SQL_RULE_CATALOG: return "catalog";
    }
    return "unknown";
}

const char *sql_admission_dialect_functions(sql_dialect d)
{
    return d == SQL_DIALECT_POSTGRES ? sql_admission_pg_default_functions
                                     : sql_admission_default_functions;
}

sql_token_kind sql_dialect_next_token(sql_dialect dialect, const char *sql, size_t len, size_t *pos,
                                      sql_token *tok)
{
    return dialect == SQL_DIALECT_POSTGRES ? sql_pg_next_token(sql, len, pos, tok)
                                           : sql_next_token(sql, len, pos, tok);
}
