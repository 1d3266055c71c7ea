/*
 * content_words.h — the words of a memory text that carry its content.
 *
 * Chat messages are short and full of function words ("what", "my", "is",
 * "ich", "mein"). Any-term keyword matching then pulls in every message
 * sharing one of them, and a lexical embedding (search/embed.h "builtin")
 * weighs them like content. Recall therefore embeds, and queries with, the
 * text less a fixed list of English and German function words; the stored
 * text is never changed. Query operators survive: quoted phrases and
 * +required/-excluded terms are kept as written.
 *
 * When nothing but function words is left the original text is used, so a
 * query never becomes empty. Thread-safe; no global state.
 * Ownership: both functions return a new string (caller frees) or NULL
 * when out of memory.
 */
#ifndef DBMCP_MEMORY_CONTENT_WORDS_H
#define DBMCP_MEMORY_CONTENT_WORDS_H

/* Nonzero when word[0..n) (any case) is a function word. */
int mem_is_function_word(const char *word, unsigned long n);
/* text without function words (for embedding stored items). */
char *mem_content_text(const char *text);
/* A free-text query (fts_query syntax) without its plain function words. */
char *mem_content_query(const char *query);

#endif
