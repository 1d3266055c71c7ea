/*
 * cmd_repair.c — `dbmcp repair`: the response repair engine (core/json_repair)
 * as a filter, for one model answer on stdin or a batch of them in a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/json_repair.h"

/* One batch entry: {"ok":true,"output":VALUE,"repairs":[…],"lossy":B} or
 * {"ok":false,"error":"…"}. NULL when out of memory. */
static json_t *batch_entry(const json_t *input, const repair_options *opt)
{
    if (!json_is_string(input))
        return json_pack("{s:b,s:s}", "ok", 0, "error", "batch entry is not a string");
    repair_result r;
    dbmcp_error err;
    if (repair_json(json_string_value(input), json_string_length(input), opt, &r, &err))
        return json_pack("{s:b,s:s}", "ok", 0, "error", err.message);
    json_t *value = json_loadb(r.output, r.output_len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    json_t *repairs = json_array();
    for (size_t i = 0; repairs && i < r.repair_count; i++)
        json_array_append_new(repairs, json_string(r.repairs[i]));
    json_t *entry = value && repairs ? json_pack("{s:b,s:O,s:O,s:b}", "ok", 1, "output", value,
                                                 "repairs", repairs, "lossy", r.lossy)
                                     : NULL;
    json_decref(value);
    json_decref(repairs);
    repair_result_free(&r);
    return entry;
}

static int run_batch(const char *path, const repair_options *opt)
{
    dbmcp_error err;
    char *text;
    if (cli_read_text_file(path, &text, &err))
        return cli_fail(&err);
    json_error_t jerr;
    json_t *inputs = json_loads(text, JSON_ALLOW_NUL, &jerr);
    free(text);
    if (!json_is_array(inputs)) {
        json_decref(inputs);
        fprintf(stderr, "dbmcp repair: %s: not a JSON array of strings%s%s\n", path,
                inputs ? "" : ": ", inputs ? "" : jerr.text);
        return CLI_FAIL;
    }
    json_t *results = json_array();
    size_t i;
    json_t *input;
    int rc = results ? CLI_OK : CLI_FAIL;
    json_array_foreach (inputs, i, input) {
        json_t *entry = rc == CLI_OK ? batch_entry(input, opt) : NULL;
        if (!entry || json_array_append_new(results, entry))
            rc = CLI_FAIL;
    }
    json_decref(inputs);
    if (rc == CLI_OK && json_dumpf(results, stdout, JSON_INDENT(2)) == 0)
        putchar('\n');
    else
        fprintf(stderr, "dbmcp repair: out of memory\n");
    json_decref(results);
    return rc;
}

static int run_repair(cli_args *a)
{
    repair_options opt = {0};
    opt.parse_string_arguments = cli_flag(a, "arguments") != NULL;
    opt.several_values = cli_flag(a, "several") != NULL;
    if (cli_flag(a, "batch"))
        return run_batch(cli_flag(a, "batch"), &opt);
    dbmcp_error err;
    char *text;
    if (cli_read_text_file("-", &text, &err))
        return cli_fail(&err);
    repair_result r;
    int rc = repair_json(text, strlen(text), &opt, &r, &err);
    free(text);
    if (rc)
        return cli_fail(&err);
    if (cli_flag(a, "log")) {
        for (size_t i = 0; i < r.repair_count; i++)
            fprintf(stderr, "dbmcp repair: %s\n", r.repairs[i]);
        if (r.lossy)
            fprintf(stderr, "dbmcp repair: lossy (the input was cut off)\n");
    }
    fwrite(r.output, 1, r.output_len, stdout);
    if (r.output_len == 0 || r.output[r.output_len - 1] != '\n')
        putchar('\n'); /* valid input keeps its own final line break */
    repair_result_free(&r);
    return CLI_OK;
}

static const cli_flag_spec repair_flags[] = {
    {"batch", "FILE", "repair every string of the JSON array in FILE (\"-\": stdin)"},
    {"log", NULL, "print the repairs made to stderr"},
    {"arguments", NULL, "parse \"arguments\" members that hold JSON text as a string"},
    {"several", NULL, "several values (parallel tool calls) become an array instead of an error"},
    {NULL, NULL, NULL},
};

const cli_command cli_cmd_repair = {
    "repair",
    "Repair a model's broken JSON answer (stdin to stdout)",
    "[--log] [--arguments] [--several] [--batch FILE]",
    "Reads one model answer on stdin and prints it as valid JSON on stdout (exit 0), or\n"
    "prints why it cannot be repaired on stderr (exit 1). Valid JSON is printed unchanged.\n"
    "The JSON is found inside prose, markdown fences, <tool_call> tags (several tags give\n"
    "an array), Mistral's [TOOL_CALLS] forms ([TOOL_CALLS][...] and name[ARGS]{...}, as\n"
    "{\"name\":...,\"arguments\":...}) and after a leading <think> or [THINK] block. Repairs:\n"
    "cut-off documents (closed; sets lossy), unescaped quotes and control characters in\n"
    "strings, single and typographic quotes, \"a\" + \"b\", comments, trailing and missing\n"
    "commas, missing colons, Python True/False/None, NaN, unquoted keys, ... placeholders,\n"
    "doubly-encoded and escaped JSON, no-break and other Unicode spaces between tokens, a\n"
    "value repeated by a stream retry. Several values one after another (concatenated, one\n"
    "per line, or separated by ; or ,) are an error unless --several asks for them: then\n"
    "they become an array. See docs/repair.md.\n"
    "HTML pages, server-sent event streams and plain text are errors. Input is limited\n"
    "to 4 MiB and 512 levels of nesting.\n"
    "\n"
    "--batch FILE reads a JSON array of strings and prints a JSON array, in order, of\n"
    "{\"ok\":true,\"output\":VALUE,\"repairs\":[...],\"lossy\":BOOL} or "
    "{\"ok\":false,\"error\":TEXT};\n"
    "it exits 0 unless the file cannot be read.",
    0,
    0,
    repair_flags,
    run_repair,
};
