/*
 * pg_guard_run.c — the server's own verdict on the hostile SQL cases of
 * tests/cases/hostile_pg: every case, refused by admission or not, sent
 * straight to a real PostgreSQL server as the query role, the way dbmcp's
 * driver runs agent SQL, because admission is only the first lock. Built
 * and run by tests/cli/hostile_pg.sh, after the same cases went through
 * `dbmcp call execute_query` (tests/cli/hostile_pg_cases.mjs).
 *
 *   pg_guard_run cases CONNINFO DIR MARKER  run every case file in DIR
 *
 * It keeps ONE connection for all cases, like a pooled query connection,
 * and for each: sends the opening statements of pg_guard_begin_statements
 * (2 s limit unless the case says "timeout_ms"), each over the extended
 * protocol as the driver's pipeline does, then the case's text tagged
 * like execute_query's, over the extended protocol (PQsendQueryParams: one
 * statement, nothing bound) in single-row mode, fetching at most 26 rows
 * and cancelling the rest, then pg_guard_end_sql (when that fails, a new
 * session, as the driver takes). It compares the outcome
 * with the case's "engine" ("rows", "failed", "timeout"), "engine_error"
 * (text of the server's message), "output_contains" and "output_excludes",
 * the rows written as dbmcp's table shows them ("| a | b |", booleans 1 and
 * 0 as the driver reads them, '|', '\\' and line breaks escaped); fails a
 * case whose rows or error show MARKER (the secrets planted in dbmcp's
 * tables and elsewhere); and after each case checks that the session is as
 * it was: same user, settings, no prepared statement, cursor, advisory
 * lock, LISTEN or temporary schema left, no transaction open. A case that
 * ends its own connection gets a new one, as the pool would. Exit 1 when
 * any case failed; the summary counts the cases per file and names what
 * the server allowed of what admission refuses.
 */
#include <jansson.h>
#include <libpq-fe.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/pg_guard.h"

#define ROWS_FETCHED 26        /* max_rows 25, and one more */
#define CASE_TIMEOUT_MS 2000   /* the suite's time limit */
#define OUTPUT_MAX (64 * 1024) /* output kept per case */
#define STATE_QUERY                                                                                \
    "SELECT current_user, session_user, current_setting('default_transaction_read_only'), "        \
    "current_setting('statement_timeout'), current_setting('search_path'), "                       \
    "current_setting('application_name'), current_setting('work_mem'), "                           \
    "current_setting('transaction_read_only'), current_setting('role'), "                          \
    "(SELECT count(*) FROM pg_prepared_statements), (SELECT count(*) FROM pg_cursors), "           \
    "(SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = "                  \
    "'advisory'), (SELECT count(*) FROM pg_listening_channels()), "                                \
    "coalesce(pg_my_temp_schema()::int, 0)"

static const char *conninfo;
static const char *marker;

/* Notices (warnings the cases provoke) are no verdict: not shown. */
static void quiet(void *arg, const char *message)
{
    (void)arg, (void)message;
}

static PGconn *connect_or_die(void)
{
    PGconn *c = PQconnectdb(conninfo);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "pg_guard_run: cannot connect: %s", PQerrorMessage(c));
        exit(2);
    }
    PQsetNoticeProcessor(c, quiet, NULL);
    return c;
}

/* ------------------------------------------------------------------------ */
/* one case                                                                  */

typedef struct outcome {
    const char *verdict; /* "rows", "failed", "timeout" */
    char error[1024];    /* the server's message, if any */
    char *output;        /* rows as "a | b" lines */
    size_t output_len;
    int rows;
    int connection_lost;
} outcome;

static void output_append(outcome *o, const char *text)
{
    size_t n = strlen(text);
    if (o->output_len + n + 1 >= OUTPUT_MAX)
        return;
    memcpy(o->output + o->output_len, text, n + 1);
    o->output_len += n;
}

/* The case's SQL bytes (query, query_hex, {{repeat}}); NULL if malformed. */
static char *case_query(const json_t *c)
{
    const char *hex = json_string_value(json_object_get(c, "query_hex"));
    if (hex) {
        size_t n = strlen(hex) / 2;
        char *out = calloc(1, n + 1);
        for (size_t i = 0, k = 0; hex[i] && hex[i + 1]; i += 2)
            if (sscanf(hex + i, "%2hhx", (unsigned char *)&out[k]) == 1)
                k++;
        return out;
    }
    const char *q = json_string_value(json_object_get(c, "query"));
    if (!q)
        return NULL;
    const json_t *rep = json_object_get(c, "repeat");
    const char *text = json_string_value(json_object_get(rep, "text"));
    size_t count = (size_t)json_integer_value(json_object_get(rep, "count"));
    const char *at = strstr(q, "{{repeat}}");
    if (!text || !at)
        return strdup(q);
    size_t tl = strlen(text);
    char *out = malloc(strlen(q) + tl * count + 1);
    size_t n = (size_t)(at - q);
    memcpy(out, q, n);
    for (size_t i = 0; i < count; i++, n += tl)
        memcpy(out + n, text, tl);
    strcpy(out + n, at + strlen("{{repeat}}"));
    return out;
}

