/* Video through the ffmpeg program: raw RGBA frames are sent to `ffmpeg -f rawvideo -i pipe:0` over a socket pair
 * (send() with MSG_NOSIGNAL, so a dying ffmpeg gives EPIPE, never SIGPIPE in the caller). ffmpeg writes a temporary
 * file beside the destination, which is renamed into place only when ffmpeg exits 0, so no partial video is ever
 * passed off as whole. ffmpeg's log goes to an anonymous temporary file, quoted in error messages.
 *
 * ffmpeg is not our child: /bin/sh, started with posix_spawn (the "watcher", watcher_script below), runs it, waits
 * for it and reports on a socket "pid P", then "exit N" (the shell's $?). We judge the video by that report, so the
 * outcome does not depend on the caller's SIGCHLD disposition: with SIGCHLD ignored the kernel reaps our children
 * itself and waitpid can only say ECHILD, whereas the watcher starts with SIGCHLD at its default (a per-child spawn
 * attribute; the caller's dispositions are never touched). The watcher is a new program, not a fork of the caller:
 * a fork alive for the whole video would keep the caller's memory shared copy-on-write, so every page the caller
 * wrote meanwhile (a simulation's fields) would be copied, doubling its memory; glibc's posix_spawn copies nothing
 * (CLONE_VM|CLONE_VFORK) and runs no pthread_atfork handler. The price: $? cannot tell `exit 130` from a death by
 * SIGINT (128 + 2), so statuses 129..192 are reported as either.
 *
 * Signals: the watcher does nothing before it reads a go-ahead, which we send once we hold a pidfd for it, so a signal
 * always reaches the watcher, never a process that took its pid after it exited (with SIGCHLD ignored nothing keeps
 * the pid). Without pidfds (Linux before 5.3) signals go by pid, with that small window. Asked to stop (SIGTERM), the
 * watcher SIGKILLs ffmpeg, its own unreaped child, whose pid cannot have been reused. Limits: eddy_video_close
 * reads the report for at most finish_seconds, then stops ffmpeg and waits at most REAP_SECONDS more; an ffmpeg not
 * reaped by then (stuck in the kernel) is left behind, the watcher killed and reaped, and the failure says so.
 *
 * Descriptors: every descriptor we open is close-on-exec, so no other child of the host inherits one; the watcher
 * gets fds 0-3 only (frames, /dev/null, log, report; the host's own descriptors without close-on-exec are closed in
 * the child: posix_spawn_file_actions_addclosefrom_np where glibc has it, else one close action for each listed),
 * and ffmpeg gets 0-2. */
#define _GNU_SOURCE /* mkostemp, posix_spawn_file_actions_addclosefrom_np, syscall numbers */
#include "io_internal.h"
#include "temp_file.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* glibc 2.34 closes every descriptor from a number up in the spawned child, whatever the host opened meanwhile
 * (EDDY_VIDEO_NO_CLOSEFROM, for testing, takes the other path: a close action per descriptor listed now) */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34)) && \
    !defined(EDDY_VIDEO_NO_CLOSEFROM)
#define EDDY_SPAWN_CLOSEFROM 1
#endif

/* how long ffmpeg may take to be reaped after SIGKILL (and the watcher after its own) before we give up on it, s */
#define REAP_SECONDS 5.0

/* waitid's idtype for a pidfd (Linux 5.4; an enum constant in glibc, so #ifdef cannot test it) */
#define EDDY_P_PIDFD ((idtype_t)3)

/* The watcher, run as `/bin/sh -c watcher_script eddy-video FFMPEG ARGS...` with the frames on fd 0, /dev/null on 1,
 * ffmpeg's log on 2 and the report socket on 3. Before the go-ahead only a signal, or our end of the socket closing
 * (we gave up), makes it exit. It runs ffmpeg in the background (so that it knows its pid) with the frames as input
 * and without fd 3, reports the pid, waits and reports the exit status ($?: 128 + n when signal n killed it). The
 * frames travel through fd 4 because a background command's stdin is otherwise /dev/null; the watcher then closes its
 * own copies, so that ffmpeg sees the end of its input when we close our end. SIGTERM (when we give up on ffmpeg)
 * kills ffmpeg and still reaps it before the watcher exits (a SIGTERM just after `wait` reaped ffmpeg aims at a pid
 * freed that moment, which Linux hands out again only once its pid counter has wrapped). SIGINT and SIGQUIT are
 * ignored, by the watcher as by a background command of a shell (ffmpeg sets its own SIGINT handler): a Ctrl-C meant
 * for the host must not end the watcher under a host that handles it and then closes the video. */
