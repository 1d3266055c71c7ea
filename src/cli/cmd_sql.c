/*
 * cmd_sql.c — the operator's SQL from the command line: `dbmcp sql` runs
 * statements on the catalog (read-write) connection and prints their rows;
 * `dbmcp dump` prints every table's rows as a deterministic text.
 *
 * Both exist so that scripts and tests reach the database through dbmcp,
 * never through an engine's own shell, and run unchanged on either backend
 * (ARCHITECTURE.md, "Two backends, one store API"). They are operator
 * commands, like editing the database file by hand: no tool, MCP method or
 * HTTP route leads here, and what `sql` runs is checked by nothing but the
 * engine and the table constraints.
 *
 * The operator's text is the statement (store_prepare_next splits a
 * script); the SQL `dump` needs is in store/dump.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/json_write.h"
#include "core/text_safe.h"
#include "store/dump.h"

/* clang-format off */
#define DB_FLAG {"db", "PATH", "database (SQLite file); default $DBMCP_DB or ./dbmcp.db"}
/* clang-format on */

/* How long `sql` waits for a lock a running server holds: a one-off
 * command may wait far longer than a request (the store's default 5 s). */
#define SQL_BUSY_TIMEOUT_MS 60000

/* A growable text buffer for one printed row. */
typedef struct line_buf {
    char *s;    /* NUL-terminated; owned */
    size_t len; /* bytes before the NUL */
    size_t cap; /* bytes allocated */
} line_buf;

static int line_put(line_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *grown = realloc(b->s, cap);
        if (!grown)
            return DBMCP_ENOMEM;
        b->s = grown;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

static int line_puts(line_buf *b, const char *s)
{
    return line_put(b, s, strlen(s));
}

/* Bytes as lower-case hex digits. */
static int line_put_hex(line_buf *b, const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        char pair[2] = {digits[p[i] >> 4], digits[p[i] & 15]};
        if (line_put(b, pair, 2))
            return DBMCP_ENOMEM;
    }
    return 0;
}

/* Text stored in the database, printed: on a terminal with control and
 * bidirectional characters shown as escapes (cli_safe), so a value cannot
 * draw fake rows; into a pipe or a file exactly as stored. */
static int print_stored(const char *s, int terminal)
{
    return fputs(terminal ? cli_safe(s) : s, stdout);
}

/* --- sql ----------------------------------------------------------------------- */

/* Column i of the current row as the sqlite3 shell's list mode shows it:
 * NULL empty, numbers and text as their text, blobs as hex. */
static int list_value(line_buf *b, store_stmt *st, int i)
{
    switch (store_column_type(st, i)) {
    case STORE_NULL: return 0;
    case STORE_BLOB: return line_put_hex(b, store_column_blob(st, i), store_column_bytes(st, i));
    default: {
        const char *text = store_column_text(st, i);
        return text ? line_puts(b, text) : 0;
    }
    }
}

/* Column i of the current row as a JSON value (a new reference): numbers
 * as numbers, text as a string (invalid UTF-8 replaced by U+FFFD), blobs as
 * a string of hex digits, NULL as null. */
static json_t *json_value(store_stmt *st, int i)
{
    switch (store_column_type(st, i)) {
    case STORE_NULL: return json_null();
    case STORE_INTEGER: return json_integer(store_column_int(st, i));
    case STORE_FLOAT: {
        json_t *v = json_real(store_column_double(st, i));
        return v ? v : json_null(); /* NaN and infinities have no JSON form */
    }
    case STORE_BLOB: {
        line_buf hex = {0};
        json_t *v = NULL;
        if (line_put_hex(&hex, store_column_blob(st, i), store_column_bytes(st, i)) == 0)
            v = json_string(hex.s ? hex.s : "");
        free(hex.s);
        return v;
    }
    default: {
        const char *text = store_column_text(st, i);
        json_t *v = json_string(text ? text : "");
        if (!v) {
            char *valid = text_safe_bound(text, 0, 0);
            v = valid ? json_string(valid) : NULL;
            free(valid);
        }
        return v;
    }
    }
}

