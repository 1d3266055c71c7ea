/*
 * content_words.c — English and German function words, and texts and
 * queries without them (content_words.h).
 */
#include "search/content_words.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Sorted for bsearch (byte order, lower case). */
static const char *const function_words[] = {
    "a",       "about",   "after",   "again",   "all",   "also",  "am",    "an",     "and",
    "any",     "are",     "as",      "at",      "auch",  "auf",   "aus",   "be",     "bei",
    "bin",     "bist",    "by",      "can",     "could", "da",    "das",   "dass",   "de",
    "dem",     "den",     "der",     "des",     "did",   "die",   "do",    "doch",   "does",
    "du",      "ein",     "eine",    "einem",   "einen", "einer", "er",    "es",     "for",
    "from",    "für",     "had",     "has",     "hast",  "hat",   "have",  "he",     "her",
    "hers",    "him",     "his",     "how",     "i",     "i'd",   "i'll",  "i'm",    "i've",
    "ich",     "ihr",     "im",      "in",      "is",    "ist",   "it",    "it's",   "its",
    "ja",      "just",    "let",     "let's",   "many",  "me",    "mein",  "meine",  "meinem",
    "meinen",  "meiner",  "mich",    "mir",     "mit",   "much",  "my",    "nach",   "nicht",
    "noch",    "now",     "of",      "on",      "or",    "our",   "ours",  "please", "s",
    "sein",    "she",     "sich",    "sie",     "sind",  "so",    "some",  "t",      "than",
    "that",    "that's",  "the",     "their",   "them",  "then",  "there", "these",  "they",
    "this",    "those",   "to",      "too",     "und",   "uns",   "unser", "us",     "very",
    "viele",   "vom",     "von",     "vor",     "wann",  "warum", "was",   "we",     "welche",
    "welchem", "welchen", "welcher", "welches", "wer",   "were",  "what",  "what's", "when",
    "where",   "where's", "which",   "who",     "who's", "whom",  "whose", "why",    "wie",
    "wieviel", "wir",     "with",    "wo",      "woher", "wohin", "would", "you",    "you're",
    "your",    "yours",   "zu",      "zum",     "zur",
};

static int cmp_word(const void *key, const void *elem)
{
    return strcmp(key, *(const char *const *)elem);
}

int content_is_function_word(const char *word, unsigned long n)
{
    char buf[16];
    if (n == 0 || n >= sizeof buf)
        return 0;
    for (unsigned long i = 0; i < n; i++)
        buf[i] = (char)tolower((unsigned char)word[i]);
    buf[n] = '\0';
    return bsearch(buf, function_words, sizeof function_words / sizeof function_words[0],
                   sizeof function_words[0], cmp_word) != NULL;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The word inside a token: leading/trailing ASCII punctuation removed. */
static void core(const char *tok, size_t n, size_t *start, size_t *len)
{
    size_t s = 0, e = n;
    while (s < e && ispunct((unsigned char)tok[s]) && tok[s] != '\'')
        s++;
    while (e > s && ispunct((unsigned char)tok[e - 1]))
        e--;
    *start = s;
    *len = e - s;
}

/* Copy text without function-word tokens; query = 1 keeps operators and
 * quoted phrases. Falls back to a copy of text when nothing is left. */
static char *strip(const char *text, int query)
{
    size_t n = strlen(text);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t w = 0, i = 0;
    int kept_content = 0;
    while (i < n) {
        while (i < n && is_space(text[i]))
            i++;
        if (i >= n)
            break;
        size_t start = i;
        if (query && text[i] == '"') {
            const char *close = memchr(text + i + 1, '"', n - i - 1);
            i = close ? (size_t)(close - text) + 1 : n;
        } else {
            while (i < n && !is_space(text[i]))
                i++;
        }
        size_t tok_len = i - start, cs, cl;
        core(text + start, tok_len, &cs, &cl);
        int operator= query &&(text[start] == '"' || text[start] == '+' || text[start] == '-');
        if (!operator&&(cl == 0 || content_is_function_word(text + start + cs, cl)))
            continue;
        kept_content = 1;
        if (w)
            out[w++] = ' ';
        memcpy(out + w, text + start, tok_len);
        w += tok_len;
    }
    out[w] = '\0';
    if (!kept_content) {
        memcpy(out, text, n + 1);
    }
    return out;
}

char *content_text(const char *text)
{
    return strip(text ? text : "", 0);
}

char *content_query(const char *query)
{
    return strip(query ? query : "", 1);
}
