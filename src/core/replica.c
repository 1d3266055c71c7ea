/*
 * replica.c — the replica id of this process and the liveness test of
 * another's (replica.h).
 *
 * SCOPE is a BLAKE2b hash of /proc/sys/kernel/random/boot_id and the
 * inode of /proc/self/ns/pid: a pid means the same process only within one
 * boot and one pid namespace. When either cannot be read the scope is
 * random, and no other process's id is ever judged dead.
 */
#include "core/replica.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HOST_MAX 64

static char self_id[HOST_MAX + 32];
static char self_host[HOST_MAX + 1];
static char self_scope[9];
static int scope_known; /* the scope hashes real facts, not random bytes */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The boot id and pid namespace, hashed into 8 hex digits. */
static void compute_scope(void)
{
    char boot[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f))
            boot[0] = '\0';
        fclose(f);
    }
    struct stat ns;
    int have_ns = stat("/proc/self/ns/pid", &ns) == 0;
    unsigned char h[4];
    if (boot[0] && have_ns) {
        char text[128];
        snprintf(text, sizeof text, "%s/%llu", boot, (unsigned long long)ns.st_ino);
        crypto_generichash(h, sizeof h, (const unsigned char *)text, strlen(text), NULL, 0);
        scope_known = 1;
    } else {
        randombytes_buf(h, sizeof h);
    }
    sodium_bin2hex(self_scope, sizeof self_scope, h, sizeof h);
}

static void compute_id(void)
{
    if (sodium_init() < 0)
        abort(); /* ids_init failed first in every caller; nothing works without it */
    if (gethostname(self_host, sizeof self_host) != 0 || !self_host[0])
        snprintf(self_host, sizeof self_host, "localhost");
    self_host[HOST_MAX] = '\0';
    for (char *p = self_host; *p; p++)
        if (*p == ':' || (unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
            *p = '_'; /* ':' separates the parts */
    compute_scope();
    snprintf(self_id, sizeof self_id, "%s:%ld:%s", self_host, (long)getpid(), self_scope);
}

const char *replica_id(void)
{
    pthread_once(&once, compute_id);
    return self_id;
}

int replica_is_dead(const char *id)
{
    replica_id();
    if (!id || !scope_known)
        return 0;
    const char *c1 = strchr(id, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2 || (size_t)(c1 - id) != strlen(self_host) ||
        strncmp(id, self_host, (size_t)(c1 - id)) != 0 || strcmp(c2 + 1, self_scope) != 0)
        return 0;
    char *end = NULL;
    long pid = strtol(c1 + 1, &end, 10);
    if (end != c2 || pid <= 0 || pid == (long)getpid())
        return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}
