/*
 * match.c — thesaurus_match_text: every concept label occurring in a text.
 *
 * The text is tokenised once like labels are (text_tokenize with
 * TEXT_LANG_NONE). At each token position the key is grown a token at a
 * time while some label's key continues it (two indexed probes per step,
 * usually a single step); the longest key that is a label wins the
 * position, its labels are read, and scanning resumes at the first token
 * that starts after the match (CJK bigrams overlap, so "after" is by byte
 * offset).
 */
#include <stdlib.h>
#include <string.h>

#include "core/textnorm.h"
#include "thesaurus/internal.h"

typedef struct text_token {
    char *text;        /* owned, NUL-terminated */
    size_t start, end; /* byte offsets into the input */
} text_token;

typedef struct token_list {
    text_token *items;
    size_t count, cap;
    int oom;
} token_list;

static int collect_token(void *ctx, const char *token, size_t len, size_t start, size_t end,
                         int colocated)
{
    token_list *l = ctx;
    if (colocated || len == 0)
        return 0;
    if (l->count == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 64;
        text_token *p = realloc(l->items, ncap * sizeof *p);
        if (!p) {
            l->oom = 1;
            return 1;
        }
        l->items = p;
        l->cap = ncap;
    }
    char *copy = strndup(token, len);
    if (!copy) {
        l->oom = 1;
        return 1;
    }
    l->items[l->count++] = (text_token){copy, start, end};
    return 0;
}

static void token_list_free(token_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i].text);
    free(l->items);
}

/* The matches of one call and the span being matched. */
typedef struct match_state {
    thesaurus_match_list *out;
    size_t cap;        /* allocated slots of out->items */
    size_t first;      /* out->count before this position */
    size_t start, end; /* byte span of the current key */
    int oom;
} match_state;

static int already_matched(const match_state *s, int64_t concept)
{
    for (size_t i = s->first; i < s->out->count; i++)
        if (s->out->items[i].concept_id == concept)
            return 1;
    return 0;
}

static int on_label(void *ctx, int64_t concept, const char *uri, const char *label,
                    const char *lang, const char *pref)
{
    match_state *s = ctx;
    if (already_matched(s, concept))
        return 0;
    if (s->out->count >= THESAURUS_MATCH_MAX)
        return 1;
    if (s->out->count == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 16;
        thesaurus_match *p = realloc(s->out->items, ncap * sizeof *p);
        if (!p) {
            s->oom = 1;
            return 1;
        }
        s->out->items = p;
        s->cap = ncap;
    }
    thesaurus_match *m = &s->out->items[s->out->count++];
    m->concept_id = concept;
    m->uri = strdup(uri ? uri : "");
    m->pref_label = strdup(pref ? pref : label);
    m->matched_label = strdup(label);
    m->lang = strdup(lang ? lang : "");
    m->start = s->start;
    m->end = s->end;
    if (!m->uri || !m->pref_label || !m->matched_label || !m->lang)
        s->oom = 1;
    return s->oom;
}

/* The longest key starting at token `at` that some label has: grow the
 * key a token at a time while some label continues it. Returns its token
 * count (0: none) with the key in *key (caller frees), or a negative code. */
static int longest_key(thesaurus_probe *p, const token_list *t, size_t at, char **key,
                       dbmcp_error *err)
{
    *key = NULL;
    char *buf = NULL;
    size_t len = 0;
    int best = 0, rc = 0;
    for (size_t l = 1; l <= THESAURUS_LABEL_TOKENS_MAX && at + l <= t->count; l++) {
        const char *tok = t->items[at + l - 1].text;
        size_t tl = strlen(tok);
        char *grown = realloc(buf, len + tl + 2);
        if (!grown) {
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
            break;
        }
        buf = grown;
        if (len)
            buf[len++] = ' ';
        memcpy(buf + len, tok, tl + 1);
        len += tl;
        int exact, longer;
        if ((rc = thesaurus_probe_key(p, buf, &exact, &longer, err)) != 0)
            break;
        if (exact) {
            free(*key);
            *key = strdup(buf);
            if (!*key) {
                rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
                break;
            }
            best = (int)l;
        }
        if (!longer)
            break;
    }
    free(buf);
    if (rc) {
        free(*key);
        *key = NULL;
        return rc;
    }
    return best;
}

void thesaurus_match_list_free(thesaurus_match_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++) {
        free(l->items[i].uri);
        free(l->items[i].pref_label);
        free(l->items[i].matched_label);
        free(l->items[i].lang);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

int thesaurus_match_text(store *db, const char *text, thesaurus_match_list *out, dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text)
        return dbmcp_error_set(err, DBMCP_EINVAL, "text: must be a string");
    size_t n = strlen(text);
    if (n > THESAURUS_MATCH_TEXT_MAX)
        return dbmcp_error_set(err, DBMCP_ETOOBIG, "text: longer than %d bytes",
                               THESAURUS_MATCH_TEXT_MAX);
    token_list tokens = {0};
    text_tokenize(text, n, TEXT_LANG_NONE, collect_token, &tokens);
    int rc = tokens.oom ? dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory") : 0;
    thesaurus_probe *probe = NULL;
    if (!rc && tokens.count > 0)
        rc = thesaurus_probe_open(db, &probe, err);
    match_state st = {.out = out};
    for (size_t i = 0; !rc && i < tokens.count && out->count < THESAURUS_MATCH_MAX;) {
        char *key;
        int best = longest_key(probe, &tokens, i, &key, err);
        if (best <= 0) {
            rc = best;
            i++;
            continue;
        }
        st.first = out->count;
        st.start = tokens.items[i].start;
        st.end = tokens.items[i + (size_t)best - 1].end;
        rc = thesaurus_probe_labels(probe, key, on_label, &st, err);
        free(key);
        if (!rc && st.oom)
            rc = dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
        while (i < tokens.count && tokens.items[i].start < st.end)
            i++;
    }
    thesaurus_probe_close(probe);
    token_list_free(&tokens);
    if (rc)
        thesaurus_match_list_free(out);
    return rc;
}
