/*
 * xml_lib.c — the libxml2 table and its one opening (see xml_lib.h).
 */
#include "core/xml_lib.h"

xml_lib_api xml_api;

#define XML_LIB_SYMBOL(fn) OPTLIB_SYMBOL(xml_api, fn)
static const optlib_symbol xml_symbols[] = {XML_LIB_SYMBOLS(XML_LIB_SYMBOL)};

static const char *const xml_sonames[] = {"libxml2.so.2", NULL};

static int xml_init(char *why, size_t size)
{
    (void)why;
    (void)size;
    xml_api.xmlInitParser();
    return 0;
}

static optlib xml_lib = {
    .feature = "Reading HTML and RDF/XML",
    .sonames = xml_sonames,
    .package = "libxml2",
    .symbols = xml_symbols,
    .n_symbols = OPTLIB_COUNT(xml_symbols),
    .on_open = xml_init,
};

int xml_lib_open(dbmcp_error *err)
{
    return optlib_open(&xml_lib, err);
}
