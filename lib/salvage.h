/* SPDX-License-Identifier: MIT */
/* salvage.c: what a process left in its pool, added to its spool. */
#ifndef TPOINT_SALVAGE_H
#define TPOINT_SALVAGE_H

#include <stddef.h>
#include <stdint.h>
#include "hidden.h"

/*
 * The records of the pool (pool_fd: npages pages, their struct page_meta at meta_off) that
 * the spool (spool_fd, called `name` in messages) lacks, appended to it after its last whole
 * chunk; *added says how many. Reads and writes only the two descriptors.
 */
HIDDEN int tp_spool_salvage_fd(int spool_fd, const char *name, int pool_fd, uint64_t pool_len,
			       uint32_t npages, uint64_t meta_off, uint64_t *added, char *err,
			       size_t errlen);
/* The same for the spool at `path`, a regular file of ours opened without following links. */
HIDDEN int tp_spool_salvage_memfd(const char *path, int memfd, uint32_t npages, size_t meta_off,
				  uint64_t *added, char *err, size_t errlen);

#endif
