// SPDX-License-Identifier: MIT
/*
 * vocab_test - the kernel's TRACE_EVENT vocabulary (tests/trace/events/tpt_vocab.h): every
 * event recorded with known values, read back by `trace-cmd report` (no [FAILED TO PARSE])
 * and each text compared with what the kernel prints for the same values. Then reg/unreg of
 * TRACE_EVENT_FN counted across enable/disable from the C API, a probe and the environment
 * (a child run with TPOINT_EVENTS), and a reg that fails.
 *
 * How the expectations are derived (kernel/trace/trace_output.c, include/trace/stages/):
 * __print_symbolic prints the name of the matching value, else "0x%lx" of the value;
 * __print_flags the names of the set flags joined by the delimiter, then leftover bits as
 * "0x%lx", nothing for 0; __print_hex "%2.2x" per byte, blank-separated, __print_hex_str the
 * same without blanks; __print_array "{0x%x,...}" ("{}" when empty); __get_bitmask and
 * __get_cpumask "%*pb" of length*8 bits: 32-bit words in hex, most significant first,
 * comma-separated; %*pbl a CPU list ("0-1"); __print_ns_to_secs / _without_secs the quotient
 * and remainder by 10^9; __vstring at most TRACE_EVENT_STR_MAX (512) bytes with its NUL.
 *
 * libtraceevent 1.7.1 (trace-cmd's) prints two of them otherwise -- __print_array as
 * "1 2 3", a cpumask as a CPU list -- and a plugin cannot change that (they are built in to
 * its parser, ahead of registered functions), so each expectation holds both texts where
 * they differ: the kernel's, and the one trace-cmd prints. It has no %*pbl (it printed the
 * pointer followed by "bl"): tpoint writes a field's %*pbl as its cpumask's list, which it
 * prints as the kernel does here (lib/format.c). trace-cmd's is checked exactly (and that it parses every record); `tpoint report`,
 * which rewrites those helpers before libtraceevent parses them (tools/tpoint/kprint.c),
 * must print the kernel's, every line.
 */
#define _GNU_SOURCE
#include "testutil.h"
#include <sched.h>
#include <sys/wait.h>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_vocab.h>

int vocab_regs, vocab_unregs, vocab_reg_result;

int vocab_reg(void)
{
	vocab_regs++;
	/* reg() may use the API: the registry lock is not held here. */
	(void)tpoint_enable("tpt_vocab:vocab_simple");
	return vocab_reg_result;
}

void vocab_unreg(void)
{
	vocab_unregs++;
}

struct expect {
	const char *name;
	const char *kernel; /* what the kernel prints */
	const char *tep;    /* what trace-cmd prints now, NULL if the same */
};

static struct expect exp_[32];
static int nexp;

static void want(const char *name, const char *kernel, const char *tep)
{
	exp_[nexp].name = name;
	exp_[nexp].kernel = kernel;
	exp_[nexp].tep = tep;
	nexp++;
}

static void all(const char *name, int num, const int *l, int nl, const char *s,
		const unsigned long *b, int nb, const cpu_set_t *c, int hl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace_vocab_all(name, num, l, nl, s, b, nb, tpoint_cpumask(c), hl, fmt, &ap);
	va_end(ap);
}

static char long_text[700];
static char vstr_want[1024];

