/* SPDX-License-Identifier: MIT */
/*
 * Where `tpoint convert` writes (conv_output.c): a CTF directory or a JSON file put in
 * place whole, or not at all.
 */
#ifndef TPOINT_CONV_OUTPUT_H
#define TPOINT_CONV_OUTPUT_H

#include <stdbool.h>
#include "convert_backend.h"
#include "outplace.h"

/* The directory of `out` opened, its name in it; 0, or -1 with the reason said. */
int place_open(struct outplace *pl, const char *out);
/* cv written as CTF (a directory) or JSON lines (a file) at pl: an exit status. */
int convert_ctf(struct conv *cv, struct outplace *pl, bool force);
int convert_json(struct conv *cv, struct outplace *pl, bool force);

#endif
