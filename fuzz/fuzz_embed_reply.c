/*
 * fuzz_embed_reply.c — libFuzzer target for the parser of embedding
 * service replies (search/embed_http.c, embed_http_parse_reply): the body
 * an OpenAI-compatible service returns, untrusted input of up to 64 MiB.
 *
 * The first input byte chooses how many inputs were "sent" (1 to 4); the
 * rest is the reply body. The target checks the parser's contract:
 *   - success: a vector array, a dimension within 1..EMBED_MAX_DIM, every
 *     value finite, every vector of L2 norm 1 (an all-zero vector is
 *     refused, so none is zero);
 *   - failure: a negative code, no vectors, dimension 0, an operator
 *     message, and the fixed public message (never text of the body);
 *   - the same input always gives the same answer.
 * A broken check aborts, which libFuzzer reports as a crash with the input.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search/embed_internal.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz_embed_reply: %s\n", what);
    abort();
}

static void check_success(const float *v, size_t n, int dim)
{
    if (!v || dim < 1 || dim > EMBED_MAX_DIM)
        die("success without vectors or with a bad dimension");
    for (size_t i = 0; i < n; i++) {
        double sq = 0;
        for (int j = 0; j < dim; j++) {
            float x = v[i * (size_t)dim + (size_t)j];
            if (!isfinite(x))
                die("a non-finite value in a vector");
            sq += (double)x * x;
        }
        if (fabs(sqrt(sq) - 1) > 1e-3)
            die("a vector that is not normalised");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t n = 1 + data[0] % 4;
    const char *body = (const char *)data + 1;
    size_t len = size - 1;
    float *v = NULL, *again = NULL;
    int dim = -1, dim2 = -1;
    dbmcp_error err, err2;
    dbmcp_error_clear(&err);
    int rc = embed_http_parse_reply(body, len, n, &v, &dim, &err);
    int rc2 = embed_http_parse_reply(body, len, n, &again, &dim2, &err2);
    if (rc != rc2 || dim != dim2)
        die("two runs disagree");
    if (rc == 0) {
        check_success(v, n, dim);
        if (memcmp(v, again, n * (size_t)dim * sizeof *v) != 0)
            die("two runs gave different vectors");
    } else {
        if (rc > 0 || v || dim != 0 || !err.message[0])
            die("a failure without a negative code and a message, or with vectors");
        if (rc != DBMCP_ENOMEM &&
            strcmp(err.public_message, "the embedding service returned an invalid reply") != 0)
            die("a public message other than the fixed one");
    }
    free(v);
    free(again);
    return 0;
}