static void emit_all(void)
{
	const int list[] = { 1, 2, 3 };
	unsigned long bits[1024 / (8 * sizeof(long))];
	cpu_set_t cpus, none;
	const u16 vals[] = { 7, 8 };
	const u8 buf[] = { 0xde, 0xad, 0xbe, 0xef };
	unsigned ncpu = tpoint_nr_cpu_ids();
	static char cpuhex[300], cpuzero[300], tep1[1024], kern1[1024];

	memset(bits, 0, sizeof(bits));
	bits[0] = 0x5;
	CPU_ZERO(&cpus);
	CPU_ZERO(&none);
	CPU_SET(0, &cpus);
	/*
	 * The cpumask records the longs that hold nr_cpu_ids bits, and the kernel prints all
	 * their bits (trace_print_bitmask_seq(): "%*pb" of size * 8): one 32-bit word in hex
	 * per 4 bytes, most significant first.
	 */
	cpuhex[0] = cpuzero[0] = 0;
	for (size_t w = TPOINT_BITMASK_BYTES(ncpu) / 4; w > 0; w--) {
		strcat(cpuhex, w > 1 ? "00000000," : "00000001");
		strcat(cpuzero, w > 1 ? "00000000," : "00000000");
	}
	tu_note("%u possible CPUs: a cpumask of CPU 0 prints %s", ncpu, cpuhex);

	all("hello", 6, list, 3, "str", bits, 8, &cpus, 3, "fmt %d %s", 42, "x");
	snprintf(kern1, sizeof(kern1),
		 "name hello num 6 0x6 B2|B4 {0x1,0x2,0x3} {0x1,0x2,0x3} str hel (00000000,00000005) (%s) "
		 "fmt 42 x [%zu] 0", cpuhex, TPOINT_BITMASK_BYTES(ncpu));
	snprintf(tep1, sizeof(tep1),
		 "name hello num 6 0x6 B2|B4 1 2 3 1 2 3 str hel (00000000,00000005) (0) fmt 42 x [%zu] 0",
		 TPOINT_BITMASK_BYTES(ncpu));
	want("vocab_all", kern1, tep1);

	/* Edges: empty strings and arrays, a __string_len of 0, a bitmask of 0 bits, no CPU,
	 * flags 0, and a __vstring longer than the 512 bytes the kernel allows. */
	memset(long_text, 'v', sizeof(long_text) - 1);
	all("", 0, list, 0, "", bits, 0, &none, 0, "%s", long_text);
	snprintf(vstr_want, sizeof(vstr_want), "%.*s", 511, long_text);
	static char kern2[2048], tep2[2048];
	snprintf(kern2, sizeof(kern2), "name  num 0 zero  {} {}   () (%s) %s [%zu] ",
		 cpuzero, vstr_want,
		 TPOINT_BITMASK_BYTES(ncpu));
	snprintf(tep2, sizeof(tep2), "name  num 0 zero      () () %s [%zu] ", vstr_want,
		 TPOINT_BITMASK_BYTES(ncpu));
	want("vocab_all", kern2, tep2);

	/* A bitmask of 1024 bits, all ones; symbol and flags that match nothing. */
	memset(bits, 0xff, sizeof(bits));
	all("0123456789abc", 0x10, list, 1, "s", bits, 1024, &cpus, 100, "");
	static char ones[2048], kern3[4096], tep3[4096];
	ones[0] = 0;
	for (int i = 0; i < 32; i++)
		strcat(ones, i ? ",ffffffff" : "ffffffff");
	snprintf(kern3, sizeof(kern3),
		 "name 012345678 num 16 0x10 0x10 {0x1} {0x1} s 0123456789abc (%s) (%s)  [%zu] 0",
		 ones, cpuhex, TPOINT_BITMASK_BYTES(ncpu));
	snprintf(tep3, sizeof(tep3),
		 "name 012345678 num 16 0x10 0x10 1 1 s 0123456789abc (%s) (0)  [%zu] 0", ones,
		 TPOINT_BITMASK_BYTES(ncpu));
	want("vocab_all", kern3, tep3);

	trace_vocab_cond("c", 10);
	want("vocab_cond", "s c 10", NULL);
	trace_vocab_cond("c", 11); /* the condition skips it */
	trace_vocab_fn("fn", 1);
	want("vocab_fn", "s fn 1", NULL);
	trace_vocab_simple("si", 2);
	want("vocab_simple", "s si 2", NULL);
	trace_vocab_class_cond("cc", 8);
	want("vocab_class_cond", "s cc 8", NULL);
	trace_vocab_class_cond("cc", 9);
	trace_vocab_class_fn("cf", 3);
	want("vocab_class_fn", "s cf 3", NULL);
	trace_vocab_print("pr", 4);
	want("vocab_print", "other pr 4", NULL);

	bits[0] = 0x5;
	trace_vocab_rel("rel", 5, bits, tpoint_cpumask(&cpus), vals, 2, "tailxx", 4);
	static char kern4[512], tep4[512];
	snprintf(kern4, sizeof(kern4), "rel rel, 5, 00000000,00000005, %s, tail", cpuhex);
	snprintf(tep4, sizeof(tep4), "rel rel, 5, 00000000,00000005, 0, tail");
	want("vocab_rel", kern4, tep4);
	trace_vocab_rel(NULL, -1, bits, tpoint_cpumask(&none), vals, 0, NULL, 9);
	static char kern5[512], tep5[512];
	snprintf(kern5, sizeof(kern5), "rel (null), -1, 00000000,00000005, %s, (null)", cpuzero);
	snprintf(tep5, sizeof(tep5), "rel (null), -1, 00000000,00000005, , (null)");
	want("vocab_rel", kern5, tep5);

	trace_vocab_more((1ULL << 40) | 1 | 2, 1ULL << 33, 5000000123ULL, buf, 4);
	want("vocab_more", "f=HI|LO|0x2 s=BIG t=5.000000123 hex=de ad be ef hs=deadbeef sz=8/8 n=4",
	     NULL);
	trace_vocab_more(0, 7, 0, buf, 0);
	want("vocab_more", "f= s=0x7 t=0.000000000 hex= hs= sz=8/8 n=0", NULL);
}

