/* output.video_finish_seconds reaches the video writer (eddy_video_def.finish_seconds): with a stand-in ffmpeg on
 * PATH that takes every frame and then never exits, a run given 0.5 s ends with the video refused after about that
 * long (the default would wait 300 s), and 0 (no limit) is taken and gives the video of a stand-in that exits. */
#include "cli_util.h"

#include <time.h>

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* `eddy ARGS` in `dir` with `dir`/bin first on PATH, killed after `seconds` */
static int run_with_fake_ffmpeg(const char *dir, int seconds, const char *args) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "cd '%s' && PATH='%s/bin':\"$PATH\" timeout -k 5 %d '%s' %s 2>&1", dir, dir, seconds,
             EDDY_CLI, args);
    return cli_shell(cmd);
}

/* bin/ffmpeg: a shell script with `body` */
static bool write_fake_ffmpeg(const char *dir, const char *body) {
    char path[4200];
    snprintf(path, sizeof path, "%s/bin", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/bin/ffmpeg", dir);
    return cli_write(dir, "bin/ffmpeg", body) && chmod(path, 0755) == 0;
}

int main(void) {
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    CHECK(cli_write(dir, "finish.json",
                    "{\"name\": \"finish\", \"grid\": [16, 16], \"duration\": 0.1,"
                    " \"output\": {\"video_finish_seconds\": 0.5}}"),
          "cannot write the scene");

    CHECK(write_fake_ffmpeg(dir, "#!/bin/sh\n# takes every frame, then never exits\ncat > /dev/null\nexec sleep 600\n"),
          "cannot write the stand-in ffmpeg");
    const double t0 = seconds_now();
    int rc = run_with_fake_ffmpeg(dir, 120, "run finish.json --frames 2 --quiet --out o");
    const double took = seconds_now() - t0;
    CHECK(rc == 1 && strstr(cli_output, "eddy: video: o/finish.mp4: video not written: ffmpeg did not exit within 0.5 s "
                                        "(finish_seconds) after the end of its input: it was killed\n"),
          "a stand-in that never exits, video_finish_seconds 0.5: exit %d after %.1f s:\n%s", rc, took, cli_output);
    CHECK(took < 60, "the run took %.1f s", took);
    CHECK(!cli_exists(dir, "o/finish.mp4"), "no video from a killed ffmpeg");
    CHECK(cli_exists(dir, "o/frame_00002.png") || cli_exists(dir, "o/frame_00001.png"), "the PNG frames are kept");

    /* 0 = no limit: a stand-in that writes the raw frames as its output and exits 0 gives the video */
    CHECK(write_fake_ffmpeg(dir, "#!/bin/sh\nfor out; do :; done\nexec cat > \"$out\"\n"),
          "cannot write the stand-in ffmpeg");
    rc = run_with_fake_ffmpeg(dir, 120, "run finish.json --frames 2 --quiet --out o0 --set output.video_finish_seconds=0");
    CHECK(rc == 0 && cli_file_size(dir, "o0/finish.mp4") > 0, "video_finish_seconds 0: exit %d:\n%s", rc, cli_output);
    cli_cleanup(dir);
    return check_finish("cli_video_finish");
}
