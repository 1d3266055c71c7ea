/*
 * rank.c — recall weighting: status, recency, frequency (see rank.h).
 */
#include "memory/rank.h"

#include <math.h>
#include <string.h>

double mem_rank_status_weight(const char *status)
{
    if (!status)
        return 1.0;
    if (strcmp(status, "partial") == 0)
        return 0.75;
    if (strcmp(status, "failed") == 0)
        return 0.5;
    return 1.0;
}

double mem_rank_recency_weight(double age_s, const mem_rank_params *p)
{
    double rw = p->recency_weight < 0 ? 0 : p->recency_weight > 1 ? 1 : p->recency_weight;
    if (p->half_life_s <= 0 || rw == 0 || !isfinite(age_s))
        return 1.0;
    if (age_s < 0)
        age_s = 0;
    return (1.0 - rw) + rw * pow(0.5, age_s / p->half_life_s);
}

double mem_rank_frequency_weight(int64_t uses, const mem_rank_params *p)
{
    if (uses <= 0 || p->frequency_weight <= 0)
        return 1.0;
    return 1.0 + p->frequency_weight * log1p((double)uses);
}

double mem_rank_score(double rrf, const char *status, double age_s, int64_t uses,
                      const mem_rank_params *p, mem_rank_parts *parts)
{
    parts->rrf = rrf;
    parts->status = mem_rank_status_weight(status);
    parts->recency = mem_rank_recency_weight(age_s, p);
    parts->frequency = mem_rank_frequency_weight(uses, p);
    parts->final = rrf * parts->status * parts->recency * parts->frequency;
    return parts->final;
}
