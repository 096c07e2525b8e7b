/* Video through the ffmpeg program: raw RGBA frames are sent to `ffmpeg -f rawvideo -i pipe:0` over a socket pair
 * (send() with MSG_NOSIGNAL, so a dying ffmpeg gives EPIPE, never SIGPIPE in the caller). ffmpeg writes a temporary
 * file beside the destination, which is renamed into place only when ffmpeg exits 0, so no partial video is ever
 * passed off as whole. ffmpeg's log goes to an anonymous temporary file, quoted in error messages. Every descriptor
 * we open is close-on-exec, so no other child of the host inherits one, and ffmpeg is given fds 0-2 only (with
 * glibc 2.34 or later the host's own descriptors that lack close-on-exec are closed in it too). */
#define _GNU_SOURCE /* mkostemp, posix_spawn_file_actions_addclosefrom_np */
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
#include <unistd.h>

extern char **environ;

/* glibc 2.34 can close every other descriptor in the spawned child, including ones the host opened without
 * close-on-exec */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#define EDDY_SPAWN_CLOSEFROM 1
#endif

struct eddy_video {
    eddy_video_def def;
    const char *path;     /* borrowed for messages; copied below */
    char *path_copy;
    char *tmp_path;
    pid_t pid;
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
    if (v->log) fclose(v->log);
    if (v->tmp_path) {
        remove(v->tmp_path);
        free(v->tmp_path);
    }
    free(v->path_copy);
    free(v);
}

/* `fd` moved to a number of at least 3 (still close-on-exec), so that giving the child its fds 0-2 in order never
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
    v->path_copy = strdup(path);
    v->path = v->path_copy;
    eddy_status st = EDDY_OK;
    v->tmp_path = v->path_copy ? eddy__temp_file_for(path, msg, msg_size, &st) : NULL;
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
    const char *argv_mp4[] = {program, "-hide_banner", "-nostats", "-loglevel", "error", "-y",
                              "-f", "rawvideo", "-pixel_format", "rgba", "-video_size", size, "-framerate", rate,
                              "-i", "pipe:0", "-an",
                              /* H.264 in yuv420p needs even sides: pad by one black row/column when odd */
                              "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                              "-crf", crf, "-preset", "medium", "-movflags", "+faststart", "-f", "mp4",
                              v->tmp_path, NULL};
    const char *argv_gif[] = {program, "-hide_banner", "-nostats", "-loglevel", "error", "-y",
                              "-f", "rawvideo", "-pixel_format", "rgba", "-video_size", size, "-framerate", rate,
                              "-i", "pipe:0",
                              "-vf", "format=rgb24,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse",
                              "-loop", "0", "-f", "gif", v->tmp_path, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fileno(v->log), 2);
#ifdef EDDY_SPAWN_CLOSEFROM
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
    int rc = posix_spawn(&v->pid, exe, &fa, NULL,
                         (char *const *)(d.format == EDDY_VIDEO_GIF ? argv_gif : argv_mp4), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(sv[1]);
    free(exe);
    if (rc != 0) {
        video_free(v);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot start %s: %s", path, program, strerror(rc));
    }
    *out = v;
    return eddy__io_ok(msg, msg_size);
}

const char *eddy_video_last_error(const eddy_video *v) { return v ? v->error : ""; }

/* waits for ffmpeg; returns 1 when it exited 0 */
static int wait_ffmpeg(eddy_video *v, char *why, size_t why_size) {
    int status = 0;
    pid_t r;
    do r = waitpid(v->pid, &status, 0);
    while (r < 0 && errno == EINTR);
    v->pid = 0;
    if (r < 0) {
        snprintf(why, why_size, "waiting for ffmpeg failed: %s", strerror(errno));
        return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 1;
    char tail[400];
    log_tail(v->log, tail, sizeof tail);
    if (WIFEXITED(status))
        snprintf(why, why_size, "ffmpeg exited with status %d%s%s", WEXITSTATUS(status), tail[0] ? ": " : "", tail);
    else
        snprintf(why, why_size, "ffmpeg was killed by signal %d%s%s", WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                 tail[0] ? ": " : "", tail);
    return 0;
}

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
                close(v->sock);
                v->sock = -1;
                kill(v->pid, SIGKILL);
                while (waitpid(v->pid, NULL, 0) < 0 && errno == EINTR) {
                }
                v->pid = 0;
                snprintf(v->error, sizeof v->error, "%s: ffmpeg took no data of frame %ld for %g s: stopped", v->path,
                         v->frames, (double)v->def.stall_seconds);
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
            if (!wait_ffmpeg(v, why, sizeof why)) snprintf(why, sizeof why, "ffmpeg stopped reading");
            snprintf(v->error, sizeof v->error, "%s: sending frame %ld to ffmpeg failed: %s (%s)", v->path, v->frames,
                     strerror(e), why);
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
    if (v->sock >= 0) {
        close(v->sock); /* end of input: ffmpeg finishes the file */
        v->sock = -1;
    }
    if (!v->pid) { /* ffmpeg already failed while frames were sent; v->error says how */
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s", v->error[0] ? v->error : "ffmpeg had failed");
        video_free(v);
        return st;
    }
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
    if (v->sock >= 0) close(v->sock);
    v->sock = -1;
    if (v->pid > 0) {
        kill(v->pid, SIGTERM);
        int status;
        while (waitpid(v->pid, &status, 0) < 0 && errno == EINTR) {
        }
        v->pid = 0;
    }
    video_free(v);
}
