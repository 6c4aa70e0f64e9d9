/* SPDX-License-Identifier: MIT */
/* tpoint record --assemble DIR: the file of a recording whose spools were kept. */
#define _GNU_SOURCE
#include <unistd.h>
#include "record.h"
#include "tool.h"

/*
 * tpoint record --assemble DIR: the file of a recording whose spools `record` kept because
 * it could not write the file (a full disk). The spools go once the file is written from
 * all of them, every one read to its end mark; DIR too, if nothing else is in it. Spools
 * with anything that cannot be read stay, with what was wrong said and a failure status:
 * the file then holds what could be read.
 */
int record_assemble(const char *dir, const char *out)
{
	struct tracedat_result res;
	char **spools, err[512];
	size_t nspools;
	int ret = EXIT_OK;

	if (collect_spools(dir, &spools, &nspools) < 0) {
		tool_error("record", "%s: no spool files (*.spool) there", dir);
		free_spools(spools, nspools);
		return EXIT_FAIL;
	}
	if (tp_tracedat_write(&(struct tracedat_write_opts){ .out_path = out,
			      .spools = (const char *const *)spools, .nspools = (int)nspools,
			      .codec = opt_codec }, &res, err, sizeof(err)) < 0) {
		tool_error("record", "%s", err);
		free_spools(spools, nspools);
		return EXIT_FAIL;
	}
	tool_error_lines("record", "damaged: ", res.damage);
	tool_error_lines("record", "incomplete: ", res.unfinished);
	print_summary(out, &res, nspools, NULL);
	if (res.damage || res.unfinished) {
		tool_error("record", "%s holds what could be read, not all of it; %s is kept as it "
			   "was", out, dir);
		ret = EXIT_FAIL;
	} else {
		for (size_t i = 0; i < nspools; i++)
			unlink(spools[i]);
		rmdir(dir);
	}
	tp_tracedat_result_free(&res);
	free_spools(spools, nspools);
	return ret;
}
