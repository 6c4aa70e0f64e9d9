/* SPDX-License-Identifier: MIT */
/*
 * Events of the build matrix (tests/build_matrix.sh): one of each definition macro, in the
 * kernel's spelling, so that every build a C or C++ program may have compiles all of them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tpt_matrix

#if !defined(_TRACE_TPT_MATRIX_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TPT_MATRIX_H

#include <tpoint/tracepoint.h>

#ifndef TPT_MATRIX_OPS
#define TPT_MATRIX_OPS
enum matrix_op { MATRIX_GET, MATRIX_PUT };
#endif

TRACE_DEFINE_ENUM(MATRIX_GET);
TRACE_DEFINE_ENUM(MATRIX_PUT);

TRACE_EVENT(matrix_kv,

	TP_PROTO(int op, const char *key, unsigned long len),

	TP_ARGS(op, key, len),

	TP_STRUCT__entry(
		__field(	int,		op	)
		__string(	key,		key	)
		__field(	u64,		len	)
		__array(	u8,		tag,	4	)
	),

	TP_fast_assign(
		__entry->op = op;
		__assign_str(key);
		__entry->len = len;
		memcpy(__entry->tag, "mtx", 4);
	),

	TP_printk("op=%s key=%s len=%llu tag=%s",
		  __print_symbolic(__entry->op, { MATRIX_GET, "get" }, { MATRIX_PUT, "put" }),
		  __get_str(key), (unsigned long long)__entry->len, __entry->tag)
);

TRACE_EVENT_CONDITION(matrix_even,

	TP_PROTO(int v),

	TP_ARGS(v),

	TP_CONDITION(v % 2 == 0),

	TP_STRUCT__entry(
		__field(int, v)
	),

	TP_fast_assign(
		__entry->v = v;
	),

	TP_printk("v=%d", __entry->v)
);

DECLARE_EVENT_CLASS(matrix_io,

	TP_PROTO(unsigned fd, long long bytes, const char *path),

	TP_ARGS(fd, bytes, path),

	TP_STRUCT__entry(
		__field(	u32,	fd	)
		__field(	s64,	bytes	)
		__string(	path,	path	)
	),

	TP_fast_assign(
		__entry->fd = fd;
		__entry->bytes = bytes;
		__assign_str(path, path);
	),

	TP_printk("fd=%u bytes=%lld path=%s flags=%s", __entry->fd, (long long)__entry->bytes,
		  __get_str(path), __print_flags(__entry->fd & 3, "|", { 1, "R" }, { 2, "W" }))
);

DEFINE_EVENT(matrix_io, matrix_read,
	TP_PROTO(unsigned fd, long long bytes, const char *path),
	TP_ARGS(fd, bytes, path)
);

DEFINE_EVENT_CONDITION(matrix_io, matrix_write,
	TP_PROTO(unsigned fd, long long bytes, const char *path),
	TP_ARGS(fd, bytes, path),
	TP_CONDITION(bytes > 0)
);

DEFINE_EVENT_PRINT(matrix_io, matrix_sync,
	TP_PROTO(unsigned fd, long long bytes, const char *path),
	TP_ARGS(fd, bytes, path),
	TP_printk("sync fd=%u", __entry->fd)
);

#endif /* _TRACE_TPT_MATRIX_H */

#include <tpoint/define_trace.h>
