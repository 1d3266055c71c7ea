/*
 * sql_admission.h — text admission of agent-written SQL (seed 001, stage 4):
 * is this text worth sending to the database at all?
 *
 * sql_admit reads the query with a small SQL lexer for the policy's
 * dialect. The SQLite lexer knows SQLite's tokens — 'strings' with ''
 * escapes, "identifiers", [brackets], `backticks`, X'blobs', -- and block
 * comments, numbers, parameters; the PostgreSQL lexer knows PostgreSQL
 * 15's (sql_lexer_pg.c): E'…' backslash escapes, U&'…' and U&"…" Unicode
 * escapes, $$…$$ and $tag$…$tag$ dollar quoting, nested block comments, ::
 * casts, $1 parameters. Either way a keyword inside a comment or a string
 * is seen as the text it is, and a keyword outside one is never missed.
 * It admits a query only when all of these hold (the first rule broken is
 * reported):
 *
 *   too_long       at most max_chars characters (Unicode code points)
 *   encoding       valid UTF-8 without NUL characters
 *   unterminated   every string, quoted identifier and comment is closed
 *   empty          there is a statement at all
 *   semicolon      no ';' outside literals and comments (not even a trailing
 *                  one): one statement only
 *   first_keyword  the first token (after comments, whitespace and '(') is
 *                  SELECT, WITH or VALUES (PostgreSQL: or TABLE, which
 *                  reads a table)
 *   write          no INSERT, UPDATE, DELETE, REPLACE (the statement),
 *                  CREATE, DROP, ALTER, VACUUM, REINDEX, ANALYZE, BEGIN,
 *                  COMMIT, ROLLBACK, SAVEPOINT, RELEASE or RETURNING as a
 *                  bare word (a column named like one is written "quoted")
 *   attach         no ATTACH or DETACH
 *   pragma         no PRAGMA and no pragma_* table-valued function
 *   extension      no load_extension (never, whatever the allowlist says)
 *   parameter      no parameters (?, ?NNN, :x, @x, $x, #x): nothing is
 *                  bound to agent SQL, so a parameter is always unbound
 *   internal       no name starting with dbmcp_ or sqlite_, and no dbstat:
 *                  dbmcp's own tables and the engine's schema and storage
 *                  tables are not the agent's to read
 *   function       every function called — name(…), and the operators
 *                  that are functions underneath: LIKE, GLOB, MATCH,
 *                  REGEXP, ->, ->>, CURRENT_DATE/TIME/TIMESTAMP — is on
 *                  the allowlist
 *
 * PostgreSQL (policy dialect SQL_DIALECT_POSTGRES) keeps too_long through
 * semicolon and function, and reads the rest its own way:
 *
 *   first_keyword  SELECT, WITH, VALUES or TABLE; a statement one of the
 *                  rules below names is refused under that rule instead
 *   write          INSERT, UPDATE, DELETE, MERGE, CREATE, DROP, ALTER,
 *                  TRUNCATE, GRANT, REVOKE, VACUUM, ANALYZE, REINDEX,
 *                  CLUSTER, REFRESH or RETURNING as a bare word anywhere;
 *                  COMMENT, SECURITY LABEL, REASSIGN, IMPORT first
 *   transaction    BEGIN, COMMIT, ROLLBACK, ABORT, SAVEPOINT, RELEASE as a
 *                  bare word anywhere; START, END first: every call runs in
 *                  a read-only transaction of its own (store/pg_guard.h)
 *   locking        FOR UPDATE, FOR NO KEY UPDATE, FOR SHARE, FOR KEY SHARE
 *   into           INTO: SELECT … INTO creates a table
 *   copy           COPY (files, programs, the client)
 *   session        SET, RESET, SHOW, DISCARD, LOAD first
 *   notify         LISTEN, NOTIFY, UNLISTEN first
 *   lock           LOCK first
 *   procedural     DO, CALL first
 *   prepared       PREPARE, EXECUTE, DEALLOCATE first: they outlive the call
 *   parameter      $1 and :name (psql's and dbmcp's named parameters; an
 *                  array slice a[1:n] is written a[1 : n])
 *   internal       the schema dbmcp and names starting with dbmcp_
 *   catalog        names starting with pg_ (pg_catalog, pg_authid,
 *                  pg_shadow, pg_stat_activity, pg_settings, …),
 *                  information_schema, and the reg* types (regclass,
 *                  regproc, …, also as arrays) whose casts look names up
 *                  in the catalog: 16385::regclass prints the name of any
 *                  table, dbmcp's too. Agent SQL never needs the catalog:
 *                  dbmcp's schema discovery tools describe the tables
 *   function       as above, with TREAT(x AS name), which calls the
 *                  function name(x), never allowed; the operator words
 *                  LIKE, ILIKE, SIMILAR, the ~ operators (regular
 *                  expressions and LIKE), CURRENT_DATE/TIME/TIMESTAMP,
 *                  LOCALTIME/LOCALTIMESTAMP and the session's names (USER,
 *                  CURRENT_USER, SESSION_USER, CURRENT_ROLE,
 *                  CURRENT_CATALOG, CURRENT_SCHEMA) count as functions; a
 *                  quoted function name matches only as written
 *                  ("UPPER"(x) is not upper), and a name before '(' after
 *                  AS, :: or ')' is a type or an alias, not a call
 *                  (AS t(a, b); an alias without AS is judged a call)
 *
 * The PostgreSQL rules have one more reason to exist beyond early
 * refusals: PostgreSQL has no authorizer, so the second lock there is the
 * query role's privileges and the read-only transaction (store/pg_guard.h),
 * which do not stop reads of the catalog, signals to sessions of the same
 * role, session-level advisory locks or functions that run SQL given as
 * text. Only this check keeps agent SQL from those.
 *
 * Admission is the first of two locks: the query connection's authorizer
 * (store.h) enforces read-only access, the same function allowlist and the
 * hidden tables inside the engine, so a text that fooled this check still
 * could not write or read what it must not. Admission exists to refuse
 * early with a sentence the model can act on, e.g. "only one statement is
 * allowed: remove the ';' at offset 41". Offsets count characters from 0.
 *
 * The default function allowlist (sql_admission_default_functions) is the
 * reviewed set of SQLite core scalar, aggregate, window, date/time, math
 * and JSON functions that compute from their arguments alone, in time the
 * engine can bound. Left out on purpose: load_extension, fts3_tokenizer and
 * the shell's readfile, writefile, edit and fsdir (files, engine state);
 * changes, total_changes and last_insert_rowid (connection state);
 * sqlite_version, sqlite_source_id, sqlite_compileoption_get/used and
 * sqlite_offset (engine fingerprinting and file offsets); printf and format
 * (`%.*c` with a precision of two billion loops for seconds inside one
 * call, where the time limit cannot stop it) and json_patch (quadratic in
 * the number of keys). instr, replace and trim/ltrim/rtrim are on the list
 * because query handles replace them with linear-time versions
 * (store/sqlite_guard.h). The operator replaces the list with the setting
 * query.functions.
 *
 * The PostgreSQL default (sql_admission_pg_default_functions) is the
 * reviewed set of PostgreSQL 15 built-in math, string, pattern, date/time,
 * conditional, aggregate, window, array, JSON, XML, full-text, range and
 * network functions that compute from their arguments alone, plus
 * generate_series (a row source legitimate queries need: statement_timeout
 * stops it, a set-returning function in FROM is materialised within
 * work_mem and temp_file_limit, and no more rows are fetched than shown).
 * Left out on purpose, whatever the operator's list says (sql_admit
 * refuses them by name): functions that read or write the server's files
 * (pg_read_file, pg_ls_dir, lo_import, …), large objects (lo_*),
 * connections to other servers (dblink*), session state (set_config,
 * setseed, pg_advisory*, pg_notify, sequences' nextval/setval/currval/
 * lastval), signals (pg_cancel_backend, pg_terminate_backend), transaction
 * ids (txid_*, pg_*xact*), waiting (pg_sleep*), functions that run SQL
 * given as text (query_to_xml*, table_to_xml*, cursor_to_xml*,
 * schema_to_xml*, database_to_xml*, ts_stat, ts_rewrite) and TREAT. Left
 * off the default list: catalog and server facts (current_setting,
 * version, current_database, inet_server_addr, has_*_privilege,
 * obj_description, …) and the amplifiers that build a value far larger
 * than the query in one call PostgreSQL does not interrupt, measured on
 * PostgreSQL 15 with a 1 s statement_timeout: lpad/rpad (250 M characters:
 * 8.8 s, 750 MB), format ('%900000000s': 28 s), array_fill (100 M
 * elements: 1.7 s, 800 MB), repeat (900 M characters under a 10 s limit:
 * 16 s, 1.8 GB) and jsonb_pretty (quadratic in nesting depth: 6,000
 * levels, 2.3 s). Regular expressions and LIKE stay: PostgreSQL's regex
 * engine checks for cancellation, so statement_timeout stops it, and
 * LIKE gives up on a text once a '%' segment cannot match (LIKE_ABORT), so
 * it costs about text length x pattern length. What a single call of an
 * allowed function costs on a value built to 1 GB (replace, regexp_replace
 * with a long replacement) is bounded by the value limit PostgreSQL sets,
 * not by the statement timeout: such a call can run seconds past it.
 *
 * Nothing here allocates; errors fill a dbmcp_error whose public message
 * is the same sentence as the operator message.
 */
