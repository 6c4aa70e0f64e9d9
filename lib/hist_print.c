/* SPDX-License-Identifier: MIT */
/*
 * hist_print.c - a histogram as the kernel's `hist` file prints it (see hist.h).
 *
 * Every format here is the kernel's, from kernel/trace/trace_events_hist.c:
 * event_hist_trigger_print() for the trigger info, hist_trigger_print_key() and
 * hist_trigger_print_val() for an entry's line, hist_trigger_show() for the header and the
 * totals. The comments name the function each piece follows. The order of the entries is
 * tracing_map_sort_entries()'s: the first sort key, then the second among equals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"

const char *tp_hist_mod_name(uint32_t mods)
{
	static const struct {
		uint32_t mod;
		const char *name;
	} order[] = {
		{ HIST_MOD_HEX, "hex" },         { HIST_MOD_SYM, "sym" },
		{ HIST_MOD_SYM_OFFSET, "sym-offset" }, { HIST_MOD_EXECNAME, "execname" },
		{ HIST_MOD_SYSCALL, "syscall" }, { HIST_MOD_LOG2, "log2" },
		{ HIST_MOD_BUCKETS, "buckets" }, { HIST_MOD_USECS, "usecs" },
		{ HIST_MOD_PERCENT, "percent" }, { HIST_MOD_GRAPH, "graph" },
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (mods & order[i].mod)
			return order[i].name;
	return NULL;
}

/* expr_field_str(): an operand: $VAR, a number, or NAME[.MODIFIER] (an expression too). */
static size_t operand_text(const struct hist_spec *s, const struct hist_field *f, char *buf,
			   size_t len);

/* expr_str(): "A op B" or "-(A)", each operand written by expr_field_str(). */
static size_t expr_text(const struct hist_spec *s, const struct hist_field *f, char *buf,
			size_t len)
{
	size_t n = 0;

	if (f->op == 'u') {
		n += (size_t)snprintf(buf, len, "-(");
		n += operand_text(s, &s->nodes[f->operands[0]], buf + (n < len ? n : len),
				  n < len ? len - n : 0);
		n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, ")");
		return n;
	}
	n += operand_text(s, &s->nodes[f->operands[0]], buf, len);
	n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%c", f->op);
	n += operand_text(s, &s->nodes[f->operands[1]], buf + (n < len ? n : len),
			  n < len ? len - n : 0);
	return n;
}

static size_t operand_text(const struct hist_spec *s, const struct hist_field *f, char *buf,
			   size_t len)
{
	const char *mod = tp_hist_mod_name(f->mods);
	size_t n;

	switch (f->src) {
	case HIST_SRC_REF:
		return (size_t)snprintf(buf, len, "$%s", f->name);
	case HIST_SRC_CONST:
		return (size_t)snprintf(buf, len, "%llu", (unsigned long long)f->constant);
	case HIST_SRC_EXPR:
		/* The kernel appends an expression's flags to its text: ".usecs" of a timestamp. */
		n = expr_text(s, f, buf, len);
		if (mod)
			n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, ".%s",
					      mod);
		return n;
	default:
		return mod ? (size_t)snprintf(buf, len, "%s.%s", f->name, mod)
			   : (size_t)snprintf(buf, len, "%s", f->name);
	}
}

void tp_hist_field_text(const struct hist_spec *s, const struct hist_field *f, char *buf,
			size_t len)
{
	if (!len)
		return;
	buf[0] = 0;
	if (f->src == HIST_SRC_EXPR)
		expr_text(s, f, buf, len);
	else if (f->src == HIST_SRC_REF || f->src == HIST_SRC_CONST)
		operand_text(s, f, buf, len);
	else if (f->mods & HIST_MOD_BUCKETS)
		snprintf(buf, len, "%s.buckets=%llu", f->name, (unsigned long long)f->buckets);
	else
		operand_text(s, f, buf, len);
}

/* hist_field_print(): NAME[.MODIFIER][=BUCKETS]. */
static void field_print(FILE *out, const struct hist_field *f)
{
	const char *mod = tp_hist_mod_name(f->mods);

	fputs(f->name, out);
	if (mod)
		fprintf(out, ".%s", mod);
	if (f->mods & HIST_MOD_BUCKETS)
		fprintf(out, "=%llu", (unsigned long long)f->buckets);
}

