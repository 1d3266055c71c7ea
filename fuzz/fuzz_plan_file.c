/*
 * fuzz_plan_file.c — libFuzzer target for the plan file of `dbmcp plans
 * add|update` (catalog/validate_plan.c): the file is written by hand, so
 * any bytes may arrive.
 *
 * Each input is parsed as JSON the way the CLI reads the file (duplicate
 * keys refused). For an object, catalog_validate_plan must either refuse
 * it with a non-empty message or accept it; an accepted plan must have a
 * valid name and interface, 1 to 64 steps of a known kind, and a tool
 * step must name its tool. A broken check aborts, which libFuzzer reports
 * as a crash with the input.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"

static void die(const char *what)
{
    fprintf(stderr, "fuzz_plan_file: %s\n", what);
    abort();
}

static void check_accepted(const json_t *plan)
{
    dbmcp_error err;
    if (catalog_validate_name("plan", json_string_value(json_object_get(plan, "name")), &err) ||
        catalog_validate_name("interface", json_string_value(json_object_get(plan, "interface")),
                              &err))
        die("accepted a plan without a valid name or interface");
    json_t *steps = json_object_get(plan, "steps");
    if (json_array_size(steps) < 1 || json_array_size(steps) > 64)
        die("accepted a plan with no steps or too many");
    size_t i;
    json_t *step;
    json_array_foreach (steps, i, step) {
        const char *kind = json_string_value(json_object_get(step, "kind"));
        if (!kind || (strcmp(kind, "analyse") && strcmp(kind, "tool") && strcmp(kind, "llm") &&
                      strcmp(kind, "save_episode")))
            die("accepted a step of an unknown kind");
        if (strcmp(kind, "tool") == 0 && !json_is_string(json_object_get(step, "tool")))
            die("accepted a tool step without a tool");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return 0;
    }
    dbmcp_error err;
    memset(&err, 0, sizeof err);
    if (catalog_validate_plan(doc, &err)) {
        if (!err.message[0])
            die("refused without a message");
    } else {
        check_accepted(doc);
    }
    json_decref(doc);
    return 0;
}