#ifndef DBMCP_TOOLS_SQL_ADMISSION_H
#define DBMCP_TOOLS_SQL_ADMISSION_H

#include <stddef.h>

#include "core/error.h"

/* Character limit when the policy gives none (setting query.max_chars). */
#define SQL_ADMISSION_MAX_CHARS_DEFAULT 32000

/* The SQL a text is written in: which lexer reads it, which rules apply. */
typedef enum sql_dialect {
    SQL_DIALECT_SQLITE = 0, /* SQLite 3 (the default) */
    SQL_DIALECT_POSTGRES    /* PostgreSQL 15 */
} sql_dialect;

/* The rule a refused query broke; names as listed above. */
typedef enum sql_admission_rule {
    SQL_RULE_NONE = 0, /* admitted */
    SQL_RULE_TOO_LONG,
    SQL_RULE_ENCODING,
    SQL_RULE_UNTERMINATED,
    SQL_RULE_EMPTY,
    SQL_RULE_SEMICOLON,
    SQL_RULE_FIRST_KEYWORD,
    SQL_RULE_WRITE,
    SQL_RULE_ATTACH,
    SQL_RULE_PRAGMA,
    SQL_RULE_EXTENSION,
    SQL_RULE_PARAMETER,
    SQL_RULE_INTERNAL,
    SQL_RULE_FUNCTION,
    /* PostgreSQL only */
    SQL_RULE_TRANSACTION,
    SQL_RULE_LOCKING,
    SQL_RULE_INTO,
    SQL_RULE_COPY,
    SQL_RULE_SESSION,
    SQL_RULE_NOTIFY,
    SQL_RULE_LOCK,
    SQL_RULE_PROCEDURAL,
    SQL_RULE_PREPARED,
    SQL_RULE_CATALOG
} sql_admission_rule;

