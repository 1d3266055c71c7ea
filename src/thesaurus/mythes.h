/*
 * mythes.h — parser of MyThes thesaurus data files (th_*.dat, as shipped
 * by Debian's mythes-de and mythes-en-us, LibreOffice's format).
 *
 * Format: line 1 names the encoding ("UTF-8", "ISO8859-1", any name iconv
 * knows). Then entries: a line "word|n" followed by exactly n meaning
 * lines "pos|term|term…" (pos such as "(noun)" or "-"). A term may carry
 * parenthesised annotations: relation markers "(Oberbegriff)" / "(generic
 * term)" (broader), "(Unterbegriff)" (narrower), "(similar term)" /
 * "(related term)" (related), "(Antonym)" / "(Gegenbegriff)" / "(antonym)";
 * every other leading or trailing group ("(ugs.)", "(sich)") is a usage
 * note and is dropped from the term's text. The .idx file is an index
 * into .dat and is not needed.
 *
 * Limits: a line of at most MYTHES_LINE_MAX bytes, at most
 * MYTHES_MEANINGS_MAX meanings per entry and MYTHES_TERMS_MAX terms per
 * meaning. Errors name the line ("line 12: …") and, for invalid UTF-8, the
 * column (byte, 1-based).
 */
#ifndef DBMCP_THESAURUS_MYTHES_H
#define DBMCP_THESAURUS_MYTHES_H

#include <stddef.h>

#include "core/error.h"

#define MYTHES_LINE_MAX 65536
#define MYTHES_MEANINGS_MAX 10000
#define MYTHES_TERMS_MAX 1000

typedef enum mythes_term_kind {
    MYTHES_SYNONYM = 0,
    MYTHES_BROADER,
    MYTHES_NARROWER,
    MYTHES_RELATED,
    MYTHES_ANTONYM
} mythes_term_kind;

typedef struct mythes_term {
    const char *text; /* UTF-8, annotations removed, never empty */
    mythes_term_kind kind;
} mythes_term;

/* One meaning line of an entry; every pointer is valid during the callback only. */
typedef struct mythes_meaning {
    const char *entry; /* the entry's word as written on its "word|n" line */
    long entry_index;  /* 0-based number of the entry in the file */
    int index;         /* 0-based number of this meaning in the entry */
    const char *pos;   /* part of speech as written ("(noun)", "-"), may be "" */
    const mythes_term *terms;
    size_t nterms;
    long line; /* 1-based line of the meaning */
} mythes_meaning;

/* Called per meaning; return nonzero (a dbmcp_code, err filled) to stop. */
typedef int (*mythes_meaning_fn)(void *ctx, const mythes_meaning *m, dbmcp_error *err);

/* Parse data[0..n): at most max_entries entries (<= 0: all). Returns 0, the
 * callback's code, or DBMCP_EINVAL / DBMCP_ETOOBIG / DBMCP_ENOMEM with err
 * naming the line. The whole input is checked up to the last entry read. */
int mythes_parse(const char *data, size_t n, long max_entries, mythes_meaning_fn fn, void *ctx,
                 dbmcp_error *err);

#endif
