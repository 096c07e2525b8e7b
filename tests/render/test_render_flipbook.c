/* Flipbook sprite sheets and image helpers: frames land in their tiles row by row from the top left (read back
 * from the written PNG), the JSON beside it parses and gives the tiling, frame size, count and fps; the PNG and
 * JSON are replaced as a pair or not at all, with the old JSON kept under a hard link and, through the internal
 * seam eddy__flipbook_write_linking, under a byte copy as where the file system has no hard links; frames of
 * another size are resampled; a full sheet refuses more.
 * Resizing preserves flat colours and averages when shrinking; dye from a picture is sRGB-decoded, alpha-weighted
 * and flipped so the image top is max y; plain arrays render through eddy_render_input_2d. */
#include "check.h"
#include "render_internal.h"
#include "test_util.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#ifdef EDDY_HAVE_CJSON
#include <cjson/cJSON.h>
#endif
#ifdef __linux__
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>
#endif

/* Marks a file immutable (chattr +i) or clears the mark: nobody, root included, may then rename over it. Returns 0
 * when done; -1 without CAP_LINUX_IMMUTABLE, on a file system without the flag, or off Linux. */
static int set_immutable(const char *path, int on) {
#ifdef __linux__
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return -1;
    int flags = 0, rc = ioctl(fd, FS_IOC_GETFLAGS, &flags);
    if (rc == 0) {
        flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
        rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
    }
    close(fd);
    return rc == 0 ? 0 : -1;
#else
    (void)path, (void)on;
    return -1;
#endif
}

static int link_calls;
/* link(2) as on a file system without hard links (FAT answers EPERM): the writer keeps the old JSON as a copy */
static int no_links(const char *existing, const char *new_path) {
    (void)existing, (void)new_path;
    link_calls++;
    errno = EPERM;
    return -1;
}

static char taken[700];
/* link(2) losing a race: another process creates a file under the name freed for the link, and the link fails */
static int name_taken(const char *existing, const char *new_path) {
    (void)existing;
    snprintf(taken, sizeof taken, "%s", new_path);
    FILE *fp = fopen(new_path, "wbx");
    if (fp) {
        fputs("another's", fp);
        fclose(fp);
    }
    errno = EEXIST;
    return -1;
}

static int file_equals(const char *path, const char *text) {
    char buf[256];
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    return n == strlen(text) && !memcmp(buf, text, n);
}

/* The sheet cannot be renamed into place after the JSON has been (the second rename of the pair fails): a real
 * condition that passes every check made before writing is an old sheet marked immutable. The old JSON must be put
 * back (it used to stay replaced: the new JSON beside the old sheet) with its permission bits and modification
 * time, the new JSON removed when there was no old one, and no temporary file or kept copy left. With `link_fn` =
 * link the old JSON is kept under a hard link, with no_links under a copy (which used to come back with the
 * umask's permissions, 0604 -> 0644, and the time of the copy); `name` tells the two runs' files apart. */
