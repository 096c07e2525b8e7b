/* Atomic file writing for every eddy writer: write "<path>.tmp-XXXXXX" in the same folder (so rename(2) stays on
 * one file system and is atomic), then rename over the destination; on failure the temporary file is removed and
 * the message names the path and the errno reason. */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"
#include "temp_file.h"
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

eddy_status eddy__io_fail(char *msg, size_t msg_size, eddy_status st, const char *fmt, ...) {
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return st;
}

eddy_status eddy__io_ok(char *msg, size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    return EDDY_OK;
}

eddy_status eddy__io_open_read(const char *path, FILE **fp, char *msg, size_t msg_size) {
    *fp = fopen(path, "rb");
    if (!*fp) {
        int e = errno;
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat sb;
    if (fstat(fileno(*fp), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(*fp);
        *fp = NULL;
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot open: it is a directory (a folder), not a file", path);
    }
    return EDDY_OK;
}

eddy_status eddy__tmp_open(const char *path, eddy__tmpfile *t, char *msg, size_t msg_size) {
    memset(t, 0, sizeof *t);
    eddy_status st;
    t->tmp_path = eddy__temp_file_for(path, msg, msg_size, &st);
    if (!t->tmp_path) return st;
    t->path = path;
    t->fp = fopen(t->tmp_path, "wb");
    if (!t->fp) {
        int e = errno;
        remove(t->tmp_path);
        free(t->tmp_path);
        t->tmp_path = NULL;
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot open for writing: %s", path, strerror(e));
    }
    return EDDY_OK;
}

eddy_status eddy__tmp_commit(eddy__tmpfile *t, char *msg, size_t msg_size) {
    int e = 0;
    if (ferror(t->fp)) e = errno ? errno : EIO;
    if (fclose(t->fp) != 0 && !e) e = errno;
    t->fp = NULL;
    if (e) {
        remove(t->tmp_path);
        free(t->tmp_path);
        t->tmp_path = NULL;
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: write failed: %s", t->path, strerror(e));
    }
    if (rename(t->tmp_path, t->path) != 0) {
        e = errno;
        remove(t->tmp_path);
        free(t->tmp_path);
        t->tmp_path = NULL;
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot rename the finished file into place: %s",
                             t->path, strerror(e));
    }
    free(t->tmp_path);
    t->tmp_path = NULL;
    return eddy__io_ok(msg, msg_size);
}

void eddy__tmp_abort(eddy__tmpfile *t) {
    if (t->fp) fclose(t->fp);
    t->fp = NULL;
    if (t->tmp_path) {
        remove(t->tmp_path);
        free(t->tmp_path);
    }
    t->tmp_path = NULL;
}

eddy_status eddy_file_write(const char *path, const void *data, size_t size, char *msg, size_t msg_size) {
    if (!path) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "output path is NULL");
    if (size && !data) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: data is NULL", path);
    eddy__tmpfile t;
    eddy_status st = eddy__tmp_open(path, &t, msg, msg_size);
    if (st != EDDY_OK) return st;
    if (size) fwrite(data, 1, size, t.fp);
    return eddy__tmp_commit(&t, msg, msg_size);
}