/*
 * `tpoint report` prints the kernel's text, every event: its lines are trace-cmd's layout
 * ("comm-tid [cpu] time: name: <padding>text"), the text after the padding.
 */
static void check_tpoint_report(const char *file)
{
	const char *tool = getenv("TPOINT");
	char cmd[PATH_MAX + 64], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int i = 0, st;
	FILE *f;

	if (!tool) {
		CHECK(0, "$TPOINT is not set: run through tests/run.sh");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' report '%s'", tool, file);
	f = popen(cmd, "r");
	REQUIRE(f, "run %s", cmd);
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *p = strstr(line, "] "), *name, *text;

		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		if (!strncmp(line, "cpus=", 5))
			continue;
		/* "... [cpu] secs.usecs: name: <pad>text" */
		p = p ? strstr(p, ": ") : NULL;
		name = p ? p + 2 : NULL;
		text = name ? strstr(name, ": ") : NULL;
		if (!text) {
			CHECK(0, "tpoint report line %d does not parse: '%s'", i, line);
			continue;
		}
		*text = 0;
		text += 2;
		while (*text == ' ')
			text++;
		if (i < nexp) {
			CHECK(!strcmp(name, exp_[i].name), "tpoint report line %d: event %s, want %s",
			      i, name, exp_[i].name);
			CHECK(!strcmp(text, exp_[i].kernel),
			      "tpoint report line %d (%s), not the kernel's text:\n\tgot  '%s'\n\t"
			      "want '%s'", i, name, text, exp_[i].kernel);
		}
		i++;
	}
	free(line);
	st = pclose(f);
	CHECK(st == 0, "tpoint report exit status %d", st);
	CHECK(i == nexp, "tpoint report printed %d events, want %d", i, nexp);
	tu_note("tpoint report: %d events, each the kernel's text", i);
}

static void probe(void *data, const char *s, int n)
{
	(void)s;
	(void)n;
	(*(int *)data)++;
}

/* reg/unreg across the switches; the counts are the kernel's: one reg per off->on. */
static void check_fn_switching(const char *self)
{
	int hits = 0, ret;

	vocab_regs = vocab_unregs = 0;
	CHECK(tpoint_disable("tpt_vocab:*") >= 0, "disable all");
	CHECK(vocab_unregs == 2 && vocab_regs == 0, "C API off: unreg %d (want 2), reg %d",
	      vocab_unregs, vocab_regs);
	CHECK(tpoint_enable("tpt_vocab:vocab_fn") == 1, "enable vocab_fn");
	CHECK(vocab_regs == 1 && trace_vocab_fn_enabled(), "C API on: reg %d (want 1), on %d",
	      vocab_regs, trace_vocab_fn_enabled());
	CHECK(tpoint_enable("tpt_vocab:vocab_fn") == 1 && vocab_regs == 1,
	      "enabling again: no second reg (%d)", vocab_regs);
	/* A probe keeps it on: no unreg while someone uses it, as in the kernel. */
	ret = register_trace_vocab_fn(probe, &hits);
	CHECK(ret == 0, "register a probe: %d", ret);
	CHECK(tpoint_disable("tpt_vocab:vocab_fn") == 1 && vocab_unregs == 2,
	      "disabled while a probe holds it: no unreg (%d)", vocab_unregs);
	trace_vocab_fn("p", 1);
	CHECK(hits == 1, "the probe ran: %d", hits);
	CHECK(unregister_trace_vocab_fn(probe, &hits) == 0 && vocab_unregs == 3,
	      "last user gone: unreg (%d, want 3)", vocab_unregs);
	CHECK(!trace_vocab_fn_enabled(), "off");
	/* A probe alone switches it on, reg first. */
	CHECK(register_trace_vocab_class_fn(probe, &hits) == 0 && vocab_regs == 2,
	      "a probe on vocab_class_fn: reg (%d, want 2)", vocab_regs);
	CHECK(unregister_trace_vocab_class_fn(probe, &hits) == 0 && vocab_unregs == 4,
	      "its removal: unreg (%d, want 4)", vocab_unregs);

	/* A failing reg leaves the event off, says so, and is tried again at the next on. */
	vocab_reg_result = -5;
	CHECK(tpoint_enable("tpt_vocab:vocab_fn") == 1, "enable with a failing reg");
	CHECK(vocab_regs == 3 && !trace_vocab_fn_enabled(), "failed reg (%d): event stays off",
	      vocab_regs);
	trace_vocab_fn("never", 1);
	CHECK(tpoint_enable("tpt_vocab:vocab_fn") == 1 && vocab_regs == 3,
	      "no retry while still selected (%d)", vocab_regs);
	CHECK(tpoint_disable("tpt_vocab:vocab_fn") == 1 && vocab_unregs == 4,
	      "no unreg after a failed reg (%d)", vocab_unregs);
	vocab_reg_result = 0;
	CHECK(tpoint_enable("tpt_vocab:vocab_fn") == 1 && vocab_regs == 4 &&
		      trace_vocab_fn_enabled(),
	      "next on: reg again (%d), on", vocab_regs);
	CHECK(tpoint_disable("tpt_vocab:vocab_fn") == 1 && vocab_unregs == 5, "unreg %d",
	      vocab_unregs);
	tu_note("reg/unreg: C API, probes and a failing reg (-5) counted as the kernel calls them");

	/* The environment: a child enabled by TPOINT_EVENTS calls reg before main. */
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "TPOINT_EVENTS='tpt_vocab:vocab_fn' '%s' --env-child", self);
	ret = tu_system(cmd);
	CHECK(ret == 0, "the env child exited %d", ret);
}

