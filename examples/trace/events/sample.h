/* SPDX-License-Identifier: MIT */
/*
 * A tutorial: every macro of the definition language, in the kernel's own words, as in the
 * kernel's samples/trace_events/trace-events-sample.h. sample.c fires each event once; run
 *
 *	TPOINT_EVENTS='sample:*' TPOINT_RECORD=sample.dat ./sample && tpoint report sample.dat
 *
 * The header is read several times: once normally, where TRACE_EVENT() declares
 * trace_<name>() and friends, and once per stage from <tpoint/define_trace.h> in the one file
 * that defines CREATE_TRACE_POINTS. That is why the guard lets TRACE_HEADER_MULTI_READ in,
 * and why helpers that must exist once (like the enum below) sit behind a guard of their own.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sample

/*
 * By default the stages include <trace/events/TRACE_SYSTEM.h>. TRACE_INCLUDE_PATH and
 * TRACE_INCLUDE_FILE say where the header really is, when it is somewhere else.
 */
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sample

#if !defined(_TRACE_SAMPLE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SAMPLE_H

#include <tpoint/tracepoint.h>

#ifndef _TRACE_SAMPLE_DEFS_ONCE
#define _TRACE_SAMPLE_DEFS_ONCE
/* An enum: print formats see its names, which libtraceevent cannot resolve... */
enum sample_color { COLOR_RED = 1, COLOR_GREEN = 2, COLOR_BLUE = 3 };
struct sample_point {
	int x, y;
};
#define SAMPLE_FLAG_READ 0x1
#define SAMPLE_FLAG_WRITE 0x2
#define SAMPLE_FLAG_SYNC 0x4
#endif

/* ...so TRACE_DEFINE_ENUM() replaces each name with its value in the stored format. */
TRACE_DEFINE_ENUM(COLOR_RED);
TRACE_DEFINE_ENUM(COLOR_GREEN);
TRACE_DEFINE_ENUM(COLOR_BLUE);

/*
 * TRACE_EVENT(name, proto, args, struct, assign, print)
 *
 *  TP_PROTO:  the prototype of trace_<name>().
 *  TP_ARGS:   the same names, without types.
 *  TP_STRUCT__entry: the record, field by field:
 *	__field(type, name)		a plain value
 *	__field_struct(type, name)	a structure, copied as it is
 *	__array(type, name, len)	a fixed-size array
 *	__string(name, src)		a NUL-terminated string of any length
 *	__dynamic_array(type, name, n)	n elements, n computed from the arguments
 *  TP_fast_assign: fills __entry from the arguments. __assign_str(name) copies the string
 *	given to __string() (the older __assign_str(name, src) form works too);
 *	__get_dynamic_array(name) is where a dynamic array's elements go.
 *  TP_printk: how the record is printed, with the helpers libtraceevent knows:
 *	__print_flags, __print_symbolic, __print_hex, __print_array, __get_str,
 *	__get_dynamic_array, __get_dynamic_array_len.
 *	The format is stored as text and evaluated by the reader, never at record time.
 */
TRACE_EVENT(sample_every_field,

	TP_PROTO(int id, const char *name, const struct sample_point *p, const unsigned char *mac,
		 const int *values, int nvalues, unsigned int flags, enum sample_color color),

	TP_ARGS(id, name, p, mac, values, nvalues, flags, color),

	TP_STRUCT__entry(
		__field(	int,			id		)
		__string(	name,			name		)
		__field_struct(	struct sample_point,	point		)
		__array(	unsigned char,		mac,	6	)
		__dynamic_array(int,			values,	nvalues	)
		__field(	unsigned int,		flags		)
		__field(	int,			color		)
	),

	TP_fast_assign(
		__entry->id = id;
		__assign_str(name);
		__entry->point = *p;
		memcpy(__entry->mac, mac, 6);
		memcpy(__get_dynamic_array(values), values, nvalues * sizeof(int));
		__entry->flags = flags;
		__entry->color = color;
	),

	TP_printk("id=%d name=%s mac=%s values={%s} flags=%s color=%s",
		  __entry->id, __get_str(name),
		  __print_hex(__entry->mac, 6),
		  __print_array(__get_dynamic_array(values),
				__get_dynamic_array_len(values) / sizeof(int), sizeof(int)),
		  __print_flags(__entry->flags, "|",
				{ SAMPLE_FLAG_READ, "READ" },
				{ SAMPLE_FLAG_WRITE, "WRITE" },
				{ SAMPLE_FLAG_SYNC, "SYNC" }),
		  __print_symbolic(__entry->color,
				   { COLOR_RED, "red" },
				   { COLOR_GREEN, "green" },
				   { COLOR_BLUE, "blue" }))
);

/*
 * TRACE_EVENT_CONDITION: the event fires only when TP_CONDITION holds. The condition is
 * evaluated only once the event is enabled; a false condition is counted ("skipped by
 * condition" in `tpoint report --stats`), so a quiet event does not look like dead code.
 */
TRACE_EVENT_CONDITION(sample_large,

	TP_PROTO(long size),

	TP_ARGS(size),

	TP_CONDITION(size >= 4096),

	TP_STRUCT__entry(
		__field(	long,	size	)
	),

	TP_fast_assign(
		__entry->size = size;
	),

	TP_printk("size=%ld", __entry->size)
);

/*
 * Many events with one layout: DECLARE_EVENT_CLASS describes the record once, and each
 * DEFINE_EVENT names an event of that class. DEFINE_EVENT_CONDITION adds a condition to one
 * of them, DEFINE_EVENT_PRINT gives one its own print format.
 */
DECLARE_EVENT_CLASS(sample_io,

	TP_PROTO(const char *file, unsigned long offset, unsigned int len),

	TP_ARGS(file, offset, len),

	TP_STRUCT__entry(
		__string(	file,		file	)
		__field(	unsigned long,	offset	)
		__field(	unsigned int,	len	)
	),

	TP_fast_assign(
		__assign_str(file, file);	/* the older two-argument form */
		__entry->offset = offset;
		__entry->len = len;
	),

	TP_printk("%s offset=%lu len=%u", __get_str(file), __entry->offset, __entry->len)
);

DEFINE_EVENT(sample_io, sample_read,
	TP_PROTO(const char *file, unsigned long offset, unsigned int len),
	TP_ARGS(file, offset, len)
);

DEFINE_EVENT_CONDITION(sample_io, sample_write_unaligned,
	TP_PROTO(const char *file, unsigned long offset, unsigned int len),
	TP_ARGS(file, offset, len),
	TP_CONDITION(offset % 4096 != 0)
);

DEFINE_EVENT_PRINT(sample_io, sample_sync,
	TP_PROTO(const char *file, unsigned long offset, unsigned int len),
	TP_ARGS(file, offset, len),
	TP_printk("sync %s", __get_str(file))
);

#endif /* _TRACE_SAMPLE_H */

/* Outside the guard: read on every pass. */
#include <tpoint/define_trace.h>