/* A cell as dbmcp's table shows it: booleans 1/0 (the driver reads bool
 * as an integer), '|', '\\' and line breaks escaped (tools/render.c). */
static void output_cell(outcome *o, const PGresult *r, int k)
{
    if (PQgetisnull(r, 0, k)) {
        output_append(o, "NULL");
        return;
    }
    const char *v = PQgetvalue(r, 0, k);
    if (PQftype(r, k) == 16) {
        output_append(o, v[0] == 't' ? "1" : "0");
        return;
    }
    char piece[2] = {0, 0};
    for (; *v; v++) {
        const char *esc = *v == '|' ? "\\|" : *v == '\\' ? "\\\\" : *v == '\n' ? "\\n" : NULL;
        piece[0] = *v;
        output_append(o, esc ? esc : piece);
    }
}

static void run_statement(PGconn *c, const char *sql, outcome *o)
{
    o->verdict = "rows";
    if (!PQsendQueryParams(c, sql, 0, NULL, NULL, NULL, NULL, 0)) {
        o->verdict = "failed";
        snprintf(o->error, sizeof o->error, "%s", PQerrorMessage(c));
        return;
    }
    PQsetSingleRowMode(c);
    int cancelled = 0;
    PGresult *r;
    while ((r = PQgetResult(c)) != NULL) {
        ExecStatusType st = PQresultStatus(r);
        if (st == PGRES_SINGLE_TUPLE) {
            if (o->rows < ROWS_FETCHED) {
                for (int k = 0; k < PQnfields(r); k++) {
                    output_append(o, k ? " | " : "| ");
                    output_cell(o, r, k);
                }
                output_append(o, " |\n");
            }
            if (++o->rows == ROWS_FETCHED && !cancelled) {
                PGcancel *cc = PQgetCancel(c);
                char errbuf[256];
                PQcancel(cc, errbuf, sizeof errbuf);
                PQfreeCancel(cc);
                cancelled = 1;
            }
        } else if (st == PGRES_FATAL_ERROR && !cancelled) {
            const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
            const char *msg = PQresultErrorMessage(r);
            o->verdict = state && strcmp(state, "57014") == 0 && strstr(msg, "statement timeout")
                             ? "timeout"
                             : "failed";
            snprintf(o->error, sizeof o->error, "%s", msg);
        } else if (st == PGRES_COPY_OUT) {
            /* The server sends what COPY reads: keep it like rows. */
            char *buf = NULL;
            while (PQgetCopyData(c, &buf, 0) > 0) {
                output_append(o, buf);
                PQfreemem(buf);
            }
        } else if (st == PGRES_COPY_IN) {
            PQputCopyEnd(c, "pg_guard_run sends no data");
        }
        PQclear(r);
    }
    if (PQstatus(c) != CONNECTION_OK)
        o->connection_lost = 1;
    if (o->rows > ROWS_FETCHED)
        o->rows = ROWS_FETCHED;
}

/* Exec one trusted statement list; its error text, or NULL. */
static const char *exec_trusted(PGconn *c, const char *sql)
{
    static char error[512];
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    const char *fail = NULL;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        snprintf(error, sizeof error, "%s", PQerrorMessage(c));
        fail = error;
    }
    PQclear(r);
    return fail;
}

/* One statement of driver text over the extended protocol, as the
 * driver's pipeline sends the call's opening; NULL or the error. */
static const char *exec_extended(PGconn *c, const char *sql)
{
    static char error[512];
    PGresult *r = PQexecParams(c, sql, 0, NULL, NULL, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(r);
    const char *fail = NULL;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        snprintf(error, sizeof error, "%s", PQerrorMessage(c));
        fail = error;
    }
    PQclear(r);
    return fail;
}

/* The session's state as one line. */
static char *session_state(PGconn *c)
{
    PGresult *r = PQexec(c, STATE_QUERY);
    char *line = NULL;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
        size_t size = 0;
        FILE *f = open_memstream(&line, &size);
        for (int k = 0; k < PQnfields(r); k++)
            fprintf(f, "%s%s", k ? "|" : "", PQgetvalue(r, 0, k));
        fclose(f);
    } else {
        line = strdup(PQerrorMessage(c));
    }
    PQclear(r);
    return line;
}

typedef struct tally {
    int cases, failures, server_allowed;
} tally;

