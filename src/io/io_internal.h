/* Internal helpers of the io module: error messages into caller buffers and write-to-temporary-then-rename.
 * Not installed. */
#ifndef EDDY_IO_INTERNAL_H
#define EDDY_IO_INTERNAL_H

#include "eddy/io.h"
#include <stdio.h>

#if defined(__GNUC__)
#define EDDY_IO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define EDDY_IO_PRINTF(a, b)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Formats into msg (when not NULL) and returns st. */
eddy_status eddy__io_fail(char *msg, size_t msg_size, eddy_status st, const char *fmt, ...) EDDY_IO_PRINTF(4, 5);
/* Clears msg (when not NULL) and returns EDDY_OK. */
eddy_status eddy__io_ok(char *msg, size_t msg_size);

/* fopen(path, "rb") for the readers, refusing a folder (Linux opens one, and only the first read fails, which the
 * readers would report as a file of the wrong format). */
eddy_status eddy__io_open_read(const char *path, FILE **fp, char *msg, size_t msg_size);

/* A file being written under a temporary name in the destination's folder. */
typedef struct eddy__tmpfile {
    FILE *fp;
    char *tmp_path;   /* owned */
    const char *path; /* the destination (borrowed) */
} eddy__tmpfile;

/* Creates "<path>.tmp-XXXXXX" (mkstemp) and opens it for binary writing. */
eddy_status eddy__tmp_open(const char *path, eddy__tmpfile *t, char *msg, size_t msg_size);
/* Flushes and closes the temporary file and renames it to the destination; removes it on any failure. */
eddy_status eddy__tmp_commit(eddy__tmpfile *t, char *msg, size_t msg_size);
/* Closes and removes the temporary file (safe after commit or on a zeroed struct). */
void eddy__tmp_abort(eddy__tmpfile *t);

#ifdef __cplusplus
}
#endif
#endif
