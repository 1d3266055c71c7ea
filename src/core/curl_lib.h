/*
 * curl_lib.h — libcurl, opened on first use (see optlib.h): the one table
 * of libcurl entry points that the LLM client (llm/client.c), the HTTP
 * embedder (search/embed_http.c) and POST /v1/chat (transport/chat.c)
 * call through, and the one place that initialises libcurl.
 *
 * Include this header instead of <curl/curl.h>: it disables curl's
 * compile-time setopt type checks, whose macros cannot expand behind a
 * table member (curl_api.curl_easy_setopt(…)); the prototypes still come
 * from curl.h, so every call is type-checked as a function call.
 *
 * Contract: call curl_lib_open before the first call through curl_api;
 * call through curl_api only after it returned 0. The first call opens
 * libcurl-gnutls.so.4 (else libcurl.so.4), resolves the table and runs
 * curl_global_init(CURL_GLOBAL_DEFAULT) once; a failure is permanent and
 * comes back as DBMCP_EINTERNAL naming the library and the Debian package
 * (libcurl3-gnutls). Thread-safe; curl_api is read-only after a 0.
 */
#ifndef DBMCP_CORE_CURL_LIB_H
#define DBMCP_CORE_CURL_LIB_H

#ifndef CURL_DISABLE_TYPECHECK
#define CURL_DISABLE_TYPECHECK
#endif
#include <curl/curl.h>

#include "core/error.h"
#include "core/optlib.h"

#define CURL_LIB_SYMBOLS(X)                                                                        \
    X(curl_global_init)                                                                            \
    X(curl_easy_init)                                                                              \
    X(curl_easy_setopt)                                                                            \
    X(curl_easy_getinfo)                                                                           \
    X(curl_easy_perform)                                                                           \
    X(curl_easy_cleanup)                                                                           \
    X(curl_easy_strerror)                                                                          \
    X(curl_slist_append)                                                                           \
    X(curl_slist_free_all)

/* libcurl's functions under their own names and types. */
typedef struct curl_lib_api {
    CURL_LIB_SYMBOLS(OPTLIB_SLOT)
} curl_lib_api;

/* Filled by curl_lib_open; NULL slots before (and after a failure). */
extern curl_lib_api curl_api;

/* Open and initialise libcurl once per process. 0, or DBMCP_EINTERNAL with
 * err (may be NULL) naming the missing library or the failed init. */
int curl_lib_open(dbmcp_error *err);

#endif
