/*
 * assets.S — SQL files embedded in the binary at build time with .incbin,
 * so `dbmcp init` needs no files beside the executable. Each asset gets a
 * start symbol and an end symbol; store/assets.h lists them.
 */
#define ASSET(name, path)                 \
    .section .rodata;                     \
    .global name##_start;                 \
    .global name##_end;                   \
    .balign 16;                           \
    name##_start:;                        \
    .incbin path;                         \
    name##_end:;                          \
    .byte 0

ASSET(asset_sqlite_0001_core, "src/store/schema/sqlite/0001_core.sql")
ASSET(asset_seed_base, "src/store/seed/base.sql")
ASSET(asset_seed_demo, "src/store/seed/demo.sql")
ASSET(asset_seed_conformance, "src/store/seed/conformance.sql")

.section .note.GNU-stack,"",%progbits
