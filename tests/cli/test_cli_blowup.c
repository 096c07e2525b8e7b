/* A simulation that blows up exits with code 1, the message names the stage and the step, and what was written
 * before stays valid: the frames read back as pictures and the video (with ffmpeg) is finished.
 * The blow-up: vorticity confinement is an explicit force; with epsilon = 1000 and a fixed step of 1 s it
 * multiplies the vortex's speed many times each step until the floats overflow, within about ten steps. */
#include "cli_util.h"

#include "eddy/io.h"

int main(void) {
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    CHECK(cli_write(dir, "blow.json",
                    "{\"grid\": [16, 16], \"dt\": 1, \"duration\": 40, \"vorticity\": 1000, \"output\": {\"fps\": 1},"
                    " \"splats\": [{\"position\": [0.3, 0.5], \"velocity\": [0, 1], \"dye\": [1, 0, 0], \"radius\": 0.1}]}"),
          "write scene");
    int rc = cli_run(dir, "run blow.json --stats s.jsonl");
    CHECK(rc == 1, "exit %d, expected 1:\n%s", rc, cli_output);
    CHECK(strstr(cli_output, "simulation error") && strstr(cli_output, "after stage '") && strstr(cli_output, "in step "),
          "the message should name the stage and the step:\n%s", cli_output);
    CHECK(cli_exists(dir, "out/frame_00001.png"), "no frame was written before the blow-up");
    CHECK(!cli_exists(dir, "out/frame_00040.png"), "the run did not stop");
    int frames = 0;
    for (int k = 1; k <= 40; k++) {
        char name[64], path[8400], msg[256];
        snprintf(name, sizeof name, "out/frame_%05d.png", k);
        if (!cli_exists(dir, name)) break;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        eddy_image img = {0};
        CHECK(eddy_png_read(path, &img, msg, sizeof msg) == EDDY_OK, "%s is not a valid picture: %s", name, msg);
        eddy_image_free(&img);
        frames++;
    }
    if (cli_have_ffmpeg()) CHECK(cli_file_size(dir, "out/video.mp4") > 0, "the video of the %d frames was not finished", frames);
    cli_cleanup(dir);
    return check_finish("cli_blowup");
}
