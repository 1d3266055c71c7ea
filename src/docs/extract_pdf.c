/*
 * extract_pdf.c — the text of a PDF with poppler-glib: every page's text
 * in order, pages separated by a blank line; the title from the document
 * information (else the first line of text). See extract.h.
 *
 * Poppler repairs many broken files silently, reconstructing a lost cross
 * reference table from whatever objects it finds — a truncated download
 * would then be indexed as a shorter document without anyone noticing. So
 * the file must end with the %%EOF marker (within the last kilobyte, as
 * the PDF specification's readers allow) before poppler sees it.
 *
 * Hostile files. A few hundred kilobytes of Flate-compressed content can
 * ask poppler for gigabytes of memory and minutes of work on one page, and
 * poppler_page_get_text can be neither interrupted nor told a budget; when
 * its allocations fail it aborts the process. So poppler runs in a child
 * process (fork, no exec: the library is already open and the document in
 * memory) that streams each page's text back through a pipe, and the
 * parent bounds it from the outside:
 *   - memory: the child's resident set is sampled every PDF_POLL_MS and the
 *     child killed when it grew by more than limits->pdf_max_memory; an
 *     address-space rlimit (twice that, plus slack) stops a faster burst;
 *   - time: killed at limits->pdf_timeout_ms of wall time (and a CPU
 *     rlimit a little above, should the parent die);
 *   - pages: a document with more than limits->pdf_max_pages pages is
 *     refused before the first page is read;
 *   - text: the child stops after the page that passed
 *     limits->max_text_bytes, and the parent reads no more than that.
 * Each stop is an error naming the limit and its setting; nothing of the
 * document is kept. The child never touches the database or stdio, takes
 * no core dump, and leaves with _exit.
 *
 * The pipe carries records: a tag byte, a 4-byte payload length (host
 * order), the payload. 'P' page number and page count (two uint32) before
 * each page, 'T' text to append, 'N' the title, 'E' an error (int32 code,
 * then the message), 'D' done.
 *
 * poppler-glib (with the glib and gobject it brings) is opened on the
 * first PDF (core/optlib.h), not linked: it and its dependencies (C++
 * runtime, cairo, icu…) would cost every process several megabytes. The
 * parent opens it (so a missing library is reported once, plainly) and
 * the children inherit it.
 */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <poll.h>
#include <poppler.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/optlib.h"
#include "core/textnorm.h"
#include "docs/extract.h"

#define PDF_POLL_MS 10                    /* memory samples and read wake-ups */
#define PDF_AS_SLACK (256u * 1024 * 1024) /* above 2 x the memory limit */
#define PDF_RECORD_HEAD 5                 /* tag byte + uint32 length */
#define PDF_READ_CHUNK (64u * 1024)       /* bytes read from the pipe at once */

#if defined(__SANITIZE_ADDRESS__)
#define PDF_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PDF_ASAN 1
#endif
#endif
#ifndef PDF_ASAN
#define PDF_ASAN 0
#endif

/* poppler-glib's functions, and glib's it returns memory from, under their
 * own names and types; glib and gobject resolve through poppler-glib's
 * handle (they are its dependencies). Only real functions: macros such as
 * g_string_append_c and g_strstrip are spelled out at the call. */
#define PDF_SYMBOLS(X)                                                                             \
    X(poppler_document_new_from_bytes)                                                             \
    X(poppler_document_get_n_pages)                                                                \
    X(poppler_document_get_page)                                                                   \
    X(poppler_document_get_title)                                                                  \
    X(poppler_page_get_text)                                                                       \
    X(g_object_unref)                                                                              \
    X(g_bytes_new_static)                                                                          \
    X(g_free)                                                                                      \
    X(g_strchug)                                                                                   \
    X(g_strchomp)

static struct {
    PDF_SYMBOLS(OPTLIB_SLOT)
} pdf_api;