int main(int argc, char **argv)
{
	struct tu_lines lines = { 0 };
	struct tu_report rep;
	int n, ret;

	if (argc > 1 && !strcmp(argv[1], "--env-child")) {
		/* Enabled from the environment by the library's constructor: reg ran before. */
		printf("env child: reg %d on %d\n", vocab_regs, trace_vocab_fn_enabled());
		if (vocab_regs != 1 || !trace_vocab_fn_enabled())
			return 1;
		tpoint_disable("tpt_vocab:vocab_fn");
		return vocab_unregs == 1 ? 0 : 2;
	}
	tu_require_trace_cmd();
	CHECK(tpoint_set_buffer_size(1 << 20) == 0, "1 MiB pool accepted");
	n = tpoint_enable("tpt_vocab:*");
	CHECK(n == 9, "tpoint_enable matched %d events, want 9", n);
	CHECK(vocab_regs == 2 && vocab_unregs == 0, "two FN events with reg: reg %d unreg %d",
	      vocab_regs, vocab_unregs);
	ret = tpoint_record_start("vocab.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	emit_all();
	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	CHECK(vocab_regs == 2 && vocab_unregs == 0,
	      "a recording's start and stop call neither: reg %d unreg %d", vocab_regs,
	      vocab_unregs);

	ret = tu_check_events("vocab.dat");
	CHECK(ret == 0, "trace-cmd report --check-events exit %d", ret);
	REQUIRE(tu_report_each("vocab.dat", tu_save_line, &lines, &rep) == 0, "run trace-cmd");
	CHECK(rep.status == 0, "trace-cmd report exit %d", rep.status);
	CHECK(rep.other == 0 && rep.malformed == 0, "no unexpected lines");
	CHECK((int)lines.n == nexp, "report has %zu events, want %d", lines.n, nexp);
	for (int i = 0; i < nexp && i < (int)lines.n; i++) {
		const struct tu_line *l = &lines.v[i].l;
		const char *w = exp_[i].tep ? exp_[i].tep : exp_[i].kernel;

		CHECK(!strcmp(l->name, exp_[i].name), "line %d: event %s, want %s", i, l->name,
		      exp_[i].name);
		CHECK(!strstr(l->text, "FAILED TO"), "line %d: %s", i, l->text);
		CHECK(!strcmp(l->text, w), "line %d (%s):\n\tgot  '%s'\n\twant '%s'", i,
		      exp_[i].name, l->text, w);
	}
	tu_note("%zu events: trace-cmd's text as expected; %d differ from the kernel's "
		"(__print_array, cpumask)", lines.n, 5);
	tu_lines_free(&lines);
	check_tpoint_report("vocab.dat");

	check_fn_switching(argv[0]);
	return tu_finish();
}
