/*
 * flag_values.c — checks of flag values shared by every command: whole
 * numbers in a range, UTC times, one word of a fixed list. A value that
 * does not fit is a usage error naming the accepted forms, never a
 * silent default or an empty result (see cli.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int cli_int_flag(const cli_args *a, const char *name, int lo, int hi, int *out)
{
    const char *v = cli_flag(a, name);
    if (!v)
        return CLI_OK;
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < lo || n > hi)
        return cli_usage_error(a->cmd, "--%s must be a whole number from %d to %d, not '%s'", name,
                               lo, hi, cli_safe(v));
    *out = (int)n;
    return CLI_OK;
}

/* n digits at s. */
static int digits(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

/* Whether s is YYYY-MM-DD, optionally followed by T or a space and HH:MM,
 * HH:MM:SS or HH:MM:SS.fff (1-6 digits), optionally ending in Z. */
static int time_form(const char *s)
{
    size_t len = strlen(s);
    if (len && s[len - 1] == 'Z')
        len--;
    if (len < 10 || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' ||
        !digits(s + 8, 2))
        return 0;
    int month = atoi(s + 5), day = atoi(s + 8);
    if (month < 1 || month > 12 || day < 1 || day > 31)
        return 0;
    if (len == 10)
        return s[10] == '\0'; /* a date with a Z is not a form */
    if ((s[10] != 'T' && s[10] != ' ') || len < 16 || !digits(s + 11, 2) || s[13] != ':' ||
        !digits(s + 14, 2) || atoi(s + 11) > 23 || atoi(s + 14) > 59)
        return 0;
    if (len == 16)
        return 1;
    if (len < 19 || s[16] != ':' || !digits(s + 17, 2) || atoi(s + 17) > 60)
        return 0;
    if (len == 19)
        return 1;
    return s[19] == '.' && len >= 21 && len <= 26 && digits(s + 20, (int)len - 20);
}

int cli_time_flag(const cli_args *a, const char *name, char out[32], const char **value)
{
    const char *v = cli_flag(a, name);
    *value = NULL;
    if (!v)
        return CLI_OK;
    if (strlen(v) >= 32 || !time_form(v))
        return cli_usage_error(a->cmd,
                               "--%s must be a UTC time: YYYY-MM-DD, YYYY-MM-DDTHH:MM or "
                               "YYYY-MM-DDTHH:MM:SS[.fff][Z], not '%s'",
                               name, cli_safe(v));
    /* Stored times are ISO-8601 text with a T: compare like with like. */
    snprintf(out, 32, "%s", v);
    if (out[10] == ' ')
        out[10] = 'T';
    *value = out;
    return CLI_OK;
}

int cli_choice_flag(const cli_args *a, const char *name, const char *const *choices,
                    const char **value)
{
    const char *v = cli_flag(a, name);
    *value = v;
    if (!v)
        return CLI_OK;
    char accepted[256] = "";
    size_t used = 0;
    for (int i = 0; choices[i]; i++) {
        if (strcmp(v, choices[i]) == 0)
            return CLI_OK;
        used +=
            (size_t)snprintf(accepted + used, used < sizeof accepted ? sizeof accepted - used : 0,
                             "%s%s", i ? ", " : "", choices[i]);
        if (used >= sizeof accepted)
            used = sizeof accepted - 1;
    }
    *value = NULL;
    return cli_usage_error(a->cmd, "--%s must be one of %s, not '%s'", name, accepted, cli_safe(v));
}