/* One row of st as a JSON object keyed by column name, compact (malloc'd). */
static char *json_row(store_stmt *st)
{
    json_t *row = json_object();
    for (int i = 0; row && i < store_column_count(st); i++) {
        const char *name = store_column_name(st, i);
        json_t *v = json_value(st, i);
        if (!v || json_object_set_new(row, name ? name : "", v)) {
            json_decref(row);
            return NULL;
        }
    }
    char *text = row ? json_write_compact(row, NULL) : NULL;
    json_decref(row);
    return text;
}

/* Run st to the end, printing its rows (JSON: one array when it returns
 * columns, even without rows). */
static int print_rows(store_stmt *st, int json, int terminal, dbmcp_error *err)
{
    int columns = store_column_count(st), rows = 0, rc;
    if (json && columns > 0)
        fputs("[", stdout);
    while ((rc = store_step(st, err)) == STORE_ROW) {
        if (json) {
            char *row = json_row(st);
            if (!row)
                return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            printf("%s%s", rows ? ",\n" : "", row);
            free(row);
        } else {
            line_buf line = {0};
            for (int i = 0; i < columns; i++)
                if ((i && line_puts(&line, "|")) || list_value(&line, st, i)) {
                    free(line.s);
                    return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                }
            print_stored(line.s ? line.s : "", terminal);
            putchar('\n');
            free(line.s);
        }
        rows++;
    }
    if (json && columns > 0)
        fputs("]\n", stdout);
    return rc < 0 ? rc : 0;
}

/* Parse --busy-timeout (default SQL_BUSY_TIMEOUT_MS) into *ms. */
static int busy_timeout_flag(cli_args *a, int *ms)
{
    const char *s = cli_flag(a, "busy-timeout");
    *ms = SQL_BUSY_TIMEOUT_MS;
    if (!s)
        return CLI_OK;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < 0 || v > 24L * 3600 * 1000)
        return cli_usage_error(a->cmd, "--busy-timeout must be milliseconds, 0 to 86400000");
    *ms = (int)v;
    return CLI_OK;
}

static int run_sql(cli_args *a)
{
    int busy_ms;
    if (busy_timeout_flag(a, &busy_ms) != CLI_OK)
        return CLI_USAGE;
    dbmcp_error err;
    char *input = NULL;
    const char *script = a->argc ? a->argv[0] : "-";
    if (strcmp(script, "-") == 0) {
        if (cli_read_text_file("-", &input, &err))
            return cli_fail(&err);
        script = input;
    }
    store *db = NULL;
    if (store_open(cli_db_url(a), STORE_READWRITE, &db, &err)) {
        free(input);
        return cli_fail(&err);
    }
    store_set_busy_timeout(db, busy_ms);
    int json = cli_flag(a, "json") != NULL, terminal = isatty(STDOUT_FILENO);
    int rc = 0;
    for (const char *next = script; !rc;) {
        store_stmt *st = NULL;
        rc = store_prepare_next(db, &next, &st, &err);
        if (rc || !st)
            break;
        rc = print_rows(st, json, terminal, &err);
        store_finalize(st);
    }
    store_close(db);
    free(input);
    if (fflush(stdout) || ferror(stdout))
        return cli_fail(&(dbmcp_error){DBMCP_EIO, "writing the rows failed", ""});
    return rc ? cli_fail(&err) : CLI_OK;
}

