# dbmcp — build, test and demo. See README.md.
#   make          build build/dbmcp
#   make test     install missing packages, then every test (unit, sanitizers, protocol, conformance)
#   make demo     install missing packages, build, create demo.db and serve it over HTTP
CC      ?= cc
PKGS    := sqlite3 libpq libcrypto jansson libmicrohttpd libsodium libcurl libutf8proc libxml-2.0 poppler-glib raptor2
# Linked: what every process needs. The rest of PKGS (libcurl, libxml2, poppler-glib,
# raptor2) only give headers: they are opened with dlopen on first use (src/core/optlib.h).
LINK_PKGS := sqlite3 libpq libcrypto jansson libmicrohttpd libsodium libutf8proc
# CFLAGS is the caller's (optimisation, sanitizers); the rest is not optional.
CFLAGS  ?= -O2 -g
ALL_CFLAGS = $(CFLAGS) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc \
             $(shell pkg-config --cflags $(PKGS))
LDLIBS  += $(shell pkg-config --libs $(LINK_PKGS)) -lstemmer -lpthread -lm -ldl
BUILD   := build

SRCS     := $(shell find src -name node_modules -prune -o -name '*.c' -print | sort)
LIB_SRCS := $(filter-out src/cli/%,$(SRCS))
CLI_SRCS := $(filter src/cli/%,$(SRCS))
ASSETS   := $(shell find src/store/schema src/store/seed -name '*.sql' | sort)

# The admin console's front end (src/web/ui, docs/console.md): esbuild
# bundles it from the npm packages its lock file pins; the bundle is a build
# output, embedded in the binary with the static files by web/embedded.S.
WEB_UI     := src/web/ui
WEB_STATIC := $(WEB_UI)/index.html $(WEB_UI)/console.css $(WEB_UI)/favicon.svg
WEB_SRCS   := $(shell find $(WEB_UI)/src -name '*.js' -o -name '*.jsx' | sort)
WEB_BUNDLE := $(BUILD)/web/console.js

OBJS     = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(1))
LIB_OBJS := $(call OBJS,$(LIB_SRCS)) $(BUILD)/obj/store/assets.o $(BUILD)/obj/web/embedded.o
CLI_OBJS := $(call OBJS,$(CLI_SRCS))

UNIT_SRCS  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: all test unit unit-pg unit-asan protocol conformance fuzz demo deps format format-check bench bench-query bench-query-pg bench-repair bench-vector bench-ann bench-json-write bench-retrieval bench-ingest clean

all: $(BUILD)/dbmcp

