/*
 * sqlite_watchdog.c — the deadline and cancellation thread of the SQLite
 * driver (why: sqlite_watchdog.h).
 *
 * One mutex guards the list of armed handles and the thread's state. The
 * thread sleeps on a condition variable (CLOCK_MONOTONIC) until the
 * nearest deadline; while some armed handle has a cancel flag it also
 * wakes every CANCEL_POLL_MS to look at it. Arming wakes it so a new,
 * nearer deadline is seen.
 */
#include "store/sqlite_watchdog.h"

#include <pthread.h>
#include <time.h>

#define CANCEL_POLL_MS 50.0 /* how often cancel flags are looked at */
#define IDLE_EXIT_MS 1000.0 /* the thread exits after this long with nothing armed */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static sqlite_watch *armed_list; /* armed handles, newest first */
static int running;              /* the thread is alive (or starting) */

double sqlite_watchdog_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static void init_wake(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &attr);
    pthread_condattr_destroy(&attr);
}

static void wait_until(double when_ms)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(when_ms / 1000.0);
    ts.tv_nsec = (long)((when_ms - (double)ts.tv_sec * 1000.0) * 1e6);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&wake, &lock, &ts);
}

/* Interrupt what is due; return when to look again (0: nothing armed).
 * Called with the lock held. */
static double sweep(double now)
{
    double next = 0;
    for (sqlite_watch *w = armed_list; w; w = w->next) {
        if (atomic_load(&w->fired))
            continue;
        int cancelled = w->cancel && atomic_load(w->cancel);
        if (cancelled || (w->deadline_ms > 0 && now >= w->deadline_ms)) {
            atomic_store(&w->fired, cancelled ? 2 : 1);
            sqlite3_interrupt(w->db);
            continue;
        }
        double due = w->deadline_ms > 0 ? w->deadline_ms : now + IDLE_EXIT_MS;
        if (w->cancel && due > now + CANCEL_POLL_MS)
            due = now + CANCEL_POLL_MS;
        if (next == 0 || due < next)
            next = due;
    }
    return next;
}

static void *watchdog_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    double idle_since = 0;
    for (;;) {
        double now = sqlite_watchdog_now_ms();
        double next = sweep(now);
        if (!armed_list) {
            if (idle_since == 0)
                idle_since = now;
            if (now - idle_since >= IDLE_EXIT_MS)
                break;
            next = idle_since + IDLE_EXIT_MS;
        } else {
            idle_since = 0;
            if (next == 0)
                next = now + IDLE_EXIT_MS; /* every armed handle already fired */
        }
        wait_until(next);
    }
    running = 0;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int sqlite_watchdog_arm(sqlite_watch *w)
{
    pthread_once(&wake_once, init_wake);
    atomic_store(&w->fired, 0);
    pthread_mutex_lock(&lock);
    int rc = 0;
    if (!running) {
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        if (pthread_create(&thread, &attr, watchdog_main, NULL) == 0)
            running = 1;
        else
            rc = -1;
        pthread_attr_destroy(&attr);
    }
    if (rc == 0) {
        w->next = armed_list;
        armed_list = w;
        w->armed = 1;
        pthread_cond_signal(&wake);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void sqlite_watchdog_disarm(sqlite_watch *w)
{
    if (!w->armed)
        return;
    pthread_mutex_lock(&lock);
    for (sqlite_watch **p = &armed_list; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    w->armed = 0;
    w->next = NULL;
    pthread_mutex_unlock(&lock);
}
