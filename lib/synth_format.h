/* SPDX-License-Identifier: MIT */
/*
 * synth_format.h - a synthetic event as an ordinary event (synth_format.c): the meta records
 * that CREATE_TRACE_POINTS would have emitted for it (<tpoint/meta.h>), its descriptor and
 * the one-event module that carries them to the registry, all in one block.
 *
 * The layout is hist_synth.c's, the kernel's synth_event_define_fields(): each field in a u64
 * after the 8 common bytes, a char[N] in STR_VAR_LEN_MAX bytes. The print format is the
 * kernel's set_synth_event_print_fmt(). Pure: libc only, no global state.
 */
#ifndef TPOINT_SYNTH_FORMAT_H
#define TPOINT_SYNTH_FORMAT_H

#include <stddef.h>
#include <tpoint/event.h>
#include "hist_set.h"

#pragma GCC visibility push(hidden)

/*
 * The kernel's print fmt of a synthetic event (__set_synth_event_print_fmt() with
 * synth_field_fmt()): "\"lat=%llu, pid=%d\", REC->lat, REC->pid", a char[N] as "%s" (the
 * kernel's since its commit e1a453a57bc7, "Do not add length to print format in synthetic
 * events"). Written into buf (len bytes, NUL-terminated if len); returns the length it needs.
 */
size_t tp_synth_print_fmt(const struct hist_synth *syn, char *buf, size_t len);

/*
 * The block of one synthetic event: its module (one event), the table entry, the descriptor
 * and the meta records (a class and an event of system "synthetic"). The descriptor's
 * address is the event's for the life of the block.
 */
struct synth_block {
	struct tpoint_module mod;
	struct tpoint_event_ref ref;
	struct tpoint_event ev;
	size_t meta_size;
	_Alignas(8) char meta[];
};

/* A new block for the definition (malloc'ed, one free()), or NULL with errno ENOMEM. */
struct synth_block *tp_synth_block_new(const struct hist_synth *syn);
/* Do the two blocks describe the same record (fields, types, print format)? */
int tp_synth_block_same(const struct synth_block *a, const struct synth_block *b);

#pragma GCC visibility pop

#endif
