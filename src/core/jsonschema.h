/*
 * jsonschema.h — the strict JSON Schema subset dbmcp enforces on tool arguments.
 *
 * A tool's inputSchema is checked once, when the tool is registered
 * (jsonschema_check), and every tools/call is then validated against it
 * (jsonschema_validate_strict) after its defaults are filled in
 * (jsonschema_apply_defaults). The subset is small on purpose: every keyword
 * dbmcp accepts is one it enforces exactly, and anything else — an unknown
 * keyword, a typo such as "requird", an ill-typed value, a regex POSIX cannot
 * match the way JSON Schema means it, a $ref that does not resolve — is refused
 * at registration instead of silently ignored at call time.
 *
 * Supported keywords:
 *   type (one name or an array of: object array string number integer boolean null)
 *   properties, required, additionalProperties (boolean or schema)
 *   enum, const
 *   minimum, maximum, exclusiveMinimum, exclusiveMaximum (numbers)
 *   minLength, maxLength (Unicode code points), pattern (POSIX extended regex,
 *     unanchored), format ("date-time" and "date" are enforced; "email", "uri"
 *     and "uuid" are accepted and not enforced)
 *   items (one schema), minItems, maxItems, uniqueItems
 *   anyOf, oneOf, allOf, not
 *   $ref to "#/$defs/<name>" or "#/definitions/<name>" of the same root;
 *     $defs/definitions themselves only at the root
 *   annotations, accepted and ignored: description title default examples
 *     $schema $id $comment deprecated readOnly writeOnly, and any key that
 *     starts with "x-"
 * A subschema may also be the boolean true (anything) or false (nothing).
 *
 * Strictness: "25" is not an integer, true is not a number, 25.0 is an integer
 * (a real with zero fraction inside the 64-bit range), and enum/const/
 * uniqueItems compare numbers by value (1 equals 1.0).
 *
 * Limits: a schema may nest subschemas JSONSCHEMA_MAX_DEPTH deep, an instance
 * may nest containers JSONSCHEMA_MAX_DEPTH deep, and one validation may expand
 * $ref JSONSCHEMA_MAX_DEPTH times along one path, and the total work of one
 * validation is bounded, so a schema whose $refs fan out exponentially fails
 * as "too complex" instead of running for ever. Past a limit the functions
 * return an error; they never recurse without bound.
 *
 * Messages: schema problems name the JSON pointer of the keyword
 * ("schema /properties/age/minimum: must be a number") and are for the tool
 * author. Instance problems name the argument and the rule ("argument 'age':
 * expected integer, got string \"25\"") and are written for the model that sent
 * the arguments, so it can correct itself; they quote its own values and the
 * schema, never anything else. Both go to message and public_message alike.
 *
 * Memory: nothing here allocates memory the caller must free. The functions
 * are reentrant; they hold no global state.
 */
#ifndef DBMCP_CORE_JSONSCHEMA_H
#define DBMCP_CORE_JSONSCHEMA_H

#include <jansson.h>

#include "core/error.h"

/* Deepest nesting of subschemas, of instance containers and of $ref
 * expansions that is accepted. */
#define JSONSCHEMA_MAX_DEPTH 64

/* --- Checking a schema (once, at registration) --- */

/* Validate that `schema` is a schema dbmcp can enforce: a JSON object using
 * only the supported keywords with well-typed values, compilable patterns,
 * resolvable $refs, no minimum above its maximum, and defaults that satisfy
 * their own schema. When require_object_root is nonzero the root must have
 * "type": "object". Returns 0 or DBMCP_EINVAL with a message naming the JSON
 * pointer of the bad keyword, e.g.
 * "schema /properties/age/minimum: must be a number". err may be NULL. */
int jsonschema_check(const json_t *schema, int require_object_root, dbmcp_error *err);

/* --- Validating an instance (every call) --- */

/* Validate instance against a schema that passed jsonschema_check (an
 * unchecked schema is still handled safely; what it gets wrong is ignored).
 * Stops at the first violation. Returns 0, DBMCP_EINVAL with a message naming
 * the instance location and the rule — "argument 'age': expected integer, got
 * string \"25\"", "argument 'filters.region': must be one of
 * [\"Nord\",\"Süd\"]", "unknown argument 'foo' (additionalProperties is
 * false; ...)", "missing required argument 'query'"; the root is called
 * "arguments" — or DBMCP_ENOMEM. A NULL instance is refused as missing
 * arguments. err may be NULL. */
int jsonschema_validate(const json_t *schema, const json_t *instance, dbmcp_error *err);

/* As jsonschema_validate, but objects are closed: where a schema describes
 * an object ("properties", or a "type" naming "object") and none applied
 * there says additionalProperties true or gives it a schema, a member that no
 * applied schema declares is refused, as if "unevaluatedProperties": false
 * were written. Members declared through $ref, allOf, or the anyOf/oneOf
 * branches that matched count as declared, so composition keeps working. A
 * member no schema there could declare at all is reported before any other
 * problem, so that a misspelt argument reads as unknown. Inside "not" nothing
 * is closed, so that "not" keeps its meaning. dbmcp validates tool arguments
 * with this one. */
int jsonschema_validate_strict(const json_t *schema, const json_t *instance, dbmcp_error *err);

/* --- Filling defaults (before validating) --- */

/* For each property with a "default" that is absent from the object instance,
 * set a deep copy of the default, then descend: into present and defaulted
 * properties, array items, $ref targets and allOf branches (not anyOf/oneOf,
 * where the branch that applies is not known yet). Instance is modified in
 * place; it stays owned by the caller. Stops silently at
 * JSONSCHEMA_MAX_DEPTH or if a copy cannot be allocated. */
void jsonschema_apply_defaults(const json_t *schema, json_t *instance);

#endif
