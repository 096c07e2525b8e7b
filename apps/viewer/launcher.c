/* `eddy view` and `eddy serve` (see launcher.h): find the program or the built page and exec. */
#include "launcher.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef EDDY_VIEW_BUILD_PATH
#define EDDY_VIEW_BUILD_PATH ""
#endif
#ifndef EDDY_WEB_BUILD_DIR
#define EDDY_WEB_BUILD_DIR ""
#endif

/* the folder of the running program (from /proc/self/exe, else argv0) into dir */
static void program_dir(const char *argv0, char *dir, size_t size) {
    ssize_t n = readlink("/proc/self/exe", dir, size - 1);
    if (n > 0) dir[n] = '\0';
    else snprintf(dir, size, "%s", argv0 ? argv0 : "");
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, size, ".");
}

int eddy_view_main(const char *argv0, int argc, char **argv) {
    char dir[PATH_MAX], candidates[3][PATH_MAX + 32];
    program_dir(argv0, dir, sizeof dir);
    snprintf(candidates[0], sizeof candidates[0], "%s/eddy-view", dir);          /* installed side by side */
    snprintf(candidates[1], sizeof candidates[1], "%s/../viewer/eddy-view", dir); /* build tree: apps/cli, apps/viewer */
    snprintf(candidates[2], sizeof candidates[2], "%s", EDDY_VIEW_BUILD_PATH);
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) { fprintf(stderr, "eddy view: out of memory\n"); return 1; }
    for (int i = 0; i < argc; i++) args[i + 1] = argv[i];
    for (int c = 0; c < 3; c++) {
        if (!candidates[c][0] || access(candidates[c], X_OK) != 0) continue;
        args[0] = candidates[c];
        execv(candidates[c], args);
        fprintf(stderr, "eddy view: cannot run %s: %s\n", candidates[c], strerror(errno));
        free(args);
        return 1;
    }
    args[0] = "eddy-view";
    execvp("eddy-view", args);
    fprintf(stderr, "eddy view: the viewer (eddy-view) is not built: it needs SDL2 "
                    "(apt-get install libsdl2-dev, then rebuild)\n");
    free(args);
    return 1;
}

int eddy_serve_main(const char *argv0, int argc, char **argv) {
    (void)argv0;
    const char *port = argc > 0 ? argv[0] : "8080";
    char *end;
    long p = strtol(port, &end, 10);
    if (end == port || *end || p < 0 || p > 65535) { /* '' is not port 0 */
        fprintf(stderr, "eddy serve: port '%s': expected a number 0..65535\n", port);
        return 2;
    }
    char wasm[PATH_MAX + 16], script[PATH_MAX + 16];
    snprintf(wasm, sizeof wasm, "%s/eddy.wasm", EDDY_WEB_BUILD_DIR);
    snprintf(script, sizeof script, "%s/serve.mjs", EDDY_WEB_BUILD_DIR);
    if (access(wasm, R_OK) != 0 || access(script, R_OK) != 0) {
        fprintf(stderr, "eddy serve: the web page is not built in %s: it needs emscripten "
                        "(apt-get install emscripten, then rebuild)\n", EDDY_WEB_BUILD_DIR);
        return 1;
    }
    char *args[] = {"node", script, (char *)EDDY_WEB_BUILD_DIR, (char *)port, NULL};
    execvp("node", args);
    fprintf(stderr, "eddy serve: cannot run node: %s (apt-get install nodejs)\n", strerror(errno));
    return 1;
}