/* field_print(), or the text of a reference or expression. */
static void field_print_spec(FILE *out, const struct hist_spec *s, const struct hist_field *f)
{
	char buf[HIST_STR_MAX];

	if (f->src != HIST_SRC_REF && f->src != HIST_SRC_EXPR && f->src != HIST_SRC_CONST) {
		field_print(out, f);
		return;
	}
	tp_hist_field_text(s, f, buf, sizeof(buf));
	fputs(buf, out);
}

static const struct hist_field *field_at(const struct hist_spec *s, unsigned idx)
{
	return idx < s->nvals ? &s->vals[idx] : &s->keys[idx - s->nvals];
}

/* event_hist_trigger_print(). */
int tp_hist_spec_print(FILE *out, const struct hist_spec *s, bool paused)
{
	bool shown = false;

	fputs("hist:", out);
	if (s->name)
		fprintf(out, "name=%s:", s->name);
	fputs("keys=", out);
	for (unsigned i = 0; i < s->nkeys; i++) {
		if (i)
			fputc(',', out);
		field_print(out, &s->keys[i]);
	}
	fputs(":vals=", out);
	for (unsigned i = 0; i < s->nvals; i++) {
		if (i == 0) {
			if (s->nohitcount)
				continue;
			fputs("hitcount", out);
		} else {
			if (shown)
				fputc(',', out);
			field_print_spec(out, s, &s->vals[i]);
		}
		shown = true;
	}
	for (unsigned i = 0, n = 0; i < s->nvars; i++) {
		if (s->vars[i].hidden)
			continue;
		fprintf(out, "%s%s=%s", n++ ? "," : ":", s->vars[i].name, s->vars[i].text);
	}
	fputs(":sort=", out);
	for (unsigned i = 0; i < s->nsort; i++) {
		if (i)
			fputc(',', out);
		if (s->sort[i].idx == 0)
			fputs("hitcount", out);
		else
			field_print(out, field_at(s, s->sort[i].idx));
		if (s->sort[i].descending)
			fputs(".descending", out);
	}
	fprintf(out, ":size=%u", 1u << s->map_bits);
	if (s->timestamps)
		fprintf(out, ":clock=%s", s->clock);
	if (s->nohitcount)
		fputs(":nohitcount", out);
	for (unsigned i = 0; i < s->nactions; i++) {
		const struct hist_action *a = &s->actions[i];

		/* print_onmatch_spec(): the action's name, then trace's event and the params. */
		fprintf(out, ":onmatch(%s.%s).%s(", a->system, a->event,
			a->trace_keyword ? "trace" : a->synth);
		if (a->trace_keyword)
			fputs(a->synth, out);
		for (unsigned j = 0; j < a->nparams; j++)
			fprintf(out, "%s%s", j || a->trace_keyword ? "," : "", a->params[j]);
		fputc(')', out);
	}
	if (s->filter_text)
		fprintf(out, " if %s", s->filter_text);
	fputs(paused ? " [paused]\n" : " [active]\n", out);
	return ferror(out) ? -1 : 0;
}

/* ---- the order ---- */

struct sort_ctx {
	const struct hist_table *t;
	const struct hist_spec *s;
};

/* tracing_map_cmp_num() / _string() of a key field: by its own type, as the kernel does. */
static int cmp_key(const struct hist_field *k, const unsigned char *a, const unsigned char *b)
{
	uint64_t x, y;

	if (k->src == HIST_SRC_STR_ARRAY || k->src == HIST_SRC_STR_DYN)
		return strcmp((const char *)a + k->key_offset, (const char *)b + k->key_offset);
	x = tp_hist_key_num(k, a);
	y = tp_hist_key_num(k, b);
	if (k->src == HIST_SRC_NUM && k->is_signed)
		return (int64_t)x < (int64_t)y ? -1 : (int64_t)x > (int64_t)y;
	return x < y ? -1 : x > y;
}

