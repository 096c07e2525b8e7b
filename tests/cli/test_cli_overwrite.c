/* Nothing the user had is overwritten without --force: an existing --stats file (even the scene file itself) is
 * refused; --force replaces an earlier run in the folder by removing the files the command itself wrote there (and
 * nothing else), so that the folder never holds two runs spliced together. */
#include "cli_util.h"

#define MIN_SCENE "{\"grid\": [16, 16]}"

int main(void) {
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    /* each part runs its own copy of the scene, so that one part's failure does not spill into the next */
    CHECK(cli_write(dir, "victim.json", MIN_SCENE) && cli_write(dir, "min.json", MIN_SCENE), "cannot write the scenes");

    /* --stats naming an existing file: refused, the file untouched, no folder made */
    int rc = cli_run_limited(dir, 60, "run victim.json --no-video --quiet --frames 1 --out d3 --stats victim.json");
    CHECK(rc == 2 && strstr(cli_output, "--stats victim.json: the file exists") && strstr(cli_output, "--force"),
          "--stats onto the scene file: exit %d:\n%s", rc, cli_output);
    char *text = cli_read(dir, "victim.json", NULL);
    CHECK(text && !strcmp(text, MIN_SCENE), "the scene file was overwritten: %.80s", text ? text : "(gone)");
    free(text);
    CHECK(!cli_exists(dir, "d3"), "a refused --stats left the output folder behind");
    /* with --force it is overwritten, as asked */
    CHECK(cli_write(dir, "old.jsonl", "old\n"), "cannot write old.jsonl");
    rc = cli_run_limited(dir, 60, "run min.json --no-video --quiet --frames 1 --out d4 --stats old.jsonl --force");
    CHECK(rc == 0, "--stats with --force: exit %d:\n%s", rc, cli_output);
    text = cli_read(dir, "old.jsonl", NULL);
    CHECK(text && !strncmp(text, "{\"step\":1,", 10), "--force did not write the stats: %.80s", text ? text : "(gone)");
    free(text);

    /* a stats file that cannot be opened: the folders made for the run (n1/n2) are removed again */
    rc = cli_run_limited(dir, 60, "run min.json --no-video --quiet --frames 1 --out n1/n2 --stats n1/n2/no/s.jsonl");
    CHECK(rc == 2 && strstr(cli_output, "cannot open for writing: No such file or directory"), "--stats in a missing folder: exit %d:\n%s",
          rc, cli_output);
    CHECK(!cli_exists(dir, "n1"), "a stats file that cannot be opened left the new folders behind");

    /* --force over an earlier, longer run: its frames, checkpoints and dumps go; the user's own files stay */
    rc = cli_run_limited(dir, 60, "run min.json --no-video --quiet --frames 4 --out f --checkpoint 1 --dump 2");
    CHECK(rc == 0, "first run: exit %d:\n%s", rc, cli_output);
    CHECK(cli_write(dir, "f/keep.txt", "mine") && cli_write(dir, "f/frame_1.png", "mine") && cli_write(dir, "f/other.mp4", "mine") &&
              cli_write(dir, "f/video.mp4", "an earlier run's video") && cli_write(dir, "f/dump_00004/notes.txt", "mine"),
          "cannot write the user's files");
    rc = cli_run_limited(dir, 60, "run min.json --no-video --quiet --frames 1 --out f --force");
    CHECK(rc == 0, "--force run: exit %d:\n%s", rc, cli_output);
    static const char *const gone[] = {"f/frame_00002.png", "f/frame_00004.png", "f/checkpoint_00001.eddy", "f/checkpoint_00003.eddy",
                                       "f/dump_00002", "f/dump_00004/u.npy", "f/dump_00004/dye.npy", "f/video.mp4"};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        CHECK(!cli_exists(dir, gone[i]), "--force left the earlier run's %s", gone[i]);
    static const char *const kept[] = {"f/frame_00001.png", "f/keep.txt", "f/frame_1.png", "f/other.mp4", "f/dump_00004/notes.txt"};
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) CHECK(cli_exists(dir, kept[i]), "--force removed %s", kept[i]);
    /* nothing is left to resume into: the earlier run's checkpoints are gone, so resume cannot splice two runs */
    rc = cli_run_limited(dir, 60, "resume f/checkpoint_00002.eddy --quiet");
    CHECK(rc == 2, "resume of a removed checkpoint: exit %d:\n%s", rc, cli_output);

    cli_cleanup(dir);
    return check_finish("cli_overwrite");
}
