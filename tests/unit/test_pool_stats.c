/*
 * test_pool_stats.c — store_pool_stats (src/store/store.h): handles
 * opened and in use, and an acquire that had to wait for a release counted
 * with its waiting time, as /metrics shows them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"

typedef struct waiter {
    store_pool *pool;
    store *db; /* what the waiting thread got */
} waiter;

static void *acquire_and_release(void *arg)
{
    waiter *w = arg;
    dbmcp_error err;
    w->db = store_pool_acquire(w->pool, &err);
    store_pool_release(w->pool, w->db);
    return NULL;
}

static void test_in_use_and_waits(void **state)
{
    (void)state;
    char path[] = "/tmp/dbmcp_pool_stats_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    dbmcp_error err;
    store_pool *pool = NULL;
    assert_int_equal(store_pool_create(path, STORE_READWRITE, 1, &pool, &err), 0);
    store_pool_usage u;
    store_pool_stats(pool, &u);
    assert_int_equal(u.size, 1);
    assert_int_equal(u.open, 0);
    assert_int_equal(u.in_use, 0);

    store *db = store_pool_acquire(pool, &err);
    assert_non_null(db);
    store_pool_stats(pool, &u);
    assert_int_equal(u.open, 1);
    assert_int_equal(u.in_use, 1);
    assert_int_equal(u.acquires, 1);
    assert_int_equal(u.waits, 0);

    /* a second thread must wait for the only handle */
    waiter w = {pool, NULL};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, acquire_and_release, &w), 0);
    for (int i = 0; i < 5000; i++) {
        store_pool_stats(pool, &u);
        if (u.waiting == 1)
            break;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    assert_int_equal(u.waiting, 1);
    struct timespec pause = {0, 20000000};
    nanosleep(&pause, NULL);
    store_pool_release(pool, db);
    pthread_join(th, NULL);
    assert_ptr_equal(w.db, db);

    store_pool_stats(pool, &u);
    assert_int_equal(u.in_use, 0);
    assert_int_equal(u.waiting, 0);
    assert_int_equal(u.acquires, 2);
    assert_int_equal(u.waits, 1);
    assert_true(u.wait_seconds >= 0.015);
    store_pool_free(pool);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_use_and_waits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
