/*
 * admin.c — catalog administration commands (interfaces, tools, prompts,
 * resources): list, show, add, update, enable, disable.
 */
#include <stddef.h>

#include "cli/cli.h"

const cli_command *const cli_admin_commands[] = {NULL};
