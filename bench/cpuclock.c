/*
 * cpuclock PID... — print each process's CPU time (user + system, all its
 * threads, including threads that have exited) in nanoseconds, one line per
 * PID, read through clock_getcpuclockid(3). The benchmark driver uses it
 * because /proc/PID/stat counts in 10 ms ticks, too coarse for a few
 * thousand calls of a few microseconds each. Prints "-1" for a PID it
 * cannot read.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>

int main(int argc, char **argv)
{
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        clockid_t clock;
        struct timespec ts;
        char *end;
        long pid = strtol(argv[i], &end, 10);
        if (*argv[i] == '\0' || *end != '\0' || pid <= 0 ||
            clock_getcpuclockid((pid_t)pid, &clock) != 0 || clock_gettime(clock, &ts) != 0) {
            puts("-1");
            failed = 1;
            continue;
        }
        printf("%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
    }
    return failed;
}
