/* SPDX-License-Identifier: MIT */
/* The process's histograms as tpoint_print_hist() prints them, for the tests that read them
 * back (after testutil.h and <tpoint/tpoint.h>); the caller frees the text. */
#ifndef TPOINT_TESTS_HIST_TEXT_H
#define TPOINT_TESTS_HIST_TEXT_H

static TU_UNUSED char *hist_text(const char *globs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	REQUIRE(f, "open_memstream");
	CHECK(tpoint_print_hist(f, globs, 0) >= 0, "tpoint_print_hist");
	fclose(f);
	return buf;
}

#endif