#define PDF_SYMBOL(fn) OPTLIB_SYMBOL(pdf_api, fn)
static const optlib_symbol pdf_symbols[] = {PDF_SYMBOLS(PDF_SYMBOL)};
static const char *const pdf_sonames[] = {"libpoppler-glib.so.8", NULL};
static optlib pdf_lib = {
    .feature = "PDF extraction",
    .sonames = pdf_sonames,
    .package = "libpoppler-glib8",
    .symbols = pdf_symbols,
    .n_symbols = OPTLIB_COUNT(pdf_symbols),
};

static int has_eof_marker(const char *data, size_t n)
{
    size_t from = n > 1024 ? n - 1024 : 0;
    for (size_t i = n >= 5 ? n - 5 + 1 : 0; i-- > from;)
        if (memcmp(data + i, "%%EOF", 5) == 0)
            return 1;
    return 0;
}

/* --- the child: poppler, streaming records ------------------------------------- */

static void child_write(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(3);
        p += w;
        len -= (size_t)w;
    }
}

static void child_record(int fd, char tag, const void *a, size_t alen, const void *b, size_t blen)
{
    char head[PDF_RECORD_HEAD];
    uint32_t len = (uint32_t)(alen + blen);
    head[0] = tag;
    memcpy(head + 1, &len, sizeof len);
    child_write(fd, head, sizeof head);
    if (alen)
        child_write(fd, a, alen);
    if (blen)
        child_write(fd, b, blen);
}

/* Send error code with a printf-formatted message, then leave. */
static __attribute__((noreturn, format(printf, 3, 4))) void child_fail(int fd, int code,
                                                                       const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int32_t c = code;
    child_record(fd, 'E', &c, sizeof c, msg, strlen(msg));
    _exit(0);
}

