/*
 * sql_admission.h — text admission of agent-written SQL (seed 001, stage 4):
 * is this text worth sending to the database at all?
 *
 * sql_admit reads the query with a small SQL lexer that knows SQLite's
 * tokens — 'strings' with '' escapes, "identifiers", [brackets],
 * `backticks`, X'blobs', -- and block comments, numbers, parameters — so
 * a keyword inside a comment or a string is seen as the text it is, and a
 * keyword outside one is never missed. It admits a query only when all of
 * these hold (the first rule broken is reported):
 *
 *   too_long       at most max_chars characters (Unicode code points)
 *   encoding       valid UTF-8 without NUL characters
 *   unterminated   every string, quoted identifier and comment is closed
 *   empty          there is a statement at all
 *   semicolon      no ';' outside literals and comments (not even a trailing
 *                  one): one statement only
 *   first_keyword  the first token (after comments, whitespace and '(') is
 *                  SELECT, WITH or VALUES
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
 * Nothing here allocates; errors fill a dbmcp_error whose public message
 * is the same sentence as the operator message.
 */
#ifndef DBMCP_TOOLS_SQL_ADMISSION_H
#define DBMCP_TOOLS_SQL_ADMISSION_H

#include <stddef.h>

#include "core/error.h"

/* Character limit when the policy gives none (setting query.max_chars). */
#define SQL_ADMISSION_MAX_CHARS_DEFAULT 32000

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
    SQL_RULE_FUNCTION
} sql_admission_rule;

typedef struct sql_admission_policy {
    size_t max_chars;      /* characters allowed; 0 = SQL_ADMISSION_MAX_CHARS_DEFAULT */
    const char *functions; /* comma-separated allowlist, case-insensitive;
                              NULL or "" = sql_admission_default_functions */
} sql_admission_policy;

/* The reviewed default allowlist, comma-separated, lowercase. */
extern const char sql_admission_default_functions[];

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
 * and comments; *pos moves past it. Returns the token's kind. */
sql_token_kind sql_next_token(const char *sql, size_t len, size_t *pos, sql_token *tok);

#endif
