/* SPDX-License-Identifier: MIT */
/*
 * x86-64 jump-label sites: `jmp rel32` (e9 xx xx xx xx) and the 5-byte NOP (0f 1f 44 00 00).
 *
 * Five bytes cannot change in one store that every core's instruction fetch is guaranteed to
 * see whole, so sites change by the kernel's protocol (text_poke_bp):
 *
 *	1. write INT3 (cc) over the first byte                  sync every core
 *	2. write the last four bytes of the new instruction     sync
 *	3. write the new first byte                             sync
 *
 * A thread that reaches a site meanwhile traps on the INT3. Our SIGTRAP handler recognises
 * the site and moves the thread on as if it had run the new instruction (to the jump's target,
 * or past the NOP); a SIGTRAP that is not ours goes to the handler the program had.
 */
#if defined(__x86_64__)
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include "../jump_arch.h"
#include "../log.h"

#define INSN_JMP 0xe9
#define INSN_INT3 0xcc
static const uint8_t nop5[JUMP_INSN_SIZE] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/*
 * Sites patched lately and where a thread trapped there must go. A thread can trap on the
 * INT3 and take the signal only later (preempted in between), after the patch is complete;
 * so entries stay for the next many patches instead of being cleared at the end of one.
 * The ring is far larger than a batch, so a batch never overwrites its own entries.
 */
#define RECENT 1024
static struct recent_site {
	uint8_t *site;
	const uint8_t *resume;
} recent[RECENT];
static unsigned recent_next;

static struct sigaction prev_action;
static uint64_t traps;
static void on_sigtrap(int sig, siginfo_t *si, void *ctx);

void tp_jump_arch_insn(uint8_t out[JUMP_INSN_SIZE], const uint8_t *site, const uint8_t *target,
		       bool on)
{
	if (!on) {
		memcpy(out, nop5, sizeof(nop5));
		return;
	}
	int32_t rel = (int32_t)(target - (site + JUMP_INSN_SIZE));

	out[0] = INSN_JMP;
	memcpy(out + 1, &rel, sizeof(rel));
}

/* Our handler is in place, or put back in front of the one the program installed since. */
static int install_handler(char *why, size_t len)
{
	struct sigaction sa, cur;

	if (sigaction(SIGTRAP, NULL, &cur) < 0)
		goto fail;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigtrap)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigtrap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	prev_action = cur;
	if (sigaction(SIGTRAP, &sa, NULL) < 0)
		goto fail;
	return 0;
fail:
	snprintf(why, len, "SIGTRAP handler: %s", strerror(errno));
	return -errno;
}

int tp_jump_arch_init(char *why, size_t len)
{
	return install_handler(why, len);
}

/*
 * A byte of code: a byte store, atomic on x86-64 (what other cores fetch is ordered by the
 * INT3 protocol and `sync`, not by the store's memory order). ThreadSanitizer keeps no
 * shadow for a program's text, so its instrumented store faults there: under it the same
 * `mov` is written in asm, which it does not see.
 */
#if defined(__SANITIZE_THREAD__)
#define JUMP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define JUMP_TSAN 1
#endif
#endif
#ifdef JUMP_TSAN
#define code_store(p, v, order) __asm__ volatile("movb %1, %0" : "=m"(*(p)) : "q"(v) : "memory")
#else
#define code_store(p, v, order) __atomic_store_n(p, v, order)
#endif

void tp_jump_arch_patch(const struct jump_patch *p, size_t n, void (*sync)(void))
{
	uint8_t insn[JUMP_ARCH_BATCH][JUMP_INSN_SIZE];
	char why[128];

	/* The program may have installed a SIGTRAP handler of its own since the last time. */
	if (install_handler(why, sizeof(why)) < 0)
		tp_warn("jump labels: %s", why);
	for (size_t i = 0; i < n; i++) {
		/* One writer (under jump.c's lock); signal handlers read it at any time. */
		unsigned slot = __atomic_load_n(&recent_next, __ATOMIC_RELAXED);
		struct recent_site *r = &recent[slot % RECENT];

		__atomic_store_n(&recent_next, slot + 1, __ATOMIC_RELAXED);

		tp_jump_arch_insn(insn[i], p[i].site, p[i].target, p[i].on);
		/*
		 * A seqlock of one entry, against a handler that read the old site and has yet
		 * to read the resume (on_sigtrap()): the site is cleared before the new resume
		 * is written, and set again after it.
		 */
		__atomic_store_n(&r->site, NULL, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&r->resume, p[i].on ? p[i].target : p[i].site + JUMP_INSN_SIZE,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&r->site, p[i].site, __ATOMIC_RELEASE);
		code_store(p[i].site, (uint8_t)INSN_INT3, __ATOMIC_RELEASE);
	}
	sync();
	for (size_t i = 0; i < n; i++)
		for (int b = 1; b < JUMP_INSN_SIZE; b++)
			code_store(p[i].site + b, insn[i][b], __ATOMIC_RELAXED);
	sync();
	for (size_t i = 0; i < n; i++)
		code_store(p[i].site, insn[i][0], __ATOMIC_RELEASE);
	sync();
}

uint64_t tp_jump_arch_traps(void)
{
	return __atomic_load_n(&traps, __ATOMIC_RELAXED);
}

static void chain(int sig, siginfo_t *si, void *ctx)
{
	if (prev_action.sa_flags & SA_SIGINFO) {
		prev_action.sa_sigaction(sig, si, ctx);
	} else if (prev_action.sa_handler == SIG_DFL) {
		/* What would have happened without us: the default action, once we return. */
		signal(SIGTRAP, SIG_DFL);
		raise(SIGTRAP);
	} else if (prev_action.sa_handler != SIG_IGN) {
		prev_action.sa_handler(sig);
	}
}

static void on_sigtrap(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	uint8_t *at = (uint8_t *)uc->uc_mcontext.gregs[REG_RIP] - 1;
	unsigned newest = __atomic_load_n(&recent_next, __ATOMIC_RELAXED) - 1;
	uint8_t now;

	/* An INT3 executed: the kernel's SIGTRAP. One sent by kill() or raise() is not ours. */
	if (si->si_code != SI_KERNEL) {
		chain(sig, si, ctx);
		return;
	}
	/* Newest first: the entry of the patch still in progress at this site, if any. */
	for (unsigned k = 0; k < RECENT; k++) {
		const struct recent_site *r = &recent[(newest - k) % RECENT];
		const uint8_t *resume;

		if (__atomic_load_n(&r->site, __ATOMIC_ACQUIRE) != at)
			continue;
		resume = __atomic_load_n(&r->resume, __ATOMIC_RELAXED);
		/*
		 * The entry may have been reused for another site since its site was read (a
		 * thread delayed here while a thousand patches went by): then the resume is
		 * that site's, and the site reads otherwise now. A reuse for this same site
		 * leaves a resume of this site's, which is as good.
		 */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&r->site, __ATOMIC_RELAXED) != at)
			continue;
		if (*(volatile uint8_t *)at == INSN_INT3)
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)resume;
		else
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)at; /* complete now: run it */
		__atomic_fetch_add(&traps, 1, __ATOMIC_RELAXED);
		return;
	}
	/*
	 * No entry names it, and it is no INT3 now but a site's first byte: a thread that
	 * trapped at a site and was delayed until its entry was reused. The patch is complete:
	 * run the instruction.
	 */
	now = *(volatile uint8_t *)at;
	if (now == INSN_JMP || now == nop5[0]) {
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)at;
		__atomic_fetch_add(&traps, 1, __ATOMIC_RELAXED);
		return;
	}
	chain(sig, si, ctx);
}
#endif
