/* Flipbook sprite sheets: frames tiled row by row from the top left into one RGBA image, written as a PNG with a
 * JSON beside it that game engines and web pages use to play it back. */
#define _POSIX_C_SOURCE 200809L
#include "render_internal.h"
#include "temp_file.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct eddy_flipbook {
    eddy_flipbook_def def;
    eddy_image sheet;
    eddy_image scaled; /* a frame resampled to the frame size */
    int count;
};

eddy_flipbook_def eddy_flipbook_def_default(void) {
    eddy_flipbook_def d = {8, 8, 128, 128, 30.0f};
    return d;
}

static eddy_status fb_fail(char *msg, size_t msg_size, eddy_status st, const char *fmt, ...) EDDY_R_PRINTF(4, 5);
#include <stdarg.h>
static eddy_status fb_fail(char *msg, size_t msg_size, eddy_status st, const char *fmt, ...) {
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return st;
}

eddy_status eddy_flipbook_create(const eddy_flipbook_def *def, eddy_flipbook **out, char *msg, size_t msg_size) {
    if (!out) return EDDY_ERR_INVALID_ARGUMENT;
    *out = NULL;
    eddy_flipbook_def d = def ? *def : eddy_flipbook_def_default();
    if (d.columns < 1 || d.rows < 1 || d.columns > 256 || d.rows > 256)
        return fb_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "flipbook tiling %d x %d: expected 1..256 each",
                       d.columns, d.rows);
    if (d.frame_width < 1 || d.frame_height < 1 || (double)d.frame_width * d.columns > EDDY_RENDER_MAX_SIDE ||
        (double)d.frame_height * d.rows > EDDY_RENDER_MAX_SIDE)
        return fb_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                       "flipbook frame %d x %d in %d x %d tiles: the sheet must be 1..16384 pixels per side",
                       d.frame_width, d.frame_height, d.columns, d.rows);
    if (!(d.fps > 0.0f && d.fps <= 1000.0f))
        return fb_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "flipbook fps = %g: expected (0, 1000]", (double)d.fps);
    eddy_flipbook *fb = calloc(1, sizeof *fb);
    if (!fb) return fb_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "flipbook: out of memory");
    fb->def = d;
    eddy_status st = eddy_image_init(&fb->sheet, d.columns * d.frame_width, d.rows * d.frame_height, msg, msg_size);
    if (st != EDDY_OK) {
        free(fb);
        return st;
    }
    *out = fb;
    return EDDY_OK;
}

void eddy_flipbook_destroy(eddy_flipbook *fb) {
    if (!fb) return;
    eddy_image_free(&fb->sheet);
    eddy_image_free(&fb->scaled);
    free(fb);
}

int eddy_flipbook_count(const eddy_flipbook *fb) { return fb ? fb->count : 0; }

const eddy_image *eddy_flipbook_image(const eddy_flipbook *fb) { return fb ? &fb->sheet : NULL; }

eddy_status eddy_flipbook_add(eddy_flipbook *fb, const eddy_image *frame, char *msg, size_t msg_size) {
    if (!fb || !frame || !frame->rgba)
        return fb_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "flipbook add: flipbook and frame are required");
    const eddy_flipbook_def *d = &fb->def;
    if (fb->count >= d->columns * d->rows)
        return fb_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "flipbook is full: %d x %d frames already added",
                       d->columns, d->rows);
    const eddy_image *src = frame;
    if (frame->width != d->frame_width || frame->height != d->frame_height) {
        eddy_status st = eddy_image_resize(frame, d->frame_width, d->frame_height, &fb->scaled, msg, msg_size);
        if (st != EDDY_OK) return st;
        src = &fb->scaled;
    }
    int col = fb->count % d->columns, row = fb->count / d->columns;
    size_t stride = (size_t)fb->sheet.width * 4;
    for (int y = 0; y < d->frame_height; y++) /* memmove: a 1 x 1 sheet may be added to itself */
        memmove(fb->sheet.rgba + ((size_t)(row * d->frame_height + y)) * stride + (size_t)col * d->frame_width * 4,
               src->rgba + (size_t)y * (size_t)d->frame_width * 4, (size_t)d->frame_width * 4);
    fb->count++;
    if (msg && msg_size) msg[0] = '\0';
    return EDDY_OK;
}

