/* SPDX-License-Identifier: MIT */
/* The tool's side of the control channel (lib/control_proto.h). */
#ifndef TPOINT_CONTROL_CLIENT_H
#define TPOINT_CONTROL_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ctl_conn {
	int fd;
	pid_t pid;
	char hello[512]; /* the process's HELLO line: pid, comm, events, enabled, recording */
};

/*
 * Connect to process `pid` and greet it. Returns 0, or -errno with a one-line reason in err
 * ("no process 123", "process 123 (cat) has no tpoint control socket ...", "permission
 * denied: ...").
 */
int ctl_connect(pid_t pid, struct ctl_conn *c, char *err, size_t errlen);
int ctl_connect_path(const char *path, pid_t pid, struct ctl_conn *c, char *err, size_t errlen);
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

/* Call fn for every control socket of this user (every user, for root): <dir>/<pid>.sock. */
void ctl_each_socket(void (*fn)(const char *path, pid_t pid, void *arg), void *arg);

/* Parse "-p PID" arguments: a positive number naming a process; else -1 with a message. */
pid_t ctl_parse_pid(const char *verb, const char *arg);

#endif
