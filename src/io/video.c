/* Video through the ffmpeg program: raw RGBA frames are sent to `ffmpeg -f rawvideo -i pipe:0` over a socket pair
 * (send() with MSG_NOSIGNAL, so a dying ffmpeg gives EPIPE, never SIGPIPE in the caller). ffmpeg writes a temporary
 * file beside the destination, which is renamed into place only when ffmpeg exits 0, so no partial video is ever
 * passed off as whole. ffmpeg's log goes to an anonymous temporary file, quoted in error messages.
 *
 * ffmpeg is not our child: /bin/sh runs it (the "watcher" below), waits for it and writes its exit status into a
 * pipe. We judge the video by that report, so the outcome does not depend on the caller's SIGCHLD disposition:
 * with SIGCHLD ignored the kernel reaps our children itself and waitpid can only say ECHILD, whereas the watcher
 * starts with SIGCHLD at its default (a per-child spawn attribute; the caller's own disposition is never touched).
 * (A host whose SIGCHLD handler reaps every child is covered the same way.) The same pipe gives eddy_video_close
 * its time limit: it polls the pipe for at most finish_seconds, then has the watcher kill ffmpeg. Every descriptor
 * we open is close-on-exec, so no other child of the host inherits one, and the watcher is given fds 0-3 only
 * (with glibc 2.34 or later the host's own descriptors that lack close-on-exec are closed too); ffmpeg gets 0-2. */
#define _GNU_SOURCE /* pipe2, mkostemp, posix_spawn_file_actions_addclosefrom_np */
#include "io_internal.h"
#include "temp_file.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* glibc 2.34 can close every other descriptor in the spawned child, including ones the host opened without
 * close-on-exec */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define EDDY_SPAWN_CLOSEFROM 1
#endif

/* The watcher, run as `/bin/sh -c watcher_script eddy-video FFMPEG ARGS...` with the frames on fd 0, ffmpeg's log
 * on fd 2 and the status pipe on fd 3. It runs ffmpeg in the background (so that it knows its pid) with the
 * frames as input and without fd 3, waits for it and writes its exit status (128 + n when signal n killed it) to
 * fd 3. The frames travel through fd 4 because a background command's stdin is otherwise /dev/null; the watcher
 * then closes its own copies, so that ffmpeg sees the end of its input when we close our end. SIGTERM to the
 * watcher (when we give up on ffmpeg) kills ffmpeg and still reaps it before the watcher exits. As for any
 * background command of a shell, ffmpeg starts with SIGINT and SIGQUIT ignored; ffmpeg sets its own SIGINT handler,
 * and a host killed by Ctrl-C closes the frames socket, which ends ffmpeg's input either way. */
static const char watcher_script[] =
    "trap 'stop=1; [ -z \"$pid\" ] || kill -KILL \"$pid\" 2>/dev/null' TERM\n"
    "exec 4<&0 0</dev/null\n"
    "\"$@\" <&4 3>&- 4<&- &\n"
    "pid=$!\n"
    "exec 4<&-\n"
    "[ -z \"$stop\" ] || kill -KILL \"$pid\" 2>/dev/null\n"
    "wait \"$pid\"; code=$?\n"
    "[ -z \"$stop\" ] || { wait \"$pid\"; code=$?; }\n"
    "echo \"$code\" >&3\n";

struct eddy_video {
    eddy_video_def def;
    const char *path;     /* borrowed for messages; copied below */
    char *path_copy;
    char *tmp_path;
    char *program;        /* the program as the caller named it, for messages */
    pid_t watcher;        /* the shell running ffmpeg; 0 when none was started or it has been reaped */
    int status_fd;        /* read end of the pipe the watcher reports ffmpeg's exit status on; -1 when closed */
    int sock;             /* our end of the socket pair, -1 when closed */
    FILE *log;            /* ffmpeg's stderr */
    long frames;
    char error[768];
};

eddy_video_def eddy_video_def_default(void) {
    eddy_video_def d;
    memset(&d, 0, sizeof d);
    d.fps = 30.0f;
    d.format = EDDY_VIDEO_MP4;
    d.crf = 18;
    d.stall_seconds = 300.0f;
    d.finish_seconds = 300.0f;
    return d;
}