/* The bytes of the file at `path` copied into `keep`, an empty temporary file of ours, with the permission bits and
 * times of `sb` (the old file's) where the file system keeps them: put back, the old file is as it was, as it is
 * through a hard link. 0, or the errno of what failed. */
static int copy_file(const char *path, const struct stat *sb, const char *keep) {
    FILE *in = fopen(path, "rb");
    if (!in) return errno;
    FILE *out = fopen(keep, "wb");
    if (!out) {
        const int e = errno;
        fclose(in);
        return e;
    }
    /* the old file's permission bits before any byte of it is written: a private file is never readable by others
     * through its copy (best effort: FAT, the file system this is for, may refuse them) */
    (void)fchmod(fileno(out), sb->st_mode & 07777);
    char buf[65536];
    size_t n;
    int e = 0;
    errno = 0;
    while (!e && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) e = errno ? errno : EIO;
    if (!e && ferror(in)) e = errno ? errno : EIO;
    if (!e && fflush(out) != 0) e = errno; /* before the times: a later write would set them again */
    if (!e) { /* best effort, as the permission bits */
        const struct timespec times[2] = {sb->st_atim, sb->st_mtim};
        (void)futimens(fileno(out), times);
    }
    if (fclose(out) != 0 && !e) e = errno;
    fclose(in);
    return e;
}

/* A hard link to the file at `path` under a new unique name beside it, to put back if the pair cannot be completed;
 * a copy (copy_file) where the file system has no hard links (FAT). NULL with *st = EDDY_OK when nothing is at
 * `path` (there is nothing to keep); NULL with *st and msg set when it cannot be kept. Only files this call made are
 * removed. */
static char *keep_old_file(const char *path, eddy__link_fn link_fn, eddy_status *st, char *msg, size_t msg_size) {
    *st = EDDY_OK;
    struct stat sb;
    int e = 0, link_e = 0;
    char *keep = NULL;
    if (lstat(path, &sb) != 0) {
        if (errno == ENOENT) return NULL;
        e = errno;
    } else if (!(keep = eddy__temp_file_beside(path))) { /* a name no other file has */
        e = errno;
    } else if (unlink(keep) == 0) { /* link(2) wants the name free */
        if (link_fn(path, keep) == 0) return keep;
        link_e = errno;
        /* the copy goes to a new temporary file: the name just freed may be another's by now */
        free(keep);
        if (!(keep = eddy__temp_file_beside(path))) e = errno;
    }
    if (keep && (e = copy_file(path, &sb, keep)) != 0) remove(keep);
    if (!e) return keep;
    free(keep);
    *st = e == ENOMEM ? EDDY_ERR_OUT_OF_MEMORY : EDDY_ERR_IO;
    if (link_e)
        fb_fail(msg, msg_size, *st,
                "%s: cannot keep the old file while the new pair is put in place: no hard link (%s), and a copy "
                "failed: %s",
                path, strerror(link_e), strerror(e));
    else
        fb_fail(msg, msg_size, *st, "%s: cannot keep the old file while the new pair is put in place: %s", path,
                strerror(e));
    return NULL;
}

/* Renames two finished temporary files over their destinations as a pair, `first` then `second`. POSIX renames one
 * file at a time: the old first file is kept (keep_old_file) until the second rename has succeeded, and put back if
 * it fails (or the new first file removed, when there was none), so a failure leaves the old pair and never a new
 * file beside an old one. Both temporaries are gone afterwards, whatever happened. */
