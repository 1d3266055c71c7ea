/*
 * write_floor.c — the physical floor under save_message on this machine,
 * printed beside bench/memory.sh's write figures: how many durable syncs
 * the disk takes per second, and how fast bare SQLite inserts one small
 * row, with the settings dbmcp uses (WAL, synchronous NORMAL) and with a
 * sync per commit (synchronous FULL), one row per transaction and 128.
 *
 * Usage: write_floor DIR [SECONDS]   (DIR: a directory on the disk of the
 * database; each figure runs SECONDS, default 1). Prints one JSON object:
 * per figure the operations per second (wall) and the CPU microseconds per
 * operation of this process. It measures, it does not test.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct figure {
    double per_s;  /* operations per wall second */
    double cpu_us; /* CPU microseconds per operation */
} figure;

static void print_figure(const char *name, figure f, int last)
{
    printf("  \"%s\": {\"per_s\": %.1f, \"cpu_us\": %.2f}%s\n", name, f.per_s, f.cpu_us,
           last ? "" : ",");
}

/* 4 KiB written at offset 0 and fdatasync'd, as a WAL commit with a sync
 * does at least once. */
static figure sync_rate(const char *dir, double seconds)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/write_floor.sync", dir);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    figure f = {0, 0};
    if (fd < 0) {
        perror(path);
        return f;
    }
    char page[4096];
    memset(page, 'x', sizeof page);
    long n = 0;
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    while (clock_s(CLOCK_MONOTONIC) - t0 < seconds) {
        if (pwrite(fd, page, sizeof page, 0) != (ssize_t)sizeof page || fdatasync(fd) != 0) {
            perror("write_floor: sync");
            break;
        }
        n++;
    }
    double wall = clock_s(CLOCK_MONOTONIC) - t0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    close(fd);
    unlink(path);
    f.per_s = (double)n / wall;
    f.cpu_us = n ? cpu * 1e6 / (double)n : 0;
    return f;
}

/* path and its -wal and -shm files removed. */
static void remove_db(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s%s", path, suffixes[i]);
        unlink(p);
    }
}

/* Rows of about a message's size inserted with one prepared statement,
 * batch rows per BEGIN IMMEDIATE … COMMIT, for seconds. */
static figure sqlite_rate(const char *dir, const char *sync, int batch, double seconds)
{
    char path[4096], pragmas[128];
    snprintf(path, sizeof path, "%s/write_floor.db", dir);
    remove_db(path);
    figure f = {0, 0};
    sqlite3 *db;
    sqlite3_stmt *st = NULL;
    snprintf(pragmas, sizeof pragmas, "PRAGMA journal_mode = WAL; PRAGMA synchronous = %s;", sync);
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, pragmas, 0, 0, 0) != SQLITE_OK ||
        sqlite3_exec(db, "CREATE TABLE m (id INTEGER PRIMARY KEY, t TEXT NOT NULL)", 0, 0, 0) ||
        sqlite3_prepare_v2(db, "INSERT INTO m (t) VALUES (?1)", -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "write_floor: %s\n", sqlite3_errmsg(db));
        sqlite3_close(db);
        return f;
    }
    const char *text = "We should book the boardroom for Tuesday and order lunch for twelve.";
    long n = 0;
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    while (clock_s(CLOCK_MONOTONIC) - t0 < seconds) {
        sqlite3_exec(db, "BEGIN IMMEDIATE", 0, 0, 0);
        for (int i = 0; i < batch; i++, n++) {
            sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
            sqlite3_step(st);
            sqlite3_reset(st);
        }
        if (sqlite3_exec(db, "COMMIT", 0, 0, 0) != SQLITE_OK) {
            fprintf(stderr, "write_floor: %s\n", sqlite3_errmsg(db));
            break;
        }
    }
    double wall = clock_s(CLOCK_MONOTONIC) - t0, cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    sqlite3_finalize(st);
    sqlite3_close(db);
    remove_db(path);
    f.per_s = (double)n / wall;
    f.cpu_us = n ? cpu * 1e6 / (double)n : 0;
    return f;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: write_floor DIR [SECONDS]\n");
        return 2;
    }
    double seconds = argc > 2 ? atof(argv[2]) : 1.0;
    if (seconds <= 0)
        seconds = 1.0;
    printf("{\n");
    print_figure("fdatasync_4k", sync_rate(argv[1], seconds), 0);
    print_figure("sqlite_1_per_commit_normal", sqlite_rate(argv[1], "NORMAL", 1, seconds), 0);
    print_figure("sqlite_1_per_commit_full", sqlite_rate(argv[1], "FULL", 1, seconds), 0);
    print_figure("sqlite_128_per_commit_normal", sqlite_rate(argv[1], "NORMAL", 128, seconds), 0);
    print_figure("sqlite_128_per_commit_full", sqlite_rate(argv[1], "FULL", 128, seconds), 1);
    printf("}\n");
    return 0;
}
