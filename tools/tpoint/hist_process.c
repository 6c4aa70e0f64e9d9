// SPDX-License-Identifier: MIT
/*
 * tpoint hist -p PID: a running process's histograms (hist_cmd.h). A placeholder in this
 * build: the histograms of a process's own triggers come with the in-process triggers.
 */
#include <stdio.h>
#include "hist_cmd.h"
#include "tool.h"

int hist_process(const struct hist_cmd_opts *o)
{
	(void)o;
	fprintf(stderr, "tpoint hist -p: not implemented in this build\n");
	return EXIT_FAIL;
}