static const cli_flag_spec sql_flags[] = {
    DB_FLAG,
    {"json", NULL, "print each statement's rows as one JSON array of objects"},
    {"busy-timeout", "MS", "wait this long for a lock another connection holds (default 60000)"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_sql = {
    "sql",
    "Run SQL on the database as the operator and print the rows",
    "[SQL|-] [--json] [--busy-timeout MS] [--db PATH]",
    "Runs SQL (from the argument, or standard input when it is \"-\" or missing) on the\n"
    "catalog connection, read-write, one statement after another; a script may hold any\n"
    "number of statements separated by ';'. Each statement commits on its own unless the\n"
    "script opens a transaction. The first statement that fails stops the script: the\n"
    "engine's message goes to stderr and the exit status is 1 (statements before it stay\n"
    "done).\n"
    "\n"
    "Rows print like the sqlite3 shell's list mode: columns joined by '|', NULL as an\n"
    "empty field, blobs as hex digits, no header, one row per line. With --json each\n"
    "statement that returns columns prints one JSON array of objects keyed by column\n"
    "name (numbers as numbers, NULL as null, blobs as hex strings). On a terminal,\n"
    "control characters in values are shown as escapes.\n"
    "\n"
    "This is the operator's own access, like editing the database by hand: nothing\n"
    "validates what it writes except the database's constraints, and no MCP client or\n"
    "agent can reach it. dbmcp's admin commands (`dbmcp tools add`, …) validate rows;\n"
    "prefer them for the catalog. Tests use `sql` and `dump` instead of an engine's shell,\n"
    "so every suite runs on either backend.",
    0,
    1,
    sql_flags,
    run_sql,
};

/* --- dump ---------------------------------------------------------------------- */

/* Text in dump's canonical form: in single quotes, a quote doubled, a
 * backslash doubled, \n \r \t and the other control bytes (NUL included)
 * as escapes, everything else as stored. */
static int dump_text(line_buf *b, const unsigned char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    int rc = line_puts(b, "'");
    for (size_t i = 0; !rc && i < n; i++) {
        unsigned char c = p[i];
        char esc[5] = {'\\', 0, 0, 0, 0};
        if (c == '\'')
            rc = line_puts(b, "''");
        else if (c == '\\')
            rc = line_puts(b, "\\\\");
        else if (c == '\n' || c == '\r' || c == '\t') {
            esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
            rc = line_puts(b, esc);
        } else if (c < 0x20 || c == 0x7f) {
            esc[1] = 'x';
            esc[2] = digits[c >> 4];
            esc[3] = digits[c & 15];
            rc = line_puts(b, esc);
        } else {
            rc = line_put(b, (const char *)&c, 1);
        }
    }
    return rc ? rc : line_puts(b, "'");
}

/* Column i of the current row in dump's canonical form: NULL, integers in
 * decimal, floats with 17 significant digits and always a '.' or an
 * exponent (1.0, so a float never reads as an integer), text as
 * dump_text, blobs as x'hex'. */
static int dump_value(line_buf *b, store_stmt *st, int i)
{
    char num[64];
    switch (store_column_type(st, i)) {
    case STORE_NULL: return line_puts(b, "NULL");
    case STORE_INTEGER:
        snprintf(num, sizeof num, "%lld", (long long)store_column_int(st, i));
        return line_puts(b, num);
    case STORE_FLOAT:
        snprintf(num, sizeof num, "%.17g", store_column_double(st, i));
        if (!strpbrk(num, ".eEin"))
            strcat(num, ".0");
        return line_puts(b, num);
    case STORE_BLOB:
        if (line_puts(b, "x'") ||
            line_put_hex(b, store_column_blob(st, i), store_column_bytes(st, i)))
            return DBMCP_ENOMEM;
        return line_puts(b, "'");
    default: {
        const char *text = store_column_text(st, i);
        return dump_text(b, (const unsigned char *)(text ? text : ""),
                         text ? store_column_bytes(st, i) : 0);
    }
    }
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of one table, each as its canonical line. */
typedef struct dump_rows {
    char **v;   /* lines, owned */
    size_t n;   /* lines */
    size_t cap; /* slots allocated */
} dump_rows;

static void dump_rows_free(dump_rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i]);
    free(r->v);
}

static int dump_rows_add(dump_rows *r, char *line)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        char **grown = realloc(r->v, cap * sizeof *grown);
        if (!grown)
            return DBMCP_ENOMEM;
        r->v = grown;
        r->cap = cap;
    }
    r->v[r->n++] = line;
    return 0;
}

/* Read every row of st into r, one canonical line each, values joined by
 * '|'; the header gets the column names. */