static int check_case(PGconn **conn, const char *baseline, const char *file, const json_t *c,
                      tally *t)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    const char *expected = json_string_value(json_object_get(c, "engine"));
    const char *engine_error = json_string_value(json_object_get(c, "engine_error"));
    const char *contains = json_string_value(json_object_get(c, "output_contains"));
    const char *excludes = json_string_value(json_object_get(c, "output_excludes"));
    const char *admission = json_string_value(json_object_get(c, "expect"));
    json_int_t timeout = json_integer_value(json_object_get(c, "timeout_ms"));
    char *sql = case_query(c);
    char why[2048] = "";
    if (!sql || !expected) {
        snprintf(why, sizeof why, "no query or no \"engine\"");
        goto done;
    }
    pg_guard_call call = {"00000000-0000-4000-8000-00000000c0de",
                          "execute_query",
                          timeout > 0 ? (int)timeout : CASE_TIMEOUT_MS,
                          0,
                          0,
                          0};
    pg_guard_opening open;
    dbmcp_error err;
    if (pg_guard_begin_statements(&call, &open, &err) != 0) {
        snprintf(why, sizeof why, "begin: %s", err.message);
        goto done;
    }
    const char *fail = exec_extended(*conn, open.begin);
    if (!fail)
        fail = exec_extended(*conn, open.settings);
    if (!fail)
        fail = exec_extended(*conn, open.savepoint);
    if (fail) {
        snprintf(why, sizeof why, "the call's opening statements failed: %s", fail);
        goto done;
    }
    char *tagged = NULL;
    if (asprintf(&tagged, "/* dbmcp call_id=%s tool=execute_query client=hostile_pg model=- */ %s",
                 call.call_id, sql) < 0)
        abort();
    outcome o = {0};
    o.output = calloc(1, OUTPUT_MAX);
    run_statement(*conn, tagged, &o);
    free(tagged);
    if (o.connection_lost || PQstatus(*conn) != CONNECTION_OK) {
        PQfinish(*conn);
        *conn = connect_or_die();
        o.connection_lost = 1;
    } else if (exec_trusted(*conn, pg_guard_end_sql) != NULL ||
               PQtransactionStatus(*conn) != PQTRANS_IDLE) {
        /* The statement ended the call's transaction (COMMIT, ROLLBACK,
         * RELEASE SAVEPOINT): what the driver does next, a new session. */
        PQfinish(*conn);
        *conn = connect_or_die();
        printf("note %s: %s: the statement ended the call's transaction; new session\n", file,
               name ? name : "?");
    }
    if (!why[0] && strcmp(o.verdict, expected) != 0)
        snprintf(why, sizeof why, "server: expected %s, got %s%s%s", expected, o.verdict,
                 o.error[0] ? ": " : "", o.error);
    else if (!why[0] && engine_error && !strstr(o.error, engine_error))
        snprintf(why, sizeof why, "server error lacks \"%s\": %s", engine_error,
                 o.error[0] ? o.error : "(no error)");
    else if (!why[0] && contains && !strstr(o.output, contains))
        snprintf(why, sizeof why, "output lacks \"%s\": %.500s", contains, o.output);
    else if (!why[0] && excludes && strstr(o.output, excludes))
        snprintf(why, sizeof why, "output holds \"%s\": %.500s", excludes, o.output);
    else if (!why[0] && (strstr(o.output, marker) || strstr(o.error, marker)))
        snprintf(why, sizeof why, "LEAK: the answer shows %s: %.300s%.300s", marker, o.output,
                 o.error);
    if (!why[0]) {
        char *now = session_state(*conn);
        if (strcmp(now, baseline) != 0)
            snprintf(why, sizeof why, "the session changed:\n  before %s\n  after  %s", baseline,
                     now);
        free(now);
    }
    if (!why[0] && admission && strcmp(admission, "refused") == 0 && strcmp(o.verdict, "rows") == 0)
        t->server_allowed++, printf("allowed by the server, refused by admission: %s: %s\n", file,
                                    name ? name : "?");
    free(o.output);
done:
    t->cases++;
    if (why[0]) {
        t->failures++;
        printf("FAIL %s: %s: %s\n", file, name ? name : "?", why);
    }
    free(sql);
    return why[0] != 0;
}

static int name_compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmd_cases(const char *dir)
{
    PGconn *conn = connect_or_die();
    char *baseline = session_state(conn);
    printf("session: %s\n", baseline);
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "pg_guard_run: cannot open %s\n", dir);
        return 2;
    }
    char *names[256];
    size_t count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && count < 256;) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0)
            names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, name_compare);
    tally all = {0};
    for (size_t i = 0; i < count; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        json_error_t jerr;
        json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
        const json_t *list = json_object_get(doc, "cases");
        tally t = {0};
        if (!json_is_array(list)) {
            printf("FAIL %s: %s\n", path, doc ? "no \"cases\" array" : jerr.text);
            all.failures++;
        }
        for (size_t k = 0; k < json_array_size(list); k++)
            check_case(&conn, baseline, names[i], json_array_get(list, k), &t);
        printf("%-32s %3d cases, %d failed, %d allowed by the server that admission refuses\n",
               names[i], t.cases, t.failures, t.server_allowed);
        all.cases += t.cases, all.failures += t.failures, all.server_allowed += t.server_allowed;
        json_decref(doc);
        free(names[i]);
    }
    printf("hostile_pg: %d cases, %d failed, %d allowed by the server that admission refuses\n",
           all.cases, all.failures, all.server_allowed);
    free(baseline);
    PQfinish(conn);
    return all.failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "cases") == 0) {
        conninfo = argv[2];
        marker = argv[4];
        return cmd_cases(argv[3]);
    }
    fprintf(stderr, "usage: pg_guard_run cases CONNINFO DIR MARKER\n");
    return 2;
}
