/*
 * assets.c — path → embedded file for the console (see assets.h).
 */
#include "web/assets.h"

#include <string.h>

extern const char web_index_html_start[], web_index_html_end[];
extern const char web_console_css_start[], web_console_css_end[];
extern const char web_favicon_svg_start[], web_favicon_svg_end[];
extern const char web_console_js_start[], web_console_js_end[];

int web_asset_find(const char *path, web_asset *out)
{
    static const struct {
        const char *path;
        const char *type;
        const char *start, *end;
    } table[] = {
        {"/admin/", "text/html; charset=utf-8", web_index_html_start, web_index_html_end},
        {"/admin/console.js", "text/javascript; charset=utf-8", web_console_js_start,
         web_console_js_end},
        {"/admin/console.css", "text/css; charset=utf-8", web_console_css_start,
         web_console_css_end},
        {"/admin/favicon.svg", "image/svg+xml", web_favicon_svg_start, web_favicon_svg_end},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(path, table[i].path) != 0)
            continue;
        out->path = table[i].path;
        out->content_type = table[i].type;
        out->data = table[i].start;
        out->len = (size_t)(table[i].end - table[i].start);
        return 1;
    }
    return 0;
}
