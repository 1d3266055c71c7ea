/*
 * hold_write_lock.c — the other process of tests/cli/hostile_audit.sh: it
 * takes the database's write lock and holds it until its standard input
 * ends, so the suite can keep dbmcp's writers waiting past their busy
 * timeout for as long as it needs and end the wait by an event (closing
 * the pipe), not by a sleep.
 *
 *   hold_write_lock DB_URL
 *
 * Prints "locked" once it holds the lock (store_begin: BEGIN IMMEDIATE on
 * SQLite) and "released" after rolling back at end of input. Exit 0, or 1
 * with the reason on stderr.
 */
#include <stdio.h>

#include "store/store.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hold_write_lock DB_URL\n");
        return 1;
    }
    dbmcp_error err;
    dbmcp_error_clear(&err);
    store *db = NULL;
    if (store_open(argv[1], STORE_READWRITE, &db, &err) != 0 || store_begin(db, &err) != 0) {
        fprintf(stderr, "hold_write_lock: %s\n", err.message);
        store_close(db);
        return 1;
    }
    printf("locked\n");
    fflush(stdout);
    char buf[256];
    while (fread(buf, 1, sizeof buf, stdin) > 0)
        ;
    store_rollback(db);
    store_close(db);
    printf("released\n");
    return 0;
}
