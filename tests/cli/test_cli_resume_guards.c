/* What `eddy resume` refuses instead of writing something wrong: a run's stats file that is now shorter than the
 * checkpoint recorded (it was padded with NUL bytes), a missing one, an existing --stats file without --force, a
 * checkpoint whose stored scene does not match its simulation state; and a video it cannot rebuild is an error
 * (exit 1), not a success. */
#include "cli_util.h"

#include "checkpoint.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>

#define MIN_SCENE "{\"grid\": [16, 16]}"

/* A copy of checkpoint `from` with the stored scene's grid set to [gx, gy], hashed again so that only the mismatch is
 * wrong with it. */
static bool write_mismatched(const char *dir, const char *from, const char *to, int gx, int gy) {
    size_t n = 0;
    char *data = cli_read(dir, from, &n);
    checkpoint_view view;
    char err[256];
    bool ok = data && checkpoint_parse((const uint8_t *)data, n, true, &view, err, sizeof err);
    cJSON *state = ok ? cJSON_ParseWithLength(view.json, view.json_len) : NULL;
    cJSON *scene = cJSON_GetObjectItemCaseSensitive(state, "scene");
    ok = ok && cJSON_IsObject(scene);
    char *json = NULL;
    if (ok) {
        int grid[2] = {gx, gy};
        cJSON_ReplaceItemInObjectCaseSensitive(scene, "grid", cJSON_CreateIntArray(grid, 2));
        json = cJSON_PrintUnformatted(state);
        ok = json != NULL;
    }
    if (ok) {
        size_t jl = strlen(json), total = 28 + jl + view.state_len + 8;
        uint8_t *buf = (uint8_t *)malloc(total);
        ok = buf != NULL;
        if (ok) {
            memcpy(buf, data, 12); /* magic and version */
            for (int i = 0; i < 8; i++) buf[12 + i] = (uint8_t)((uint64_t)jl >> (8 * i));
            for (int i = 0; i < 8; i++) buf[20 + i] = (uint8_t)((uint64_t)view.state_len >> (8 * i));
            memcpy(buf + 28, json, jl);
            memcpy(buf + 28 + jl, view.state, view.state_len);
            uint64_t h = checkpoint_hash(buf, total - 8);
            for (int i = 0; i < 8; i++) buf[total - 8 + i] = (uint8_t)(h >> (8 * i));
            char path[8400];
            snprintf(path, sizeof path, "%s/%s", dir, to);
            FILE *f = fopen(path, "wb");
            ok = f && fwrite(buf, 1, total, f) == total;
            if (f && fclose(f) != 0) ok = false;
        }
        free(buf);
    }
    cJSON_free(json);
    cJSON_Delete(state);
    free(data);
    return ok;
}

