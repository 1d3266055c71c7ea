/*
 * xml_lib.h — libxml2, opened on first use (see optlib.h): the one table
 * of libxml2 entry points that HTML extraction (docs/extract_html.c) and
 * the SKOS RDF/XML well-formedness check (thesaurus/skos.c) call through.
 *
 * Contract: call xml_lib_open before the first call through xml_api; call
 * through xml_api only after it returned 0. The first call opens
 * libxml2.so.2, resolves the table and runs xmlInitParser once (libxml2's
 * global state must be set up before threads parse); a failure is
 * permanent and comes back as DBMCP_EINTERNAL naming the library and the
 * Debian package (libxml2). xmlFree is libxml2's variable, so its slot
 * holds the variable's address: call (*xml_api.xmlFree)(p). Thread-safe;
 * xml_api is read-only after a 0.
 */
#ifndef DBMCP_CORE_XML_LIB_H
#define DBMCP_CORE_XML_LIB_H

#include <libxml/HTMLparser.h>
#include <libxml/encoding.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "core/error.h"
#include "core/optlib.h"

#define XML_LIB_SYMBOLS(X)                                                                         \
    X(xmlInitParser)                                                                               \
    X(xmlFree)                                                                                     \
    X(htmlReadMemory)                                                                              \
    X(xmlNewParserCtxt)                                                                            \
    X(xmlCtxtReadMemory)                                                                           \
    X(xmlCtxtGetLastError)                                                                         \
    X(xmlFreeParserCtxt)                                                                           \
    X(xmlFreeDoc)                                                                                  \
    X(xmlDocGetRootElement)                                                                        \
    X(xmlNodeGetContent)                                                                           \
    X(xmlFindCharEncodingHandler)                                                                  \
    X(xmlCharEncCloseFunc)

/* libxml2's functions (and the xmlFree variable) under their own names and types. */
typedef struct xml_lib_api {
    XML_LIB_SYMBOLS(OPTLIB_SLOT)
} xml_lib_api;

/* Filled by xml_lib_open; NULL slots before (and after a failure). */
extern xml_lib_api xml_api;

/* Open libxml2 once per process. 0, or DBMCP_EINTERNAL with err (may be
 * NULL) naming the missing library. */
int xml_lib_open(dbmcp_error *err);

#endif
