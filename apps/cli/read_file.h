/* Opening the files the eddy command reads (scene files, checkpoints). */
#ifndef EDDY_CLI_READ_FILE_H
#define EDDY_CLI_READ_FILE_H

#include <stddef.h>
#include <stdio.h>

/* fopen(path, "rb"), refusing a directory (Linux opens one, and only the first read fails). NULL, with err
 * "<path>: cannot open the <what>: <reason>" or "<path>: is a directory, not a <what>", when it cannot be read. */
FILE *cli_open_for_reading(const char *path, const char *what, char *err, size_t err_size);

#endif
