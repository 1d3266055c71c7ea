/*
 * assets.h — the console's embedded files (see embedded.S): looked up by
 * their path under /admin/. The bytes are static, never freed.
 */
#ifndef DBMCP_WEB_ASSETS_H
#define DBMCP_WEB_ASSETS_H

#include <stddef.h>

typedef struct web_asset {
    const char *path;         /* "/admin/console.js" */
    const char *content_type; /* with charset for text */
    const char *data;
    size_t len;
} web_asset;

/* The asset served at path ("/admin/" is index.html), or NULL. */
int web_asset_find(const char *path, web_asset *out);

#endif
