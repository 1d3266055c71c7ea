/*
 * terminal.c — what the CLI prints of stored text: cli_safe (see cli.h).
 *
 * The escaped copies live in a small ring so a printf with many columns
 * can take them as arguments without the caller freeing each one; the CLI
 * prints from one thread.
 */
#include <stdlib.h>

#include "cli/cli.h"
#include "core/text_safe.h"

#define CLI_SAFE_RING 32

const char *cli_safe(const char *s)
{
    static char *ring[CLI_SAFE_RING];
    static size_t next;
    if (!s || !text_safe_needs_escape(s))
        return s;
    char *escaped = text_safe_escape(s);
    if (!escaped)
        return "?";
    free(ring[next]);
    ring[next] = escaped;
    next = (next + 1) % CLI_SAFE_RING;
    return escaped;
}
