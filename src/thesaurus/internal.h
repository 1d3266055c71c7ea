/*
 * thesaurus/internal.h — private to src/thesaurus/: match keys and the
 * format-specific importers called by import.c inside its transaction.
 */
#ifndef DBMCP_THESAURUS_INTERNAL_H
#define DBMCP_THESAURUS_INTERNAL_H

#include <stddef.h>

#include "store/thesaurus.h"
#include "thesaurus/thesaurus.h"

/* The match key of s[0..n): text_tokenize tokens (TEXT_LANG_NONE) joined
 * by single spaces, as a new string (caller frees) in *key and the token
 * count in *ntokens (may be NULL). An empty key ("" and 0 tokens) for text
 * without words. Returns 0 or DBMCP_ENOMEM. */
int thesaurus_key(const char *s, size_t n, char **key, int *ntokens);

/* Add a label with its match key; labels without words are skipped
 * (*added 0). */
int thesaurus_add_label(thesaurus_writer *w, int64_t concept, const char *lang,
                        thesaurus_label_kind kind, const char *label, thesaurus_import_stats *stats,
                        dbmcp_error *err);

/* Importers: parse data[0..n) and write through w (the transaction is the
 * caller's). Parse errors name the line (and column where known). */
int thesaurus_import_skos(thesaurus_writer *w, const char *data, size_t n, const char *name,
                          int rdfxml, const thesaurus_import_options *opt,
                          thesaurus_import_stats *stats, dbmcp_error *err);
int thesaurus_import_mythes(thesaurus_writer *w, const char *data, size_t n, const char *name,
                            const thesaurus_import_options *opt, thesaurus_import_stats *stats,
                            dbmcp_error *err);

#endif