static int cmp_sort_key(const struct sort_ctx *c, const struct hist_sort_key *sk, unsigned a,
			unsigned b)
{
	int r;

	if (sk->idx < c->s->nvals) {
		uint64_t x = tp_hist_entry_sums(c->t, a)[sk->idx];
		uint64_t y = tp_hist_entry_sums(c->t, b)[sk->idx];

		r = x < y ? -1 : x > y;
	} else {
		r = cmp_key(field_at(c->s, sk->idx), tp_hist_entry_key(c->t, a),
			    tp_hist_entry_key(c->t, b));
	}
	return sk->descending ? -r : r;
}

static int cmp_entries(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	unsigned a = *(const unsigned *)pa, b = *(const unsigned *)pb;
	int r;

	for (unsigned i = 0; i < c->s->nsort; i++)
		if ((r = cmp_sort_key(c, &c->s->sort[i], a, b)))
			return r;
	/* Ties: the kernel leaves them in hash order; the keys ascending are stable. */
	for (unsigned i = 0; i < c->s->nkeys; i++)
		if ((r = cmp_key(&c->s->keys[i], tp_hist_entry_key(c->t, a),
				 tp_hist_entry_key(c->t, b))))
			return r;
	return 0;
}

unsigned *tp_hist_sorted(const struct hist_table *t, unsigned *n)
{
	struct sort_ctx c = { t, tp_hist_table_spec(t) };
	unsigned *idx;

	*n = tp_hist_table_entries(t);
	if (!*n)
		return NULL;
	idx = malloc(*n * sizeof(*idx));
	if (!idx)
		return NULL;
	for (unsigned i = 0; i < *n; i++)
		idx[i] = i;
	qsort_r(idx, *n, sizeof(*idx), cmp_entries, &c);
	return idx;
}

/* ---- one entry ---- */

const char *tp_hist_sym_text(const struct hist_names *nm, uint64_t addr, bool with_offset,
			    char *buf, size_t len)
{
	if (nm && nm->sym && nm->sym(nm->ctx, addr, with_offset, buf, len))
		return buf;
	snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return buf;
}

const char *tp_hist_syscall_text(const struct hist_names *nm, uint64_t nr)
{
	const char *name = nm && nm->syscall ? nm->syscall(nm->ctx, nr) : NULL;

	return name ? name : "unknown_syscall";
}

/* hist_trigger_print_key(). */
static void print_key(FILE *out, const struct hist_table *t, unsigned e,
		      const struct hist_names *nm)
{
	const struct hist_spec *s = tp_hist_table_spec(t);
	const unsigned char *key = tp_hist_entry_key(t, e);
	char sym[512];

	fputs("{ ", out);
	for (unsigned i = 0; i < s->nkeys; i++) {
		const struct hist_field *k = &s->keys[i];
		unsigned long long v = tp_hist_key_num(k, key);
		const char *name = k->name;

		if (i)
			fputs(", ", out);
		if (k->mods & HIST_MOD_HEX)
			fprintf(out, "%s: %llx", name, v);
		else if (k->mods & HIST_MOD_SYM)
			fprintf(out, "%s: [%llx] %-45s", name, v,
				tp_hist_sym_text(nm, v, false, sym, sizeof(sym)));
		else if (k->mods & HIST_MOD_SYM_OFFSET)
			fprintf(out, "%s: [%llx] %-55s", name, v,
				tp_hist_sym_text(nm, v, true, sym, sizeof(sym)));
		else if (k->mods & HIST_MOD_EXECNAME)
			fprintf(out, "%s: %-16s[%10llu]", name, tp_hist_entry_comm(t, e), v);
		else if (k->mods & HIST_MOD_SYSCALL)
			fprintf(out, "%s: %-30s[%3llu]", name, tp_hist_syscall_text(nm, v), v);
		else if (k->mods & HIST_MOD_LOG2)
			fprintf(out, "%s: ~ 2^%-2llu", name, v);
		else if (k->mods & HIST_MOD_BUCKETS)
			fprintf(out, "%s: ~ %llu-%llu", name, v,
				v + (unsigned long long)k->buckets - 1);
		else if (k->src == HIST_SRC_STR_ARRAY || k->src == HIST_SRC_STR_DYN)
			fprintf(out, "%s: %-50s", name, (const char *)key + k->key_offset);
		else
			fprintf(out, "%s: %10llu", name, v);
	}
	fputs(" }", out);
}

