/*
 * curl_lib.c — the libcurl table and its one opening (see curl_lib.h).
 */
#include "core/curl_lib.h"

#include <stdio.h>

curl_lib_api curl_api;

#define CURL_LIB_SYMBOL(fn) OPTLIB_SYMBOL(curl_api, fn)
static const optlib_symbol curl_symbols[] = {CURL_LIB_SYMBOLS(CURL_LIB_SYMBOL)};

/* libcurl-gnutls is what scripts/deps.sh installs (raptor2's headers need
 * that flavour); the OpenSSL flavour has the same ABI. */
static const char *const curl_sonames[] = {"libcurl-gnutls.so.4", "libcurl.so.4", NULL};

static int curl_init(char *why, size_t size)
{
    CURLcode rc = curl_api.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc == CURLE_OK)
        return 0;
    snprintf(why, size, "curl_global_init failed: %s", curl_api.curl_easy_strerror(rc));
    return -1;
}

static optlib curl_lib = {
    .feature = "Calling an LLM or an HTTP embedder",
    .sonames = curl_sonames,
    .package = "libcurl3-gnutls",
    .symbols = curl_symbols,
    .n_symbols = OPTLIB_COUNT(curl_symbols),
    .on_open = curl_init,
};

int curl_lib_open(dbmcp_error *err)
{
    return optlib_open(&curl_lib, err);
}
