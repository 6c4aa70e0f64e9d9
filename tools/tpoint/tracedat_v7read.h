/* SPDX-License-Identifier: MIT */
/*
 * tracedat_v7read - trace.dat version 7 (trace-cmd.dat.v7(5): sections found through options,
 * compressed with zstd or zlib or not at all) expanded into the version 6 file that holds the
 * same metadata, options and pages. The strict version 6 reader (tracedat_read.c) then maps
 * and checks that copy as it checks any file, and `tpoint convert --to v6` writes it out.
 *
 * The copy is written to a file descriptor as it is made: the metadata sections one at a
 * time, each CPU's pages one compressed chunk at a time, so that memory stays bounded by the
 * largest section and chunk whatever the size of the trace.
 */
#ifndef TPOINT_TRACEDAT_V7READ_H
#define TPOINT_TRACEDAT_V7READ_H

#include <stddef.h>

/* Is this file (its first size bytes) a version 7 trace.dat? */
int td7_is_v7(const void *data, size_t size);

/*
 * Writes the version 6 equivalent of the version 7 file at data (size bytes) to fd, from
 * its current offset 0 on. 0, or -1 with one line in err that says what is wrong and at
 * which offset of the input (or which write failed).
 */
int td7_expand(const void *data, size_t size, int fd, char *err, size_t errlen);

/*
 * An unlinked temporary file for the copy, in $TMPDIR or /tmp (O_TMPFILE, or a name removed
 * at once where the file system has no O_TMPFILE): its fd, or -1 with the reason in err.
 */
int td7_tmpfile(char *err, size_t errlen);

#endif
