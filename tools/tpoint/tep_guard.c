/* SPDX-License-Identifier: MIT */
/* See tep_guard.h. */
#include <setjmp.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "tep_guard.h"

static sigjmp_buf guard_jmp;
static volatile sig_atomic_t guard_armed;
static const int guard_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL };
static struct sigaction guard_saved[4];
static stack_t guard_saved_stack;
static void *guard_stack;

static void guard_handler(int sig)
{
	if (guard_armed) {
		guard_armed = 0;
		siglongjmp(guard_jmp, sig);
	}
	/* Not inside a guarded call: a crash of our own, which must show as one. */
	signal(sig, SIG_DFL);
	raise(sig);
}

void guard_install(void)
{
	struct sigaction sa;
	stack_t st;

	/* A runaway recursion in the parser overflows the stack: handle it on another. */
	guard_stack = malloc(1 << 16);
	if (guard_stack) {
		st.ss_sp = guard_stack;
		st.ss_size = 1 << 16;
		st.ss_flags = 0;
		if (sigaltstack(&st, &guard_saved_stack)) {
			free(guard_stack);
			guard_stack = NULL;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = guard_handler;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(guard_signals) / sizeof(guard_signals[0]); i++)
		sigaction(guard_signals[i], &sa, &guard_saved[i]);
}

void guard_remove(void)
{
	for (size_t i = 0; i < sizeof(guard_signals) / sizeof(guard_signals[0]); i++)
		sigaction(guard_signals[i], &guard_saved[i], NULL);
	if (guard_stack) {
		sigaltstack(&guard_saved_stack, NULL);
		free(guard_stack);
		guard_stack = NULL;
	}
}

const char *guard_signal_name(int sig)
{
	switch (sig) {
	case SIGFPE:
		return "SIGFPE (a division by zero)";
	case SIGSEGV:
		return "SIGSEGV";
	case SIGBUS:
		return "SIGBUS";
	default:
		return "SIGILL";
	}
}

int guarded_parse(struct tep_handle *tep, const char *text, size_t len, const char *sys,
		  enum tep_errno *err)
{
	int sig = sigsetjmp(guard_jmp, 1);

	if (sig)
		return sig;
	guard_armed = 1;
	*err = tep_parse_event(tep, text, len, sys);
	guard_armed = 0;
	return 0;
}

int guarded_info(struct tep_handle *tep, struct trace_seq *info, struct tep_record *rec)
{
	int sig = sigsetjmp(guard_jmp, 1);

	if (sig)
		return sig;
	guard_armed = 1;
	tep_print_event(tep, info, rec, "%s", TEP_PRINT_INFO);
	guard_armed = 0;
	return 0;
}

/*
 * libtraceevent reads fields where the format puts them, whatever the record's
 * size: a record too short for its format, or a dynamic array pointing outside
 * it, would be read past its end.  NULL if the record holds every field.
 */
const char *guard_check_fields(struct tep_handle *tep, struct tep_event *ev,
			       struct tep_record *rec, char *why, size_t len)
{
	struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };

	for (int l = 0; l < 2; l++) {
		for (struct tep_format_field *f = lists[l]; f; f = f->next) {
			unsigned long long loc, off, dlen;

			if (f->offset < 0 || f->size < 0 ||
			    (long long)f->offset + f->size > rec->size) {
				snprintf(why, len, "field %s at %d+%d is past the record's %d bytes",
					 f->name, f->offset, f->size, rec->size);
				return why;
			}
			if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || !f->size)
				continue;
			loc = tep_read_number(tep, (char *)rec->data + f->offset,
					      f->size > 4 ? 4 : f->size);
			off = loc & 0xffff;
			dlen = loc >> 16;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off += (unsigned long long)f->offset + (unsigned long long)f->size;
			if (off + dlen > (unsigned long long)rec->size) {
				snprintf(why, len, "dynamic field %s has %llu bytes at %llu, past the "
					 "record's %d bytes", f->name, dlen, off, rec->size);
				return why;
			}
		}
	}
	return NULL;
}
