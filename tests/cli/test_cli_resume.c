/* A run stopped at a checkpoint and resumed ends with the same bytes as a run that never stopped: field dumps,
 * the last picture, the video, and the stats (apart from timings). The uninterrupted run uses 2 threads and the
 * stopped one 1 thread: results must not depend on the thread count either. The scene exercises everything a checkpoint
 * must carry: random splats (generator state), timed splats, splat paths, emitters and an obstacle on a path. */
#include "cli_util.h"

#include <cjson/cJSON.h>

#define SCENE                                                                                                   \
    "run --scene default --set grid=[48,27] --frames 8 --dump 4 --quiet "                             \
    "--set 'obstacles=[{\"shape\":\"circle\",\"radius\":0.06,\"path\":{\"type\":\"circle\",\"center\":[0.9,0.5]," \
    "\"radius\":0.15,\"period\":0.5}}]' "                                                                          \
    "--set random_splats.rate=40 --set random_splats.start=0 "

/* every key of each stats line except the timings */
static bool same_stats(const char *a, const char *b, int *lines) {
    *lines = 0;
    while (*a && *b) {
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        if (!ea || !eb) return false;
        cJSON *ja = cJSON_ParseWithLength(a, (size_t)(ea - a)), *jb = cJSON_ParseWithLength(b, (size_t)(eb - b));
        bool ok = ja && jb;
        if (ok) {
            cJSON_DeleteItemFromObject(ja, "step_ms");
            cJSON_DeleteItemFromObject(ja, "stage_ms");
            cJSON_DeleteItemFromObject(jb, "step_ms");
            cJSON_DeleteItemFromObject(jb, "stage_ms");
            ok = cJSON_Compare(ja, jb, 1);
        }
        cJSON_Delete(ja);
        cJSON_Delete(jb);
        if (!ok) return false;
        (*lines)++;
        a = ea + 1;
        b = eb + 1;
    }
    return *a == '\0' && *b == '\0';
}

int main(void) {
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    int rc = cli_run(dir, SCENE "--out whole --stats whole.jsonl --threads 2");
    CHECK(rc == 0, "whole run: exit %d:\n%s", rc, cli_output);
    rc = cli_run(dir, SCENE "--out parts --stats parts.jsonl --checkpoint 2 --stop-at 5 --threads 1");
    CHECK(rc == 0, "stopped run: exit %d:\n%s", rc, cli_output);
    CHECK(cli_exists(dir, "parts/checkpoint_00002.eddy") && cli_exists(dir, "parts/checkpoint_00004.eddy") &&
              cli_exists(dir, "parts/checkpoint_00005.eddy"),
          "checkpoints every 2 frames and at the stop are missing");
    CHECK(!cli_exists(dir, "parts/frame_00006.png"), "--stop-at 5 went on");
    /* resume from an earlier checkpoint than the last: frames 5.. are written again, the stats file is cut back */
    rc = cli_run(dir, "resume parts/checkpoint_00004.eddy --quiet");
    CHECK(rc == 0, "resume: exit %d:\n%s", rc, cli_output);
    static const char *const files[] = {"dump_00004/u.npy", "dump_00004/v.npy", "dump_00004/pressure.npy",
                                        "dump_00004/dye.npy", "dump_00004/temperature.npy", "dump_00008/u.npy",
                                        "dump_00008/v.npy", "dump_00008/pressure.npy", "dump_00008/dye.npy",
                                        "dump_00008/temperature.npy", "frame_00008.png", "frame_00006.png"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char a[4200], b[4200];
        snprintf(a, sizeof a, "%s/whole", dir);
        snprintf(b, sizeof b, "%s/parts", dir);
        CHECK(cli_same_file(a, b, files[i]), "%s differs between the whole and the resumed run", files[i]);
    }
    if (cli_have_ffmpeg()) {
        CHECK(cli_file_size(dir, "parts/default.mp4") > 0, "the resumed run wrote no video");
        /* the resumed video holds all 8 frames: it is as long as the whole run's (the encoder is deterministic) */
        char a[4200], b[4200];
        snprintf(a, sizeof a, "%s/whole", dir);
        snprintf(b, sizeof b, "%s/parts", dir);
        CHECK(cli_same_file(a, b, "default.mp4"), "the resumed video differs from the whole run's");
    }
    char *sa = cli_read(dir, "whole.jsonl", NULL), *sb = cli_read(dir, "parts.jsonl", NULL);
    int lines = 0;
    CHECK(sa && sb && same_stats(sa, sb, &lines), "the stats of the resumed run differ (after %d equal lines)", lines);
    CHECK(lines > 8, "only %d stats lines for 8 frames", lines);
    free(sa);
    free(sb);
    /* resuming again from an earlier checkpoint gives the same bytes once more */
    rc = cli_run(dir, "resume parts/checkpoint_00002.eddy --quiet --stats two.jsonl");
    CHECK(rc == 0, "second resume: exit %d:\n%s", rc, cli_output);
    {
        char a[4200], b[4200];
        snprintf(a, sizeof a, "%s/whole", dir);
        snprintf(b, sizeof b, "%s/parts", dir);
        CHECK(cli_same_file(a, b, "dump_00008/dye.npy"), "a second resume from an earlier checkpoint differs");
    }
    /* a damaged checkpoint is refused with exit 2 */
    size_t n = 0;
    char *ck = cli_read(dir, "parts/checkpoint_00002.eddy", &n);
    if (ck && n > 100) {
        ck[n / 2] ^= 0x20;
        char path[4200];
        snprintf(path, sizeof path, "%s/damaged.eddy", dir);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(ck, 1, n, f);
            fclose(f);
        }
        rc = cli_run(dir, "resume damaged.eddy");
        CHECK(rc == 2 && strstr(cli_output, "corrupt"), "a damaged checkpoint: exit %d:\n%s", rc, cli_output);
        snprintf(path, sizeof path, "%s/short.eddy", dir);
        f = fopen(path, "wb");
        if (f) {
            fwrite(ck, 1, n - 9, f);
            fclose(f);
        }
        rc = cli_run(dir, "resume short.eddy");
        CHECK(rc == 2, "a truncated checkpoint: exit %d:\n%s", rc, cli_output);
    }
    free(ck);
    cli_cleanup(dir);
    return check_finish("cli_resume");
}