static int dump_read(store_stmt *st, line_buf *header, dump_rows *r, dbmcp_error *err)
{
    int columns = store_column_count(st), rc;
    for (int i = 0; i < columns; i++) {
        const char *name = store_column_name(st, i);
        if ((i && line_puts(header, ", ")) || line_puts(header, name ? name : ""))
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    }
    while ((rc = store_step(st, err)) == STORE_ROW) {
        line_buf line = {0};
        int bad = 0;
        for (int i = 0; i < columns && !bad; i++)
            bad = (i && line_puts(&line, "|")) || dump_value(&line, st, i);
        if (!bad && !line.s)
            bad = line_puts(&line, "");
        if (bad || dump_rows_add(r, line.s)) {
            free(line.s);
            return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        }
    }
    return rc < 0 ? rc : 0;
}

/* Print one table: "table NAME (COLUMNS): N rows", then its rows sorted
 * by their canonical text in byte order. */
static int dump_table(store *db, const char *name, int terminal, dbmcp_error *err)
{
    store_stmt *st = NULL;
    int rc = dump_table_scan(db, name, &st, err);
    if (rc)
        return dbmcp_error_prefix(err, name);
    line_buf header = {0};
    dump_rows rows = {0};
    rc = dump_read(st, &header, &rows, err);
    store_finalize(st);
    if (!rc) {
        if (rows.n > 1) /* qsort's pointer must not be NULL, even for no rows */
            qsort(rows.v, rows.n, sizeof *rows.v, by_text);
        printf("table ");
        print_stored(name, terminal);
        printf(" (");
        print_stored(header.s ? header.s : "", terminal);
        printf("): %zu rows\n", rows.n);
        for (size_t i = 0; i < rows.n; i++) {
            print_stored(rows.v[i], terminal);
            putchar('\n');
        }
    } else {
        dbmcp_error_prefix(err, name);
    }
    free(header.s);
    dump_rows_free(&rows);
    return rc;
}

static int run_dump(cli_args *a)
{
    dbmcp_error err;
    store *db = NULL;
    if (store_open(cli_db_url(a), STORE_READWRITE, &db, &err))
        return cli_fail(&err);
    dump_object *objects = NULL;
    size_t n = 0;
    int rc = dump_objects_list(db, &objects, &n, &err);
    int terminal = isatty(STDOUT_FILENO);
    for (size_t i = 0; !rc && i < n; i++) {
        if (objects[i].kind == DUMP_TABLE) {
            rc = dump_table(db, objects[i].name, terminal, &err);
        } else {
            printf("%s ", objects[i].kind == DUMP_VIEW ? "view" : "virtual table");
            print_stored(objects[i].name, terminal);
            putchar('\n');
        }
    }
    dump_objects_free(objects, n);
    store_close(db);
    if (fflush(stdout) || ferror(stdout))
        return cli_fail(&(dbmcp_error){DBMCP_EIO, "writing the dump failed", ""});
    return rc ? cli_fail(&err) : CLI_OK;
}

static const cli_flag_spec dump_flags[] = {
    DB_FLAG,
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_dump = {
    "dump",
    "Print every table's rows as a deterministic text (for comparing databases)",
    "[--db PATH]",
    "Prints every table and view of the database, dbmcp's own tables and the user's,\n"
    "in name order (byte order); the engine's own tables (sqlite_*) are left out. A\n"
    "table is a line \"table NAME (COLUMNS): N rows\" followed by its rows, one a\n"
    "line, values joined by '|' and the rows sorted by that text in byte order; a view\n"
    "or a virtual table is one line naming it (a virtual table's rows are in its\n"
    "shadow tables, which are listed as tables).\n"
    "\n"
    "Values: NULL; integers in decimal; floats with 17 significant digits and always\n"
    "a '.' or an exponent (1.0); text in single quotes with ' doubled, \\ doubled and\n"
    "\\n, \\r, \\t and \\xNN for other control bytes; blobs as x'hex'. Two dumps are\n"
    "equal exactly when the tables, their columns and their rows are; indexes,\n"
    "triggers and constraints are not shown. Tests compare dumps to check that a\n"
    "refused command left the database as it was. Reads a whole table into memory\n"
    "to sort it: meant for test and small databases, not for backups.",
    0,
    0,
    dump_flags,
    run_dump,
};