typedef struct sql_admission_policy {
    size_t max_chars;      /* characters allowed; 0 = SQL_ADMISSION_MAX_CHARS_DEFAULT */
    const char *functions; /* comma-separated allowlist, case-insensitive;
                              NULL or "" = the dialect's default list */
    sql_dialect dialect;   /* how to read the text; 0 = SQLite */
} sql_admission_policy;

/* The reviewed default allowlists, comma-separated, lowercase: SQLite's
 * and PostgreSQL's. */
extern const char sql_admission_default_functions[];
extern const char sql_admission_pg_default_functions[];

/* The default allowlist of dialect d (one of the two above). */
const char *sql_admission_dialect_functions(sql_dialect d);

/* Admit `len` bytes of SQL text under policy p (NULL = defaults). Returns 0
 * when admitted; otherwise DBMCP_EDENIED (a rule refused it), DBMCP_ETOOBIG
 * (too long) or DBMCP_EINVAL (not valid text), with err filled and *rule
 * (may be NULL) set to the rule broken. */
int sql_admit(const char *sql, size_t len, const sql_admission_policy *p, sql_admission_rule *rule,
              dbmcp_error *err);

/* The rule's short name ("semicolon", "function", …; "ok" for none). */
const char *sql_admission_rule_name(sql_admission_rule rule);

