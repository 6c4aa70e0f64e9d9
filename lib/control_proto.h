/* SPDX-License-Identifier: MIT */
/*
 * The control protocol between an instrumented process and the tpoint tool, over the UNIX
 * socket each process listens on (control.c). Shared by the library and the tool.
 *
 * Every message is a header and a payload of `len` bytes. The client speaks first with
 * CTL_HELLO; the process answers CTL_HELLO, or CTL_ERROR if the major version differs.
 * Then each request gets exactly one answer: CTL_OK (an int32 result, then text) or
 * CTL_ERROR (an int32 -errno, then a one-line message). Payloads are text, one record per
 * line, fields separated by tabs, so that both sides parse them the same simple way.
 */
#ifndef TPOINT_CONTROL_PROTO_H
#define TPOINT_CONTROL_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define CTL_MAGIC 0x54435054u /* "TPCT" */
#define CTL_MAJOR 1
#define CTL_MINOR 1 /* 1: CTL_JUMP */
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
	/* -> "" ; <- "pid\tcomm\tevents\tenabled\trecording\n" */
	CTL_HELLO = 1,
	/*
	 * -> "" ; <- per event "id\tsystem:name\tenabled\tcondition\tfilter\trefused\n",
	 * refused: "" or why the event stays off (a print format libtraceevent cannot render);
	 * older processes send no refused field.
	 */
	CTL_LIST = 2,
	/* -> "glob[,glob...]" ; <- OK with the number of events matched */
	CTL_ENABLE = 3,
	CTL_DISABLE = 4,
	/* -> "system:name\texpr" (empty expr clears) ; <- OK, or ERROR with the reason */
	CTL_FILTER = 5,
	/*
	 * -> "" ; <- per event
	 * "system:name\thits\tcond_skipped\tfiltered\trecorded\tlost\tcondition\tusdt\n",
	 * usdt: the USDT probes attached (its semaphore); older processes send no usdt field.
	 */
	CTL_STATS = 6,
	/* -> "" ; <- per event its tracefs format text, each ending with an empty line */
	CTL_FORMATS = 7,
	/*
	 * -> "spool\tglobs\tdiscard|overwrite\tlive(0|1)\tpool_bytes(0: default)" ; <- OK
	 * with the number of events
	 * enabled and "npages\tpage_size\tmeta_offset", plus the pool's memfd (SCM_RIGHTS)
	 * when the process still has it. The process records into `spool` until CTL_DETACH, or
	 * until this connection closes (then everything it enabled reverts).
	 */
	CTL_ATTACH = 8,
	/* -> "" ; <- OK once the spool is complete */
	CTL_DETACH = 9,
	/* -> "dir" ; <- OK with the path of a spool holding the recording's contents now */
	CTL_SNAPSHOT = 10,
	/* -> "" ; <- "sites\tchecked\treason\n": the jump-label sites (tpoint_jump_stats()) */
	CTL_JUMP = 11,

	CTL_OK = 0x100,
	CTL_ERROR = 0x101,
};

/*
 * Deadlines: neither end waits on the other's bytes without one. The process drops a request
 * not whole 2 s after its first byte and an answer not taken within 2 s; the tool gives an
 * answer 5 s to begin and 5 s more to complete (ps: 2 s each, and 4 KiB).
 */

#endif
