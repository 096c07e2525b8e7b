/* NumPy .npy files (format 1.0 written; 1.x, 2.x, 3.x read): magic "\x93NUMPY", version, little-endian header
 * length, a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (...), } padded with spaces and
 * a newline so the data starts on a 64-byte boundary, then the raw C-order array.
 * Layout of eddy fields (x fastest): shape (nz, ny, nx) in 3D, (ny, nx) in 2D; see docs/files.md. */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int host_is_little_endian(void) {
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static void swap4(uint8_t *p) {
    uint8_t t = p[0]; p[0] = p[3]; p[3] = t;
    t = p[1]; p[1] = p[2]; p[2] = t;
}

static void swap8(uint8_t *p) {
    for (int i = 0; i < 4; i++) {
        uint8_t t = p[i];
        p[i] = p[7 - i];
        p[7 - i] = t;
    }
}

eddy_status eddy_npy_write(const char *path, const float *data, int ndim, const size_t *shape, char *msg,
                           size_t msg_size) {
    if (!path) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "npy path is NULL");
    if (ndim < 0 || ndim > EDDY_NPY_MAX_DIMS || (ndim > 0 && !shape))
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: ndim = %d: expected 0..%d with a shape",
                             path, ndim, EDDY_NPY_MAX_DIMS);
    size_t count = 1;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] && count > SIZE_MAX / 4 / shape[d])
            return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: shape is too large", path);
        count *= shape[d];
    }
    if (count && !data) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: data is NULL", path);

    char dict[256];
    int len = snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
    for (int d = 0; d < ndim; d++)
        len += snprintf(dict + len, sizeof dict - (size_t)len, "%zu%s", shape[d], (ndim == 1 || d + 1 < ndim) ? "," : "");
    len += snprintf(dict + len, sizeof dict - (size_t)len, "), }");
    /* preamble 10 bytes (magic 6, version 2, length 2) + dict + spaces + '\n' = multiple of 64 */
    size_t total = 10 + (size_t)len + 1;
    size_t padded = (total + 63) / 64 * 64;
    uint8_t header[320];
    size_t header_len = padded - 10;
    memcpy(header, "\x93NUMPY\x01\x00", 8);
    header[8] = (uint8_t)(header_len & 0xff);
    header[9] = (uint8_t)(header_len >> 8);
    memcpy(header + 10, dict, (size_t)len);
    memset(header + 10 + len, ' ', padded - 10 - (size_t)len - 1);
    header[padded - 1] = '\n';

    eddy__tmpfile t;
    eddy_status st = eddy__tmp_open(path, &t, msg, msg_size);
    if (st != EDDY_OK) return st;
    fwrite(header, 1, padded, t.fp);
    if (host_is_little_endian()) {
        fwrite(data, sizeof(float), count, t.fp);
    } else {
        uint8_t buf[4096];
        for (size_t i = 0; i < count; i += 1024) {
            size_t m = count - i < 1024 ? count - i : 1024;
            memcpy(buf, data + i, m * 4);
            for (size_t q = 0; q < m; q++) swap4(buf + 4 * q);
            fwrite(buf, 4, m, t.fp);
        }
    }
    return eddy__tmp_commit(&t, msg, msg_size);
}

/* finds `'key':` in the dict and returns the text after the colon, spaces skipped */
static const char *dict_value(const char *dict, const char *key) {
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(dict, pat);
    if (!p) {
        snprintf(pat, sizeof pat, "\"%s\"", key);
        p = strstr(dict, pat);
    }
    if (!p) return NULL;
    p += strlen(pat);
    while (*p == ' ') p++;
    if (*p != ':') return NULL;
    p++;
    while (*p == ' ') p++;
    return p;
}

void eddy_npy_free(eddy_npy *a) {
    if (!a) return;
    free(a->data);
    memset(a, 0, sizeof *a);
}