/* --- the lexer, for other readers of SQL text (literal extraction) ------- */

typedef enum sql_token_kind {
    SQL_TOKEN_END = 0,      /* no more tokens */
    SQL_TOKEN_WORD,         /* bare identifier or keyword */
    SQL_TOKEN_QUOTED_NAME,  /* "name", [name] or `name` */
    SQL_TOKEN_STRING,       /* 'text' */
    SQL_TOKEN_BLOB,         /* X'hex' */
    SQL_TOKEN_NUMBER,       /* 42, 3.5e-2, 0x1F */
    SQL_TOKEN_PARAMETER,    /* ?, ?7, :name, @name, $name, #name */
    SQL_TOKEN_LPAREN,       /* ( */
    SQL_TOKEN_RPAREN,       /* ) */
    SQL_TOKEN_SEMICOLON,    /* ; */
    SQL_TOKEN_OPERATOR,     /* any other punctuation: , . + -> ->> || <= … */
    SQL_TOKEN_UNTERMINATED, /* a string, quoted name or comment never closed */
} sql_token_kind;

typedef struct sql_token {
    sql_token_kind kind;
    size_t offset; /* byte offset of the token in the text */
    size_t length; /* bytes, quotes included */
} sql_token;

/* The next token at or after byte *pos of sql[0..len), skipping whitespace
 * and comments; *pos moves past it. Returns the token's kind. SQLite's
 * tokens. */
sql_token_kind sql_next_token(const char *sql, size_t len, size_t *pos, sql_token *tok);

/* The same with PostgreSQL's tokens (sql_lexer_pg.c): E'…', U&'…', $$…$$
 * and B'…'/X'…' are SQL_TOKEN_STRING (bit strings SQL_TOKEN_BLOB), U&"…"
 * is SQL_TOKEN_QUOTED_NAME, $1 and :name are SQL_TOKEN_PARAMETER, :: and
 * ? are operators, block comments nest. */
sql_token_kind sql_pg_next_token(const char *sql, size_t len, size_t *pos, sql_token *tok);

/* sql_next_token or sql_pg_next_token, as dialect says. */
sql_token_kind sql_dialect_next_token(sql_dialect dialect, const char *sql, size_t len, size_t *pos,
                                      sql_token *tok);

/* The name PostgreSQL reads in token t of sql[0..len) into out (size > 0,
 * cut to fit): a bare word as written, a "quoted" name without quotes
 * and with doubled quotes undone, a U&"…" name with its Unicode escapes
 * decoded (honouring a UESCAPE 'c' after it). */
void sql_pg_token_name(const char *sql, size_t len, const sql_token *t, char *out, size_t size);
/* The name the dialect reads in token t: sql_pg_token_name on PostgreSQL;
 * on SQLite a bare word as written, a "quoted", [bracketed] or `quoted`
 * name without its quotes and with doubled quotes undone. */
void sql_dialect_token_name(sql_dialect dialect, const char *sql, size_t len, const sql_token *t,
                            char *out, size_t size);

#endif
