/*
 * assets.h — SQL text embedded in the binary (see assets.S). Each asset is
 * NUL-terminated; the pointers are static and never freed.
 */
#ifndef DBMCP_STORE_ASSETS_H
#define DBMCP_STORE_ASSETS_H

extern const char asset_sqlite_0001_core_start[];
extern const char asset_sqlite_0002_search_start[];
extern const char asset_sqlite_0003_thesaurus_start[];
extern const char asset_sqlite_0004_memory_start[];
extern const char asset_sqlite_0005_orchestrator_start[];
extern const char asset_sqlite_0006_query_budget_start[];
extern const char asset_postgres_0001_core_start[];
extern const char asset_postgres_0002_search_start[];
extern const char asset_postgres_0003_thesaurus_start[];
extern const char asset_postgres_0004_memory_start[];
extern const char asset_postgres_0005_orchestrator_start[];
extern const char asset_postgres_0006_query_budget_start[];
extern const char asset_sqlite_0007_sessions_start[];
extern const char asset_postgres_0007_sessions_start[];
extern const char asset_sqlite_0008_scoped_bm25_start[];
extern const char asset_postgres_0008_scoped_bm25_start[];
extern const char asset_sqlite_0009_console_start[];
extern const char asset_postgres_0009_console_start[];
extern const char asset_sqlite_0010_text_once_start[];
extern const char asset_postgres_0010_text_once_start[];
extern const char asset_sqlite_0011_attachments_start[];
extern const char asset_postgres_0011_attachments_start[];
extern const char asset_sqlite_0012_memory_scope_stats_start[];
extern const char asset_postgres_0012_memory_scope_stats_start[];
extern const char asset_sqlite_0013_trace_start[];
extern const char asset_postgres_0013_trace_start[];
extern const char asset_sqlite_0014_replicas_start[];
extern const char asset_postgres_0014_replicas_start[];
extern const char asset_sqlite_0015_oidc_start[];
extern const char asset_postgres_0015_oidc_start[];
extern const char asset_sqlite_0016_tasks_start[];
extern const char asset_postgres_0016_tasks_start[];
extern const char asset_seed_base_start[];
extern const char asset_seed_demo_start[];
extern const char asset_seed_conformance_start[];
extern const char asset_seed_sqlite_demo_start[];
extern const char asset_seed_sqlite_conformance_start[];
extern const char asset_seed_postgres_base_start[];
extern const char asset_seed_postgres_demo_start[];
extern const char asset_seed_postgres_conformance_start[];

#endif