static int check_second_rename_fails(const eddy_flipbook *fb, const char *dir, const char *name,
                                     eddy__link_fn link_fn) {
    char sheet[600], json[600], msg[1024];
    snprintf(sheet, sizeof sheet, "%s/%s.png", dir, name);
    snprintf(json, sizeof json, "%s/%s.json", dir, name);
    CHECK(eddy_file_write(sheet, "old sheet", 9, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(eddy_file_write(json, "old json", 8, msg, sizeof msg) == EDDY_OK, "%s", msg);
    const struct timespec old_times[2] = {{1000000000, 0}, {1000000000, 0}}; /* 2001-09-09 */
    CHECK(chmod(json, 0604) == 0 && utimensat(AT_FDCWD, json, old_times, 0) == 0, "old JSON's mode and time set");
    if (set_immutable(sheet, 1) != 0) {
        printf("note: the sheet could not be marked immutable (needs CAP_LINUX_IMMUTABLE and a file system with the "
               "flag): a failing second rename of the pair is not checked here\n");
        return 0;
    }
    eddy_status with_old = eddy__flipbook_write_linking(fb, sheet, link_fn, msg, sizeof msg);
    char msg_with_old[1024];
    snprintf(msg_with_old, sizeof msg_with_old, "%s", msg);
    const int old_json_back = file_equals(json, "old json"), temps_with_old = count_matching(dir, ".tmp-");
    struct stat back;
    const int stat_back = stat(json, &back);
    remove(json);
    eddy_status without_old = eddy__flipbook_write_linking(fb, sheet, link_fn, msg, sizeof msg);
    const long json_left = file_size(json);
    const int temps_without_old = count_matching(dir, ".tmp-");
    set_immutable(sheet, 0); /* before any check can stop the test: an immutable file cannot be cleaned up */
    CHECK(with_old == EDDY_ERR_IO && strstr(msg_with_old, sheet) && strstr(msg_with_old, "back as it was"),
          "the sheet cannot replace an immutable file: %s", msg_with_old);
    CHECK(old_json_back, "the old JSON is put back beside the old sheet");
    CHECK(stat_back == 0 && (back.st_mode & 07777) == 0604 && back.st_mtim.tv_sec == 1000000000,
          "the old JSON is back with its mode 0604 and time 1000000000: %o, %lld", (unsigned)(back.st_mode & 07777),
          (long long)back.st_mtim.tv_sec);
    CHECK(file_equals(sheet, "old sheet"), "the old sheet is untouched");
    CHECK(temps_with_old == 0, "no temporary file or kept copy left: %d", temps_with_old);
    CHECK(without_old == EDDY_ERR_IO && json_left == -1,
          "with no old JSON the new one is removed again: status %d, %ld bytes left: %s", (int)without_old, json_left,
          msg);
    CHECK(temps_without_old == 0, "no temporary file left: %d", temps_without_old);
    CHECK(eddy__flipbook_write_linking(fb, sheet, link_fn, msg, sizeof msg) == EDDY_OK && file_size(json) > 0 &&
              !file_equals(sheet, "old sheet"),
          "writable again, the pair is replaced: %s", msg);
    return 1;
}

/* The new pair is whole after a write that kept the old JSON as a copy: the sheet a PNG of the sheet's size, the
 * JSON the new one, no temporary file or kept copy left; with no old JSON as well. */
static void check_copy_replaces_pair(const eddy_flipbook *fb, const char *dir) {
    char sheet[600], json[600], msg[1024];
    snprintf(sheet, sizeof sheet, "%s/copied.png", dir);
    snprintf(json, sizeof json, "%s/copied.json", dir);
    for (int with_old = 1; with_old >= 0; with_old--) {
        CHECK(eddy_file_write(sheet, "old sheet", 9, msg, sizeof msg) == EDDY_OK, "%s", msg);
        if (with_old) CHECK(eddy_file_write(json, "old json", 8, msg, sizeof msg) == EDDY_OK, "%s", msg);
        else remove(json);
        link_calls = 0;
        CHECK(eddy__flipbook_write_linking(fb, sheet, no_links, msg, sizeof msg) == EDDY_OK, "%s", msg);
        CHECK(link_calls == with_old, "link tried %d times, expected %d (only when there is an old JSON to keep)",
              link_calls, with_old);
        eddy_image back = {0};
        CHECK(eddy_png_read(sheet, &back, msg, sizeof msg) == EDDY_OK &&
                  back.width == eddy_flipbook_image(fb)->width && back.height == eddy_flipbook_image(fb)->height &&
                  !memcmp(back.rgba, eddy_flipbook_image(fb)->rgba, (size_t)back.width * back.height * 4),
              "the new sheet is in place, whole: %s", msg);
        eddy_image_free(&back);
        char text[1024] = {0};
        FILE *fp = fopen(json, "rb");
        if (fp) {
            if (fread(text, 1, sizeof text - 1, fp) == 0) text[0] = '\0';
            fclose(fp);
        }
        CHECK(strstr(text, "\"image\": \"copied.png\"") && strstr(text, "\"frame_count\""),
              "the new JSON is in place (old one %s): %s", with_old ? "kept as a copy" : "absent", text);
        CHECK(count_matching(dir, ".tmp-") == 0, "no temporary file or kept copy left: %d", count_matching(dir, ".tmp-"));
    }
}

/* The copy of the old JSON fails (a file size limit below the old JSON's size, as a full disk would): nothing is
 * replaced, no temporary file is left, and the message gives the copy's error beside the link's (it gave the
 * link's alone: "Operation not permitted" for what was a full disk). */
static void check_copy_fails(const eddy_flipbook *fb, const char *dir) {
    char sheet[600], json[600], msg[1024];
    snprintf(sheet, sizeof sheet, "%s/big.png", dir);
    snprintf(json, sizeof json, "%s/big.json", dir);
    static char big[300000];
    memset(big, ' ', sizeof big);
    CHECK(eddy_file_write(sheet, "old sheet", 9, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(eddy_file_write(json, big, sizeof big, msg, sizeof msg) == EDDY_OK, "%s", msg);
    struct rlimit before, small;
    getrlimit(RLIMIT_FSIZE, &before);
    small = before;
    small.rlim_cur = 100000; /* the new sheet and JSON are far smaller */
    void (*handler)(int) = signal(SIGXFSZ, SIG_IGN); /* a write past the limit then fails with EFBIG */
    const int limited = setrlimit(RLIMIT_FSIZE, &small) == 0;
    const eddy_status st = eddy__flipbook_write_linking(fb, sheet, no_links, msg, sizeof msg);
    setrlimit(RLIMIT_FSIZE, &before);
    signal(SIGXFSZ, handler);
    if (!limited) {
        printf("note: no file size limit could be set: a failing copy of the old JSON is not checked here\n");
        return;
    }
    CHECK(st == EDDY_ERR_IO && strstr(msg, "big.json") && strstr(msg, strerror(EPERM)) && strstr(msg, strerror(EFBIG)),
          "the copy's error is named beside the link's: status %d: %s", (int)st, msg);
    CHECK(file_size(json) == (long)sizeof big && file_equals(sheet, "old sheet"), "the old pair is untouched: %ld bytes",
          file_size(json));
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary file left: %d", count_matching(dir, ".tmp-"));
}

/* The name freed for the hard link is taken by another file before the link is made: the copy used to go to that
 * name, fail to create it, and remove the other file; it now goes to a new temporary file of its own, and the
 * write succeeds with the other file left alone. */
static void check_name_taken(const eddy_flipbook *fb, const char *dir) {
    char sheet[600], json[600], msg[1024];
    snprintf(sheet, sizeof sheet, "%s/race.png", dir);
    snprintf(json, sizeof json, "%s/race.json", dir);
    CHECK(eddy_file_write(sheet, "old sheet", 9, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(eddy_file_write(json, "old json", 8, msg, sizeof msg) == EDDY_OK, "%s", msg);
    taken[0] = '\0';
    CHECK(eddy__flipbook_write_linking(fb, sheet, name_taken, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(taken[0] && file_equals(taken, "another's"), "the other file is left alone: %s", taken);
    if (taken[0]) remove(taken);
    CHECK(!file_equals(json, "old json") && file_size(json) > 0 && !file_equals(sheet, "old sheet"),
          "the new pair is in place");
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary file left: %d", count_matching(dir, ".tmp-"));
}

static void fill(eddy_image *img, uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
    for (size_t p = 0; p < (size_t)img->width * img->height; p++) {
        uint8_t *q = img->rgba + 4 * p;
        q[0] = r, q[1] = g, q[2] = b, q[3] = a;
    }
}

/* The JSON names the sheet whole however long its escaped name: 200 control bytes escape to 1200 (a fixed buffer of
 * 1024 cut the name short without a word). */
static void check_long_escaped_name(const eddy_flipbook *fb, const char *dir) {
    char base[256], path[600], json_path[600], msg[512];
    memset(base, 1, 200);
    strcpy(base + 200, ".png");
    snprintf(path, sizeof path, "%s/%s", dir, base);
    snprintf(json_path, sizeof json_path, "%s/%.200s.json", dir, base);
    CHECK(eddy_flipbook_write(fb, path, msg, sizeof msg) == EDDY_OK, "%s", msg);
    static char json[4096];
    FILE *fp = fopen(json_path, "rb");
    CHECK(fp != NULL, "the JSON of the long name");
    if (!fp) return;
    size_t n = fread(json, 1, sizeof json - 1, fp);
    json[n] = 0;
    fclose(fp);
    char escaped[1300] = "\"image\": \"";
    for (int i = 0; i < 200; i++) strcat(escaped, "\\u0001");
    strcat(escaped, ".png\",");
    CHECK(strstr(json, escaped) != NULL, "the image name escaped whole (%zu bytes of JSON)", n);
#ifdef EDDY_HAVE_CJSON
    cJSON *j = cJSON_Parse(json);
    const char *image = j ? cJSON_GetStringValue(cJSON_GetObjectItem(j, "image")) : NULL;
    CHECK(image && !strcmp(image, base), "the JSON parses and names the sheet");
    cJSON_Delete(j);
#endif
    remove(path);
    remove(json_path);
}

int main(void) {
    char dir[256], path[512], msg[512];
    test_dir("flipbook", dir, sizeof dir);
    eddy_flipbook_def fd = eddy_flipbook_def_default();
    fd.columns = 3, fd.rows = 2, fd.frame_width = 8, fd.frame_height = 6, fd.fps = 12.5f;
    eddy_flipbook *fb = NULL;
    CHECK(eddy_flipbook_create(&fd, &fb, msg, sizeof msg) == EDDY_OK, "%s", msg);
    eddy_image frame = {0}, big = {0};
    eddy_image_init(&frame, 8, 6, msg, sizeof msg);
    eddy_image_init(&big, 16, 12, msg, sizeof msg);
    for (int f = 0; f < 5; f++) { /* 5 of 6 tiles; frame 3 comes at twice the size */
        eddy_image *src = f == 3 ? &big : &frame;
        fill(src, (uint8_t)(40 * f), (uint8_t)(200 - 30 * f), 7, 255);
        CHECK(eddy_flipbook_add(fb, src, msg, sizeof msg) == EDDY_OK, "%s", msg);
    }
    CHECK(eddy_flipbook_count(fb) == 5, "count");
    snprintf(path, sizeof path, "%s/smoke.png", dir);
    CHECK(eddy_flipbook_write(fb, path, msg, sizeof msg) == EDDY_OK, "%s", msg);
    /* the PNG and its JSON are written as a pair or not at all: with a folder where the JSON goes, the old sheet
     * stays as it was (it used to be replaced by the new sheet, left without its JSON), and no temporary remains */
    {
        char pair[600], pair_json[600];
        snprintf(pair, sizeof pair, "%s/pair.png", dir);
        snprintf(pair_json, sizeof pair_json, "%s/pair.json", dir);
        CHECK(eddy_file_write(pair, "old", 3, msg, sizeof msg) == EDDY_OK, "%s", msg);
        mkdir(pair_json, 0755);
        CHECK(eddy_flipbook_write(fb, pair, msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "pair.json"), "%s", msg);
        CHECK(file_size(pair) == 3, "the old sheet is kept: %ld bytes", file_size(pair));
        CHECK(count_matching(dir, ".tmp-") == 0, "no temporary file left");
        CHECK(eddy_flipbook_write(fb, dir, msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "folder"), "%s", msg);
    }
    check_second_rename_fails(fb, dir, "locked", link);
    /* the same where the file system has no hard links: the old JSON is kept as a copy */
    link_calls = 0;
    if (check_second_rename_fails(fb, dir, "locked_copy", no_links)) CHECK(link_calls > 0, "the copy path was taken");
    check_copy_replaces_pair(fb, dir);
    check_copy_fails(fb, dir);
    check_name_taken(fb, dir);
    check_long_escaped_name(fb, dir);
    eddy_image sheet = {0};
    CHECK(eddy_png_read(path, &sheet, msg, sizeof msg) == EDDY_OK && sheet.width == 24 && sheet.height == 12,
          "sheet 3x2 tiles of 8x6: %d x %d", sheet.width, sheet.height);
    for (int f = 0; f < 6 && sheet.rgba; f++) {
        int col = f % 3, row = f / 3;
        const uint8_t *p = px(&sheet, col * 8 + 4, row * 6 + 3);
        if (f < 5)
            CHECK(p[0] == 40 * f && p[1] == 200 - 30 * f && p[3] == 255, "frame %d at tile (%d,%d): %d %d", f, col, row,
                  p[0], p[1]);
        else
            CHECK(p[3] == 0, "the unfilled tile is transparent");
    }
    eddy_image_free(&sheet);
    snprintf(path, sizeof path, "%s/smoke.json", dir);
    char json[2048] = {0};
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL, "JSON beside the PNG: %s", path);
    if (fp) {
        size_t n = fread(json, 1, sizeof json - 1, fp);
        json[n] = 0;
        fclose(fp);
    }
#ifdef EDDY_HAVE_CJSON
    cJSON *j = cJSON_Parse(json);
    CHECK(j != NULL, "JSON parses: %s", json);
    if (j) {
        CHECK(!strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(j, "image")), "smoke.png"), "image name");
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "columns")) == 3 &&
                  cJSON_GetNumberValue(cJSON_GetObjectItem(j, "rows")) == 2, "tiling");
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "frame_width")) == 8 &&
                  cJSON_GetNumberValue(cJSON_GetObjectItem(j, "frame_height")) == 6, "frame size");
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "frame_count")) == 5, "frame count");
        CHECK(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "fps")) == 12.5, "fps");
        cJSON_Delete(j);
    }
