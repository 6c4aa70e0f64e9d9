/* SPDX-License-Identifier: MIT */
/*
 * Where `tpoint convert` writes (conv_output.c): a CTF directory or a JSON file put in
 * place whole, or not at all.
 */
#ifndef TPOINT_CONV_OUTPUT_H
#define TPOINT_CONV_OUTPUT_H

#include <limits.h>
#include <stdbool.h>
#include "convert_backend.h"

/*
 * Where the output goes: its directory, reached as every output is (tp_output_dir(): no
 * other user's link followed on the way), and its name there. Everything below is done
 * relative to that directory's descriptor: what is checked is what is replaced.
 */
struct place {
	const char *out; /* as given, for the messages */
	int dir;
	char name[NAME_MAX + 1];
};

/* The directory of `out` opened, its name in it; 0, or -1 with the reason said. */
int place_open(struct place *pl, const char *out);
/* cv written as CTF (a directory) or JSON lines (a file) at pl: an exit status. */
int convert_ctf(struct conv *cv, const struct place *pl, bool force);
int convert_json(struct conv *cv, const struct place *pl, bool force);

#endif
