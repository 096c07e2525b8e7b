/* Helpers for the end-to-end tests of the eddy command: run the binary in a folder, capture its output and exit
 * code, make temporary folders, look at files. EDDY_CLI is the program's path (set by CMake). */
#ifndef EDDY_TEST_CLI_UTIL_H
#define EDDY_TEST_CLI_UTIL_H

#include "check.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef EDDY_CLI
#error "EDDY_CLI must name the eddy program"
#endif

/* output of the last run (stdout and stderr together) */
static char cli_output[1 << 16];

/* Runs the shell command `cmd`, capturing its output in cli_output; returns the exit code (-1 if it did not exit). */
static inline int cli_shell(const char *cmd) {
    FILE *p = popen(cmd, "r");
    cli_output[0] = '\0';
    if (!p) return -1;
    size_t used = 0, got;
    while ((got = fread(cli_output + used, 1, sizeof cli_output - 1 - used, p)) > 0) used += got;
    cli_output[used] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Runs `eddy ARGS` (a shell-quoted argument string) in folder `dir`; returns the exit code (-1 if it did not exit). */
static inline int cli_run(const char *dir, const char *args) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>&1", dir, EDDY_CLI, args);
    return cli_shell(cmd);
}

/* cli_run with a time limit: a run that hangs is killed after `seconds` (exit code 124) instead of stalling the suite
 * until ctest's timeout. */
static inline int cli_run_limited(const char *dir, int seconds, const char *args) {
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "cd '%s' && timeout -k 5 %d '%s' %s 2>&1", dir, seconds, EDDY_CLI, args);
    return cli_shell(cmd);
}

/* A fresh temporary folder (removed by cli_cleanup). */
static inline char *cli_tempdir(char *buf, size_t size) {
    const char *base = getenv("TMPDIR");
    snprintf(buf, size, "%s/eddy-cli-test-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(buf)) {
        perror("mkdtemp");
        exit(2);
    }
    return buf;
}

static inline void cli_cleanup(const char *dir) {
    char cmd[4200];
    if (getenv("EDDY_KEEP_TEST_FILES")) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

static inline bool cli_exists(const char *dir, const char *name) {
    char path[8400];
    struct stat s;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &s) == 0;
}

static inline long cli_file_size(const char *dir, const char *name) {
    char path[8400];
    struct stat s;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &s) == 0 ? (long)s.st_size : -1;
}

/* Reads a whole file into malloc'ed memory (NUL-terminated); NULL when missing. */
static inline char *cli_read(const char *dir, const char *name, size_t *len) {
    char path[8400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *buf = (char *)malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    if (len) *len = (size_t)n;
    return buf;
}

static inline bool cli_write(const char *dir, const char *name, const char *text) {
    char path[8400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* true when the two files exist and have the same bytes */
static inline bool cli_same_file(const char *dir_a, const char *dir_b, const char *name) {
    size_t na = 0, nb = 0;
    char *a = cli_read(dir_a, name, &na), *b = cli_read(dir_b, name, &nb);
    bool same = a && b && na == nb && memcmp(a, b, na) == 0;
    free(a);
    free(b);
    return same;
}

static inline bool cli_have_ffmpeg(void) { return system("command -v ffmpeg > /dev/null 2>&1") == 0; }

#endif
