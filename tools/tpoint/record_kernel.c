/* SPDX-License-Identifier: MIT */
/* tpoint record -k GLOBS alone: the kernel's events, without a program. */
#define _GNU_SOURCE
#include <time.h>
#include "record.h"
#include "tool.h"

/* tpoint record -k GLOBS with neither a command nor -p: until Ctrl-C or the duration. */
int record_kernel(struct krecord *kr, const char *out, double duration)
{
	struct tracedat_extra x;
	struct tracedat_result res;
	double elapsed = 0;
	char err[1024];

	if (krec_start(kr, out, err, sizeof(err)) < 0) {
		tool_error("record", "-k: %s", err);
		return EXIT_FAIL;
	}
	while (!stop_requested && (!duration || elapsed < duration)) {
		nanosleep(&(struct timespec){ 0, 100000000 }, NULL);
		elapsed += 0.1;
	}
	krec_stop(kr);
	if (krec_extra(kr, &x, err, sizeof(err)) < 0) {
		tool_error("record", "-k: %s", err);
		return EXIT_FAIL;
	}
	if (tp_tracedat_write(&(struct tracedat_write_opts){ .out_path = out, .extra = &x,
			      .codec = opt_codec }, &res, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		return EXIT_FAIL;
	}
	print_summary(out, &res, 0, NULL);
	krec_summary(kr);
	tp_tracedat_result_free(&res);
	return EXIT_OK;
}
