/*
 * optlib.c — opening an optional shared library once, on first use, and
 * filling its table of entry points (see optlib.h for the contract).
 *
 * One process-wide mutex serialises the first opening of every optlib:
 * opening is rare (a handful of libraries per process) and the loader
 * takes its own global lock anyway. The status is published with release
 * order after the table is filled, so a thread that reads status 1 with
 * acquire order sees every slot.
 */
#include "core/optlib.h"

#include <assert.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { OPTLIB_UNTRIED = 0, OPTLIB_OPEN = 1, OPTLIB_FAILED = -1 };

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;

/* "libA.so.1 or libA.so.2" into buf. */
static void soname_list(const optlib *lib, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; lib->sonames[i] && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", i ? " or " : "", lib->sonames[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* Record the failure: messages from detail, every slot NULL, handle closed. */
static void fail(optlib *lib, const char *detail)
{
    char names[200];
    soname_list(lib, names, sizeof names);
    snprintf(lib->public_message, sizeof lib->public_message, "%s needs %s (Debian package %s)",
             lib->feature, names, lib->package);
    snprintf(lib->message, sizeof lib->message, "%s: %s", lib->public_message, detail);
    for (size_t i = 0; i < lib->n_symbols; i++)
        memset(lib->symbols[i].slot, 0, lib->symbols[i].size);
    if (lib->handle)
        dlclose(lib->handle);
    lib->handle = NULL;
}

static void *open_first(const optlib *lib, char *why, size_t size)
{
    why[0] = '\0';
    for (size_t i = 0; lib->sonames[i]; i++) {
        void *h = dlopen(lib->sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
        if (!why[0]) { /* the first soname's reason: the one the package provides */
            const char *e = dlerror();
            snprintf(why, size, "%s", e ? e : "dlopen failed");
        }
    }
    return NULL;
}

/* Resolve every symbol into its slot; 0, or -1 with why. */
static int resolve(optlib *lib, char *why, size_t size)
{
    for (size_t i = 0; i < lib->n_symbols; i++) {
        const optlib_symbol *s = &lib->symbols[i];
        if (s->size != sizeof(void *)) {
            snprintf(why, size, "the slot for %s is not pointer-sized (a bug in dbmcp)", s->name);
            return -1;
        }
        dlerror();
        void *addr = dlsym(lib->handle, s->name);
        if (!addr) {
            const char *e = dlerror();
            snprintf(why, size, "%s", e ? e : "a symbol is missing");
            return -1;
        }
        /* POSIX guarantees a void * from dlsym converts to a function
         * pointer; copying the bytes says so without a cast. */
        memcpy(s->slot, &addr, sizeof addr);
    }
    return 0;
}

static int open_once(optlib *lib)
{
    char why[512];
    assert(lib->feature && lib->sonames && lib->sonames[0] && lib->package);
    lib->handle = open_first(lib, why, sizeof why);
    if (!lib->handle) {
        fail(lib, why);
        return OPTLIB_FAILED;
    }
    if (resolve(lib, why, sizeof why) != 0) {
        fail(lib, why);
        return OPTLIB_FAILED;
    }
    if (lib->on_open) {
        char hook[400] = "";
        if (lib->on_open(hook, sizeof hook) != 0) {
            snprintf(why, sizeof why, "%s", hook[0] ? hook : "initialisation failed");
            fail(lib, why);
            return OPTLIB_FAILED;
        }
    }
    return OPTLIB_OPEN;
}

int optlib_open(optlib *lib, dbmcp_error *err)
{
    int status = atomic_load_explicit(&lib->status, memory_order_acquire);
    if (status == OPTLIB_UNTRIED) {
        pthread_mutex_lock(&open_lock);
        status = atomic_load_explicit(&lib->status, memory_order_relaxed);
        if (status == OPTLIB_UNTRIED) {
            status = open_once(lib);
            atomic_store_explicit(&lib->status, status, memory_order_release);
        }
        pthread_mutex_unlock(&open_lock);
    }
    if (status == OPTLIB_OPEN)
        return 0;
    return dbmcp_error_set_private(err, DBMCP_EINTERNAL, lib->public_message, "%s", lib->message);
}
