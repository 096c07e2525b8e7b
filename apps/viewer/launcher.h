/* For the eddy command: `eddy view [SCENE] [options]` runs the eddy-view program, `eddy serve [PORT]` serves the
 * web page on localhost. Each replaces the calling process (exec); they return only on failure, with an exit code
 * (1) after printing why to stderr. Link target: eddy_view_launcher. */
#ifndef EDDY_VIEW_LAUNCHER_H
#define EDDY_VIEW_LAUNCHER_H

/** argv0: the eddy command's argv[0]; argc/argv: the arguments after "view". */
int eddy_view_main(const char *argv0, int argc, char **argv);
/** argc/argv: the arguments after "serve": [PORT] (default 8080). */
int eddy_serve_main(const char *argv0, int argc, char **argv);

#endif
