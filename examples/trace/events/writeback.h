/* SPDX-License-Identifier: MIT */
/*
 * The seed's tracepoint, made real: Arjan van de Ven's writeback_inode_dirty (2010), with the
 * condition that the VFS developers asked to move into the tracepoint itself. Written exactly
 * as the kernel writes it; only the kernel's inode is replaced by this example's.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM writeback

#if !defined(_TRACE_WRITEBACK_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_WRITEBACK_H

#include <tpoint/tracepoint.h>
#include "../../inode.h"

TRACE_EVENT_CONDITION(writeback_inode_dirty,

	TP_PROTO(struct inode *inode, int flags),

	TP_ARGS(inode, flags),

	/* Only the non-trivial dirtyings: creating and freeing inodes is noise to PowerTOP. */
	TP_CONDITION(flags & (I_DIRTY_SYNC | I_DIRTY_DATASYNC | I_DIRTY_PAGES)),

	TP_STRUCT__entry(
		__field(	u32,		dev		)
		__field(	u64,		ino		)
		__field(	u32,		flags		)
	),

	TP_fast_assign(
		__entry->dev	= inode->i_dev;
		__entry->ino	= inode->i_ino;
		__entry->flags	= flags;
	),

	TP_printk("dev %d:%d ino %lu flags %d %s", MAJOR(__entry->dev), MINOR(__entry->dev),
		  (unsigned long) __entry->ino,
		  __entry->flags,
		  __print_flags(__entry->flags, "|", INODE_DIRTY_FLAGS)
	)
);

/* Every write, dirtying or not: the unconditional companion. */
TRACE_EVENT(writeback_write,

	TP_PROTO(struct inode *inode, const char *path, long bytes),

	TP_ARGS(inode, path, bytes),

	TP_STRUCT__entry(
		__field(	u64,		ino		)
		__field(	long,		bytes		)
		__string(	path,		path		)
	),

	TP_fast_assign(
		__entry->ino	= inode->i_ino;
		__entry->bytes	= bytes;
		__assign_str(path);
	),

	TP_printk("ino %lu bytes %ld path %s", (unsigned long) __entry->ino, __entry->bytes,
		  __get_str(path))
);

#endif /* _TRACE_WRITEBACK_H */

/* This part must be outside protection */
#include <tpoint/define_trace.h>