/* This process's virtual size in bytes (0 when unknown). */
static size_t self_vm_bytes(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Backstops for when the parent cannot watch: no core dump, CPU time a
 * little past the wall-time limit, and (not under AddressSanitizer, whose
 * shadow memory is address space) the address space. */
static void child_limits(const doc_limits *lim)
{
    struct rlimit r = {0, 0};
    setrlimit(RLIMIT_CORE, &r);
    r.rlim_cur = r.rlim_max = (rlim_t)(lim->pdf_timeout_ms / 1000 + 2);
    setrlimit(RLIMIT_CPU, &r);
    if (!PDF_ASAN) {
        size_t vm = self_vm_bytes();
        if (vm && lim->pdf_max_memory < (SIZE_MAX - vm - PDF_AS_SLACK) / 2) {
            r.rlim_cur = r.rlim_max = (rlim_t)(vm + 2 * lim->pdf_max_memory + PDF_AS_SLACK);
            setrlimit(RLIMIT_AS, &r);
        }
    }
}

/* Length of s without trailing white space (what poppler ends pages with). */
static size_t trimmed_len(const char *s, size_t len)
{
    while (len &&
           (s[len - 1] == ' ' || s[len - 1] == '\n' || s[len - 1] == '\r' || s[len - 1] == '\f'))
        len--;
    return len;
}

static void child_title(int fd, PopplerDocument *doc)
{
    char *title = pdf_api.poppler_document_get_title(doc);
    if (!title)
        return;
    pdf_api.g_strchomp(pdf_api.g_strchug(title));
    size_t tl = strlen(title);
    if (tl && text_utf8_valid_prefix(title, tl) == tl) {
        if (tl > DOC_TITLE_MAX_BYTES)
            tl = text_utf8_valid_prefix(title, DOC_TITLE_MAX_BYTES);
        child_record(fd, 'N', title, tl, NULL, 0);
    }
    pdf_api.g_free(title);
}

static __attribute__((noreturn)) void child_extract(const char *data, size_t n,
                                                    const doc_limits *lim, int fd)
{
    child_limits(lim);
    GBytes *bytes = pdf_api.g_bytes_new_static(data, n);
    GError *gerr = NULL;
    PopplerDocument *doc = pdf_api.poppler_document_new_from_bytes(bytes, NULL, &gerr);
    if (!doc)
        child_fail(fd, DBMCP_EINVAL, "PDF is truncated or corrupt: %s",
                   gerr && gerr->message ? gerr->message : "poppler cannot open it");
    int pages = pdf_api.poppler_document_get_n_pages(doc);
    if (pages > lim->pdf_max_pages)
        child_fail(fd, DBMCP_ETOOBIG,
                   "PDF has %d pages; the limit is %d page%s (setting ingest.pdf_max_pages)", pages,
                   lim->pdf_max_pages, lim->pdf_max_pages == 1 ? "" : "s");
    size_t total = 0;
    for (int i = 0; i < pages; i++) {
        uint32_t where[2] = {(uint32_t)i + 1, (uint32_t)pages};
        child_record(fd, 'P', where, sizeof where, NULL, 0);
        PopplerPage *page = pdf_api.poppler_document_get_page(doc, i);
        char *text = page ? pdf_api.poppler_page_get_text(page) : NULL;
        size_t len = 0;
        char *clean = text ? doc_utf8_repair(text, strlen(text), &len) : NULL;
        if (text && !clean)
            child_fail(fd, DBMCP_ENOMEM, "out of memory");
        len = clean ? trimmed_len(clean, len) : 0;
        if (len) {
            child_record(fd, 'T', total ? "\n\n" : "", total ? 2 : 0, clean, len);
            total += (total ? 2 : 0) + len;
        }
        free(clean);
        pdf_api.g_free(text);
        if (page)
            pdf_api.g_object_unref(page);
        if (total > lim->max_text_bytes)
            child_fail(fd, DBMCP_ETOOBIG,
                       "PDF text extraction stopped at page %d of %d: the text is already "
                       "%zu bytes; the limit is %zu bytes (setting ingest.max_text_bytes)",
                       i + 1, pages, total, lim->max_text_bytes);
    }
    if (total == 0)
        child_fail(fd, DBMCP_EINVAL,
                   "PDF has no extractable text on its %d page%s (a scan needs OCR first)", pages,
                   pages == 1 ? "" : "s");
    child_title(fd, doc);
    child_record(fd, 'D', NULL, 0, NULL, 0);
    _exit(0);
}

/* --- the parent: watching the child ----------------------------------------------- */

/* Why the parent stopped reading (0: it has not). */
typedef enum watch_stop {
    WATCH_RUNNING = 0,
    WATCH_EOF,    /* the child closed the pipe: it ended */
    WATCH_TIME,   /* past limits->pdf_timeout_ms */
    WATCH_MEMORY, /* the child grew past limits->pdf_max_memory */
    WATCH_TEXT,   /* more text than limits->max_text_bytes */
    WATCH_NOMEM   /* the parent ran out of memory */
} watch_stop;

typedef struct pdf_watch {
    pid_t pid;       /* the child */
    char *buf;       /* records received; owned */
    size_t len, cap; /* bytes in buf, bytes allocated */
    size_t max;      /* bytes read at most (the text limit and room for records) */
    int page, pages; /* where the child is, from its last 'P' record */
    size_t parsed;   /* bytes of buf already scanned for 'P' records */
    watch_stop stop; /* why reading ended */
} pdf_watch;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Resident set of process pid in bytes (0 when unknown). */
static size_t rss_bytes(pid_t pid)
{
    char path[64], buf[128];
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    FILE *f = fopen(path, "r");
    unsigned long size = 0, resident = 0;
    if (f) {
        if (!fgets(buf, sizeof buf, f) || sscanf(buf, "%lu %lu", &size, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (size_t)sysconf(_SC_PAGESIZE);
}

/* Follow the 'P' records received so far (for the messages). */
static void watch_progress(pdf_watch *w)
{
    while (w->len - w->parsed >= PDF_RECORD_HEAD) {
        uint32_t len;
        memcpy(&len, w->buf + w->parsed + 1, sizeof len);
        if (w->len - w->parsed - PDF_RECORD_HEAD < len)
            return;
        if (w->buf[w->parsed] == 'P' && len == 2 * sizeof(uint32_t)) {
            uint32_t where[2];
            memcpy(where, w->buf + w->parsed + PDF_RECORD_HEAD, sizeof where);
            w->page = (int)where[0];
            w->pages = (int)where[1];
        }
        w->parsed += PDF_RECORD_HEAD + len;
    }
}

/* Read what is ready on fd into w (after a wait of at most ms):
 * WATCH_RUNNING, or why to stop (end of input, out of memory, too much text). */
static watch_stop watch_read(pdf_watch *w, int fd, int ms)
{
    struct pollfd p = {fd, POLLIN, 0};
    int ready = poll(&p, 1, ms);
    if (ready <= 0)
        return ready < 0 && errno != EINTR ? WATCH_EOF : WATCH_RUNNING;
    if (w->cap - w->len < PDF_READ_CHUNK) {
        size_t cap = w->cap ? w->cap * 2 : 4 * PDF_READ_CHUNK;
        char *b = realloc(w->buf, cap);
        if (!b)
            return WATCH_NOMEM;
        w->buf = b;
        w->cap = cap;
    }
    ssize_t r = read(fd, w->buf + w->len, PDF_READ_CHUNK);
    if (r < 0 && errno == EINTR)
        return WATCH_RUNNING;
    if (r <= 0)
        return WATCH_EOF;
    w->len += (size_t)r;
    watch_progress(w);
    return w->len > w->max ? WATCH_TEXT : WATCH_RUNNING;
}

/* Read what the child sends until it closes the pipe or passes a limit. */
static void watch_child(pdf_watch *w, int fd, const doc_limits *lim)
{
    double deadline = now_ms() + lim->pdf_timeout_ms;
    size_t base = rss_bytes(getpid());
    while (w->stop == WATCH_RUNNING) {
        double left = deadline - now_ms();
        if (left <= 0) {
            w->stop = WATCH_TIME;
            break;
        }
        watch_stop stop = watch_read(w, fd, left < PDF_POLL_MS ? (int)left + 1 : PDF_POLL_MS);
        size_t rss = rss_bytes(w->pid);
        if (stop)
            w->stop = stop;
        else if (rss > base && rss - base > lim->pdf_max_memory)
            w->stop = WATCH_MEMORY;
    }
}

/* The error for a child that was stopped or died; 0 when it finished. */
static int watch_verdict(const pdf_watch *w, int status, const doc_limits *lim, dbmcp_error *err)
{
    char where[64] = "";
    if (w->pages)
        snprintf(where, sizeof where, " at page %d of %d", w->page, w->pages);
    switch (w->stop) {
    case WATCH_TIME:
        return dbmcp_error_set(err, DBMCP_ETIMEOUT,
                               "PDF text extraction stopped%s: it took longer than the limit of "
                               "%d ms (setting ingest.pdf_timeout_ms)",
                               where, lim->pdf_timeout_ms);
    case WATCH_MEMORY:
        return dbmcp_error_set(err, DBMCP_ETOOBIG,
                               "PDF text extraction stopped%s: it needed more than the limit of "
                               "%zu bytes of memory (setting ingest.pdf_max_memory)",
                               where, lim->pdf_max_memory);
    case WATCH_TEXT:
        return dbmcp_error_set(err, DBMCP_ETOOBIG,
                               "PDF text extraction stopped%s: the text is longer than the limit "
                               "of %zu bytes (setting ingest.max_text_bytes)",
                               where, lim->max_text_bytes);
    case WATCH_NOMEM: return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    default: break;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (sig == SIGXCPU)
            return dbmcp_error_set(err, DBMCP_ETIMEOUT,
                                   "PDF text extraction stopped%s: it used more CPU time than the "
                                   "limit of %d ms allows (setting ingest.pdf_timeout_ms)",
                                   where, lim->pdf_timeout_ms);
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "PDF text extraction failed%s: poppler stopped with signal %d "
                               "(%s); the file is corrupt or hostile, or needs more memory than "
                               "the limit of %zu bytes (setting ingest.pdf_max_memory)",
                               where, sig, strsignal(sig), lim->pdf_max_memory);
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return dbmcp_error_set(err, DBMCP_EINTERNAL,
                               "PDF text extraction failed%s: the extracting process exited "
                               "with status %d",
                               where, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}

/* Turn the records of a finished child into out (or its error). */
static int read_records(const pdf_watch *w, doc_extracted *out, dbmcp_error *err)
{
    size_t text = 0;
    int done = 0;
    for (size_t at = 0; at + PDF_RECORD_HEAD <= w->len;) {
        uint32_t len;
        memcpy(&len, w->buf + at + 1, sizeof len);
        if (w->len - at - PDF_RECORD_HEAD < len)
            break;
        if (w->buf[at] == 'T')
            text += len;
        at += PDF_RECORD_HEAD + len;
    }
    if (!(out->text = malloc(text + 2)))
        return dbmcp_error_set(err, DBMCP_ENOMEM, "out of memory");
    for (size_t at = 0; at + PDF_RECORD_HEAD <= w->len;) {
        uint32_t len;
        memcpy(&len, w->buf + at + 1, sizeof len);
        if (w->len - at - PDF_RECORD_HEAD < len)
            break;
        const char *payload = w->buf + at + PDF_RECORD_HEAD;
        char tag = w->buf[at];
        at += PDF_RECORD_HEAD + len;
        if (tag == 'T') {
            memcpy(out->text + out->len, payload, len);
            out->len += len;
        } else if (tag == 'N' && !out->title) {
            out->title = strndup(payload, len);
        } else if (tag == 'E' && len >= sizeof(int32_t)) {
            int32_t code;
            memcpy(&code, payload, sizeof code);
            return dbmcp_error_set(err, code < 0 ? code : DBMCP_EINTERNAL, "%.*s",
                                   (int)(len - sizeof code), payload + sizeof code);
        } else if (tag == 'D') {
            done = 1;
        }
    }
    if (!done)
        return dbmcp_error_set(err, DBMCP_EINTERNAL,
                               "PDF text extraction failed: the extracting process ended early");
    memcpy(out->text + out->len, "\n", 2);
    out->len++;
    return 0;
}

/* Run child_extract in a child process within the limits. */
static int extract_in_child(const char *data, size_t n, const doc_limits *lim, doc_extracted *out,
                            dbmcp_error *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return dbmcp_error_set(err, DBMCP_EIO, "PDF extraction: pipe: %s", strerror(errno));
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return dbmcp_error_set(err, DBMCP_ENOMEM, "PDF extraction: fork: %s", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(4);
        child_extract(data, n, lim, fds[1]);
    }
    close(fds[1]);
    /* Room for the text, the page records and a title and message. */
    pdf_watch w = {.pid = pid, .max = lim->max_text_bytes + (size_t)lim->pdf_max_pages * 32 + 4096};
    watch_child(&w, fds[0], lim);
    if (w.stop != WATCH_EOF)
        kill(pid, SIGKILL);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    int rc = watch_verdict(&w, status, lim, err);
    if (!rc)
        rc = read_records(&w, out, err);
    free(w.buf);
    return rc;
}

int doc_extract_pdf(const char *data, size_t n, const doc_limits *limits, doc_extracted *out,
                    dbmcp_error *err)
{
    memset(out, 0, sizeof *out);
    if (n < 5 || memcmp(data, "%PDF-", 5) != 0)
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "PDF is corrupt: it does not start with the %%PDF- header");
    if (!has_eof_marker(data, n))
        return dbmcp_error_set(err, DBMCP_EINVAL,
                               "PDF is truncated or corrupt: the %%%%EOF marker is missing at the "
                               "end of the file (%zu bytes); download or copy it again",
                               n);
    int rc = optlib_open(&pdf_lib, err);
    if (!rc)
        rc = extract_in_child(data, n, limits, out, err);
    if (rc) {
        doc_extracted_free(out);
        return rc;
    }
    if (!out->title)
        out->title = doc_title_from_text(out->text, out->len, 0);
    out->mime_type = "application/pdf";
    return 0;
}