#else
    CHECK(strstr(json, "\"columns\": 3") && strstr(json, "\"frame_count\": 5") && strstr(json, "\"fps\": 12.5"), "%s", json);
#endif
    CHECK(eddy_flipbook_add(fb, &frame, msg, sizeof msg) == EDDY_OK, "sixth frame");
    CHECK(eddy_flipbook_add(fb, &frame, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "full"), "%s", msg);
    eddy_flipbook_destroy(fb);
    fd.columns = 0;
    CHECK(eddy_flipbook_create(&fd, &fb, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && fb == NULL, "%s", msg);
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary files left");

    /* resize: a 2x2 checker of black and white averages to mid grey (in sRGB bytes) when halved */
    eddy_image chk = {0}, half = {0};
    eddy_image_init(&chk, 16, 16, msg, sizeof msg);
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) {
            uint8_t v = ((x + y) & 1) ? 255 : 0;
            uint8_t *p = chk.rgba + 4 * (y * 16 + x);
            p[0] = p[1] = p[2] = v, p[3] = 255;
        }
    CHECK(eddy_image_resize(&chk, 8, 8, &half, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(abs(px(&half, 3, 3)[0] - 128) <= 1 && px(&half, 3, 3)[3] == 255, "checker halves to grey: %d",
          px(&half, 3, 3)[0]);
    fill(&chk, 10, 20, 30, 255);
    CHECK(eddy_image_resize(&chk, 37, 5, &half, msg, sizeof msg) == EDDY_OK, "%s", msg);
    int flat = 1;
    for (size_t p = 0; p < 37 * 5; p++) flat &= !memcmp(half.rgba + 4 * p, "\x0a\x14\x1e\xff", 4);
    CHECK(flat, "a flat colour stays exactly flat when resampled");

    /* dye from a picture: top-left pixel red, half-transparent white bottom right */
    eddy_image pic = {0};
    eddy_image_init(&pic, 4, 3, msg, sizeof msg);
    uint8_t *tl = pic.rgba, *br = pic.rgba + 4 * (2 * 4 + 3), *mid = pic.rgba + 4 * (1 * 4 + 1);
    tl[0] = 255, tl[3] = 255;
    br[0] = br[1] = br[2] = 255, br[3] = 128;
    mid[1] = 188, mid[3] = 255; /* sRGB 188 = 0.5 linear (within 1/255) */
    snprintf(path, sizeof path, "%s/pic.png", dir);
    CHECK(eddy_png_write(path, &pic, 1, msg, sizeof msg) == EDDY_OK, "%s", msg);
    eddy_image pic2 = {0};
    CHECK(eddy_png_read(path, &pic2, msg, sizeof msg) == EDDY_OK, "%s", msg);
    float d0[12], d1[12], d2[12];
    float *dye[3] = {d0, d1, d2};
    CHECK(eddy_dye_from_image(&pic2, 4, 3, dye, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(d0[0 + 4 * 2] == 1.0f && d1[0 + 4 * 2] == 0.0f, "image top-left = cell (0, ny-1), red 1");
    CHECK(fabsf(d0[3] - 128.0f / 255.0f) < 1e-6f && fabsf(d2[3] - 128.0f / 255.0f) < 1e-6f,
          "bottom-right white at alpha 128 -> %g", d0[3]);
    CHECK(fabsf(d1[1 + 4 * 1] - 0.5f) < 0.005f, "sRGB 188 decodes to 0.5 linear: %g", d1[1 + 4]);

    /* plain arrays: the dye grid rendered back equals the picture's colours (round trip through linear) */
    eddy_renderer *r = NULL;
    eddy_renderer_create(0, &r, msg, sizeof msg);
    eddy_render_input in = {.dim = 2, .box_size = {4, 3, 1}, .dye_n = {4, 3, 1}, .dye = {d0, d1, d2}};
    eddy_render_def rd = eddy_render_def_default();
    eddy_image out = {0};
    CHECK(eddy_render_input_2d(r, &in, &rd, &out) == EDDY_OK, "%s", eddy_renderer_last_error(r));
    CHECK(out.width == 4 && out.height == 3 && !memcmp(px(&out, 0, 0), "\xff\x00\x00\xff", 4), "top-left red again");
    CHECK(abs(px(&out, 1, 1)[1] - 188) <= 1, "mid green back to sRGB 188: %d", px(&out, 1, 1)[1]);
    in.box_size[0] = -1;
    CHECK(eddy_render_input_2d(r, &in, &rd, &out) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(eddy_renderer_last_error(r), "box_size[0]"), "%s", eddy_renderer_last_error(r));
    eddy_renderer_destroy(r);
    eddy_image_free(&out);
    eddy_image_free(&pic);
    eddy_image_free(&pic2);
    eddy_image_free(&chk);
    eddy_image_free(&half);
    eddy_image_free(&frame);
    eddy_image_free(&big);
    return check_finish("test_render_flipbook");
}
