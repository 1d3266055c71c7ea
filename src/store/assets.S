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
ASSET(asset_sqlite_0002_search, "src/store/schema/sqlite/0002_search.sql")
ASSET(asset_sqlite_0003_thesaurus, "src/store/schema/sqlite/0003_thesaurus.sql")
ASSET(asset_sqlite_0004_memory, "src/store/schema/sqlite/0004_memory.sql")
ASSET(asset_sqlite_0005_orchestrator, "src/store/schema/sqlite/0005_orchestrator.sql")
ASSET(asset_sqlite_0006_query_budget, "src/store/schema/sqlite/0006_query_budget.sql")
ASSET(asset_sqlite_0007_scoped_bm25, "src/store/schema/sqlite/0007_scoped_bm25.sql")
ASSET(asset_seed_base, "src/store/seed/base.sql")
ASSET(asset_seed_demo, "src/store/seed/demo.sql")
ASSET(asset_seed_conformance, "src/store/seed/conformance.sql")

.section .note.GNU-stack,"",%progbits
