/* Video through ffmpeg: an MP4 of odd-sized frames (padded to even) and a GIF are written and probed with ffprobe
 * for size and frame count; a missing ffmpeg says how to install it; a failing ffmpeg leaves no file under the
 * final name. Shell scripts standing in for ffmpeg check that the process watching ffmpeg shares none of the
 * caller's memory, the outcome with SIGCHLD ignored or reaped by a handler of the host, the descriptors ffmpeg and
 * other children inherit, ffmpeg not exiting after its input ends, how exit statuses and signals are reported, and
 * an ffmpeg that cannot be reaped after SIGKILL. The checks that need the real ffmpeg are skipped, with the reason
 * printed, when it is not installed. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "test_util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* writes an executable script `name` into `dir`; its path goes to `out` */
static int write_script(const char *dir, const char *name, const char *body, char *out, size_t out_size) {
    snprintf(out, out_size, "%s/%s", dir, name);
    FILE *f = fopen(out, "w");
    int ok = f && fputs(body, f) >= 0;
    if (f && fclose(f) != 0) ok = 0;
    return ok && chmod(out, 0755) == 0;
}

/* the whole of a small text file ("" when unreadable) */
static void read_text(const char *path, char *out, size_t size) {
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t got = fread(out, 1, size - 1, f);
    out[got] = '\0';
    fclose(f);
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* writes the stand-in copying_ffmpeg.sh (its raw input becomes its output file, the last argument) into `dir` */
static int write_copier(const char *dir, char *out, size_t out_size) {
    return write_script(dir, "copying_ffmpeg.sh",
                        "#!/bin/sh\n# stand-in for ffmpeg: the raw frames are the video\nfor out; do :; done\n"
                        "exec cat > \"$out\"\n",
                        out, out_size);
}

/* a host's SIGCHLD handler that reaps every child, the video's watcher included */
static void reap_every_child(int sig) {
    (void)sig;
    const int saved = errno;
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    errno = saved;
}

/* With SIGCHLD ignored the kernel reaps the caller's children itself, so waitpid cannot give ffmpeg's exit status
 * (ECHILD); a host whose SIGCHLD handler reaps every child (waitpid(-1, ...)) takes it first too. The outcome must
 * still follow that status: a program that writes its output and exits 0 gives the video (it used to be reported
 * as "waiting for ffmpeg failed: No child processes"), one that exits 1 does not, and the caller's SIGCHLD
 * disposition is left as it was. */
static void check_sigchld(const char *dir, const eddy_image *img, int reaped_by_handler) {
    const char *how = reaped_by_handler ? "SIGCHLD reaped by the host" : "SIGCHLD ignored";
    char copier[600], path[600], msg[512];
    CHECK(write_copier(dir, copier, sizeof copier), "cannot write %s", copier);
    struct sigaction host, before, during;
    memset(&host, 0, sizeof host);
    host.sa_handler = reaped_by_handler ? reap_every_child : SIG_IGN;
    host.sa_flags = reaped_by_handler ? SA_RESTART | SA_NOCLDSTOP : 0;
    sigemptyset(&host.sa_mask);
    sigaction(SIGCHLD, &host, &before);

    eddy_video_def def = eddy_video_def_default();
    def.width = img->width, def.height = img->height, def.ffmpeg = copier;
    snprintf(path, sizeof path, "%s/sigchld_%d.raw", dir, reaped_by_handler);
    eddy_video *v = NULL;
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    for (int f = 0; f < 3 && v; f++) CHECK(eddy_video_write(v, img) == EDDY_OK, "%s", eddy_video_last_error(v));
    if (v) CHECK(eddy_video_close(v, msg, sizeof msg) == EDDY_OK, "%s, program exited 0: %s", how, msg);
    CHECK(file_size(path) == 3L * img->width * img->height * 4, "the video is in place: %ld bytes", file_size(path));

    def.ffmpeg = "false";
    snprintf(path, sizeof path, "%s/sigchld_%d_failed.raw", dir, reaped_by_handler);
    v = NULL;
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    if (v) {
        eddy_video_write(v, img); /* may already fail: `false` does not read */
        CHECK(eddy_video_close(v, msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "false exited with status 1"),
              "%s, program exited 1: %s", how, msg);
    }
    CHECK(file_size(path) < 0, "no video from a program that exited 1");
    sigaction(SIGCHLD, &before, &during);
    CHECK(during.sa_handler == host.sa_handler, "the caller's SIGCHLD disposition is left as it was");
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary files left");
}

/* Private_Dirty of process `pid` in kB from /proc/PID/smaps_rollup (-1 when unreadable: it has exited) */
static long private_dirty_kb(long pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/smaps_rollup", pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    while (f && kb < 0 && fgets(line, sizeof line, f))
        if (strncmp(line, "Private_Dirty:", 14) == 0) kb = atol(line + 14);
    if (f) fclose(f);
    return kb;
}

/* the pids of this process's children (from each /proc/PID/stat's parent pid), at most `max` */
static int children_of_self(long *pids, int max) {
    DIR *proc = opendir("/proc");
    int n = 0;
    for (struct dirent *e; proc && n < max && (e = readdir(proc)) != NULL;) {
        char path[300], text[1024];
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        read_text(path, text, sizeof text);
        const char *after_name = strrchr(text, ')'); /* the name in parentheses may hold spaces and parentheses */
        char state;
        long ppid = 0;
        if (after_name && sscanf(after_name + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)getpid())
            pids[n++] = atol(e->d_name);
    }
    if (proc) closedir(proc);
    return n;
}

/* The process that watches ffmpeg must share none of the caller's memory: a fork of the caller alive for the whole
 * video (as the watcher once was) keeps every page copy-on-write, so each page the caller writes afterwards is
 * copied, and a simulation with 10 GB of fields needed 20 GB. Here the caller touches 64 MiB, opens a video (a
 * stand-in that reads its input), writes the 64 MiB again, and no child of the caller may then hold more than 8 MiB
 * of Private_Dirty memory (a fork held all 64 MiB; a shell holds some hundreds of kB). */
static void check_watcher_memory(const char *dir, const eddy_image *img) {
    if (access("/proc/self/smaps_rollup", R_OK) != 0) {
        printf("test_io_video: watcher memory checks skipped: no /proc/self/smaps_rollup (Linux 4.14)\n");
        return;
    }
    enum { MIB = 64, MAX_CHILDREN = 64 };
    const long limit_kb = 8 * 1024;
    char copier[600], path[600], msg[512];
    CHECK(write_copier(dir, copier, sizeof copier), "cannot write %s", copier);
    const size_t size = (size_t)MIB << 20, step = 512; /* every page written, whatever the page size */
    volatile unsigned char *block = malloc(size);      /* volatile: the stores are not optimised away */
    CHECK(block != NULL, "cannot allocate %d MiB", MIB);
    if (!block) return;
    for (size_t i = 0; i < size; i += step) block[i] = 1;

    eddy_video_def def = eddy_video_def_default();
    def.width = img->width, def.height = img->height, def.ffmpeg = copier;
    snprintf(path, sizeof path, "%s/watcher_memory.raw", dir);
    eddy_video *v = NULL;
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(v && eddy_video_write(v, img) == EDDY_OK, "%s", v ? eddy_video_last_error(v) : "no video");
    for (size_t i = 0; i < size; i += step) block[i] = 2; /* the host goes on with its fields */

    long pids[MAX_CHILDREN];
    const int n = children_of_self(pids, MAX_CHILDREN);
    int measured = 0;
    for (int k = 0; k < n; k++) {
        const long kb = private_dirty_kb(pids[k]);
        if (kb < 0) continue;
        measured++;
        CHECK(kb <= limit_kb, "child %ld of the caller holds %ld kB of Private_Dirty memory after the caller wrote "
              "%d MiB again with a video open (at most %ld kB expected: the watcher shares the caller's memory?)",
              pids[k], kb, MIB, limit_kb);
    }
    CHECK(measured >= 1, "the open video's watcher was measured (%d children, %d measured)", n, measured);
    if (v) CHECK(eddy_video_close(v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(file_size(path) == (long)img->width * img->height * 4, "the video is in place: %ld bytes", file_size(path));
    free((void *)block);
}

/* the numbers in a listing of /proc/PID/fd (one per line) */
static int read_fd_listing(const char *path, int *fds, int max) {
    FILE *f = fopen(path, "r");
    int n = 0, fd;
    while (f && n < max && fscanf(f, "%d", &fd) == 1) fds[n++] = fd;
    if (f) fclose(f);
    return n;
}

/* Descriptors: every descriptor an open video holds is close-on-exec, so a child the host starts meanwhile does
 * not inherit it (the log file used to be inherited), and ffmpeg itself is given only stdin, stdout and stderr
 * (not the log, nor the sockets between it and the library, nor the host's own descriptors opened without
 * close-on-exec). */
static void check_descriptors(const char *dir, const eddy_image *img) {
    if (access("/proc/self/fd", R_OK) != 0) {
        printf("test_io_video: descriptor checks skipped: no /proc/self/fd\n");
        return;
    }
    enum { MAX_FD = 1024 };
    char lister[600], path[600], listing[600], cmd[1400], msg[512];
    /* lists the descriptors of a shell as its output (`ls` in a child, so that ls's own are not listed; `exec >`
     * redirects without the copy of stdout a shell keeps for `ls > file`) */
    CHECK(write_script(dir, "fd_listing_ffmpeg.sh",
                       "#!/bin/sh\n# stand-in for ffmpeg: takes all frames, then writes as its video the descriptors "
                       "it was given\nfor out; do :; done\ncat > /dev/null\n"
                       "exec /bin/sh -c 'ls /proc/$$/fd; exit 0' > \"$out\"\n",
                       lister, sizeof lister),
          "cannot write %s", lister);
    const int host_fd = open("/dev/null", O_RDONLY); /* the host's own, not close-on-exec */
    static char open_before[MAX_FD];
    for (int fd = 3; fd < MAX_FD; fd++) open_before[fd] = fcntl(fd, F_GETFD) != -1;

    eddy_video_def def = eddy_video_def_default();
    def.width = img->width, def.height = img->height, def.ffmpeg = lister;
    snprintf(path, sizeof path, "%s/descriptors.txt", dir);
    eddy_video *v = NULL;
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    int video_fds[MAX_FD], n_video = 0;
    for (int fd = 3; fd < MAX_FD; fd++) {
        const int flags = fcntl(fd, F_GETFD);
        if (flags == -1 || open_before[fd]) continue;
        video_fds[n_video++] = fd;
        CHECK(flags & FD_CLOEXEC, "the video's descriptor %d is not close-on-exec", fd);
    }
    CHECK(n_video >= 1, "the open video holds %d descriptors", n_video);

    /* another child started while the video is open */
    snprintf(listing, sizeof listing, "%s/other_child_fds.txt", dir);
    snprintf(cmd, sizeof cmd, "exec > '%s'; ls /proc/$$/fd; exit 0", listing);
    CHECK(system(cmd) == 0, "%s", cmd);
    int child_fds[MAX_FD];
    const int n_child = read_fd_listing(listing, child_fds, MAX_FD);
    CHECK(n_child >= 3, "%d descriptors listed in %s", n_child, listing);
    for (int i = 0; i < n_child; i++)
        for (int k = 0; k < n_video; k++)
            CHECK(child_fds[i] != video_fds[k], "another child of the host inherited the video's descriptor %d",
                  video_fds[k]);

    for (int f = 0; f < 2 && v; f++) CHECK(eddy_video_write(v, img) == EDDY_OK, "%s", eddy_video_last_error(v));
    if (v) CHECK(eddy_video_close(v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    const int n_ffmpeg = read_fd_listing(path, child_fds, MAX_FD);
    CHECK(n_ffmpeg >= 3, "%d descriptors listed by the stand-in in %s", n_ffmpeg, path);
    for (int i = 0; i < n_ffmpeg; i++)
        CHECK(child_fds[i] <= 2, "ffmpeg was given descriptor %d besides stdin, stdout and stderr%s", child_fds[i],
              child_fds[i] == host_fd ? " (the host's own)" : "");
    if (host_fd >= 0) close(host_fd);
}

/* A program that takes every frame but then never exits (here it even ignores SIGTERM): eddy_video_close gives up
 * after finish_seconds (it used to wait forever), kills and reaps the program, names it and the wait, removes the
 * partial output and leaves the file the user had at the path as it was. */
static void check_finish_timeout(const char *dir, const eddy_image *img) {
    char hung[600], path[600], pid_path[640], text[256], msg[768];
    CHECK(write_script(dir, "hung_ffmpeg.sh",
                       "#!/bin/sh\n# stand-in for ffmpeg: takes all frames, then never exits\necho $$ > \"$0.pid\"\n"
                       "trap '' TERM\ncat > /dev/null\nexec sleep 600\n",
                       hung, sizeof hung),
          "cannot write %s", hung);
    snprintf(pid_path, sizeof pid_path, "%s.pid", hung);
    snprintf(path, sizeof path, "%s/hung.mp4", dir);
    const char precious[] = "the user's earlier video";
    CHECK(eddy_file_write(path, precious, strlen(precious), msg, sizeof msg) == EDDY_OK, "%s", msg);

    eddy_video_def def = eddy_video_def_default();
    def.width = img->width, def.height = img->height, def.ffmpeg = hung;
    def.finish_seconds = NAN;
    eddy_video *v = NULL;
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "finish_seconds"),
          "a NaN finish_seconds: %s", msg);
    def.finish_seconds = 0.5f;
    CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
    for (int f = 0; f < 2 && v; f++) CHECK(eddy_video_write(v, img) == EDDY_OK, "%s", eddy_video_last_error(v));
    const struct timespec a_while = {0, 10000000};
    for (int waits = 0; waits < 1000 && file_size(pid_path) <= 0; waits++) nanosleep(&a_while, NULL); /* it runs */
    if (v) {
        const double t0 = seconds_now();
        alarm(10); /* a close that never returns ends the test (SIGALRM) instead of hanging ctest */
        const eddy_status st = eddy_video_close(v, msg, sizeof msg);
        alarm(0);
        const double waited = seconds_now() - t0;
        CHECK(st == EDDY_ERR_IO && strstr(msg, hung) && strstr(msg, "0.5 s") && strstr(msg, "finish_seconds") &&
                  strstr(msg, "hung.mp4"),
              "a program that never exits: %s", msg);
        CHECK(waited >= 0.45 && waited < 3.0, "close gave up after %.2f s (finish_seconds 0.5)", waited);
    }
    read_text(path, text, sizeof text);
    CHECK(strcmp(text, precious) == 0, "the file at the path is as it was: '%s'", text);
    CHECK(count_matching(dir, ".tmp-") == 0, "no partial output left");
    read_text(pid_path, text, sizeof text);
    const long pid = atol(text);
    CHECK(pid > 1 && kill((pid_t)pid, 0) != 0 && errno == ESRCH, "the program (pid %ld) was killed and reaped", pid);
}

/* counts the ticks of the periodic timer of check_stall_limits, and stops it after `tick_limit` of them */
static volatile sig_atomic_t ticks, tick_limit;
static void count_tick(int sig) {
    (void)sig;
    if (++ticks >= tick_limit) {
        const struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
    }
}

/* stall_seconds bounds a write however the host's signals and the frame size fall: a frame larger than the socket's
 * buffer sent to a program that stops reading part-way (send() blocked for the rest without limit: the poll before
 * it only says there is some room), and a host whose periodic timer signal (a profiler's, a game loop's) interrupts
 * the wait more often than stall_seconds (each EINTR started the whole wait again). The big frames are sent under a
 * single timer tick at 8 s, the small ones under one every 50 ms that stops after 8 s: the old code gave up only then. */
static void check_stall_limits(const char *dir) {
    struct sigaction tick, before;
    memset(&tick, 0, sizeof tick);
    tick.sa_handler = count_tick; /* no SA_RESTART: the write sees EINTR */
    sigemptyset(&tick.sa_mask);
    sigaction(SIGALRM, &tick, &before);
    for (int big = 0; big <= 1; big++) {
        char script[600], path[600];
        CHECK(write_script(dir, big ? "reads_a_little.sh" : "reads_nothing.sh",
                           big ? "#!/bin/sh\nhead -c 65536 > /dev/null\nexec sleep 600\n" : "#!/bin/sh\nexec sleep 600\n",
                           script, sizeof script),
              "cannot write %s", script);
        snprintf(path, sizeof path, "%s/stall_limit_%d.mp4", dir, big);
        eddy_video_def def = eddy_video_def_default();
        def.width = big ? 1024 : 33, def.height = big ? 1024 : 17; /* 4 MiB: many times the socket's buffer */
        def.ffmpeg = script, def.stall_seconds = 0.5f;
        eddy_image img = {0};
        char msg[512];
        CHECK(eddy_image_init(&img, def.width, def.height, msg, sizeof msg) == EDDY_OK, "%s", msg);
        eddy_video *v = NULL;
        CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
        if (v && img.rgba) {
            /* the small frames under a tick every 50 ms, the big ones under one tick at 8 s (blocked in send()) */
            ticks = 0, tick_limit = big ? 1 : 160;
            const struct itimerval timer = {{0, big ? 0 : 50000}, {big ? 8 : 0, big ? 0 : 50000}};
            setitimer(ITIMER_REAL, &timer, NULL);
            eddy_status st = EDDY_OK;
            double took = 0;
            for (int f = 0; f < 5000 && st == EDDY_OK; f++) { /* until the socket's buffer is full */
                const double t0 = seconds_now();
                st = eddy_video_write(v, &img);
                took = seconds_now() - t0;
            }
            const struct itimerval off = {{0, 0}, {0, 0}};
            setitimer(ITIMER_REAL, &off, NULL);
            CHECK(st == EDDY_ERR_IO && strstr(eddy_video_last_error(v), "took no data"),
                  "%s: a stalled program under a 50 ms timer: %s", big ? "4 MiB frames" : "small frames",
                  eddy_video_last_error(v));
            CHECK(took >= 0.45 && took < 4.0, "%s: the stalled write gave up after %.2f s (stall_seconds 0.5)",
                  big ? "4 MiB frames" : "small frames", took);
            CHECK(eddy_video_close(v, msg, sizeof msg) == EDDY_ERR_IO, "close after a stalled program: %s", msg);
        } else if (v) {
            eddy_video_abort(v);
        }
        eddy_image_free(&img);
        CHECK(file_size(path) < 0, "no video from a stalled program");
    }
    sigaction(SIGALRM, &before, NULL);
}

/* the number of descriptors this process has open (-1 without /proc) */
static int open_fd_count(void) {
    return count_matching("/proc/self/fd", "") - 2; /* less "." and ".." (and opendir's own, counted in both) */
}

/* How ffmpeg ended, reported without claiming what cannot be known: the watcher is a shell, whose $? is 128 + n
 * both for a death by signal n and for `exit 128+n`, so statuses 129..192 are reported as either ("exited with
 * status 130 (or was killed by signal 2)"), never as a definite signal; other statuses are plain ("exited with
 * status 200"); a program that cannot be executed (here a script whose interpreter does not exist) is the shell's
 * 127 with its message, from the log, naming the program and the problem. */
static void check_exit_or_signal(const char *dir, const eddy_image *img) {
    char usr1[96];
    snprintf(usr1, sizeof usr1, "killed_by_usr1.sh exited with status %d (or was killed by signal %d)", 128 + SIGUSR1,
             SIGUSR1);
    struct {
        const char *name, *body, *expect;
        int plain; /* 1: no signal may be mentioned at all */
    } cases[] = {
        {"exits_130.sh", "#!/bin/sh\ncat > /dev/null\nexit 130\n",
         "exits_130.sh exited with status 130 (or was killed by signal 2)", 0},
        {"exits_192.sh", "#!/bin/sh\ncat > /dev/null\nexit 192\n",
         "exits_192.sh exited with status 192 (or was killed by signal 64)", 0},
        {"exits_200.sh", "#!/bin/sh\ncat > /dev/null\nexit 200\n", "exits_200.sh exited with status 200", 1},
        {"killed_by_usr1.sh", "#!/bin/sh\ncat > /dev/null\nkill -USR1 $$\nsleep 600\n", usr1, 0},
        {"no_interpreter.sh", "#!/nonexistent/interpreter\n", "no_interpreter.sh exited with status 127", 0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char program[600], path[600], expect[128], msg[768];
        CHECK(write_script(dir, cases[c].name, cases[c].body, program, sizeof program), "cannot write %s", program);
        snprintf(expect, sizeof expect, "%s", cases[c].expect);
        eddy_video_def def = eddy_video_def_default();
        def.width = img->width, def.height = img->height, def.ffmpeg = program, def.finish_seconds = 20.0f;
        snprintf(path, sizeof path, "%s/%s.mp4", dir, cases[c].name);
        eddy_video *v = NULL;
        CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
        if (!v) continue;
        eddy_status st = eddy_video_write(v, img);
        if (st == EDDY_OK) st = eddy_video_close(v, msg, sizeof msg);
        else {
            snprintf(msg, sizeof msg, "%s", eddy_video_last_error(v));
            eddy_video_close(v, NULL, 0);
        }
        const char *found = st == EDDY_ERR_IO ? strstr(msg, expect) : NULL;
        const char *after = found ? found + strlen(expect) : "";
        CHECK(found && !(cases[c].plain && strstr(msg, "signal")), "%s: expected '%s'%s in: %s", cases[c].name, expect,
              cases[c].plain ? " and no signal" : "", msg);
        if (strstr(cases[c].name, "no_interpreter"))
            CHECK(strstr(after, "could not be run") && strstr(after, "no_interpreter.sh") &&
                      (strstr(after, "not found") || strstr(after, "No such file")),
                  "the message names the program that could not be run and why: %s", msg);
        CHECK(file_size(path) < 0, "no video from %s", cases[c].name);
    }
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary files left");
}

/* An ffmpeg that is not reaped after SIGKILL (one stuck in the kernel; here its watcher is stopped, which has the
 * same effect: no report ever comes) no longer hangs close or a stalled write, which used to wait for it without
 * limit: after REAP_SECONDS (5 s) they give up and say so, naming the process left behind; nothing is left under
 * the path (the user's file there stays as it was), no temporary file and no descriptor. With SIGCHLD ignored, so
 * that the watcher, once killed, is reaped by the kernel. */
static void check_not_reaped(const char *dir, const eddy_image *img) {
    if (access("/proc/self/fd", R_OK) != 0) {
        printf("test_io_video: unreaped ffmpeg checks skipped: no /proc/self/fd\n");
        return;
    }
    struct sigaction ignore, before;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGCHLD, &ignore, &before);
    const char precious[] = "the user's earlier video";
    for (int stalled = 0; stalled <= 1; stalled++) {
        char program[600], path[600], pid_path[640], text[256], msg[768], pid_text[48];
        /* the finishing one takes every frame first; the stalled one takes none */
        CHECK(write_script(dir, stalled ? "stops_watcher_at_once.sh" : "stops_watcher_at_end.sh",
                           stalled ? "#!/bin/sh\necho $$ > \"$0.pid\"\nkill -STOP $PPID\nexec sleep 600\n"
                                   : "#!/bin/sh\necho $$ > \"$0.pid\"\ncat > /dev/null\nkill -STOP $PPID\n"
                                     "exec sleep 600\n",
                           program, sizeof program),
              "cannot write %s", program);
        snprintf(pid_path, sizeof pid_path, "%s.pid", program);
        snprintf(path, sizeof path, "%s/not_reaped_%d.mp4", dir, stalled);
        CHECK(eddy_file_write(path, precious, strlen(precious), msg, sizeof msg) == EDDY_OK, "%s", msg);
        const int fds_before = open_fd_count();
        eddy_video_def def = eddy_video_def_default();
        def.width = img->width, def.height = img->height, def.ffmpeg = program;
        def.finish_seconds = 0.5f, def.stall_seconds = 0.5f;
        eddy_video *v = NULL;
        CHECK(eddy_video_open(path, &def, &v, msg, sizeof msg) == EDDY_OK, "%s", msg);
        if (!v) continue;
        const struct timespec a_while = {0, 10000000};
        for (int waits = 0; waits < 1000 && file_size(pid_path) <= 0; waits++) nanosleep(&a_while, NULL);
        const double t0 = seconds_now();
        alarm(30); /* a close or write that never returns ends the test (SIGALRM) instead of hanging ctest */
        eddy_status st = EDDY_OK;
        if (stalled) {
            for (int f = 0; f < 5000 && st == EDDY_OK; f++) st = eddy_video_write(v, img);
            snprintf(msg, sizeof msg, "%s", eddy_video_last_error(v));
            eddy_video_close(v, NULL, 0);
        } else {
            for (int f = 0; f < 2 && st == EDDY_OK; f++) st = eddy_video_write(v, img);
            CHECK(st == EDDY_OK, "%s", eddy_video_last_error(v));
            st = eddy_video_close(v, msg, sizeof msg);
        }
        alarm(0);
        const double waited = seconds_now() - t0;
        read_text(pid_path, text, sizeof text);
        const long pid = atol(text);
        snprintf(pid_text, sizeof pid_text, "(pid %ld)", pid);
        CHECK(st == EDDY_ERR_IO && strstr(msg, program) && strstr(msg, "could not be reaped within 5 s") &&
                  strstr(msg, pid_text) && strstr(msg, stalled ? "took no data" : "finish_seconds") &&
                  strstr(msg, "not_reaped_"),
              "%s ffmpeg that cannot be reaped: %s", stalled ? "a stalled" : "a finishing", msg);
        CHECK(waited > 5.0 && waited < 15.0, "gave up after %.2f s (0.5 s, then 5 s after SIGKILL)", waited);
        read_text(path, text, sizeof text);
        CHECK(strcmp(text, precious) == 0, "the file at the path is as it was: '%s'", text);
        CHECK(count_matching(dir, ".tmp-") == 0, "no partial output left");
        CHECK(open_fd_count() == fds_before, "%d descriptors open after the video, %d before", open_fd_count(),
              fds_before);
        CHECK(pid > 1 && kill((pid_t)pid, 0) == 0, "the process %ld left behind still runs", pid);
        if (pid > 1) kill((pid_t)pid, SIGKILL);
    }
    sigaction(SIGCHLD, &before, NULL);
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

    eddy_image img = {0};
    eddy_image_init(&img, 33, 17, msg, sizeof msg);
    frame(&img, 0);
    check_watcher_memory(dir, &img);
    check_sigchld(dir, &img, 0);
    check_sigchld(dir, &img, 1);
    check_descriptors(dir, &img);
    check_finish_timeout(dir, &img);
    check_exit_or_signal(dir, &img);
    check_not_reaped(dir, &img);
    check_stall_limits(dir);

    if (!eddy_ffmpeg_available(NULL)) {
        printf("test_io_video: video checks skipped: ffmpeg is not installed (apt-get install ffmpeg)\n");
        eddy_image_free(&img);
        return check_finish("test_io_video");
    }
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
        /* the program's exit status is quoted, not replaced by "stopped reading" */
        CHECK(st == EDDY_ERR_IO && strstr(eddy_video_last_error(v), "false exited with status 1"),
              "a write to a failed ffmpeg: %s", eddy_video_last_error(v));
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
