/* `eddy run` without a scene: the default vortex street writes frames and (with ffmpeg) a video into a fresh
 * folder; a second run picks out-1 and leaves out/ alone; --force writes into out/.
 * CI runs it with --frames 3 (a few seconds); `make validate` (--full) runs plain `eddy run` as a user would. */
#include "cli_util.h"

int main(int argc, char **argv) {
    bool full = check_full_size(argc, argv);
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    const char *args = full ? "run" : "run --frames 3";
    int rc = cli_run(dir, args);
    CHECK(rc == 0, "eddy %s: exit %d:\n%s", args, rc, cli_output);
    CHECK(cli_file_size(dir, "out/frame_00001.png") > 0, "no first frame");
    CHECK(cli_file_size(dir, "out/frame_00003.png") > 0, "no third frame");
    if (full) {
        CHECK(cli_file_size(dir, "out/frame_00100.png") > 0, "the default scene should last more than 100 frames");
    } else {
        CHECK(!cli_exists(dir, "out/frame_00004.png"), "--frames 3 wrote a fourth frame");
    }
    if (cli_have_ffmpeg())
        CHECK(cli_file_size(dir, "out/default.mp4") > 0, "ffmpeg is installed but no video was written:\n%s", cli_output);
    else
        CHECK(strstr(cli_output, "ffmpeg") != NULL, "without ffmpeg the message should say how to get it:\n%s", cli_output);
    if (!full) {
        size_t n0 = 0;
        char *before = cli_read(dir, "out/frame_00001.png", &n0);
        rc = cli_run(dir, "run --frames 2 --quiet --set grid=[64,36]");
        CHECK(rc == 0, "second run: exit %d:\n%s", rc, cli_output);
        CHECK(cli_file_size(dir, "out-1/frame_00001.png") > 0, "the second run should write into out-1/");
        CHECK(cli_exists(dir, "out/frame_00003.png"), "the second run touched out/");
        size_t n1 = 0;
        char *after = cli_read(dir, "out/frame_00001.png", &n1);
        CHECK(before && after && n0 == n1 && !memcmp(before, after, n0), "out/frame_00001.png changed without --force");
        free(after);
        rc = cli_run(dir, "run --frames 1 --quiet --no-video --set grid=[32,18]");
        CHECK(rc == 0 && cli_exists(dir, "out-2/frame_00001.png"), "a third run should write into out-2/");
        rc = cli_run(dir, "run --frames 1 --quiet --no-video --force --set grid=[32,18]");
        CHECK(rc == 0 && !cli_exists(dir, "out-3"), "--force should write into out/ again");
        rc = cli_run(dir, "run --frames 1 --quiet --no-video --out mine --set grid=[32,18]");
        CHECK(rc == 0 && cli_exists(dir, "mine/frame_00001.png"), "--out mine: %s", cli_output);
        rc = cli_run(dir, "run --frames 1 --quiet --no-video --out mine --set grid=[32,18]");
        CHECK(rc == 0 && cli_exists(dir, "mine-1/frame_00001.png"), "--out mine again should use mine-1: %s", cli_output);
        free(before);
        /* help and info */
        CHECK(cli_run(dir, "--help") == 0 && strstr(cli_output, "eddy run"), "eddy --help: %s", cli_output);
        CHECK(cli_run(dir, "run --help") == 0 && strstr(cli_output, "--checkpoint"), "eddy run --help: %s", cli_output);
        CHECK(cli_run(dir, "info") == 0 && strstr(cli_output, "threads") && strstr(cli_output, "backends") &&
                  strstr(cli_output, "png"),
              "eddy info: %s", cli_output);
        CHECK(cli_run(dir, "") == 2, "eddy without a command should exit 2");
    }
    cli_cleanup(dir);
    return check_finish(full ? "validate_cli_default" : "cli_default");
}