static const char watcher_script[] =
    "trap '' INT QUIT\n"
    "trap 'stop=1; [ -z \"$pid\" ] || kill -KILL \"$pid\" 2>/dev/null' TERM\n"
    "read -r go <&3 || exit 1\n"
    "[ -z \"$stop\" ] || exit 1\n"
    "exec 4<&0 0</dev/null\n"
    "\"$@\" <&4 3>&- 4<&- &\n"
    "pid=$!\n"
    "echo \"pid $pid\" >&3\n"
    "exec 4<&-\n"
    "[ -z \"$stop\" ] || kill -KILL \"$pid\" 2>/dev/null\n"
    "wait \"$pid\"; code=$?\n"
    "[ -z \"$stop\" ] || { wait \"$pid\"; code=$?; }\n"
    "echo \"exit $code\" >&3\n";

struct eddy_video {
    eddy_video_def def;
    const char *path;     /* borrowed for messages; copied below */
    char *path_copy;
    char *tmp_path;
    char *program;        /* the program as the caller named it, for messages */
    pid_t watcher;        /* the shell running ffmpeg; 0 when none was started, or once it is reaped or given up on */
    int pidfd;            /* the watcher's pidfd; -1 where the kernel has none (signals then go by pid) or closed */
    int report_fd;        /* our end of the socket the watcher reports on; -1 once it has ended */
    char report[128];     /* what the watcher has reported so far */
    size_t report_len;
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
    if (v->report_fd >= 0) close(v->report_fd);
    if (v->pidfd >= 0) close(v->pidfd);
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

/* A close-on-exec stream socket pair, both ends above the standard descriptors (fd_above_stdio). 0, or -1 with errno
 * set and nothing left open. */
static int socket_pair_above_stdio(int sv[2]) {
    sv[0] = sv[1] = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0 && (sv[0] = fd_above_stdio(sv[0])) >= 0 &&
        (sv[1] = fd_above_stdio(sv[1])) >= 0)
        return 0;
    const int e = errno;
    if (sv[0] >= 0) close(sv[0]);
    if (sv[1] >= 0) close(sv[1]);
    sv[0] = sv[1] = -1;
    errno = e;
    return -1;
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

/* ---- the caller's side ---- */

/* Sends `sig` to the watcher. */
static void signal_watcher(eddy_video *v, int sig) {
    if (v->watcher == 0) return;
#ifdef SYS_pidfd_send_signal
    if (v->pidfd >= 0) {
        syscall(SYS_pidfd_send_signal, v->pidfd, sig, NULL, 0u);
        return;
    }
#endif
    /* by pid only while the watcher still holds its end of the report socket: until then it has not exited, so the
     * pid is still its own (a small window remains between this check and kill) */
    struct pollfd pf = {.fd = v->report_fd, .events = 0, .revents = 0};
    if (v->report_fd >= 0 && !(poll(&pf, 1, 0) == 1 && (pf.revents & POLLHUP))) kill(v->watcher, sig);
}

/* 1 when the watcher has been reaped, by us or for us (SIGCHLD ignored, a host handler reaping every child) */
static int try_reap(eddy_video *v) {
    if (v->pidfd >= 0) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(EDDY_P_PIDFD, (id_t)v->pidfd, &si, WEXITED | WNOHANG) == 0) return si.si_pid != 0;
        if (errno == EINTR) return 0;
        if (errno != EINVAL) return 1; /* ECHILD: reaped for us */
        /* EINVAL: Linux 5.3 has pidfds but no waitid on them */
    }
    const pid_t r = waitpid(v->watcher, NULL, WNOHANG);
    return r == v->watcher || (r < 0 && errno == ECHILD);
}

