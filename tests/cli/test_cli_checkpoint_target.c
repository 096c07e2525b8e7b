/* A checkpoint is written under a temporary name and renamed onto its path; what already sits at that path in the
 * run folder and is not a regular file (a symbolic link, a directory, a FIFO) is refused, named with its kind, and
 * left exactly as it was: a link keeps pointing at its file (which keeps its bytes), a directory keeps its files, a
 * FIFO stays a FIFO; no temporary file is left beside it. A regular file there is replaced, as before. Checked on
 * checkpoint_save itself and through `eddy resume`, which reports it and stops. */
#include "cli_util.h"

#include "checkpoint.h"

#include <sys/types.h>

#define MIN_SCENE "{\"grid\": [16, 16]}"

/* the names in folder `dir`, sorted, one per line ("" when empty) */
static void list_folder(const char *dir, char *out, size_t size) {
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "cd '%s' && ls -A | sort", dir);
    cli_shell(cmd);
    size_t n = strlen(cli_output) < size ? strlen(cli_output) : size - 1;
    memcpy(out, cli_output, n);
    out[n] = '\0';
}

static bool is_link_to(const char *path, const char *target) {
    char got[4200];
    ssize_t n = readlink(path, got, sizeof got - 1);
    if (n < 0) return false;
    got[n] = '\0';
    return !strcmp(got, target);
}

static bool has_type(const char *path, mode_t type) {
    struct stat sb;
    return lstat(path, &sb) == 0 && (sb.st_mode & S_IFMT) == type;
}

/* checkpoint_save onto each kind of non-regular file in folder `run` */
static void refused_by_checkpoint_save(const char *dir) {
    char run[4200], path[4300], msg[1024], before[4096], after[4096];
    snprintf(run, sizeof run, "%s/direct", dir);
    CHECK(mkdir(run, 0755) == 0, "cannot make %s", run);
    CHECK(cli_write(dir, "direct/victim.txt", "mine"), "cannot write the victim file");
    eddy_sim_def def = eddy_sim_def_default();
    def.grid[0] = def.grid[1] = 16;
    eddy_sim *sim = NULL;
    CHECK(eddy_sim_create(&def, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
    if (!sim) return;

    /* a symbolic link to the user's file */
    snprintf(path, sizeof path, "%s/link.eddy", run);
    CHECK(symlink("victim.txt", path) == 0, "cannot make the link");
    list_folder(run, before, sizeof before);
    msg[0] = '\0';
    bool ok = checkpoint_save(path, sim, "{}", msg, sizeof msg);
    CHECK(!ok && strstr(msg, path) && strstr(msg, "it exists and is a symbolic link, not a regular file"),
          "checkpoint onto a symbolic link: %s: %s", ok ? "written" : "refused", msg);
    CHECK(is_link_to(path, "victim.txt"), "the symbolic link was replaced");
    char *text = cli_read(dir, "direct/victim.txt", NULL);
    CHECK(text && !strcmp(text, "mine"), "the linked file changed: %.40s", text ? text : "(gone)");
    free(text);
    list_folder(run, after, sizeof after);
    CHECK(!strcmp(before, after), "the folder changed from\n%s\nto\n%s", before, after);

    /* a directory holding a file */
    snprintf(path, sizeof path, "%s/folder.eddy", run);
    CHECK(mkdir(path, 0755) == 0 && cli_write(dir, "direct/folder.eddy/inside.txt", "mine"), "cannot make the folder");
    list_folder(run, before, sizeof before);
    msg[0] = '\0';
    ok = checkpoint_save(path, sim, "{}", msg, sizeof msg);
    CHECK(!ok && strstr(msg, path) && strstr(msg, "it exists and is a directory (a folder), not a regular file"),
          "checkpoint onto a directory: %s: %s", ok ? "written" : "refused", msg);
    text = cli_read(dir, "direct/folder.eddy/inside.txt", NULL);
    CHECK(has_type(path, S_IFDIR) && text && !strcmp(text, "mine"), "the directory or its file changed");
    free(text);
    list_folder(run, after, sizeof after);
    CHECK(!strcmp(before, after), "the folder changed from\n%s\nto\n%s", before, after);

    /* a FIFO (a reader waiting on it would otherwise lose it) */
    snprintf(path, sizeof path, "%s/fifo.eddy", run);
    CHECK(mkfifo(path, 0644) == 0, "cannot make the FIFO");
    list_folder(run, before, sizeof before);
    msg[0] = '\0';
    ok = checkpoint_save(path, sim, "{}", msg, sizeof msg);
    CHECK(!ok && strstr(msg, path) && strstr(msg, "it exists and is a device, pipe or socket, not a regular file"),
          "checkpoint onto a FIFO: %s: %s", ok ? "written" : "refused", msg);
    CHECK(has_type(path, S_IFIFO), "the FIFO was replaced");
    list_folder(run, after, sizeof after);
    CHECK(!strcmp(before, after), "the folder changed from\n%s\nto\n%s", before, after);

    /* a regular file: replaced by the checkpoint, as before */
    CHECK(cli_write(dir, "direct/plain.eddy", "old"), "cannot write plain.eddy");
    snprintf(path, sizeof path, "%s/plain.eddy", run);
    msg[0] = '\0';
    ok = checkpoint_save(path, sim, "{}", msg, sizeof msg);
    uint8_t *data = NULL;
    size_t len = 0;
    checkpoint_view view;
    CHECK(ok && checkpoint_read_file(path, &data, &len, msg, sizeof msg) && checkpoint_parse(data, len, true, &view, msg, sizeof msg),
          "checkpoint onto a regular file: %s", msg);
    free(data);
    eddy_sim_destroy(sim);
}

int main(void) {
    umask(022);
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    refused_by_checkpoint_save(dir);

    /* through the command: a run stopped at frame 2, resumed with a link where frame 4's checkpoint goes */
    CHECK(cli_write(dir, "min.json", MIN_SCENE) && cli_write(dir, "victim.txt", "mine"), "cannot write the files");
    int rc = cli_run_limited(dir, 60, "run min.json --no-video --quiet --frames 6 --checkpoint 2 --stop-at 2 --out r");
    CHECK(rc == 0 && cli_exists(dir, "r/checkpoint_00002.eddy"), "run: exit %d:\n%s", rc, cli_output);
    char link[4200];
    snprintf(link, sizeof link, "%s/r/checkpoint_00004.eddy", dir);
    CHECK(symlink("../victim.txt", link) == 0, "cannot make the link");
    rc = cli_run_limited(dir, 60, "resume r/checkpoint_00002.eddy --quiet");
    CHECK(rc != 0 && strstr(cli_output, "/r/checkpoint_00004.eddy': it exists and is a symbolic link, not a regular file"),
          "resume onto a linked checkpoint path: exit %d:\n%s", rc, cli_output);
    CHECK(is_link_to(link, "../victim.txt"), "the symbolic link in the run folder was replaced");
    char *text = cli_read(dir, "victim.txt", NULL);
    CHECK(text && !strcmp(text, "mine"), "the linked file changed: %.40s", text ? text : "(gone)");
    free(text);

    cli_cleanup(dir);
    return check_finish("cli_checkpoint_target");
}