static eddy_status rename_pair(const char *first_tmp, const char *first, const char *second_tmp, const char *second,
                               eddy__link_fn link_fn, char *msg, size_t msg_size) {
    eddy_status st;
    char *kept = keep_old_file(first, link_fn, &st, msg, msg_size);
    if (st != EDDY_OK) {
        remove(first_tmp);
        remove(second_tmp);
        return st;
    }
    if (rename(first_tmp, first) != 0) {
        const int e = errno;
        remove(first_tmp);
        remove(second_tmp);
        if (kept) remove(kept);
        free(kept);
        return fb_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot rename the finished file into place: %s", first,
                       strerror(e));
    }
    if (rename(second_tmp, second) != 0) {
        const int e = errno;
        remove(second_tmp);
        const int put_back = kept ? rename(kept, first) : unlink(first);
        const int e_back = errno;
        if (put_back == 0)
            st = fb_fail(msg, msg_size, EDDY_ERR_IO,
                         "%s: cannot rename the finished file into place: %s; %s is back as it was", second,
                         strerror(e), first);
        else if (kept) /* the old first file stays under the kept name: say where */
            st = fb_fail(msg, msg_size, EDDY_ERR_IO,
                         "%s: cannot rename the finished file into place: %s; the new %s could not be replaced by "
                         "the old one (%s), which is kept as %s",
                         second, strerror(e), first, strerror(e_back), kept);
        else
            st = fb_fail(msg, msg_size, EDDY_ERR_IO,
                         "%s: cannot rename the finished file into place: %s; the new %s could not be removed: %s",
                         second, strerror(e), first, strerror(e_back));
        free(kept);
        return st;
    }
    if (kept) remove(kept);
    free(kept);
    if (msg && msg_size) msg[0] = '\0';
    return EDDY_OK;
}

eddy_status eddy_flipbook_write(const eddy_flipbook *fb, const char *png_path, char *msg, size_t msg_size) {
    return eddy__flipbook_write_linking(fb, png_path, link, msg, msg_size);
}

eddy_status eddy__flipbook_write_linking(const eddy_flipbook *fb, const char *png_path, eddy__link_fn link_fn,
                                         char *msg, size_t msg_size) {
    if (!fb || !png_path || !png_path[0])
        return fb_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "flipbook write: flipbook and path are required");
    /* the pair is written as a whole or not at all: the sheet and the JSON go to unique temporary names beside
     * their paths (which refuses a folder, link or device at either path before anything is written), and are then
     * renamed as a pair, the JSON first and the sheet last (rename_pair) */
    size_t len = strlen(png_path);
    char *json_path = malloc(len + 6);
    if (!json_path) return fb_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", png_path);
    memcpy(json_path, png_path, len + 1);
    if (len >= 4 && !strcmp(png_path + len - 4, ".png")) json_path[len - 4] = '\0';
    strcat(json_path, ".json");
    eddy_status st;
    char *png_tmp = eddy__temp_file_for(png_path, msg, msg_size, &st), *json_tmp = NULL;
    if (png_tmp) json_tmp = eddy__temp_file_for(json_path, msg, msg_size, &st);
    if (json_tmp) st = eddy_png_write(png_tmp, &fb->sheet, 1, msg, msg_size);
    if (st == EDDY_OK) {
        const char *base = strrchr(png_path, '/');
        base = base ? base + 1 : png_path;
        /* the image name goes into JSON: escape quotes, backslashes and control bytes, each at most 6 bytes (a
         * fixed buffer cut long names of control bytes short without a word) */
        const size_t base_len = strlen(base);
        char *name = malloc(6 * base_len + 1);
        size_t n = 0;
        for (const char *p = base; name && *p; p++) {
            unsigned char c = (unsigned char)*p;
            if (c == '"' || c == '\\') name[n++] = '\\', name[n++] = (char)c;
            else if (c < 0x20) n += (size_t)snprintf(name + n, 7, "\\u%04x", c);
            else name[n++] = (char)c;
        }
        if (name) name[n] = '\0';
        const size_t json_size = n + 400;
        char *json = name ? malloc(json_size) : NULL;
        if (!json) {
            st = fb_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory for the JSON", png_path);
        } else {
            const eddy_flipbook_def *d = &fb->def;
            int jl = snprintf(json, json_size,
                              "{\n  \"image\": \"%s\",\n  \"columns\": %d,\n  \"rows\": %d,\n  \"frame_width\": %d,\n"
                              "  \"frame_height\": %d,\n  \"frame_count\": %d,\n  \"fps\": %.9g,\n"
                              "  \"order\": \"row-major from top-left\"\n}\n",
                              name, d->columns, d->rows, d->frame_width, d->frame_height, fb->count, (double)d->fps);
            st = eddy_file_write(json_tmp, json, (size_t)jl, msg, msg_size);
        }
        free(json);
        free(name);
    }
    if (st == EDDY_OK) {
        st = rename_pair(json_tmp, json_path, png_tmp, png_path, link_fn, msg, msg_size);
    } else {
        if (png_tmp) remove(png_tmp);
        if (json_tmp) remove(json_tmp);
    }
    free(json_path);
    free(png_tmp);
    free(json_tmp);
    return st;
}