$(BUILD)/dbmcp: $(LIB_OBJS) $(CLI_OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/obj/store/assets.o: src/store/assets.S $(ASSETS)
	@mkdir -p $(dir $@)
	$(CC) -c -o $@ $<

$(WEB_BUNDLE): $(WEB_SRCS) $(WEB_UI)/package.json $(WEB_UI)/package-lock.json scripts/web-build.sh
	@scripts/web-build.sh $@

$(BUILD)/obj/web/embedded.o: src/web/embedded.S $(WEB_STATIC) $(WEB_BUNDLE)
	@mkdir -p $(dir $@)
	$(CC) -DWEB_BUNDLE='"$(WEB_BUNDLE)"' -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c tests/unit/case_files.h $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(shell pkg-config --cflags cmocka) -o $@ $(filter-out %.h,$^) $(LDLIBS) $(shell pkg-config --libs cmocka)

# Helper programs of the CLI suites (tests/cli/*.c), linked with the library.
$(BUILD)/tests/cli/%: tests/cli/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

deps:
	@scripts/deps.sh

# The whole suite: what CI runs.
test: deps
	@scripts/test.sh

unit: $(UNIT_BINS)
	@scripts/run-unit.sh $(UNIT_BINS)

# The backend-neutral unit tests against PostgreSQL: $DBMCP_TEST_DB
# (postgresql://…), a database on the server $DBMCP_TEST_PG or, without
# either, a throw-away server (scripts/unit-pg.sh).
PG_UNIT_BINS := $(BUILD)/tests/test_store_contract $(BUILD)/tests/test_introspect \
                $(BUILD)/tests/test_commit_group \
                $(BUILD)/tests/test_replicas

unit-pg: $(PG_UNIT_BINS)
	@scripts/unit-pg.sh $(PG_UNIT_BINS)

# The unit suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
# A binary may run for 30 minutes (UNIT_TIMEOUT, a guard against hangs
# only): test_admission needs over four minutes of CPU under the
# sanitizers and test_sqlite_guard over two, so on a loaded two-core
# machine both ran past the default 300 s and were counted as crashed.
unit-asan:
	UNIT_TIMEOUT=$${UNIT_TIMEOUT:-1800} $(MAKE) BUILD=build/asan CC=clang CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" unit

protocol: all
	@scripts/protocol-tests.sh

conformance: all
	@scripts/conformance.sh

fuzz:
	@scripts/fuzz.sh

demo: deps all
	@scripts/demo.sh

bench: all
	@bench/run.sh

# execute_query against Bytebase DBHub on a 1,000,000-row table.
bench-query: all
	@bench/query.sh

# The same queries on a throw-away PostgreSQL 15, DBHub with --dsn postgres://; then 1 vs 2 replicas.
bench-query-pg: all
	bench/query_pg.sh

# The repair engine against npm jsonrepair on tests/cases/repair, in-process loops.
bench-repair: $(BUILD)/bench/repair_bench
	@BENCH_REPAIR=$(BUILD)/bench/repair_bench bench/repair.sh

$(BUILD)/bench/repair_bench: bench/repair_bench.c $(BUILD)/obj/core/json_repair.o $(BUILD)/obj/core/error.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# Exact top-10 over 100k and 1M vectors: vec_index (float32, int8) vs sqlite-vec and the memory bound.
bench-vector: $(BUILD)/bench/vector_bench
	@BENCH_VECTOR=$(BUILD)/bench/vector_bench bench/vector.sh

$(BUILD)/bench/vector_bench: bench/vector/vector_bench.c $(BUILD)/obj/core/vector.o $(BUILD)/obj/core/error.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# Approximate top-10 over 1M x 384: dbmcp's HNSW vs exact search, FAISS and hnswlib (Python bindings).
bench-ann: $(BUILD)/bench/ann_bench
	@BENCH_ANN=$(BUILD)/bench/ann_bench bench/ann.sh

$(BUILD)/bench/ann_bench: bench/ann/ann_bench.c $(BUILD)/obj/core/hnsw.o $(BUILD)/obj/core/vector.o $(BUILD)/obj/core/error.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# search_documents and memory_search on XQuAD, JSQuAD and LoCoMo beside stock FTS5 BM25
# (data from bench/retrieval/extract.sh; about 15 minutes).
bench-retrieval: all
	@bench/retrieval/run.sh

# dbmcp ingest on XQuAD/JSQuAD text (data from bench/retrieval/extract.sh) beside stock FTS5
# and the floor (read + normalise once); DBMCP_BEFORE=another/dbmcp adds its figures.
bench-ingest: all $(BUILD)/bench/textnorm_floor
	@TEXTNORM_FLOOR=$(BUILD)/bench/textnorm_floor bench/ingest.sh

$(BUILD)/bench/textnorm_floor: bench/textnorm_floor.c $(BUILD)/obj/core/textnorm.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

# json_write_compact against jansson's json_dumps on typical responses, in-process.
bench-json-write: $(BUILD)/bench/json_write_bench
	@$(BUILD)/bench/json_write_bench

$(BUILD)/bench/json_write_bench: bench/json_write_bench.c $(BUILD)/obj/core/json_write.o
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

format:
	clang-format -i $(SRCS) $(shell find src tests/unit tests/cli fuzz -name node_modules -prune -o \( -name '*.h' -o -name '*.c' \) -print 2>/dev/null | sort -u)

format-check:
	@scripts/format-check.sh

clean:
	rm -rf $(BUILD)
