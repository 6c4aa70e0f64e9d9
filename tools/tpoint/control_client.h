/* SPDX-License-Identifier: MIT */
/* The tool's side of the control channel (lib/fmt/control_msg.h). */
#ifndef TPOINT_CONTROL_CLIENT_H
#define TPOINT_CONTROL_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ctl_conn {
	int fd;
	pid_t pid;
	int timeout_ms;     /* for each request's answer to begin, and again to complete */
	uint32_t max_reply; /* the largest answer taken; 0: CTL_MAX_REPLY */
	char hello[512]; /* the process's HELLO line: pid, comm, events, enabled, recording */
};

/*
 * Connect to process `pid` and greet it. Returns 0, or -errno with a one-line reason in err
 * ("no process 123", "process 123 (cat) has no tpoint control socket ...", "permission
 * denied: ...").
 */
int ctl_connect(pid_t pid, struct ctl_conn *c, char *err, size_t errlen);
/* The same, with a timeout for each answer (0: 5 s) and a largest answer (0: the protocol's). */
int ctl_connect_timed(pid_t pid, int timeout_ms, uint32_t max_reply, struct ctl_conn *c,
		      char *err, size_t errlen);
void ctl_close(struct ctl_conn *c);

/*
 * Send one request and wait for its answer. Returns the result (>= 0) with the answer's
 * text in *text (malloc'ed, NUL-terminated, may be empty), or -errno with the process's or
 * the channel's reason in err.
 */
int ctl_request(struct ctl_conn *c, uint32_t type, const char *payload, char **text, char *err,
		size_t errlen);

/* The same, for an answer that may carry a descriptor (*fd, else -1). */
int ctl_request_fd(struct ctl_conn *c, uint32_t type, const char *payload, char **text, int *fd,
		   char *err, size_t errlen);

/*
 * Call fn for every process of this user (every user's, for root) that has a control socket
 * where ctl_connect() looks for it. Removes the sockets of dead processes from this user's
 * own directories.
 */
void ctl_each_process(void (*fn)(pid_t pid, void *arg), void *arg);

/* The kernel's name of the process (/proc/PID/comm), or "?". */
void ctl_proc_comm(pid_t pid, char *out, size_t len);

/* Parse "-p PID" arguments: a positive number naming a process; else -1 with a message. */
pid_t ctl_parse_pid(const char *verb, const char *arg);
/*
 * The same for a verb that acts on one process: a second -p (`before` is the first's pid,
 * or 0) is refused with one line, not taken over the first.
 */
pid_t ctl_parse_one_pid(const char *verb, const char *arg, pid_t before);

/*
 * The events the process refused -- selected, but they stay off whatever enables them: a
 * print format that cannot be rendered, or a TRACE_EVENT_FN reg() that failed -- as rows of
 * one CTL_LIST reply (their strings point into `text`). None when it cannot be asked.
 */
struct ctl_refusals {
	char *text;
	size_t n;
	struct ctl_event_row *row;
};
void ctl_refusals_get(struct ctl_conn *c, struct ctl_refusals *out);
/* The row of `event` if the process refused it, else NULL. */
const struct ctl_event_row *ctl_refusals_find(const struct ctl_refusals *r, const char *event);
void ctl_refusals_free(struct ctl_refusals *r);
/* The reason as said after "stays off, ": "its reg function returned -5", or "libtraceevent
 * cannot render its TP_printk: WHY". */
void ctl_refusal_text(const struct ctl_event_row *row, char *buf, size_t len);
/*
 * An event switched on may stay off: a print format that cannot be rendered, or a
 * TRACE_EVENT_FN reg() that failed (the process calls it before it answers). Says each
 * refused event the globs select, "tpoint VERB: process P: event E stays off: WHY";
 * returns how many.
 */
int ctl_say_refused(const char *verb, struct ctl_conn *c, const char *globs);

/*
 * Send `type` (CTL_FILTER, CTL_TRIGGER) with `text` to each event of the process that the
 * globs `events` select (tools/tpoint/filter.c); done() says each that took it. EXIT_OK if
 * one did, else EXIT_FAIL, the reasons said.
 */
int ctl_each_event(const char *verb, struct ctl_conn *conn, pid_t pid, const char *events,
		   uint32_t type, const char *text, void (*done)(const char *event, pid_t pid));

#endif
