/*
 * assets.S — SQL files embedded in the binary at build time with .incbin,
 * so `dbmcp init` needs no files beside the executable: the migrations of
 * both dialects, the shared seeds and the dialect halves of the seeds that
 * need one (seed/<dialect>/). Each asset gets a start symbol and an end
 * symbol; store/assets.h lists them.
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
ASSET(asset_postgres_0001_core, "src/store/schema/postgres/0001_core.sql")
ASSET(asset_postgres_0002_search, "src/store/schema/postgres/0002_search.sql")
ASSET(asset_postgres_0003_thesaurus, "src/store/schema/postgres/0003_thesaurus.sql")
ASSET(asset_postgres_0004_memory, "src/store/schema/postgres/0004_memory.sql")
ASSET(asset_postgres_0005_orchestrator, "src/store/schema/postgres/0005_orchestrator.sql")
ASSET(asset_postgres_0006_query_budget, "src/store/schema/postgres/0006_query_budget.sql")
ASSET(asset_sqlite_0007_sessions, "src/store/schema/sqlite/0007_sessions.sql")
ASSET(asset_postgres_0007_sessions, "src/store/schema/postgres/0007_sessions.sql")
ASSET(asset_sqlite_0008_scoped_bm25, "src/store/schema/sqlite/0008_scoped_bm25.sql")
ASSET(asset_postgres_0008_scoped_bm25, "src/store/schema/postgres/0008_scoped_bm25.sql")
ASSET(asset_sqlite_0009_console, "src/store/schema/sqlite/0009_console.sql")
ASSET(asset_postgres_0009_console, "src/store/schema/postgres/0009_console.sql")
ASSET(asset_sqlite_0010_text_once, "src/store/schema/sqlite/0010_text_once.sql")
ASSET(asset_postgres_0010_text_once, "src/store/schema/postgres/0010_text_once.sql")
ASSET(asset_sqlite_0011_attachments, "src/store/schema/sqlite/0011_attachments.sql")
ASSET(asset_postgres_0011_attachments, "src/store/schema/postgres/0011_attachments.sql")
ASSET(asset_sqlite_0012_memory_scope_stats, "src/store/schema/sqlite/0012_memory_scope_stats.sql")
ASSET(asset_postgres_0012_memory_scope_stats, "src/store/schema/postgres/0012_memory_scope_stats.sql")
ASSET(asset_sqlite_0013_trace, "src/store/schema/sqlite/0013_trace.sql")
ASSET(asset_postgres_0013_trace, "src/store/schema/postgres/0013_trace.sql")
ASSET(asset_sqlite_0014_replicas, "src/store/schema/sqlite/0014_replicas.sql")
ASSET(asset_postgres_0014_replicas, "src/store/schema/postgres/0014_replicas.sql")
ASSET(asset_sqlite_0015_oidc, "src/store/schema/sqlite/0015_oidc.sql")
ASSET(asset_postgres_0015_oidc, "src/store/schema/postgres/0015_oidc.sql")
ASSET(asset_sqlite_0016_tasks, "src/store/schema/sqlite/0016_tasks.sql")
ASSET(asset_postgres_0016_tasks, "src/store/schema/postgres/0016_tasks.sql")
ASSET(asset_seed_base, "src/store/seed/base.sql")
ASSET(asset_seed_demo, "src/store/seed/demo.sql")
ASSET(asset_seed_conformance, "src/store/seed/conformance.sql")
ASSET(asset_seed_sqlite_demo, "src/store/seed/sqlite/demo.sql")
ASSET(asset_seed_sqlite_conformance, "src/store/seed/sqlite/conformance.sql")
ASSET(asset_seed_postgres_base, "src/store/seed/postgres/base.sql")
ASSET(asset_seed_postgres_demo, "src/store/seed/postgres/demo.sql")
ASSET(asset_seed_postgres_conformance, "src/store/seed/postgres/conformance.sql")

.section .note.GNU-stack,"",%progbits
