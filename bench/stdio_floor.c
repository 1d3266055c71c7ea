/*
 * stdio_floor.c — the least a stdio MCP server can do per call, for
 * bench/run.sh: one read(2) of the request line and one write(2) of a
 * canned answer. No JSON parsing (the id and the echo text are copied
 * from the line as they are), no validation, no dispatch, no audit.
 * Its CPU per call is what the kernel and the pipe cost on this machine:
 * no real server can use less, so Node's figure divided by it is the
 * largest ratio any server could show in the same run.
 * Answers `initialize` and `tools/call` (echo); ignores notifications.
 * Not a product component: built by bench/run.sh only.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The raw JSON token after "key": up to ',' or '}' (ids), or the string
 * body after "key":" up to its closing quote (the echo text). */
static int token(const char *line, const char *key, int string, const char **at, size_t *len)
{
    const char *p = strstr(line, key);
    if (!p)
        return 0;
    p += strlen(key);
    if (string) {
        const char *q = p;
        while (*q && *q != '"')
            q += *q == '\\' && q[1] ? 2 : 1;
        *at = p;
        *len = (size_t)(q - p);
        return 1;
    }
    *at = p;
    *len = strcspn(p, ",}");
    return 1;
}

static void answer(char *line)
{
    const char *id, *text;
    size_t id_len, text_len;
    if (!token(line, "\"id\":", 0, &id, &id_len) || strstr(line, "\"method\":\"notifications/"))
        return;
    char out[70000];
    int n;
    if (strstr(line, "\"method\":\"initialize\""))
        n = snprintf(
            out, sizeof out,
            "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":{\"protocolVersion\":\"2025-11-25\","
            "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"floor\",\"version\":"
            "\"0\"}}}\n",
            (int)id_len, id);
    else if (token(line, "\"text\":\"", 1, &text, &text_len))
        n = snprintf(out, sizeof out,
                     "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"result\":{\"content\":[{\"type\":\"text\","
                     "\"text\":\"%.*s\"}]}}\n",
                     (int)id_len, id, (int)text_len, text);
    else
        n = snprintf(out, sizeof out,
                     "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":{\"code\":-32601,\"message\":"
                     "\"not supported\"}}\n",
                     (int)id_len, id);
    if (n > 0 && (size_t)n < sizeof out && write(1, out, (size_t)n) < 0)
        _exit(1);
}

int main(void)
{
    static char buf[1 << 16];
    size_t len = 0;
    for (;;) {
        ssize_t got = read(0, buf + len, sizeof buf - 1 - len);
        if (got <= 0)
            return 0;
        len += (size_t)got;
        char *nl;
        while ((nl = memchr(buf, '\n', len))) {
            *nl = '\0';
            answer(buf);
            size_t used = (size_t)(nl - buf) + 1;
            memmove(buf, buf + used, len - used);
            len -= used;
        }
        if (len == sizeof buf - 1)
            len = 0; /* a line longer than the buffer: drop it */
    }
}