/* Full path of an executable: `program` itself when it has a '/', else the first match on PATH. */
static char *find_program(const char *program) {
    if (strchr(program, '/')) return access(program, X_OK) == 0 ? strdup(program) : NULL;
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    size_t plen = strlen(program);
    while (*path) {
        const char *end = strchr(path, ':');
        size_t dlen = end ? (size_t)(end - path) : strlen(path);
        char *full = malloc(dlen + plen + 2);
        if (!full) return NULL;
        if (dlen == 0) {
            memcpy(full, ".", 2);
            dlen = 1;
        } else {
            memcpy(full, path, dlen);
        }
        full[dlen] = '/';
        memcpy(full + dlen + 1, program, plen + 1);
        struct stat sb;
        if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode) && access(full, X_OK) == 0) return full;
        free(full);
        if (!end) break;
        path = end + 1;
    }
    return NULL;
}

int eddy_ffmpeg_available(const char *program) {
    char *p = find_program(program ? program : "ffmpeg");
    free(p);
    return p != NULL;
}

/* the last line(s) of ffmpeg's log, at most n bytes */
static void log_tail(FILE *log, char *out, size_t n) {
    out[0] = '\0';
    if (!log || n < 2) return;
    fflush(log);
    if (fseek(log, 0, SEEK_END) != 0) return;
    long size = ftell(log);
    long start = size > (long)(n - 1) ? size - (long)(n - 1) : 0;
    fseek(log, start, SEEK_SET);
    size_t got = fread(out, 1, n - 1, log);
    out[got] = '\0';
    while (got && (out[got - 1] == '\n' || out[got - 1] == '\r')) out[--got] = '\0';
    for (size_t i = 0; i < got; i++)
        if (out[i] == '\n') out[i] = ' ';
}

static void video_free(eddy_video *v) {
    if (v->sock >= 0) close(v->sock);
    if (v->status_fd >= 0) close(v->status_fd);
    if (v->log) fclose(v->log);
    if (v->tmp_path) {
        remove(v->tmp_path);
        free(v->tmp_path);
    }
    free(v->program);
    free(v->path_copy);
    free(v);
}

/* `fd` moved to a number of at least 3 (still close-on-exec), so that giving the child its fds 0-3 in order never
 * overwrites one still to be given; only a host that closed its own stdin/stdout/stderr has such low fds free. */
static int fd_above_stdio(int fd) {
    if (fd < 0 || fd > 2) return fd;
    const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    const int e = errno;
    close(fd);
    errno = e;
    return moved;
}

/* ffmpeg's log: an anonymous (already unlinked) temporary file, close-on-exec */
static FILE *open_log(void) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0]) dir = "/tmp";
    char name[4096];
    if (snprintf(name, sizeof name, "%s/eddy-ffmpeg-log-XXXXXX", dir) >= (int)sizeof name) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    const int fd = fd_above_stdio(mkostemp(name, O_CLOEXEC));
    if (fd < 0) return NULL;
    unlink(name);
    FILE *log = fdopen(fd, "w+");
    if (!log) {
        const int e = errno;
        close(fd);
        errno = e;
    }
    return log;
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Waits for the watcher's report of ffmpeg's exit status for at most limit_s seconds (0 = without limit). Returns 1
 * with *exit_code (-1 when the watcher ended without a report) once the watcher has ended and been reaped, or 0
 * when the limit passed first (the watcher and ffmpeg then still run). */
