/*
 * textnorm_floor.c — the floor of bench/ingest.sh: the CPU time to read a
 * corpus and to normalise it once (core/textnorm: NFKC, case folding,
 * German and English Snowball stems, CJK bigrams), the one pass over the
 * text that any ingestion with dbmcp's tokenizer makes at the least.
 *
 *   textnorm_floor FILE…    prints "read_s tokenize_s bytes tokens"
 *
 * CPU seconds of this process (CLOCK_PROCESS_CPUTIME_ID): reading every
 * file into memory; then tokenising every file with one text_stemmers, as
 * the embedder does per batch. Exits 1 with a message when a file cannot
 * be read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/textnorm.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The whole of path into *out (caller frees); its size into *n. */
static int read_file(const char *path, char **out, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *g = realloc(buf, cap * 2);
            if (!g) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = g;
            cap *= 2;
        }
    }
    int failed = ferror(f) || !buf;
    fclose(f);
    if (failed) {
        free(buf);
        return -1;
    }
    *out = buf;
    *n = len;
    return 0;
}

static int count_token(void *ctx, const char *token, size_t len, size_t start, size_t end,
                       int colocated)
{
    (void)token, (void)len, (void)start, (void)end, (void)colocated;
    (*(uint64_t *)ctx)++;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: textnorm_floor FILE…\n");
        return 2;
    }
    size_t files = (size_t)argc - 1, bytes = 0;
    char **text = calloc(files, sizeof *text);
    size_t *len = calloc(files, sizeof *len);
    if (!text || !len)
        return 1;
    double t0 = cpu_now();
    for (size_t i = 0; i < files; i++) {
        if (read_file(argv[i + 1], &text[i], &len[i])) {
            fprintf(stderr, "textnorm_floor: cannot read %s\n", argv[i + 1]);
            return 1;
        }
        bytes += len[i];
    }
    double t1 = cpu_now();
    text_stemmers *st = text_stemmers_new(TEXT_LANG_DEFAULT);
    uint64_t tokens = 0;
    for (size_t i = 0; st && i < files; i++)
        if (text_tokenize_with(st, text[i], len[i], count_token, &tokens) != 0) {
            fprintf(stderr, "textnorm_floor: out of memory\n");
            return 1;
        }
    double t2 = cpu_now();
    text_stemmers_free(st);
    printf("%.4f %.4f %zu %llu\n", t1 - t0, t2 - t1, bytes, (unsigned long long)tokens);
    for (size_t i = 0; i < files; i++)
        free(text[i]);
    free(text);
    free(len);
    return 0;
}
