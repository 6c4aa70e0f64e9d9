/* SPDX-License-Identifier: MIT */
/*
 * The control protocol between an instrumented process and the tpoint tool, over the UNIX
 * socket each process listens on (lib/control.c), and the counter rows that a trace.dat file
 * keeps in tpoint's options: the one home of these bytes, linked by the library and the tool.
 * Pure: libc only, no I/O.
 *
 * Every message is a header and a payload of `len` bytes. The client speaks first with
 * CTL_HELLO; the process answers CTL_HELLO, or CTL_ERROR if the major version differs.
 * Then each request gets exactly one answer: CTL_OK (an int32 result, then text) or
 * CTL_ERROR (an int32 -errno, then a one-line message). Payloads are text, one record per
 * line, fields separated by tabs; each has a struct below, written by its _put function and
 * read by its _parse (or _next, for a list of lines) function, on both sides.
 *
 * The parsers take text that the peer wrote, which may be anyone's: they cut it in place
 * (tabs and newlines become NULs), point into it, never read past its NUL, and say
 * "malformed" rather than guess.
 */
#ifndef TPOINT_CONTROL_MSG_H
#define TPOINT_CONTROL_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CTL_MAGIC 0x54435054u /* "TPCT" */
#define CTL_MAJOR 1
#define CTL_MINOR 2 /* 1: CTL_JUMP; 2: CTL_TRIGGER, CTL_HIST */
#define CTL_MAX_REQUEST (64u << 10)
#define CTL_MAX_REPLY (16u << 20)

struct ctl_hdr {
	uint32_t magic;
	uint16_t major;
	uint16_t minor;
	uint32_t type;
	uint32_t len; /* payload bytes that follow */
};

enum ctl_type {
	/* -> "" ; <- struct ctl_hello */
	CTL_HELLO = 1,
	/* -> "" ; <- a struct ctl_event_row per event */
	CTL_LIST = 2,
	/* -> "glob[,glob...]" ; <- OK with the number of events matched */
	CTL_ENABLE = 3,
	CTL_DISABLE = 4,
	/* -> struct ctl_filter_req (empty expr clears) ; <- OK, or ERROR with the reason */
	CTL_FILTER = 5,
	/* -> "" ; <- a struct ctl_stat_row per event, with its usdt field */
	CTL_STATS = 6,
	/* -> "" ; <- per event its tracefs format text, each ending with an empty line */
	CTL_FORMATS = 7,
	/*
	 * -> struct ctl_attach_req ; <- OK with the number of events enabled and a struct
	 * ctl_attach_reply, plus the pool's memfd (SCM_RIGHTS) when the process still has it.
	 * The process records into `spool` until CTL_DETACH, or until this connection closes
	 * (then everything it enabled reverts).
	 */
	CTL_ATTACH = 8,
	/* -> "" ; <- OK once the spool is complete */
	CTL_DETACH = 9,
	/* -> "dir" ; <- OK with the path of a spool holding the recording's contents now */
	CTL_SNAPSHOT = 10,
	/* -> "" ; <- struct ctl_jump */
	CTL_JUMP = 11,
	/* -> struct ctl_filter_req, the trigger's text in expr ; <- OK, or ERROR with the
	 * kernel's words */
	CTL_TRIGGER = 12,
	/* -> struct ctl_hist_req ; <- OK with the number of histograms, and their text */
	CTL_HIST = 13,

	CTL_OK = 0x100,
	CTL_ERROR = 0x101,
};

/*
 * Deadlines: neither end waits on the other's bytes without one. The process drops a request
 * not whole 2 s after its first byte and an answer not taken within 2 s; the tool gives an
 * answer 5 s to begin and 5 s more to complete (ps: 2 s each, and 4 KiB).
 */

/* ---- where a process's socket is: <dir>/<pid>.sock ---- */

/*
 * <dir> is $XDG_RUNTIME_DIR/tpoint when the process has that variable, absolute, naming a
 * directory of its own effective user; else /tmp/tpoint-<euid>. The library makes it (mode
 * 0700); the tool looks in both, as the process's environment says. The variables' names:
 * lib/env.h (TP_ENV_RUNTIME_DIR, TP_ENV_CONTROL).
 */