static int await_exit_code(eddy_video *v, double limit_s, int *exit_code) {
    char report[32];
    size_t got = 0;
    const double deadline = seconds_now() + limit_s;
    for (;;) {
        int wait_ms = -1;
        if (limit_s > 0) {
            const double left = deadline - seconds_now();
            if (left <= 0) return 0;
            wait_ms = (int)fmin(ceil(left * 1000.0), 2147483647.0);
        }
        struct pollfd pf = {.fd = v->status_fd, .events = POLLIN, .revents = 0};
        const int pr = poll(&pf, 1, wait_ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue; /* the deadline is checked above */
        if (pr < 0) break;
        const ssize_t n = read(v->status_fd, report + got, sizeof report - 1 - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; /* end of the pipe: the watcher has exited */
        got += (size_t)n;
        if (got == sizeof report - 1) break;
    }
    report[got] = '\0';
    close(v->status_fd);
    v->status_fd = -1;
    /* reap the watcher; with SIGCHLD ignored the kernel already has (ECHILD), which is fine: the report says it all */
    while (waitpid(v->watcher, NULL, 0) < 0 && errno == EINTR) {
    }
    v->watcher = 0;
    char *end = NULL;
    const long code = strtol(report, &end, 10);
    *exit_code = end != report && *end == '\n' && code >= 0 && code <= 255 ? (int)code : -1;
    return 1;
}

/* Gives up on ffmpeg: kills it (through the watcher) and waits until it has been reaped. */
static void stop_ffmpeg(eddy_video *v) {
    if (v->sock >= 0) {
        close(v->sock);
        v->sock = -1;
    }
    if (v->status_fd < 0) return;
    /* signal the watcher only while it has not reported: until then it has not exited, so its pid is still its own
     * even when SIGCHLD is ignored and the kernel reaps it at once */
    struct pollfd pf = {.fd = v->status_fd, .events = POLLIN, .revents = 0};
    if (poll(&pf, 1, 0) != 1) kill(v->watcher, SIGTERM);
    int exit_code;
    await_exit_code(v, 0, &exit_code);
}

/* Waits at most finish_seconds for ffmpeg to exit; returns 1 when it exited 0, else 0 with the reason in `why`
 * (on a timeout ffmpeg is killed first). */
static int wait_ffmpeg(eddy_video *v, char *why, size_t why_size) {
    if (v->status_fd < 0) {
        snprintf(why, why_size, "%s had already failed", v->program);
        return 0;
    }
    int code = -1;
    if (!await_exit_code(v, (double)v->def.finish_seconds, &code)) {
        stop_ffmpeg(v);
        snprintf(why, why_size, "%s did not exit within %g s (finish_seconds) after the end of its input: it was killed",
                 v->program, (double)v->def.finish_seconds);
        return 0;
    }
    if (code == 0) return 1;
    char tail[400];
    log_tail(v->log, tail, sizeof tail);
    if (code < 0)
        snprintf(why, why_size, "the shell running %s ended without reporting its exit status%s%s", v->program,
                 tail[0] ? ": " : "", tail);
    else if (code > 128 && code <= 128 + 64) /* the shell's way of saying "killed by signal code - 128" */
        snprintf(why, why_size, "%s was killed by signal %d%s%s", v->program, code - 128, tail[0] ? ": " : "", tail);
    else
        snprintf(why, why_size, "%s exited with status %d%s%s", v->program, code, tail[0] ? ": " : "", tail);
    return 0;
}

/* Starts the watcher running `exe` with `ffmpeg_args` (argv[1..], NULL-terminated); fills v->watcher and
 * v->status_fd. Returns 0 or an errno value. */
static int start_ffmpeg(eddy_video *v, const char *exe, const char *const *ffmpeg_args, int frames_fd) {
    const char *argv[64];
    size_t n = 0;
    argv[n++] = "sh";
    argv[n++] = "-c";
    argv[n++] = watcher_script;
    argv[n++] = "eddy-video"; /* $0: names the shell in its own messages */
    argv[n++] = exe;
    for (size_t i = 0; ffmpeg_args[i] && n < sizeof argv / sizeof argv[0] - 1; i++) argv[n++] = ffmpeg_args[i];
    argv[n] = NULL;

    int status_pipe[2];
    if (pipe2(status_pipe, O_CLOEXEC) != 0) return errno;
    status_pipe[0] = fd_above_stdio(status_pipe[0]);
    status_pipe[1] = fd_above_stdio(status_pipe[1]);
    if (status_pipe[0] < 0 || status_pipe[1] < 0) {
        const int e = errno;
        if (status_pipe[0] >= 0) close(status_pipe[0]);
        if (status_pipe[1] >= 0) close(status_pipe[1]);
        return e;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0) {
        rc = posix_spawnattr_init(&attr);
        if (rc != 0) posix_spawn_file_actions_destroy(&fa);
    }
    if (rc != 0) {
        close(status_pipe[0]);
        close(status_pipe[1]);
        return rc;
    }
    /* the watcher gets fds 0-3 and nothing else; each source fd is >= 3, so none is overwritten before it is used */
    rc = posix_spawn_file_actions_adddup2(&fa, frames_fd, 0);
    if (!rc) rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, fileno(v->log), 2);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, status_pipe[1], 3);
#ifdef EDDY_SPAWN_CLOSEFROM
    if (!rc) rc = posix_spawn_file_actions_addclosefrom_np(&fa, 4);
#endif
    /* per child, not the caller's: SIGCHLD at its default so the watcher's wait works, SIGTERM at its default so the
     * watcher's trap can be set (a shell cannot trap a signal ignored on entry), and no signal blocked */
    sigset_t to_default, none;
    sigemptyset(&to_default);
    sigaddset(&to_default, SIGCHLD);
    sigaddset(&to_default, SIGTERM);
    sigemptyset(&none);
    if (!rc) rc = posix_spawnattr_setsigdefault(&attr, &to_default);
    if (!rc) rc = posix_spawnattr_setsigmask(&attr, &none);
    if (!rc) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    if (!rc) rc = posix_spawn(&v->watcher, "/bin/sh", &fa, &attr, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(status_pipe[1]); /* only the watcher holds the write end: its exit ends the pipe */
    if (rc != 0) {
        v->watcher = 0;
        close(status_pipe[0]);
        return rc;
    }
    v->status_fd = status_pipe[0];
    return 0;
}

eddy_status eddy_video_open(const char *path, const eddy_video_def *def, eddy_video **out, char *msg,
                            size_t msg_size) {
    if (!out) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "video output handle is NULL");
    *out = NULL;
    if (!path || !path[0]) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "video path is empty");
    eddy_video_def d = def ? *def : eddy_video_def_default();
    if (d.width < 1 || d.height < 1 || d.width > 16384 || d.height > 16384)
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: frame size %d x %d: expected 1..16384 each",
                             path, d.width, d.height);
    if (!(d.fps > 0.0f && d.fps <= 1000.0f))
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: fps = %g: expected (0, 1000]", path,
                             (double)d.fps);
    if (d.format != EDDY_VIDEO_MP4 && d.format != EDDY_VIDEO_GIF)
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: format = %d: expected MP4 or GIF", path,
                             (int)d.format);
    if (d.crf < 0 || d.crf > 51)
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: crf = %d: expected 0..51", path, d.crf);
    if (!(d.stall_seconds >= 0.0f) || !isfinite(d.stall_seconds))
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                             "%s: stall_seconds = %g: expected finite >= 0 (0 = no limit)", path, (double)d.stall_seconds);
    if (!(d.finish_seconds >= 0.0f) || !isfinite(d.finish_seconds))
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                             "%s: finish_seconds = %g: expected finite >= 0 (0 = no limit)", path,
                             (double)d.finish_seconds);
    const char *program = d.ffmpeg ? d.ffmpeg : "ffmpeg";
    char *exe = find_program(program);
    if (!exe)
        return eddy__io_fail(msg, msg_size, EDDY_ERR_UNSUPPORTED,
                             "%s: cannot write video: the ffmpeg program (%s) was not found; install it with "
                             "`apt-get install ffmpeg`",
                             path, program);
    eddy_video *v = calloc(1, sizeof *v);
    if (!v) {
        free(exe);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    v->def = d;
    v->def.ffmpeg = NULL;
    v->sock = -1;
    v->status_fd = -1;
    v->path_copy = strdup(path);
    v->program = strdup(program);
    v->path = v->path_copy;
    eddy_status st = EDDY_OK;
    v->tmp_path = v->path_copy && v->program ? eddy__temp_file_for(path, msg, msg_size, &st) : NULL;
    if (!v->tmp_path) {
        free(exe);
        video_free(v);
        return st != EDDY_OK ? st : eddy__io_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    v->log = open_log();
    int sv[2] = {-1, -1};
    if (!v->log || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
        (sv[0] = fd_above_stdio(sv[0])) < 0 || (sv[1] = fd_above_stdio(sv[1])) < 0) {
        int e = errno;
        if (sv[0] >= 0) close(sv[0]);
        if (sv[1] >= 0) close(sv[1]);
        free(exe);
        video_free(v);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot set up the pipe to ffmpeg: %s", path, strerror(e));
    }
    v->sock = sv[0];

    char size[32], rate[32], crf[16];
    snprintf(size, sizeof size, "%dx%d", d.width, d.height);
    snprintf(rate, sizeof rate, "%.9g", (double)d.fps);
    snprintf(crf, sizeof crf, "%d", d.crf);
    const char *args_mp4[] = {"-hide_banner", "-nostats", "-loglevel", "error", "-y",
                              "-f", "rawvideo", "-pixel_format", "rgba", "-video_size", size, "-framerate", rate,
                              "-i", "pipe:0", "-an",
                              /* H.264 in yuv420p needs even sides: pad by one black row/column when odd */
                              "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                              "-crf", crf, "-preset", "medium", "-movflags", "+faststart", "-f", "mp4",
                              v->tmp_path, NULL};
    const char *args_gif[] = {"-hide_banner", "-nostats", "-loglevel", "error", "-y",
                              "-f", "rawvideo", "-pixel_format", "rgba", "-video_size", size, "-framerate", rate,
                              "-i", "pipe:0",
                              "-vf", "format=rgb24,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse",
                              "-loop", "0", "-f", "gif", v->tmp_path, NULL};
    const int rc = start_ffmpeg(v, exe, d.format == EDDY_VIDEO_GIF ? args_gif : args_mp4, sv[1]);
    close(sv[1]);
    free(exe);
    if (rc != 0) {
        video_free(v);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot start %s (through /bin/sh): %s", path, program,
                             strerror(rc));
    }
    *out = v;
    return eddy__io_ok(msg, msg_size);
}