/* Reaps the watcher, waiting at most limit_s seconds; 1 when reaped. Either way we are done with it after this. */
static int reap_watcher(eddy_video *v, double limit_s) {
    int reaped = v->watcher == 0;
    const double deadline = seconds_now() + limit_s;
    while (!reaped && !(reaped = try_reap(v))) {
        const double left = deadline - seconds_now();
        if (left <= 0) break;
        struct pollfd pf = {.fd = v->pidfd, .events = POLLIN, .revents = 0}; /* readable once it has exited */
        if (v->pidfd >= 0)
            poll(&pf, 1, (int)ceil(fmin(left, 0.1) * 1000.0));
        else
            nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    v->watcher = 0;
    if (v->pidfd >= 0) close(v->pidfd);
    v->pidfd = -1;
    return reaped;
}

/* Reads the watcher's report for at most limit_s seconds (0 = without limit). Returns 1 once the report has ended
 * (the watcher has exited; it is then reaped), or 0 when the limit passed first. */
static int await_report(eddy_video *v, double limit_s) {
    if (v->report_fd < 0) return 1;
    const double deadline = seconds_now() + limit_s;
    for (;;) {
        int wait_ms = -1;
        if (limit_s > 0) {
            const double left = deadline - seconds_now();
            if (left <= 0) return 0;
            wait_ms = (int)fmin(ceil(left * 1000.0), 2147483647.0);
        }
        struct pollfd pf = {.fd = v->report_fd, .events = POLLIN, .revents = 0};
        const int pr = poll(&pf, 1, wait_ms);
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) continue; /* the deadline is checked above */
        if (pr < 0) break;
        char buf[64];
        const ssize_t n = read(v->report_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; /* the end of the report: the watcher has exited */
        const size_t room = sizeof v->report - 1 - v->report_len, take = (size_t)n < room ? (size_t)n : room;
        memcpy(v->report + v->report_len, buf, take);
        v->report_len += take;
    }
    v->report[v->report_len] = '\0';
    close(v->report_fd);
    v->report_fd = -1;
    reap_watcher(v, REAP_SECONDS);
    return 1;
}

/* The number of the report's line "word N", if there is one. */
static int reported(const eddy_video *v, const char *word, long *value) {
    const size_t len = strlen(word);
    for (const char *line = v->report; *line;) {
        if (strncmp(line, word, len) == 0 && line[len] == ' ') {
            char *end = NULL;
            const long x = strtol(line + len + 1, &end, 10);
            if (end != line + len + 1 && *end == '\n') {
                *value = x;
                return 1;
            }
        }
        const char *next = strchr(line, '\n');
        if (!next) break;
        line = next + 1;
    }
    return 0;
}

/* Gives up on ffmpeg: has the watcher kill it, and waits at most REAP_SECONDS for that. Returns 1 once ffmpeg is
 * gone; else 0 with `why` saying so: it was not reaped in time (stuck in the kernel, or the watcher could not act),
 * so the watcher is killed and ffmpeg left behind. */
static int stop_ffmpeg(eddy_video *v, char *why, size_t why_size) {
    if (why_size) why[0] = '\0';
    if (v->sock >= 0) {
        close(v->sock);
        v->sock = -1;
    }
    if (v->report_fd < 0) return 1;
    signal_watcher(v, SIGTERM);
    if (await_report(v, REAP_SECONDS)) return 1;
    long pid = 0;
    const int pid_known = reported(v, "pid", &pid);
    signal_watcher(v, SIGKILL);
    close(v->report_fd);
    v->report_fd = -1;
    reap_watcher(v, REAP_SECONDS);
    char pid_text[48] = "";
    if (pid_known) snprintf(pid_text, sizeof pid_text, " (pid %ld)", pid);
    snprintf(why, why_size, "killed, but it could not be reaped within %g s (stuck in the kernel?): given up, leaving "
             "its process%s behind", REAP_SECONDS, pid_text);
    return 0;
}

/* Waits at most finish_seconds for ffmpeg to exit; returns 1 when it exited 0, else 0 with the reason in `why`
 * (on a timeout ffmpeg is killed first). */
static int wait_ffmpeg(eddy_video *v, char *why, size_t why_size) {
    if (v->report_fd < 0 && v->report_len == 0) {
        snprintf(why, why_size, "%s had already failed", v->program);
        return 0;
    }
    if (!await_report(v, (double)v->def.finish_seconds)) {
        char stop[400];
        const int gone = stop_ffmpeg(v, stop, sizeof stop);
        snprintf(why, why_size, "%s did not exit within %g s (finish_seconds) after the end of its input: %s",
                 v->program, (double)v->def.finish_seconds, gone ? "it was killed" : stop);
        return 0;
    }
    long x = 0;
    if (reported(v, "exit", &x) && x == 0) return 1;
    char tail[400];
    log_tail(v->log, tail, sizeof tail);
    const char *sep = tail[0] ? ": " : "";
    if (!reported(v, "exit", &x))
        snprintf(why, why_size, "the shell running %s ended without reporting its exit status%s%s", v->program, sep,
                 tail);
    else if (x > 128 && x <= 128 + 64) /* the shell's $? for signal x - 128, and an exit status as well */
        snprintf(why, why_size, "%s exited with status %ld (or was killed by signal %ld)%s%s", v->program, x, x - 128,
                 sep, tail);
    else if (x == 126 || x == 127) /* the shell's $? for a program it could not run; its message is in the log */
        snprintf(why, why_size, "%s exited with status %ld (or could not be run)%s%s", v->program, x, sep, tail);
    else
        snprintf(why, why_size, "%s exited with status %ld%s%s", v->program, x, sep, tail);
    return 0;
}

#ifndef EDDY_SPAWN_CLOSEFROM
/* A close action for each descriptor from 4 up that would survive exec (the host's own, opened without
 * close-on-exec), listed from /proc/self/fd, else tried one by one below the descriptor limit (at most 65536).
 * One the host opens after the listing is missed; posix_spawn ignores closing one it closed meanwhile. */
static int add_close_actions(posix_spawn_file_actions_t *fa) {
    int rc = 0;
    DIR *dir = opendir("/proc/self/fd");
    if (dir) {
        const int own = dirfd(dir);
        for (struct dirent *e; rc == 0 && (e = readdir(dir)) != NULL;) {
            char *end = NULL;
            const long fd = strtol(e->d_name, &end, 10);
            if (end == e->d_name || *end || fd < 4 || fd == own || fd > 2147483647L) continue;
            const int flags = fcntl((int)fd, F_GETFD);
            if (flags >= 0 && !(flags & FD_CLOEXEC)) rc = posix_spawn_file_actions_addclose(fa, (int)fd);
        }
        closedir(dir);
        return rc;
    }
    struct rlimit rl;
    long top = 65536;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (rlim_t)top)
        top = (long)rl.rlim_cur;
    for (long fd = 4; rc == 0 && fd < top; fd++) {
        const int flags = fcntl((int)fd, F_GETFD);
        if (flags >= 0 && !(flags & FD_CLOEXEC)) rc = posix_spawn_file_actions_addclose(fa, (int)fd);
    }
    return rc;
}
#endif

