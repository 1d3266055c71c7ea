/* version.h — the release of this dbmcp build. */
#ifndef DBMCP_VERSION
#define DBMCP_VERSION "0.1.0"
#endif
