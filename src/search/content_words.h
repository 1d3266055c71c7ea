/*
 * content_words.h — the words of a text that carry its content: a fixed
 * list of English and German function words ("what", "my", "is", "ich",
 * "mein", the question words) and the text without them.
 *
 * Chat messages are short and full of function words. Any-term keyword
 * matching then pulls in every message sharing one of them, and a lexical
 * embedding (search/embed.h "builtin") weighs them like content. Memory
 * recall therefore embeds, and queries with, the text less these words;
 * the stored text is never changed. Query operators survive: quoted
 * phrases and +required/-excluded terms are kept as written. The keyword
 * query builder (fts_query.h) keeps function words in the query but leaves
 * them out of a hit's coverage: question words are rare in documents, so
 * their idf would make a passage sharing only "how" and "did" look like an
 * answer.
 *
 * When nothing but function words is left the original text is used, so a
 * query never becomes empty. Thread-safe; no global state.
 * Ownership: both functions return a new string (caller frees) or NULL
 * when out of memory.
 */
#ifndef DBMCP_SEARCH_CONTENT_WORDS_H
#define DBMCP_SEARCH_CONTENT_WORDS_H

/* Nonzero when word[0..n) (any case) is a function word. */
int content_is_function_word(const char *word, unsigned long n);
/* text without function words (for embedding stored items). */
char *content_text(const char *text);
/* A free-text query (fts_query syntax) without its plain function words. */
char *content_query(const char *query);

#endif
