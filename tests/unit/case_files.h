/*
 * case_files.h — the one loader of data-driven unit cases: every *.json
 * file of one kind's directory under $DBMCP_CASES (default "tests/cases",
 * so run from the repository root), read in name order, parsed strictly and
 * handed to the test's own runner; and the shared tally of cases, failures
 * and known bugs ("pending").
 *
 * Header-only (static inline) because every unit test is a single C file
 * linked alone; include it after <cmocka.h>. A runner owns nothing it is
 * given: case_files_run frees each document after the runner returns.
 */
#ifndef DBMCP_TESTS_CASE_FILES_H
#define DBMCP_TESTS_CASE_FILES_H

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Counts shared by the runs over one directory of case files. */
typedef struct case_tally {
    int cases;    /* cases run */
    int failures; /* cases that did not behave as their file says */
    int pending;  /* known bugs still failing (files with "pending") */
} case_tally;

/* Runs the cases of one parsed file (name is the file name, for messages)
 * and adds them to tally. */
typedef void (*case_file_runner)(const char *name, const json_t *doc, case_tally *tally);

static inline int case_name_compare(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json names in dir, sorted; *count gets how many. NULL when dir
 * cannot be read or holds none. Caller frees each name and the array. */
static inline char **case_file_names(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    *count = 0;
    if (!d)
        return NULL;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        char **grown = realloc(names, (*count + 1) * sizeof *names);
        assert_non_null(grown);
        names = grown;
        names[*count] = strdup(e->d_name);
        assert_non_null(names[(*count)++]);
    }
    closedir(d);
    if (names)
        qsort(names, *count, sizeof *names, case_name_compare);
    return names;
}

/* Parse dir/name with jansson's load flags (JSON_REJECT_DUPLICATES is
 * always added); NULL after printing why when it cannot be read. Caller
 * decrefs. */
static inline json_t *case_file_load(const char *dir, const char *name, size_t flags)
{
    char path[1024];
    int len = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= sizeof path) {
        print_error("%s/%s: path too long\n", dir, name);
        return NULL;
    }
    json_error_t error;
    json_t *doc = json_load_file(path, flags | JSON_REJECT_DUPLICATES, &error);
    if (!doc)
        print_error("%s:%d: %s\n", path, error.line, error.text);
    return doc;
}

/* Record one case of file name whose outcome is failed (why says how):
 * a case marked "pending" that fails is counted as pending, one that
 * passes is a failure until the marker goes; c's "description" is printed
 * with a failure. */
static inline void case_tally_outcome(case_tally *tally, const char *name, const json_t *c,
                                      int failed, const char *why)
{
    const char *description = json_string_value(json_object_get(c, "description"));
    const char *pending = json_string_value(json_object_get(c, "pending"));
    if (failed && pending) {
        tally->pending++;
        print_message("%s: pending (%s): %s\n", name, pending, why);
    } else if (failed) {
        tally->failures++;
        print_error("%s (%s): %s\n", name, description ? description : "", why);
    } else if (pending) {
        tally->failures++;
        print_error("%s: passes now; remove its \"pending\" marker\n", name);
    }
}

/* Run every case file of kind ($DBMCP_CASES/kind) through run, parsed with
 * load_flags; a file that cannot be parsed counts as one failure. Fails the
 * test when the directory has no case file. Returns the number of files. */
static inline size_t case_files_run(const char *kind, size_t load_flags, case_file_runner run,
                                    case_tally *tally)
{
    const char *base = getenv("DBMCP_CASES");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", base && *base ? base : "tests/cases", kind);
    size_t count;
    char **names = case_file_names(dir, &count);
    if (!names)
        fail_msg("no case files in %s (run from the repository root or set DBMCP_CASES)", dir);
    for (size_t i = 0; i < count; i++) {
        json_t *doc = case_file_load(dir, names[i], load_flags);
        if (doc)
            run(names[i], doc, tally);
        else
            tally->failures++;
        json_decref(doc);
        free(names[i]);
    }
    free(names);
    return count;
}

/* Checks one case c; returns NULL when it behaves as its file says, or
 * why not (in why, size bytes, or a static string). */
typedef const char *(*case_check_fn)(const json_t *c, char *why, size_t size);

/* The check case_files_check runs (one per test binary at a time). */
static inline case_check_fn *case_check_slot(void)
{
    static case_check_fn check;
    return &check;
}

/* Runner for case_files_run: a file holds one case object or an array of
 * them (labelled name[i]); each goes through the current check. */
static inline void case_file_each(const char *name, const json_t *doc, case_tally *tally)
{
    static char why[16384];
    size_t count = json_is_array(doc) ? json_array_size(doc) : 1;
    for (size_t i = 0; i < count; i++) {
        const json_t *c = json_is_array(doc) ? json_array_get(doc, i) : doc;
        char label[512];
        if (json_is_array(doc))
            snprintf(label, sizeof label, "%s[%zu]", name, i);
        else
            snprintf(label, sizeof label, "%s", name);
        tally->cases++;
        const char *failed = (*case_check_slot())(c, why, sizeof why);
        case_tally_outcome(tally, label, c, failed != NULL, failed ? failed : "");
    }
}

/* The whole data-driven test of one kind: check every case of every file
 * under $DBMCP_CASES/kind, print the tally, and fail unless every case
 * passed and there were at least min_cases. */
static inline void case_files_check(const char *kind, size_t load_flags, case_check_fn check,
                                    int min_cases)
{
    case_tally tally = {0, 0, 0};
    *case_check_slot() = check;
    case_files_run(kind, load_flags, case_file_each, &tally);
    print_message("%s: %d cases, %d failed, %d pending\n", kind, tally.cases, tally.failures,
                  tally.pending);
    assert_int_equal(tally.failures, 0);
    assert_true(tally.cases >= min_cases);
}

#endif
