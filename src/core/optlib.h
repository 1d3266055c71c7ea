/*
 * optlib.h — optional shared libraries, opened with dlopen(3) on first use.
 *
 * A few features need large libraries that most dbmcp processes never
 * reach: PDF extraction (poppler-glib), SKOS import (raptor2), HTML and
 * RDF/XML parsing (libxml2), the LLM and HTTP embedding clients (libcurl).
 * Linking them would map and relocate them, their C++ runtimes and
 * their own dependencies in every process, `dbmcp serve` included. So
 * dbmcp is not linked against them: the module that needs one describes
 * it with an optlib and calls optlib_open before its first call into it.
 *
 * The owner declares a table of function pointers with the library's own
 * names and types, taken from the library's headers, and a symbol list
 * naming each slot, with the two X-macro helpers below:
 *
 *   #define PDF_SYMBOLS(X) X(poppler_document_get_n_pages) X(g_object_unref)
 *   static struct { PDF_SYMBOLS(OPTLIB_SLOT) } pdf_api;
 *   #define PDF_SYMBOL(fn) OPTLIB_SYMBOL(pdf_api, fn)
 *   static const optlib_symbol pdf_symbols[] = {PDF_SYMBOLS(PDF_SYMBOL)};
 *   static const char *const pdf_sonames[] = {"libpoppler-glib.so.8", NULL};
 *   static optlib pdf_lib = {.feature = "PDF extraction", .sonames = pdf_sonames,
 *                            .package = "libpoppler-glib8", .symbols = pdf_symbols,
 *                            .n_symbols = OPTLIB_COUNT(pdf_symbols)};
 *   …
 *   if (optlib_open(&pdf_lib, err)) return err->code;
 *   int pages = pdf_api.poppler_document_get_n_pages(doc);
 *
 * A data symbol (libxml2's xmlFree variable) works the same way: its slot
 * holds the variable's address, so the call is (*xml_api.xmlFree)(p).
 * A name the library's header defines as a function-like macro must be
 * listed by the real symbol it expands to (raptor_new_world_internal).
 *
 * Contract:
 *   - optlib_open tries the sonames in order with dlopen(RTLD_NOW |
 *     RTLD_LOCAL), resolves every symbol with dlsym (through the handle,
 *     so a symbol of one of the library's own dependencies — glib under
 *     poppler-glib — resolves too), stores each address into its slot with
 *     memcpy, then runs on_open once (curl_global_init) when set.
 *   - The first call decides, once per process: every later call returns
 *     the same result without touching the loader. A failure is permanent
 *     (installing the package needs a restart); the slots are then all
 *     NULL again and the library is closed, so nothing half-filled is ever
 *     used — the owner only calls through the table after a 0.
 *   - The error (code DBMCP_EINTERNAL, the same text every time) names the
 *     feature, the soname and the Debian package, e.g. the operator message
 *     "PDF extraction needs libpoppler-glib.so.8 (Debian package
 *     libpoppler-glib8): libpoppler-glib.so.8: cannot open shared object
 *     file: No such file or directory"; the public message is the same
 *     without the loader's text (which may name file system paths).
 *
 * Ownership: the owner owns the optlib, the symbol list and the table
 * (static storage, zero-initialised state); optlib.c owns the state fields
 * and the library handle, which stays open for the life of the process.
 * Thread-safe: concurrent optlib_open calls on one or several optlibs are
 * serialised while the library opens; after that optlib_open is one atomic
 * load, and the table is read-only. on_open must not call optlib_open.
 */
#ifndef DBMCP_CORE_OPTLIB_H
#define DBMCP_CORE_OPTLIB_H

#include <stdatomic.h>
#include <stddef.h>

#include "core/error.h"

/* One entry point to resolve: its exported name and the slot it fills. */
typedef struct optlib_symbol {
    const char *name; /* the symbol as the library exports it */
    void *slot;       /* the table member that receives its address */
    size_t size;      /* sizeof the member: must be sizeof(void *) */
} optlib_symbol;

typedef struct optlib {
    /* The description, set by the owner in a static initialiser. */
    const char *feature;          /* what needs the library: "PDF extraction" */
    const char *const *sonames;   /* NULL-terminated, tried in order, all named in errors */
    const char *package;          /* the Debian runtime package that ships it */
    const optlib_symbol *symbols; /* the entry points to resolve */
    size_t n_symbols;             /* entries in symbols */
    /* NULL, or run once after every symbol resolved (the table is usable):
     * 0, or nonzero with why (size bytes) saying what failed. */
    int (*on_open)(char *why, size_t size);
    /* The state: zero-initialised, owned by optlib.c, never touched by the owner. */
    atomic_int status;        /* 0 not tried yet, 1 open, -1 failed */
    char message[1024];       /* the operator message after a failure */
    char public_message[300]; /* the public message after a failure */
    void *handle;             /* from dlopen, while open */
} optlib;

/* A table member for symbol fn, typed from the library's declaration. */
#define OPTLIB_SLOT(fn) __typeof__(&fn) fn;
/* The optlib_symbol that fills member fn of table. */
#define OPTLIB_SYMBOL(table, fn) {#fn, &(table).fn, sizeof(table).fn},
/* The number of entries of a symbol array. */
#define OPTLIB_COUNT(array) (sizeof(array) / sizeof(array)[0])

/* Open lib and fill its table on the first call; later calls return the
 * first call's result. 0, or DBMCP_EINTERNAL with err filled (err may be
 * NULL) when the library, one of its symbols or on_open failed. */
int optlib_open(optlib *lib, dbmcp_error *err);

#endif
