/* Video through ffmpeg: an MP4 of odd-sized frames (padded to even) and a GIF are written and probed with ffprobe
 * for size and frame count; a missing ffmpeg says how to install it; a failing ffmpeg leaves no file under the
 * final name. Skipped, with the reason printed, when ffmpeg is not installed. */
#include "check.h"
#include "test_util.h"
#include <math.h>

/* asks ffprobe for "width,height,nb_read_frames" of the first video stream */
static int probe(const char *path, int *w, int *h, int *frames) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=width,height,nb_read_frames "
             "-of csv=p=0 '%s'", path);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    int n = fscanf(p, "%d,%d,%d", w, h, frames);
    pclose(p);
    return n == 3;
}

static void frame(eddy_image *img, int f) {
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            uint8_t *p = img->rgba + 4 * ((size_t)y * img->width + x);
            p[0] = (uint8_t)(x * 8 + f * 20), p[1] = (uint8_t)(y * 8), p[2] = (uint8_t)(f * 25), p[3] = 255;
        }
}

int main(void) {
    char dir[256], path[512], msg[512];
    test_dir("video", dir, sizeof dir);
    eddy_video_def def = eddy_video_def_default();
    def.width = 33, def.height = 17, def.fps = 24;
    eddy_video *v = NULL;

    /* a missing program is reported with the install hint, and nothing is created */
    def.ffmpeg = "/nonexistent/ffmpeg";
    snprintf(path, sizeof path, "%s/none.mp4", dir);
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_ERR_UNSUPPORTED && v == NULL, "missing ffmpeg");
    CHECK(strstr(msg, "apt-get install ffmpeg") && strstr(msg, path), "message: %s", msg);
    def.ffmpeg = NULL;

    if (!eddy_ffmpeg_available(NULL)) {
        printf("test_io_video: video checks skipped: ffmpeg is not installed (apt-get install ffmpeg)\n");
        return check_finish("test_io_video");
    }
    eddy_image img = {0};
    eddy_image_init(&img, 33, 17, msg, sizeof msg);
    snprintf(path, sizeof path, "%s/a.mp4", dir);
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    for (int f = 0; f < 10 && v; f++) {
        frame(&img, f);
        CHECK(eddy_video_write(v, &img) == EDDY_OK, "%s", eddy_video_last_error(v));
    }
    CHECK(file_size(path) < 0, "nothing under the final name before ffmpeg finishes");
    if (v) CHECK(eddy_video_close(v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    int w = 0, h = 0, n = 0;
    CHECK(probe(path, &w, &h, &n), "ffprobe reads %s", path);
    CHECK(w == 34 && h == 18 && n == 10, "MP4 %d x %d (odd sides padded to even), %d frames", w, h, n);
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary files left");

    snprintf(path, sizeof path, "%s/a.gif", dir);
    def.format = EDDY_VIDEO_GIF;
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    for (int f = 0; f < 5 && v; f++) {
        frame(&img, f);
        CHECK(eddy_video_write(v, &img) == EDDY_OK, "%s", eddy_video_last_error(v));
    }
    if (v) CHECK(eddy_video_close(v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(probe(path, &w, &h, &n) && w == 33 && h == 17 && n == 5, "GIF %d x %d, %d frames", w, h, n);

    /* a wrong frame size is refused without breaking the video; abort leaves nothing */
    snprintf(path, sizeof path, "%s/aborted.mp4", dir);
    def.format = EDDY_VIDEO_MP4;
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    eddy_image small = {0};
    eddy_image_init(&small, 8, 8, msg, sizeof msg);
    if (v) {
        CHECK(eddy_video_write(v, &small) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_video_last_error(v), "33 x 17"),
              "%s", eddy_video_last_error(v));
        CHECK(eddy_video_write(v, &img) == EDDY_OK, "%s", eddy_video_last_error(v));
        eddy_video_abort(v);
    }
    CHECK(file_size(path) < 0, "aborted video leaves no file");

    /* ffmpeg failing (here: `false` in its place exits 1 at once) is an error and leaves no file */
    snprintf(path, sizeof path, "%s/failed.mp4", dir);
    def.ffmpeg = "false";
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    if (v) {
        eddy_status st = EDDY_OK;
        for (int f = 0; f < 200 && st == EDDY_OK; f++) st = eddy_video_write(v, &img); /* until the socket breaks */
        CHECK(eddy_video_close(v, msg, sizeof msg) == EDDY_ERR_IO, "close after a failed ffmpeg: %s", msg);
        CHECK(strstr(msg, "failed.mp4") != NULL, "message names the path: %s", msg);
    }
    CHECK(file_size(path) < 0, "no partial video under the final name");
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary files left");

    /* a program that never reads its input (here a script that only sleeps): the write fails after stall_seconds
     * instead of blocking forever, and the video is not written */
    char script[600];
    snprintf(script, sizeof script, "%s/stalled_ffmpeg.sh", dir);
    FILE *sf = fopen(script, "w");
    CHECK(sf && fputs("#!/bin/sh\nexec sleep 600\n", sf) >= 0 && fclose(sf) == 0 && chmod(script, 0755) == 0,
          "cannot write %s", script);
    snprintf(path, sizeof path, "%s/stalled.mp4", dir);
    def.ffmpeg = script;
    def.stall_seconds = NAN;
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "stall_seconds"),
          "a NaN stall_seconds: %s", msg);
    def.stall_seconds = 0.5f;
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    if (v) {
        eddy_status st = EDDY_OK;
        int f = 0;
        for (; f < 5000 && st == EDDY_OK; f++) st = eddy_video_write(v, &img); /* until the socket's buffer is full */
        CHECK(st == EDDY_ERR_IO && strstr(eddy_video_last_error(v), "took no data") &&
                  strstr(eddy_video_last_error(v), "stalled.mp4"),
              "a stalled ffmpeg after %d frames: %s", f, eddy_video_last_error(v));
        CHECK(eddy_video_close(v, msg, sizeof msg) == EDDY_ERR_IO, "close after a stalled ffmpeg: %s", msg);
    }
    CHECK(file_size(path) < 0, "no video from a stalled ffmpeg");
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary files left");
    eddy_image_free(&img);
    eddy_image_free(&small);
    return check_finish("test_io_video");
}
