/*
 * fts5_peer DB — stock SQLite FTS5 BM25 over the same memory, the peer of
 * memory_search's keyword side in bench/memory/run.mjs (--reuse).
 *
 * Copies the message texts of dbmcp_mem_items into an in-memory FTS5 table
 * (tokenize 'porter unicode61', like the retrieval benchmark's baseline),
 * then reads one query per line from stdin and times, in this process,
 *   SELECT rowid FROM peer WHERE peer MATCH :q ORDER BY rank LIMIT 10
 * with every word of the query OR-ed (each as an FTS5 string). No MCP, no
 * HTTP, no JSON, no scope, no filters: the cost of ranking alone, the
 * physical floor of a keyword search over these rows on this machine.
 * Prints one JSON object: rows, queries, p50_us, p95_us, mean_us, hits.
 */
#include <ctype.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_QUERIES 10000

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The words of line (ASCII letters and digits; other bytes kept inside a
 * word when not space or punctuation) as "w1" OR "w2" ... into out. */
static int or_words(const char *line, char *out, size_t size)
{
    size_t n = 0;
    int words = 0;
    for (const char *p = line; *p;) {
        while (*p && (isspace((unsigned char)*p) || ispunct((unsigned char)*p)))
            p++;
        const char *w = p;
        while (*p && !isspace((unsigned char)*p) && !ispunct((unsigned char)*p))
            p++;
        if (p == w)
            continue;
        int len = (int)(p - w);
        int m = snprintf(out + n, size - n, "%s\"%.*s\"", words ? " OR " : "", len, w);
        if (m < 0 || (size_t)m >= size - n)
            break;
        n += (size_t)m;
        words++;
    }
    return words;
}

static int fail(sqlite3 *db, const char *what)
{
    fprintf(stderr, "fts5_peer: %s: %s\n", what, db ? sqlite3_errmsg(db) : "out of memory");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fts5_peer DB < queries\n");
        return 2;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        return fail(db, "open");
    if (sqlite3_exec(db,
                     "CREATE VIRTUAL TABLE temp.peer USING fts5(text, tokenize='porter unicode61');"
                     "INSERT INTO temp.peer (rowid, text) SELECT id, text FROM dbmcp_mem_items"
                     " WHERE tier = 'message';"
                     "INSERT INTO temp.peer (peer) VALUES ('optimize');",
                     NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, "load");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "SELECT rowid FROM temp.peer WHERE peer MATCH ?1 ORDER BY rank LIMIT 10",
                           -1, &st, NULL) != SQLITE_OK)
        return fail(db, "prepare");
    static double t[MAX_QUERIES];
    size_t n = 0;
    long hits = 0;
    char line[4096], q[16384];
    while (n < MAX_QUERIES && fgets(line, sizeof line, stdin)) {
        if (!or_words(line, q, sizeof q))
            continue;
        double t0 = now_us();
        sqlite3_bind_text(st, 1, q, -1, SQLITE_STATIC);
        while (sqlite3_step(st) == SQLITE_ROW)
            hits++;
        sqlite3_reset(st);
        t[n++] = now_us() - t0;
    }
    sqlite3_finalize(st);
    sqlite3_int64 rows = 0;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM temp.peer", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        rows = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (!n) {
        fprintf(stderr, "fts5_peer: no queries\n");
        return 1;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += t[i];
    qsort(t, n, sizeof *t, cmp_double);
    printf("{\"rows\":%lld,\"queries\":%zu,\"p50_us\":%.1f,\"p95_us\":%.1f,\"mean_us\":%.1f,"
           "\"hits\":%ld}\n",
           (long long)rows, n, t[n / 2],
           t[(size_t)(0.95 * (double)n) < n ? (size_t)(0.95 * (double)n) : n - 1], sum / (double)n,
           hits);
    return 0;
}
