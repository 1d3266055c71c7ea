/*
 * embedded.S — the console's files embedded in the binary with .incbin, so
 * /admin/ works with no network and no files beside the executable. The
 * static files come from src/web/ui/; the bundle is built by `make`
 * (scripts/web-build.sh, esbuild) into the build directory, whose path the
 * Makefile passes as WEB_BUNDLE. web/assets.c looks them up.
 */
#ifndef WEB_BUNDLE
#error "WEB_BUNDLE (the path of the built console.js) must be defined"
#endif

#define ASSET(name, path)                 \
    .section .rodata;                     \
    .global name##_start;                 \
    .global name##_end;                   \
    .balign 16;                           \
    name##_start:;                        \
    .incbin path;                         \
    name##_end:;                          \
    .byte 0

ASSET(web_index_html, "src/web/ui/index.html")
ASSET(web_console_css, "src/web/ui/console.css")
ASSET(web_favicon_svg, "src/web/ui/favicon.svg")
ASSET(web_console_js, WEB_BUNDLE)

.section .note.GNU-stack,"",%progbits