/* __get_percentage(): 100 times the percentage of val in total; UINT_MAX when undefined. */
static unsigned percentage(uint64_t val, uint64_t total)
{
	if (!total)
		return val ? UINT_MAX : 0;
	if (val < UINT64_MAX / 10000)
		return (unsigned)(val * 10000 / total);
	total /= 10000;
	if (!total)
		return val ? UINT_MAX : 0;
	return (unsigned)(val / total);
}

/* __fill_bar_str(): `size` columns of '#' in proportion to val / max. */
static const char *fill_bar(char *buf, unsigned size, uint64_t val, uint64_t max)
{
	unsigned len = percentage(val, max), i;

	if (len == UINT_MAX) {
		snprintf(buf, size, "[ERROR]");
		return buf;
	}
	len = len * size / 10000;
	for (i = 0; i < len && i < size; i++)
		buf[i] = '#';
	while (i < size)
		buf[i++] = ' ';
	buf[size] = 0;
	return buf;
}

struct val_stat {
	uint64_t max, total;
};

/* hist_trigger_print_val(). */
static void print_val(FILE *out, const char *name, uint32_t mods, uint64_t val,
		      const struct val_stat *st)
{
	char bar[21];

	if (mods & HIST_MOD_PERCENT) {
		unsigned pc = percentage(val, st->total);

		if (pc == UINT_MAX)
			fprintf(out, " %s (%%):[ERROR]", name);
		else
			fprintf(out, " %s (%%): %3u.%02u", name, pc / 100, pc % 100);
	} else if (mods & HIST_MOD_GRAPH) {
		fprintf(out, " %s: %20s", name, fill_bar(bar, 20, val, st->max));
	} else if (mods & HIST_MOD_HEX) {
		fprintf(out, " %s: %10llx", name, (unsigned long long)val);
	} else {
		fprintf(out, " %s: %10llu", name, (unsigned long long)val);
	}
}

/* hist_trigger_entry_print(). */
static void print_entry(FILE *out, const struct hist_table *t, unsigned e,
			const struct val_stat *st, const struct hist_names *nm)
{
	const struct hist_spec *s = tp_hist_table_spec(t);
	const uint64_t *sums = tp_hist_entry_sums(t, e);

	print_key(out, t, e, nm);
	if (!s->nohitcount)
		print_val(out, "hitcount", 0, sums[0], &st[0]);
	for (unsigned i = 1; i < s->nvals; i++) {
		if (s->vals[i].src == HIST_SRC_EXPR)
			continue; /* hist_trigger_entry_print() skips expressions */
		fputc(' ', out);
		print_val(out, s->vals[i].name, s->vals[i].mods, sums[i], &st[i]);
	}
	fputc('\n', out);
}

/* hist_trigger_show(), with print_entries()'s max and total of the .percent/.graph values. */
int tp_hist_print(FILE *out, const struct hist_table *t, unsigned nth,
		  const struct hist_names *names)
{
	const struct hist_spec *s = tp_hist_table_spec(t);
	struct val_stat st[HIST_VALS_MAX] = { { 0, 0 } };
	unsigned n, *order = tp_hist_sorted(t, &n);

	if (n && !order)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		const uint64_t *sums = tp_hist_entry_sums(t, order[i]);

		for (unsigned v = 0; v < s->nvals; v++) {
			st[v].total += sums[v];
			if (st[v].max < sums[v])
				st[v].max = sums[v];
		}
	}
	if (nth > 0)
		fputs("\n\n", out);
	fputs("# event histogram\n#\n# trigger info: ", out);
	tp_hist_spec_print(out, s, tp_hist_table_paused(t));
	fputs("#\n\n", out);
	for (unsigned i = 0; i < n; i++)
		print_entry(out, t, order[i], st, names);
	fprintf(out, "\nTotals:\n    Hits: %llu\n    Entries: %u\n    Dropped: %llu\n",
		(unsigned long long)tp_hist_table_hits(t), n,
		(unsigned long long)tp_hist_table_drops(t));
	free(order);
	return ferror(out) ? -1 : 0;
}