/* Each: the length snprintf() gives, so that >= len means cut short. */
int tp_ctl_dir_in_runtime(char *out, size_t len, const char *runtime_dir);
int tp_ctl_dir_in_tmp(char *out, size_t len, unsigned euid);
int tp_ctl_socket_path(char *out, size_t len, const char *dir, int pid);
/* Is `name` (an entry of <dir>) a socket's name; its pid in *pid. */
bool tp_ctl_socket_name(const char *name, long *pid);

/* ---- growing text: what every _put function writes to ---- */

struct ctl_text {
	char *buf;   /* NUL-terminated when not NULL */
	size_t len;
	size_t cap;
	size_t max;  /* the most it may grow to (the NUL included); 0: no limit */
	bool oom;    /* something did not fit: the text is short of it */
};

void tp_ctl_text_add(struct ctl_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tp_ctl_text_free(struct ctl_text *t);

/* ---- why an event stays off whatever enables it ---- */

enum ctl_refusal {
	CTL_REFUSAL_NONE = 0,
	CTL_REFUSAL_FORMAT = 1, /* libtraceevent cannot render its print format */
	CTL_REFUSAL_REG = 2,    /* its TRACE_EVENT_FN reg() failed */
};

/* ---- CTL_HELLO's answer: "pid\tcomm\tevents\tenabled\trecording\n" ---- */

struct ctl_hello {
	long long pid, events, enabled; /* -1 when the process sent no number */
	const char *comm;
	const char *recording; /* none, memory, file:PATH, spool:PATH */
};

void tp_ctl_hello_put(struct ctl_text *t, const struct ctl_hello *h);
/* One line (no newline needed); fields missing are -1 or NULL. Never fails. */
void tp_ctl_hello_parse(char *line, struct ctl_hello *h);

/* ---- CTL_LIST's answer: "id\tsystem:name\tenabled\tcondition\tfilter\trefused\n" ---- */

/*
 * refused: "" or why the event stays off: "reg function returned N" (its reg(), N in
 * reg_error) or the reason libtraceevent gives. Older processes send no refused field.
 */
struct ctl_event_row {
	unsigned id;
	const char *system; /* written: when set, the event is system:event; parsed: NULL */
	const char *event;  /* system:name */
	bool enabled;
	const char *condition;
	const char *filter;
	enum ctl_refusal refusal;
	int reg_error;     /* CTL_REFUSAL_REG: what reg() returned */
	const char *why;   /* CTL_REFUSAL_FORMAT: libtraceevent's reason (NULL: "refused") */
	const char *refused; /* parsed: the field as sent, for people; "" if none */
};

void tp_ctl_event_row_put(struct ctl_text *t, const struct ctl_event_row *r);
/* The next row of the text at *cur (cut in place): 1, or 0 at its end. Lines with no event
 * are skipped; fields missing are "" or 0. */
int tp_ctl_event_row_next(char **cur, struct ctl_event_row *r);
/* The refusal a refused field says, and reg()'s error in *reg_error for CTL_REFUSAL_REG. */
enum ctl_refusal tp_ctl_refusal_of(const char *refused, int *reg_error);

/* ---- counter rows: CTL_STATS's answer and the file's STATS option ---- */

enum { CTL_HITS, CTL_COND_SKIPPED, CTL_FILTERED, CTL_RECORDED, CTL_LOST, CTL_NCOUNTERS };

/*
 * "system:name\thits\tcond_skipped\tfiltered\trecorded\tlost\tcondition[\tusdt]\n": the
 * usdt field (the USDT probes attached, its semaphore) only on the socket; the file's rows
 * end with the condition (lib/tracedat_format.h). Older processes send no usdt field, and
 * older still no condition.
 */
struct ctl_stat_row {
	const char *system; /* as in struct ctl_event_row */
	const char *event;
	uint64_t v[CTL_NCOUNTERS];
	const char *condition;
	uint64_t usdt;
};

enum ctl_row_flavour { CTL_ROW_FILE, CTL_ROW_SOCKET };

void tp_ctl_stat_row_put(struct ctl_text *t, const struct ctl_stat_row *r,
		      enum ctl_row_flavour flavour);
/*
 * One line (without its newline), cut in place. 0; CTL_ROW_MALFORMED when it is not a row
 * (fewer fields, no "system:" in the event); or CTL_ROW_NOT_NUMBER + i when counter i is not
 * a decimal number. The file's condition, last, keeps any tab of its own.
 */
#define CTL_ROW_MALFORMED (-1)
#define CTL_ROW_NOT_NUMBER (-100)
int tp_ctl_stat_row_parse(char *line, struct ctl_stat_row *r, enum ctl_row_flavour flavour);
/* The next row of a CTL_STATS text at *cur (cut in place): 1, 0 at its end, or the error of
 * tp_ctl_stat_row_parse() for a malformed line. */
int tp_ctl_stat_row_next(char **cur, struct ctl_stat_row *r);

/* ---- the file's NOTES option: "system:name\ttoo_big\trefused\n" ---- */

/* refused: "0", "1" (CTL_REFUSAL_FORMAT) or "reg N" (CTL_REFUSAL_REG, N its error). */
struct ctl_note_row {
	const char *system; /* as in struct ctl_event_row */
	const char *event;
	uint64_t too_big; /* records too big for a page */
	enum ctl_refusal refusal;
	int reg_error;
};

void tp_ctl_note_row_put(struct ctl_text *t, const struct ctl_note_row *r);
/* One line, cut in place: 0, or CTL_ROW_MALFORMED (fewer than three fields). */
int tp_ctl_note_row_parse(char *line, struct ctl_note_row *r);

/* ---- CTL_FILTER's request: "system:name\texpr" ---- */

struct ctl_filter_req {
	const char *event;
	const char *expr; /* "": clear */
};

void tp_ctl_filter_req_put(struct ctl_text *t, const struct ctl_filter_req *r);
/* 0, or CTL_ROW_MALFORMED (no tab). */
int tp_ctl_filter_req_parse(char *payload, struct ctl_filter_req *r);

/* ---- CTL_HIST: "globs\tjson" (globs "" for all, json 0 or 1) ---- */

struct ctl_hist_req {
	const char *globs; /* "": every event's histograms */
	bool json;
};

void tp_ctl_hist_req_put(struct ctl_text *t, const struct ctl_hist_req *r);
/* 0, or CTL_ROW_MALFORMED. */
int tp_ctl_hist_req_parse(char *payload, struct ctl_hist_req *r);

/* ---- CTL_ATTACH: "spool\tglobs\tmode\tlive\tpool_bytes" -> "npages\tpage_size\tmeta_offset" */

struct ctl_attach_req {
	const char *spool; /* absolute */
	const char *globs;
	const char *mode;  /* discard, overwrite or block */
	bool live;
	const char *pool_bytes; /* a decimal number, 0: the default; checked by the process */
};

void tp_ctl_attach_req_put(struct ctl_text *t, const struct ctl_attach_req *r);
/* 0, or CTL_ROW_MALFORMED (fewer than five fields, or a spool path not absolute). */
int tp_ctl_attach_req_parse(char *payload, struct ctl_attach_req *r);

struct ctl_attach_reply {
	unsigned npages;
	unsigned page_size;
	size_t meta_offset;
};

void tp_ctl_attach_reply_put(struct ctl_text *t, const struct ctl_attach_reply *r);
/* 0, or CTL_ROW_MALFORMED. */
int tp_ctl_attach_reply_parse(const char *text, struct ctl_attach_reply *r);

/* ---- CTL_JUMP's answer: "sites\tchecked\treason\n" (tpoint_jump_stats()) ---- */

struct ctl_jump {
	unsigned long long sites, checked;
	const char *reason; /* why some keep their checked path; "" */
};

void tp_ctl_jump_put(struct ctl_text *t, const struct ctl_jump *j);
/* Cut in place: 0, or CTL_ROW_MALFORMED (no two numbers). */
int tp_ctl_jump_parse(char *text, struct ctl_jump *j);

#endif
