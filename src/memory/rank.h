/*
 * rank.h — the arithmetic of memory recall, kept apart so unit tests pin
 * it down (tests/unit/test_memory_rank.c).
 *
 * A hit's final score multiplies its fused reciprocal-rank score by three
 * weights, each reported with the hit:
 *
 *   status     episodes: success 1.0, partial 0.75, failed 0.5; other
 *              tiers 1.0 — successful experience ranks first among equals;
 *   recency    (1 - rw) + rw * 0.5^(age / half_life): rw (recency_weight,
 *              0..1) is the share of the score that decays; age < 0 counts
 *              as 0; half_life <= 0 turns decay off (weight 1);
 *   frequency  1 + fw * ln(1 + uses): uses = recalls plus repeated writes
 *              of the same content; fw = frequency_weight.
 *
 *   final = rrf * status * recency * frequency
 *
 * Pure functions of their arguments; thread-safe.
 */
#ifndef DBMCP_MEMORY_RANK_H
#define DBMCP_MEMORY_RANK_H

#include <stdint.h>

typedef struct mem_rank_params {
    double half_life_s;      /* > 0; <= 0 disables decay */
    double recency_weight;   /* 0..1, clamped */
    double frequency_weight; /* >= 0 */
} mem_rank_params;

typedef struct mem_rank_parts {
    double rrf;       /* fused reciprocal-rank score (input) */
    double status;    /* weight from the episode status */
    double recency;   /* weight from the age */
    double frequency; /* weight from the use count */
    double final;     /* the product */
} mem_rank_parts;

/* Weight of an episode status ("success", "partial", "failed"); 1.0 for
 * NULL (messages, knowledge) and unknown values. */
double mem_rank_status_weight(const char *status);
/* Recency weight of an item age_s seconds old. */
double mem_rank_recency_weight(double age_s, const mem_rank_params *p);
/* Frequency weight of an item used `uses` times (negative counts as 0). */
double mem_rank_frequency_weight(int64_t uses, const mem_rank_params *p);
/* Fill parts from rrf, status, age and uses; returns parts->final. */
double mem_rank_score(double rrf, const char *status, double age_s, int64_t uses,
                      const mem_rank_params *p, mem_rank_parts *parts);

#endif
