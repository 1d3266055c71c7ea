/*
 * demo.h — the documents of the demo data set. `dbmcp init --demo` calls
 * docs_demo_ingest after the demo seed: every doc://tarif/<slug> resource
 * of the seed (twelve German agreements and six summaries in English,
 * Japanese and Chinese; the index excepted) is ingested into the
 * collection "tarif", exposed to the interface document_analysis, with
 * metadata {region, sector} from the demo table tarif_agreements. One
 * transaction; the configured embedder (builtin unless settings say
 * otherwise).
 */
#ifndef DBMCP_DOCS_DEMO_H
#define DBMCP_DOCS_DEMO_H

#include <stddef.h>

#include "core/error.h"
#include "store/store.h"

/* *documents gets how many were ingested. */
int docs_demo_ingest(store *db, size_t *documents, dbmcp_error *err);

#endif
