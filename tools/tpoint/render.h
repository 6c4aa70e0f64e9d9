/* SPDX-License-Identifier: MIT */
/*
 * The tool's one renderer of events: what `tpoint report` and `tpoint stream` share, so
 * that a record prints the same line, and an event libtraceevent cannot print is refused
 * with the same message, whichever verb shows it.
 *
 * It holds the libtraceevent setup (the handle, the plugins trace-cmd loads, the log hook),
 * the parsing of event formats with the checks that keep a hostile or broken format away
 * from libtraceevent (print fmt fields that do not exist, print args it would follow
 * through pointers it never set), and the record printer, laid out as trace-cmd report's
 * trace_show_data() lays a line out. libtraceevent's calls run under tep_guard.h.
 *
 * A problem is said once per event, on stderr, as "tpoint VERB: [FILE: ]message", when the
 * first record of the event is printed; each one counts in `problems`.
 */
#ifndef TPOINT_RENDER_H
#define TPOINT_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <event-parse.h>

/* What the renderer knows about one event id. */
struct render_event {
	char *label;	 /* "system:name"; NULL: no format has this id */
	char *parse_msg; /* what went wrong while parsing its format, or NULL */
	char *unsafe;	 /* why libtraceevent must not print it, or NULL */
	bool parse_failed;
	bool crashed;	 /* libtraceevent trapped on it: never call it again */
	bool said;	 /* a problem with this id was already said */
};

struct renderer {
	const char *verb;
	const char *file; /* named before every message, or NULL */
	struct tep_handle *tep;
	struct tep_plugin_list *plugins;
	struct render_event *events; /* by event id, 65536 */
	unsigned short *added;	     /* the ids given a format, in order */
	size_t nr_added;
	bool ts_in_ns;		     /* times are ns: "secs.usecs"; else raw counts */
	size_t tail;		     /* zeroed bytes after each record's copy */
	unsigned char *scratch;
	size_t scratch_size;
	int problems;		     /* events not rendered faithfully */
};

/*
 * A renderer for records of the given byte order and long size (the recording machine's);
 * each record is copied with `tail` zeroed bytes after it (a page: a string without its NUL
 * ends there). Installs the guard and keeps libtraceevent's warnings for the messages until
 * render_free(). -1 when out of memory (render_free() it all the same).
 */
int render_init(struct renderer *r, const char *verb, const char *file, bool big_endian,
		int long_size, size_t tail);
void render_free(struct renderer *r);

/*
 * Parse the format of event `id` (the text of a tracefs "format" file, `len` bytes): checked
 * first, parsed under the guard, then its print args checked; what is wrong is kept for the
 * first record. A second format for a known id is ignored. -1 when out of memory.
 */
int render_add_format(struct renderer *r, int id, const char *system, const char *name,
		      const char *text, size_t len);

/*
 * Print one record on stdout, as trace-cmd report prints it: its lost-events line first,
 * then "comm-pid [cpu] time: name: text". `prefix` (NULL: none) is the buffer name, padded
 * to `width`. rec->data is not changed: libtraceevent reads a copy.
 */
void render_record(struct renderer *r, const struct tep_record *rec, const char *prefix,
		   int width);
/* "CPU:N [COUNT EVENTS DROPPED]" alone: a loss with no record of the thread after it. */
void render_dropped(int cpu, unsigned long long count);

/* Formats that failed to parse but that no record used: named in one line, not counted. */
void render_note_unused(struct renderer *r);

#endif