const char *eddy_video_last_error(const eddy_video *v) { return v ? v->error : ""; }

eddy_status eddy_video_write(eddy_video *v, const eddy_image *frame) {
    if (!v) return EDDY_ERR_INVALID_ARGUMENT;
    if (v->sock < 0) {
        snprintf(v->error, sizeof v->error, "%s: the video has already failed", v->path);
        return EDDY_ERR_IO;
    }
    if (!frame || !frame->rgba || frame->width != v->def.width || frame->height != v->def.height) {
        snprintf(v->error, sizeof v->error, "%s: frame %ld is %d x %d: expected %d x %d", v->path, v->frames,
                 frame ? frame->width : 0, frame ? frame->height : 0, v->def.width, v->def.height);
        return EDDY_ERR_INVALID_ARGUMENT;
    }
    const uint8_t *p = frame->rgba;
    size_t left = (size_t)frame->width * (size_t)frame->height * 4;
    while (left) {
        if (v->def.stall_seconds > 0) {
            /* a program that never reads would block send() forever: wait for room at most stall_seconds */
            struct pollfd pf = {.fd = v->sock, .events = POLLOUT, .revents = 0};
            const int pr = poll(&pf, 1, (int)fmin((double)v->def.stall_seconds * 1000.0, 2147483647.0));
            if (pr < 0 && errno == EINTR) continue;
            if (pr == 0) {
                stop_ffmpeg(v);
                snprintf(v->error, sizeof v->error, "%s: %s took no data of frame %ld for %g s: stopped", v->path,
                         v->program, v->frames, (double)v->def.stall_seconds);
                return EDDY_ERR_IO;
            }
        }
        ssize_t n = send(v->sock, p, left, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(v->sock);
            v->sock = -1;
            char why[600];
            if (wait_ffmpeg(v, why, sizeof why)) snprintf(why, sizeof why, "%s stopped reading", v->program);
            snprintf(v->error, sizeof v->error, "%s: sending frame %ld to %s failed: %s (%s)", v->path, v->frames,
                     v->program, strerror(e), why);
            return EDDY_ERR_IO;
        }
        p += n;
        left -= (size_t)n;
    }
    v->frames++;
    return EDDY_OK;
}

eddy_status eddy_video_close(eddy_video *v, char *msg, size_t msg_size) {
    if (!v) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "video is NULL");
    eddy_status st = EDDY_OK;
    if (v->sock < 0) { /* ffmpeg already failed while frames were sent (and was stopped); v->error says how */
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s", v->error[0] ? v->error : "ffmpeg had failed");
        video_free(v);
        return st;
    }
    close(v->sock); /* end of input: ffmpeg finishes the file */
    v->sock = -1;
    char why[600] = "";
    int ok = wait_ffmpeg(v, why, sizeof why);
    if (ok && v->frames == 0) {
        ok = 0;
        snprintf(why, sizeof why, "no frames were written");
    }
    if (ok) {
        if (rename(v->tmp_path, v->path) != 0) {
            int e = errno;
            st = eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot rename the finished video into place: %s",
                               v->path, strerror(e));
        } else {
            free(v->tmp_path);
            v->tmp_path = NULL;
            eddy__io_ok(msg, msg_size);
        }
    } else {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: video not written: %s", v->path, why);
    }
    video_free(v); /* removes the temporary file when it was not renamed */
    return st;
}

void eddy_video_abort(eddy_video *v) {
    if (!v) return;
    stop_ffmpeg(v);
    video_free(v);
}