eddy_status eddy_npy_read(const char *path, eddy_npy *out, char *msg, size_t msg_size) {
    if (!out) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "npy output is NULL");
    memset(out, 0, sizeof *out);
    if (!path) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "npy path is NULL");
    FILE *fp;
    eddy_status opened = eddy__io_open_read(path, &fp, msg, msg_size);
    if (opened != EDDY_OK) return opened;
    eddy_status st = EDDY_OK;
    char *dict = NULL;
    uint8_t pre[12];
    if (fread(pre, 1, 10, fp) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: not a .npy file (no \\x93NUMPY magic)", path);
        goto done;
    }
    size_t hlen;
    if (pre[6] == 1) {
        hlen = (size_t)pre[8] | ((size_t)pre[9] << 8);
    } else if (pre[6] == 2 || pre[6] == 3) {
        if (fread(pre + 10, 1, 2, fp) != 2) {
            st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: truncated header", path);
            goto done;
        }
        hlen = (size_t)pre[8] | ((size_t)pre[9] << 8) | ((size_t)pre[10] << 16) | ((size_t)pre[11] << 24);
    } else {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: .npy format version %d.%d: expected 1, 2 or 3",
                           path, pre[6], pre[7]);
        goto done;
    }
    if (hlen > (1u << 20)) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: header of %zu bytes is implausible", path, hlen);
        goto done;
    }
    dict = malloc(hlen + 1);
    if (!dict) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        goto done;
    }
    if (fread(dict, 1, hlen, fp) != hlen) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: truncated header", path);
        goto done;
    }
    dict[hlen] = '\0';
    const char *descr = dict_value(dict, "descr");
    const char *fortran = dict_value(dict, "fortran_order");
    const char *shape = dict_value(dict, "shape");
    if (!descr || !fortran || !shape) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: header lacks descr, fortran_order or shape", path);
        goto done;
    }
    int item = 0, big = 0;
    if (!strncmp(descr, "'<f4'", 5) || !strncmp(descr, "'|f4'", 5)) item = 4;
    else if (!strncmp(descr, "'>f4'", 5)) item = 4, big = 1;
    else if (!strncmp(descr, "'<f8'", 5)) item = 8;
    else if (!strncmp(descr, "'>f8'", 5)) item = 8, big = 1;
    if (!item) {
        /* quote the value as written: up to its closing quote, at most 16 bytes, never past the header's end */
        const char *end = descr[0] ? strchr(descr + 1, descr[0]) : NULL;
        int n = end && end - descr < 16 ? (int)(end - descr + 1) : 16;
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_UNSUPPORTED,
                           "%s: element type %.*s: expected float32 ('<f4') or float64 ('<f8')", path, n, descr);
        goto done;
    }
    /* the whole value, up to the next separator: "Falsey" is not False */
    const size_t fortran_len = strcspn(fortran, ", }");
    if (fortran_len == 4 && !strncmp(fortran, "True", 4)) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_UNSUPPORTED,
                           "%s: fortran_order is not False: save a C-order array (numpy.ascontiguousarray)", path);
        goto done;
    }
    if (fortran_len != 5 || strncmp(fortran, "False", 5) != 0) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: fortran_order = %.*s: expected False or True", path,
                           fortran_len < 16 ? (int)fortran_len : 16, fortran);
        goto done;
    }
    if (*shape != '(') {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: shape is not a tuple", path);
        goto done;
    }
    const char *p = shape + 1;
    out->count = 1;
    for (;;) {
        while (*p == ' ' || *p == ',') p++;
        if (*p == ')') break;
        if (*p < '0' || *p > '9') {
            st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: malformed shape", path);
            goto done;
        }
        if (out->ndim == EDDY_NPY_MAX_DIMS) {
            st = eddy__io_fail(msg, msg_size, EDDY_ERR_UNSUPPORTED, "%s: more than %d dimensions", path,
                               EDDY_NPY_MAX_DIMS);
            goto done;
        }
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || v > ((size_t)1 << 40) || (v && out->count > ((size_t)1 << 40) / v)) {
            st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: shape is too large", path);
            goto done;
        }
        out->shape[out->ndim++] = (size_t)v;
        out->count *= (size_t)v;
        p = end;
    }
    /* the data must be exactly what the header announces */
    long data_start = ftell(fp);
    if (fseek(fp, 0, SEEK_END) != 0) {
        int e = errno;
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot seek: %s", path, strerror(e));
        goto done;
    }
    long file_end = ftell(fp);
    size_t want = out->count * (size_t)item;
    if (data_start < 0 || file_end < data_start || (size_t)(file_end - data_start) != want) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE,
                           "%s: %ld data bytes for %zu elements of %d bytes: truncated or padded", path,
                           file_end - data_start, out->count, item);
        goto done;
    }
    fseek(fp, data_start, SEEK_SET);
    out->data = malloc(out->count ? out->count * sizeof(float) : 1);
    if (!out->data) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu floats", path, out->count);
        goto done;
    }
    int swap = big == host_is_little_endian();
    uint8_t buf[8 * 1024];
    for (size_t i = 0; i < out->count; i += 1024) {
        size_t m = out->count - i < 1024 ? out->count - i : 1024;
        if (fread(buf, (size_t)item, m, fp) != m) {
            st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: truncated data", path);
            goto done;
        }
        for (size_t q = 0; q < m; q++) {
            uint8_t *e = buf + (size_t)item * q;
            if (item == 4) {
                if (swap) swap4(e);
                memcpy(out->data + i + q, e, 4);
            } else {
                if (swap) swap8(e);
                double d;
                memcpy(&d, e, 8);
                if (isfinite(d) && fabs(d) > FLT_MAX) { /* would become infinite (undefined in C) */
                    st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE,
                                       "%s: element %zu = %g: beyond the float32 range (|v| <= %g)", path, i + q, d,
                                       (double)FLT_MAX);
                    goto done;
                }
                out->data[i + q] = (float)d;
            }
        }
    }
done:
    free(dict);
    fclose(fp);
    if (st != EDDY_OK) eddy_npy_free(out);
    else eddy__io_ok(msg, msg_size);
    return st;
}
