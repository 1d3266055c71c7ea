/*
 * textnorm.h — the one text normaliser behind full-text search, the
 * built-in embedder, thesaurus label matching and prompt analysis.
 *
 * A token is a word in normalised form: Unicode NFKC and case folded
 * (utf8proc; "Straße", "STRASSE" and "strasse" fold alike), then stemmed
 * with Snowball (libstemmer) for each language asked for. Marks are kept
 * in the folded form, because stripping them is not lossless ("Bär" is
 * not "Bar"); the German stemmer itself maps ä ö ü to a o u, so stemmed
 * search matches "Vergutung" to "Vergütung" while text_fold keeps them
 * apart. A word is a run of letters, marks and digits (format characters
 * such as the soft hyphen inside it are dropped); everything else —
 * spaces, punctuation, symbols, invalid bytes — separates words.
 * Han, Hiragana, Katakana and Hangul runs have no spaces: they become
 * overlapping character bigrams (a run of one character is one token).
 * Byte offsets always refer to the caller's input and never fall inside
 * a UTF-8 sequence; invalid UTF-8 bytes are skipped, never emitted.
 *
 * Thread-safe: no global state besides read-only tables. text_tokenize
 * creates its stemmers per call; a caller that tokenises often (the FTS5
 * tokenizer) keeps a text_stemmers of its own, used by one thread at a
 * time (Snowball stemmers are not thread-safe).
 *
 * Pure code in core/: the store's FTS5 tokenizer (store/sqlite_fts.c)
 * uses it as well as search/, docs/, thesaurus/ and agent/.
 */
#ifndef DBMCP_CORE_TEXTNORM_H
#define DBMCP_CORE_TEXTNORM_H

#include <stddef.h>
#include <stdint.h>

/* Stemming languages, combinable. TEXT_LANG_NONE: fold only. */
enum {
    TEXT_LANG_NONE = 0,
    TEXT_LANG_DE = 1 << 0,
    TEXT_LANG_EN = 1 << 1,
};
/* The default for mixed German/English collections: both stems. */
#define TEXT_LANG_DEFAULT (TEXT_LANG_DE | TEXT_LANG_EN)

/* Parse "de", "en", "de,en", "none"… into TEXT_LANG_* bits; unknown names
 * are ignored. Returns TEXT_LANG_DEFAULT for NULL or "". */
int text_lang_parse(const char *csv);

/* Token callback: token (normalised UTF-8, not NUL-terminated, len bytes),
 * [start, end) byte offsets into the input, and colocated = 1 when this
 * token is an alternative form at the same position as the previous one
 * (another language's stem). Return nonzero to stop. */
typedef int (*text_token_fn)(void *ctx, const char *token, size_t len, size_t start, size_t end,
                             int colocated);

/* Tokenise text[0..n). For every word: the folded form is emitted
 * first when no stemmer changes it; otherwise each distinct stem of the
 * languages in `langs` is emitted, the first at a new position and the
 * rest colocated. Tokens longer than 64 bytes are cut at a character
 * boundary. Returns 0, the callback's nonzero value or DBMCP_ENOMEM. */
int text_tokenize(const char *text, size_t n, int langs, text_token_fn fn, void *ctx);

/* Stemmers for a set of languages, reusable across text_tokenize_with
 * calls by one thread at a time. Returns NULL when out of memory. */
typedef struct text_stemmers text_stemmers;
text_stemmers *text_stemmers_new(int langs);
void text_stemmers_free(text_stemmers *s);
/* text_tokenize with the languages and stemmers of s (NULL: fold only).
 * Returns 0, the callback's nonzero value, or DBMCP_ENOMEM (negative). */
int text_tokenize_with(text_stemmers *s, const char *text, size_t n, text_token_fn fn, void *ctx);

/* The number of token positions of text[0..n): one per word (or CJK
 * bigram), whatever stems are colocated with it — what a full-text index
 * fed by this tokenizer counts as the text's length (BM25's document
 * length; search/bm25.h). 0 for NULL or empty text; DBMCP_ENOMEM
 * (negative) when out of memory. */
int64_t text_token_count(const char *text, size_t n);

/* The normalised (folded, unstemmed) form of text as a new
 * NUL-terminated string with words separated by single spaces; NULL when
 * out of memory. For exact label matching (thesaurus, entities). */
char *text_fold(const char *text, size_t n);

/* Length of the longest prefix of s[0..n) that is valid UTF-8 and does
 * not end inside a sequence. */
size_t text_utf8_valid_prefix(const char *s, size_t n);

/* Decode the code point at s[0..n) (n > 0) into *cp: returns its length
 * 1..4, or 0 when the bytes there are not valid UTF-8 (overlong forms,
 * surrogates and values above U+10FFFF are invalid). */
size_t text_utf8_decode(const char *s, size_t n, int32_t *cp);

/* How the tokenizer sees a code point. */
typedef enum text_char_class {
    TEXT_CHAR_SEPARATOR = 0, /* space, punctuation, symbol, control: ends a word */
    TEXT_CHAR_WORD,          /* letter, mark or digit of a spaced script */
    TEXT_CHAR_CJK,           /* Han, Hiragana, Katakana: bigrammed */
    TEXT_CHAR_HANGUL,        /* Hangul: bigrammed */
    TEXT_CHAR_IGNORED        /* format or default-ignorable character (soft hyphen, ZWJ,
                                Hangul filler): dropped, never starts a word */
} text_char_class;
text_char_class text_char_classify(int32_t cp);
/* Nonzero for white space: Unicode separators (Zs, Zl, Zp) and every
 * control character, NUL included. */
int text_is_space(int32_t cp);

/* Longest word text_edit_distance compares (bytes). */
#define TEXT_EDIT_DISTANCE_MAX 64
/* Levenshtein distance between a and b counted in bytes, ASCII letters
 * compared case-insensitively when fold_ascii is nonzero; SIZE_MAX when
 * either is longer than TEXT_EDIT_DISTANCE_MAX. For "did you mean"
 * suggestions (misspelt keywords, table and column names). */
size_t text_edit_distance(const char *a, const char *b, int fold_ascii);

#endif