/* Starts the watcher running `exe` with `ffmpeg_args` (argv[1..], NULL-terminated); fills v->watcher, v->pidfd and
 * v->report_fd. Returns 0, or an errno value with `why` naming the step that failed. */
static int start_ffmpeg(eddy_video *v, const char *exe, const char *const *ffmpeg_args, int frames_fd,
                        const char **why) {
    const char *argv[64];
    size_t n = 0;
    argv[n++] = "sh";
    argv[n++] = "-c";
    argv[n++] = watcher_script;
    argv[n++] = "eddy-video"; /* $0: names the shell in its own messages (in ffmpeg's log) */
    argv[n++] = exe;
    for (size_t i = 0; ffmpeg_args[i] && n < sizeof argv / sizeof argv[0] - 1; i++) argv[n++] = ffmpeg_args[i];
    argv[n] = NULL;

    *why = "socketpair";
    int pair[2];
    if (socket_pair_above_stdio(pair) != 0) return errno;
    *why = "posix_spawn";
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0) {
        rc = posix_spawnattr_init(&attr);
        if (rc != 0) posix_spawn_file_actions_destroy(&fa);
    }
    if (rc != 0) {
        close(pair[0]);
        close(pair[1]);
        return rc;
    }
    /* fds 0-3 and nothing else; each source is >= 3, so none is overwritten before it is used */
    rc = posix_spawn_file_actions_adddup2(&fa, frames_fd, 0);
    if (!rc) rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, fileno(v->log), 2);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, pair[1], 3);
#ifdef EDDY_SPAWN_CLOSEFROM
    if (!rc) rc = posix_spawn_file_actions_addclosefrom_np(&fa, 4);
#else
    if (!rc) rc = add_close_actions(&fa);