int main(void) {
    umask(022);
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    CHECK(cli_write(dir, "min.json", MIN_SCENE) && cli_write(dir, "victim.json", MIN_SCENE), "cannot write the scenes");
    int rc = cli_run_limited(dir, 60, "run min.json --no-video --quiet --frames 4 --out r1 --checkpoint 2 --stats r1.jsonl");
    CHECK(rc == 0, "run: exit %d:\n%s", rc, cli_output);
    /* checkpoints are written through unique temporary names beside them (mkstemp): none is left over; the file is
     * as readable as the frames (0644 under umask 022, set in main), not mkstemp's 0600 */
    {
        char cmd[8400];
        snprintf(cmd, sizeof cmd, "cd '%s/r1' && ls -A | grep -v -E '^(frame_0000[1-4][.]png|checkpoint_0000[24][.]eddy)$'", dir);
        rc = cli_shell(cmd);
        CHECK(rc == 1 && !cli_output[0], "the run folder holds more than frames and checkpoints:\n%s", cli_output);
        snprintf(cmd, sizeof cmd, "stat -c %%a '%s/r1/checkpoint_00002.eddy'", dir);
        rc = cli_shell(cmd);
        CHECK(rc == 0 && !strcmp(cli_output, "644\n"), "checkpoint mode %s, expected 644", cli_output);
    }

    /* the run's stats file emptied since the checkpoint: refused, and not padded */
    CHECK(cli_write(dir, "r1.jsonl", ""), "cannot empty r1.jsonl");
    rc = cli_run_limited(dir, 60, "resume r1/checkpoint_00002.eddy --quiet");
    CHECK(rc == 2 && strstr(cli_output, "r1.jsonl has 0 bytes, fewer than the") && strstr(cli_output, "--stats FILE"),
          "resume onto a shortened stats file: exit %d:\n%s", rc, cli_output);
    CHECK(cli_file_size(dir, "r1.jsonl") == 0, "the shortened stats file was changed to %ld bytes", cli_file_size(dir, "r1.jsonl"));
    /* removed: the reason is given */
    char path[8400];
    snprintf(path, sizeof path, "%s/r1.jsonl", dir);
    CHECK(remove(path) == 0, "cannot remove r1.jsonl");
    rc = cli_run_limited(dir, 60, "resume r1/checkpoint_00002.eddy --quiet");
    CHECK(rc == 2 && strstr(cli_output, "r1.jsonl cannot be continued: No such file or directory"),
          "resume with the stats file gone: exit %d:\n%s", rc, cli_output);
    /* --stats onto an existing file: refused without --force */
    rc = cli_run_limited(dir, 60, "resume r1/checkpoint_00002.eddy --quiet --stats victim.json");
    CHECK(rc == 2 && strstr(cli_output, "--stats victim.json: the file exists"), "resume --stats onto a file: exit %d:\n%s", rc,
          cli_output);
    char *text = cli_read(dir, "victim.json", NULL);
    CHECK(text && !strcmp(text, MIN_SCENE), "resume overwrote victim.json");
    free(text);
    CHECK(cli_write(dir, "again.jsonl", "old\n"), "cannot write again.jsonl");
    rc = cli_run_limited(dir, 60, "resume r1/checkpoint_00002.eddy --quiet --stats again.jsonl --force");
    CHECK(rc == 0 && cli_file_size(dir, "again.jsonl") > 100, "resume --stats --force: exit %d:\n%s", rc, cli_output);

    /* a stored scene of another grid than the stored state: corrupt */
    CHECK(write_mismatched(dir, "r1/checkpoint_00002.eddy", "g32.eddy", 32, 32), "cannot write the mismatched checkpoint");
    rc = cli_run_limited(dir, 60, "resume g32.eddy --quiet --stats g32.jsonl");
    CHECK(rc == 2 && strstr(cli_output, "checkpoint g32.eddy is corrupt") && strstr(cli_output, "[32, 32]") &&
              strstr(cli_output, "[16, 16]"),
          "a scene grid [32, 32] over a 16 x 16 state: exit %d:\n%s", rc, cli_output);
    /* the same bytes with the right grid are taken: the check looks at the grid, not at the rewriting */
    CHECK(write_mismatched(dir, "r1/checkpoint_00002.eddy", "g16.eddy", 16, 16), "cannot write the rewritten checkpoint");
    rc = cli_run_limited(dir, 60, "resume g16.eddy --quiet --stats g16.jsonl");
    CHECK(rc == 0, "a rewritten checkpoint with the right grid: exit %d:\n%s", rc, cli_output);

    /* the video cannot be rebuilt (an earlier frame is gone): exit 1, the frames kept */
    if (cli_have_ffmpeg()) {
        rc = cli_run_limited(dir, 60, "run min.json --quiet --frames 4 --out v1 --stop-at 2");
        CHECK(rc == 0, "run to be resumed: exit %d:\n%s", rc, cli_output);
        snprintf(path, sizeof path, "%s/v1/frame_00001.png", dir);
        CHECK(remove(path) == 0, "cannot remove frame 1");
        rc = cli_run_limited(dir, 60, "resume v1/checkpoint_00002.eddy --quiet");
        CHECK(rc == 1 && strstr(cli_output, "no video") && strstr(cli_output, "frame_00001.png") && !strstr(cli_output, "wrote"),
              "resume without the video: exit %d:\n%s", rc, cli_output);
        CHECK(cli_exists(dir, "v1/frame_00004.png") && !cli_exists(dir, "v1/video.mp4"), "the frames are not kept, or a video appeared");
    } else {
        printf("cli_resume_guards: ffmpeg not found, the video check is skipped\n");
    }
    cli_cleanup(dir);
    return check_finish("cli_resume_guards");
}