#endif
    /* per child, not the caller's: SIGCHLD at its default so the watcher's wait works, SIGTERM at its default so its
     * trap can be set (a shell cannot trap a signal ignored on entry), and no signal blocked */
    sigset_t to_default, none;
    sigemptyset(&to_default);
    sigaddset(&to_default, SIGCHLD);
    sigaddset(&to_default, SIGTERM);
    sigemptyset(&none);
    if (!rc) rc = posix_spawnattr_setsigdefault(&attr, &to_default);
    if (!rc) rc = posix_spawnattr_setsigmask(&attr, &none);
    if (!rc) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = 0;
    if (!rc) rc = posix_spawn(&pid, "/bin/sh", &fa, &attr, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(pair[1]); /* the watcher alone holds the other end: its exit ends the report */
    if (rc != 0) {
        close(pair[0]);
        return rc;
    }
    v->watcher = pid;
    v->report_fd = pair[0];
    int e = 0;
    v->pidfd = -1;
#ifdef SYS_pidfd_open
    v->pidfd = (int)syscall(SYS_pidfd_open, pid, 0u); /* always close-on-exec */
    if (v->pidfd < 0 && errno != ENOSYS && errno != EPERM) { /* ENOSYS, or EPERM from a filter: signals go by pid */
        e = errno;
        *why = "pidfd_open";
    }
#endif
    /* until the go-ahead the watcher cannot exit of itself: a hang-up means it was killed (or /bin/sh failed) before
     * pidfd_open, which may then have opened another process that took its pid */
    struct pollfd pf = {.fd = v->report_fd, .events = 0, .revents = 0};
    if (!e && poll(&pf, 1, 0) == 1 && (pf.revents & POLLHUP)) {
        e = ESRCH;
        *why = "the shell ended at once";
        if (v->pidfd >= 0) close(v->pidfd);
        v->pidfd = -1; /* not to be signalled: signal_watcher sees the hang-up */
    }
    const ssize_t sent = e ? 0 : send(v->report_fd, "go\n", 3, MSG_NOSIGNAL);
    if (!e && sent != 3) {
        e = sent < 0 ? errno : EIO;
        *why = "send";
    }
    if (e) { /* a watcher waiting for its go-ahead exits once we close our end, if SIGKILL cannot reach it */
        signal_watcher(v, SIGKILL);
        close(v->report_fd);
        v->report_fd = -1;
        reap_watcher(v, REAP_SECONDS);
    }
    return e;
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
    v->report_fd = -1;
    v->pidfd = -1;
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
    int sv[2];
    if (!v->log || socket_pair_above_stdio(sv) != 0) {
        int e = errno;
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
    const char *step = "";
    const int rc = start_ffmpeg(v, exe, d.format == EDDY_VIDEO_GIF ? args_gif : args_mp4, sv[1], &step);
    close(sv[1]);
    free(exe);
    if (rc != 0) {
        video_free(v);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot start %s (through /bin/sh): %s: %s", path,
                             program, step, strerror(rc));
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
    /* stall_seconds counts from the last byte the program took, as a deadline: a signal interrupting the wait (a
     * host's periodic timer) does not start it again, and no send blocks (MSG_DONTWAIT): a room to write says
     * nothing of how much, and a blocking send of a frame larger than it waited for all of it without limit */
    const double limit = (double)v->def.stall_seconds;
    double deadline = seconds_now() + limit;
    while (left) {
        const ssize_t n = send(v->sock, p, left, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            p += n;
            left -= (size_t)n;
            deadline = seconds_now() + limit;
            continue;
        }
        int e = n < 0 ? errno : EAGAIN;
        if (e == EINTR) continue;
        if (e == EAGAIN || e == EWOULDBLOCK) {
            int wait_ms = -1;
            if (limit > 0) {
                const double remaining = deadline - seconds_now();
                if (remaining <= 0) {
                    char why[400];
                    const int gone = stop_ffmpeg(v, why, sizeof why);
                    snprintf(v->error, sizeof v->error, "%s: %s took no data of frame %ld for %g s: %s", v->path,
                             v->program, v->frames, (double)v->def.stall_seconds, gone ? "stopped" : why);
                    return EDDY_ERR_IO;
                }
                wait_ms = (int)fmin(ceil(remaining * 1000.0), 2147483647.0);
            }
            struct pollfd pf = {.fd = v->sock, .events = POLLOUT, .revents = 0};
            if (poll(&pf, 1, wait_ms) >= 0 || errno == EINTR) continue; /* room, a hang-up, the deadline: see above */
            e = errno;
        }
        close(v->sock);
        v->sock = -1;
        char why[600];
        if (wait_ffmpeg(v, why, sizeof why)) snprintf(why, sizeof why, "%s stopped reading", v->program);
        snprintf(v->error, sizeof v->error, "%s: sending frame %ld to %s failed: %s (%s)", v->path, v->frames,
                 v->program, strerror(e), why);
        return EDDY_ERR_IO;
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
    char why[400];
    stop_ffmpeg(v, why, sizeof why);
    video_free(v);
}
