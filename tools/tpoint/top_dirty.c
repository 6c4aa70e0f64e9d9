/* SPDX-License-Identifier: MIT */
/*
 * Who dirties which file: the kernel's own tracepoint, filtered in the kernel, read raw from
 * the per-CPU buffers of a private instance, counted per (thread, device, inode) in a hash
 * table. Names come from fanotify as files are written (top_names.c), else from the
 * processes' open descriptors (top_paths.c), looked up once a refresh, never per event.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "fmt/rb_record.h"
#include "fmt/tracefs_format.h"
#include "kinstance.h"
#include "top_btf.h"
#include "top_dirty.h"
#include "top_names.h"
#include "top_paths.h"

/* The instance is tpoint-top-PID-RANDOM (tpoint(1) says so), made and read by kinstance.c. */
#define INSTANCE_PREFIX "tpoint-top"
#define MAX_ROWS (1 << 20) /* beyond: counted in `overflow`, not shown */
#define EXITS_KEPT 4096 /* the names of the threads that ended last */
#define THREADS_KEPT 16384 /* the threads made last, with the thread that made each */
#define CLONE_THREAD_FLAG 0x10000 /* CLONE_THREAD: a thread, not a process */

/* The seed's condition: the three bits PowerTOP asked about. */
static const char *const seed_flags[] = { "I_DIRTY_SYNC", "I_DIRTY_DATASYNC", "I_DIRTY_PAGES" };

struct flag_name {
	unsigned long value;
	char name[40];
};

struct field {
	int offset, size;
};

struct dirty_view {
	struct kinstance *ki;
	int ncpus;
	char *page;
	int page_size; /* of the kernel's pages: the page header, then the records */

	const char *event;
	char filter[128];
	int id;
	struct field f_pid, f_name, f_ino, f_flags;
	struct flag_name names[40];
	int nnames;

	const pid_t *pids;
	int npids;
	struct dirty_row *rows;
	int nrows, cap;
	int *slots; /* hash of (tid, dev, ino) to rows[] index + 1; 0 empty */
	unsigned nslots;
	unsigned long long lost, overflow;
	int exit_id; /* sched:sched_process_exit, for the names of processes gone; -1: none */
	struct field f_exit_comm, f_exit_pid;
	struct exited { pid_t tid; char comm[16]; } exits[EXITS_KEPT];
	unsigned nexits;
	int newtask_id; /* task:task_newtask of threads, for their process once gone; -1: none */
	struct field f_new_pid;
	struct thread_made { pid_t tid, maker; } threads[THREADS_KEPT];
	unsigned nthreads;
	unsigned drains; /* readings of the buffers so far: the clock of rows and names */
	struct names *files; /* the names of files written; NULL: descriptors only, for names_why */
	char names_why[256];
};

/* ---- the event's format ---- */

static int find_field(const char *fmt, const char *name, struct field *f)
{
	struct tracefs_field tf;
	size_t pos = 0, len = strlen(fmt);

	while (tp_tracefs_next_field(fmt, len, &pos, &tf))
		if (tf.name_len == strlen(name) && !memcmp(tf.name, name, tf.name_len)) {
			if (!tf.size || tf.size > 0xffff || tf.offset > 0xffff)
				return -1;
			f->offset = (int)tf.offset;
			f->size = (int)tf.size;
			return 0;
		}
	return -1;
}

/* A flag's value as older kernels print it: "4", "0x4", "(1 << 2)", "(1UL << 2)". */
static bool flag_value(const char *text, unsigned long *value)
{
	char expr[40], *p = expr, *end;
	unsigned long long v, shift;
	size_t n = 0;

	for (; *text && n < sizeof(expr) - 1; text++)
		if (!isspace((unsigned char)*text) && *text != '(' && *text != ')')
			expr[n++] = *text;
	expr[n] = 0;
	if (!isdigit((unsigned char)*p))
		return false;
	v = strtoull(p, &end, 0);
	end += strspn(end, "uUlL");
	if (!strncmp(end, "<<", 2) && isdigit((unsigned char)end[2])) {
		shift = strtoull(end + 2, &end, 0);
		end += strspn(end, "uUlL");
		if (shift >= 64)
			return false;
		v <<= shift;
	}
	*value = (unsigned long)v;
	return *end == 0;
}

/*
 * The names and values of the flags of __print_flags(REC->flags, "|", {V, "NAME"}, ...).
 * V is a number, or (a kernel without TRACE_DEFINE_ENUM for them) an enum constant's name,
 * then taken from the kernel's BTF.
 */
static int read_flag_names(struct dirty_view *d, const char *fmt, char *why, size_t len)
{
	const char *p = strstr(fmt, "__print_flags(REC->flags");
	char syms[40][40];
	const char *symp[40];
	long long values[40];
	int found[40], nsym = 0;

	if (!p) {
		snprintf(why, len, "%s: its format prints no flags", d->event);
		return -1;
	}
	p = strchr(p, '{');
	while (p && *p == '{' && d->nnames < 40) {
		char sym[40], name[40];

		if (sscanf(p, "{%39[^,], \"%39[^\"]\"", sym, name) != 2)
			break;
		struct flag_name *n = &d->names[d->nnames++];

		snprintf(n->name, sizeof(n->name), "%s", name);
		if (!flag_value(sym, &n->value)) { /* a name, not a number */
			n->value = 0;
			snprintf(syms[nsym], sizeof(syms[nsym]), "%s", sym);
			symp[nsym] = syms[nsym];
			nsym++;
		}
		p = strchr(p, '}');
		p = p ? p + 1 + strspn(p + 1, ", ") : NULL;
	}
	if (nsym && btf_enum_values("/sys/kernel/btf/vmlinux", symp, values, found, nsym, why,
				    len) < 0)
		return -1;
	for (int i = 0, s = 0; i < d->nnames && nsym; i++) {
		if (d->names[i].value || s >= nsym)
			continue;
		/* the symbols were collected in the order of the names that had none */
		if (found[s])
			d->names[i].value = (unsigned long)values[s];
		s++;
	}
	return 0;
}

/* The seed's condition: flags & (the three bits), their values from the format (or BTF). */
static int seed_filter(struct dirty_view *d, char *why, size_t len)
{
	unsigned long mask = 0;

	for (size_t s = 0; s < sizeof(seed_flags) / sizeof(seed_flags[0]); s++) {
		unsigned long v = 0;

		for (int i = 0; i < d->nnames; i++)
			if (!strcmp(d->names[i].name, seed_flags[s]))
				v = d->names[i].value;
		if (!v) {
			snprintf(why, len, "%s: no value for %s in its format file nor in the "
				 "kernel's BTF", d->event, seed_flags[s]);
			return -1;
		}
		mask |= v;
	}
	snprintf(d->filter, sizeof(d->filter), "flags & %lu", mask);
	return 0;
}

static int set_up_event(struct dirty_view *d, char *why, size_t len)
{
	static const char *const events[] = { "writeback_mark_inode_dirty",
					      "writeback_dirty_inode" };
	char *fmt = NULL, event[64];

	for (size_t i = 0; i < 2 && !fmt; i++) {
		d->event = events[i];
		snprintf(event, sizeof(event), "writeback:%s", d->event);
		fmt = kinst_format(d->ki, event);
	}
	if (!fmt) {
		snprintf(why, len, "the kernel has neither writeback:writeback_mark_inode_dirty nor "
			 "writeback:writeback_dirty_inode");
		return -1;
	}
	const char *id = strstr(fmt, "\nID: ");

	d->id = id ? atoi(id + 5) : -1;
	if (d->id < 0 || find_field(fmt, "common_pid", &d->f_pid) ||
	    find_field(fmt, "name", &d->f_name) || find_field(fmt, "ino", &d->f_ino) ||
	    find_field(fmt, "flags", &d->f_flags) || d->f_pid.size != 4 ||
	    (d->f_ino.size != 4 && d->f_ino.size != 8) ||
	    (d->f_flags.size != 4 && d->f_flags.size != 8)) {
		snprintf(why, len, "%s: its format lacks common_pid, name, ino or flags", event);
		free(fmt);
		return -1;
	}
	int ret = read_flag_names(d, fmt, why, len);

	free(fmt);
	if (ret < 0 || seed_filter(d, why, len) < 0)
		return -1;
	/*
	 * In the kernel, with top itself (one thread) left out: its own output to a file on a
	 * disk would otherwise show it among the dirtiers.
	 */
	char kfilter[sizeof(d->filter) + 32];

	snprintf(kfilter, sizeof(kfilter), "(%s) && common_pid != %d", d->filter, (int)getpid());
	return kinst_enable(d->ki, event, kfilter, why, len);
}

/*
 * Who ended, with its name: a writer that opens, writes, closes and exits (a dd, an echo in
 * a subshell) is gone before top reads /proc, and the kernel's saved_cmdlines is too small
 * on a busy machine. Without the event, such writers show as "?".
 */
static void set_up_exit(struct dirty_view *d)
{
	char *fmt = kinst_format(d->ki, "sched:sched_process_exit"), why[256];
	const char *id = fmt ? strstr(fmt, "\nID: ") : NULL;

	d->exit_id = -1;
	if (id && !find_field(fmt, "comm", &d->f_exit_comm) &&
	    !find_field(fmt, "pid", &d->f_exit_pid) && d->f_exit_pid.size == 4 &&
	    d->f_exit_comm.size <= 16 &&
	    !kinst_enable(d->ki, "sched:sched_process_exit", NULL, why, sizeof(why)))
		d->exit_id = atoi(id + 5);
	free(fmt);
}

/*
 * Who made each thread: a thread that dirtied a file and ended, with its process, before top
 * read /proc would show as a process of its own. The thread that made it belongs to its
 * process; the first of a chain of makers that was not made as a thread is the process.
 * Filtered in the kernel to threads (CLONE_THREAD): processes made cost nothing here.
 */
static void set_up_newtask(struct dirty_view *d)
{
	char *fmt = kinst_format(d->ki, "task:task_newtask"), why[256], filter[64];
	const char *id = fmt ? strstr(fmt, "\nID: ") : NULL;

	d->newtask_id = -1;
	snprintf(filter, sizeof(filter), "clone_flags & %d", CLONE_THREAD_FLAG);
	if (id && !find_field(fmt, "pid", &d->f_new_pid) && d->f_new_pid.size == 4 &&
	    !kinst_enable(d->ki, "task:task_newtask", filter, why, sizeof(why)))
		d->newtask_id = atoi(id + 5);
	free(fmt);
}

struct dirty_view *dirty_open(const pid_t *pids, int npids, char *why, size_t len)
{
	struct dirty_view *d = calloc(1, sizeof(*d));
	int page_size;

	if (!d) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	d->pids = pids;
	d->npids = npids;
	/* Not root, no tracefs, lockdown: said before an instance is made. */
	if (kinst_check(why, len) < 0)
		goto fail;
	kinst_remove_stale();
	d->ki = kinst_create(INSTANCE_PREFIX, why, len);
	if (!d->ki || set_up_event(d, why, len) < 0)
		goto fail;
	set_up_exit(d);
	set_up_newtask(d);
	d->ncpus = kinst_cpus();
	page_size = kinst_open_cpus(d->ki, why, len);
	if (page_size <= 0)
		goto fail;
	d->page = malloc((size_t)page_size);
	d->page_size = page_size;
	if (!d->page) {
		snprintf(why, len, "out of memory");
		goto fail;
	}
	/* Before the tracing starts: a file written from its first event on is named. */
	d->files = names_open(d->names_why, sizeof(d->names_why));
	if (kinst_trace(d->ki, true, why, len) < 0)
		goto fail;
	return d;
fail:
	dirty_close(d);
	return NULL;
}

/* ---- counting ---- */

static unsigned long long read_uint(const char *data, struct field f)
{
	if (f.size == 8) {
		unsigned long long v;

		memcpy(&v, data + f.offset, 8);
		return v;
	}
	unsigned v;

	memcpy(&v, data + f.offset, 4);
	return v;
}

static unsigned hash_key(pid_t tid, const char *dev, unsigned long long ino)
{
	unsigned long long h = (unsigned long long)tid * 0x9e3779b97f4a7c15ull ^ ino;

	for (; *dev; dev++)
		h = (h ^ (unsigned char)*dev) * 0x100000001b3ull;
	return (unsigned)(h ^ h >> 29);
}

static int grow_slots(struct dirty_view *d)
{
	unsigned n = d->nslots ? 2 * d->nslots : 1024;
	int *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (int i = 0; i < d->nrows; i++) {
		unsigned h = hash_key(d->rows[i].tid, d->rows[i].dev, d->rows[i].ino) & (n - 1);

		while (slots[h])
			h = (h + 1) & (n - 1);
		slots[h] = i + 1;
	}
	free(d->slots);
	d->slots = slots;
	d->nslots = n;
	return 0;
}

/* The thread's process and name, once, when its first row is made. */
static void thread_identity(struct dirty_row *r)
{
	char file[64], line[256];
	FILE *f;

	r->pid = r->tid;
	snprintf(r->comm, sizeof(r->comm), "?");
	snprintf(file, sizeof(file), "/proc/%d/status", (int)r->tid);
	f = fopen(file, "re");
	r->pid_unknown = !f;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Name:\t", 6)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(r->comm, sizeof(r->comm), "%.15s", line + 6);
		} else if (!strncmp(line, "Tgid:\t", 6)) {
			r->pid = atoi(line + 6);
			break;
		}
	}
	fclose(f);
}

/* "MAJ:MIN" of a bdi named so; false for bdi names that are not a device (btrfs-1, ...). */
static bool bdi_dev(const char *name, dev_t *dev)
{
	unsigned maj, min;
	char tail;

	if (sscanf(name, "%u:%u%c", &maj, &min, &tail) != 2)
		return false;
	*dev = makedev(maj, min);
	return true;
}

/* The row's file among its process's (or thread's) descriptors and maps, if there. */
static void walk_name(struct dirty_row *r)
{
	dev_t dev = 0;
	bool have = bdi_dev(r->dev, &dev);

	r->path = paths_lookup(r->pid, have, dev, r->ino);
	if (!r->path && r->tid != r->pid)
		r->path = paths_lookup(r->tid, have, dev, r->ino);
}

static void count_event(struct dirty_view *d, const char *data, int size)
{
	unsigned short type;
	char dev[32];
	pid_t tid;
	unsigned long long ino;

	if (size < (int)sizeof(type))
		return;
	memcpy(&type, data, sizeof(type));
	if (type == d->newtask_id && d->newtask_id >= 0) {
		struct thread_made *t = &d->threads[d->nthreads % THREADS_KEPT];

		if (size < d->f_new_pid.offset + 4 || size < d->f_pid.offset + 4)
			return;
		t->tid = (pid_t)read_uint(data, d->f_new_pid);
		t->maker = (pid_t)read_uint(data, d->f_pid);
		d->nthreads++;
		return;
	}
	if (type == d->exit_id && d->exit_id >= 0) {
		struct exited *e = &d->exits[d->nexits % EXITS_KEPT];

		if (size < d->f_exit_pid.offset + 4 || size < d->f_exit_comm.offset +
		    d->f_exit_comm.size)
			return;
		e->tid = (pid_t)read_uint(data, d->f_exit_pid);
		snprintf(e->comm, sizeof(e->comm), "%.*s", d->f_exit_comm.size,
			 data + d->f_exit_comm.offset);
		d->nexits++;
		return;
	}
	if (size < d->f_flags.offset + d->f_flags.size || size < d->f_ino.offset + d->f_ino.size ||
	    size < d->f_name.offset + d->f_name.size)
		return;
	if (type != d->id)
		return;
	tid = (pid_t)read_uint(data, d->f_pid);
	ino = read_uint(data, d->f_ino);
	/* not snprintf: this runs for every event */
	size_t devlen = strnlen(data + d->f_name.offset, (size_t)d->f_name.size);

	if (devlen >= sizeof(dev))
		devlen = sizeof(dev) - 1;
	memcpy(dev, data + d->f_name.offset, devlen);
	dev[devlen] = 0;
	if (tid == 0)
		return; /* the idle task: no process to blame */
	if ((unsigned)d->nrows * 2 >= d->nslots && grow_slots(d) < 0)
		return;
	unsigned h = hash_key(tid, dev, ino) & (d->nslots - 1);
	struct dirty_row *r = NULL;

	for (; d->slots[h]; h = (h + 1) & (d->nslots - 1)) {
		r = &d->rows[d->slots[h] - 1];
		if (r->tid == tid && r->ino == ino && !strcmp(r->dev, dev))
			break;
		r = NULL;
	}
	if (!r) {
		if (d->nrows >= MAX_ROWS) {
			d->overflow++;
			return;
		}
		if (d->nrows == d->cap) {
			int cap = d->cap ? 2 * d->cap : 256;
			struct dirty_row *grown = realloc(d->rows, (size_t)cap * sizeof(*grown));

			if (!grown)
				return;
			d->rows = grown;
			d->cap = cap;
		}
		r = &d->rows[d->nrows];
		*r = (struct dirty_row){ .tid = tid, .ino = ino, .first_drain = d->drains };
		snprintf(r->dev, sizeof(r->dev), "%s", dev);
		thread_identity(r);
		r->shown = !d->npids;
		for (int i = 0; i < d->npids; i++)
			r->shown |= d->pids[i] == r->pid;
		d->slots[h] = ++d->nrows;
		/* now, while the process likely lives: one that ends before the refresh is named */
		if (r->shown)
			walk_name(r);
	}
	r->events++;
	r->flags |= (unsigned long)read_uint(data, d->f_flags);
}

/*
 * The records of the kernel page in d->page, counted (lib/fmt/rb_record.c decodes them, as
 * kpages.c does); the events lost before it, when the page says how many.
 */
static void count_page(struct dirty_view *d)
{
	const unsigned char *page = (const unsigned char *)d->page, *data;
	/* this machine's kernel: its longs and byte order */
	unsigned int order = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TP_RB_BIG_ENDIAN : 0;
	struct tp_rb_page pg;
	enum tp_rb_page_fault fault = tp_rb_page_decode(page, (uint32_t)d->page_size,
							 sizeof(long), order, &pg);
	struct tp_rb_rec rec;

	if (fault == TP_RB_PAGE_LAYOUT || fault == TP_RB_PAGE_COMMIT_PAST)
		return;
	if (pg.counted) {
		int missed = (int)pg.lost; /* as kbuffer_missed_events() gave it here */

		if (missed > 0)
			d->lost += (unsigned long long)missed;
	}
	data = page + pg.data;
	for (uint32_t off = 0; off < pg.commit; off = rec.next) {
		if (tp_rb_decode(data, pg.commit, off, order | TP_RB_PAD_ENDS_PAGE, &rec))
			return; /* the rest of the page is not a record */
		if (tp_rb_is_data(&rec))
			count_event(d, (const char *)data + rec.payload, (int)rec.size);
	}
}

void dirty_drain(struct dirty_view *d)
{
	d->drains++;
	if (d->files)
		names_drain(d->files, d->drains); /* first: a name heard now serves the events read next */
	for (int c = 0; c < d->ncpus; c++) {
		/* Bounded: a CPU that fills pages as fast as they are read cannot hold top here. */
		for (int pages = 0; pages < 4096; pages++) {
			/* The page being written too: a slow dirtier is seen at the next refresh. */
			if (kinst_read_page(d->ki, c, d->page, KINST_LATEST) <= 0)
				break;
			count_page(d);
		}
	}
}

/* The process (thread group) of a thread seen in /proc, or 0. */
static pid_t proc_tgid(pid_t tid)
{
	char file[64], line[256];
	pid_t tgid = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/status", (int)tid);
	f = fopen(file, "re");
	while (f && !tgid && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:\t", 6))
			tgid = atoi(line + 6);
	if (f)
		fclose(f);
	return tgid;
}

/*
 * The process of a thread gone before /proc was read: up the chain of the threads that made
 * it (task_newtask) to one not made as a thread, the process's first; that one's process
 * from /proc when it is still there (it may be a thread made before top began).
 */
static pid_t thread_group(struct dirty_view *d, pid_t tid)
{
	unsigned n = d->nthreads < THREADS_KEPT ? d->nthreads : THREADS_KEPT;
	pid_t at = tid, tgid;

	for (int hops = 0; hops < 64; hops++) {
		pid_t maker = 0;

		for (unsigned i = 1; i <= n && !maker; i++) { /* the latest first: tids are reused */
			const struct thread_made *t = &d->threads[(d->nthreads - i) % THREADS_KEPT];

			if (t->tid == at)
				maker = t->maker;
		}
		if (!maker || maker == at)
			break;
		at = maker;
	}
	if (at == tid)
		return tid;
	tgid = proc_tgid(at);
	return tgid > 0 ? tgid : at;
}

/* The name of a thread that ended before top saw it in /proc, from its exit event. */
static void exited_comm(struct dirty_view *d, struct dirty_row *r)
{
	unsigned n = d->nexits < EXITS_KEPT ? d->nexits : EXITS_KEPT;

	for (unsigned i = 1; i <= n; i++) { /* the latest first: a tid may have been reused */
		const struct exited *e = &d->exits[(d->nexits - i) % EXITS_KEPT];

		if (e->tid == r->tid) {
			snprintf(r->comm, sizeof(r->comm), "%s", e->comm);
			return;
		}
	}
}

/*
 * The name of a thread that ended before top saw it in /proc: the kernel keeps the names of
 * recent tracing tasks in saved_cmdlines ("PID COMM" lines), read once a refresh if needed.
 */
static void saved_comm(char **cmdlines, struct dirty_row *r)
{
	char key[24];

	if (!*cmdlines)
		*cmdlines = kinst_saved_cmdlines();
	if (!*cmdlines)
		return;
	snprintf(key, sizeof(key), "%d ", (int)r->tid);
	for (const char *l = *cmdlines; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, strlen(key))) {
			snprintf(r->comm, sizeof(r->comm), "%.*s", (int)strcspn(l + strlen(key), "\n"),
				 l + strlen(key));
			return;
		}
}

/*
 * The row's name as fanotify last heard it (" (deleted)", " (renamed)" when it went since);
 * false when it has none.
 */
static bool name_row(struct dirty_view *d, struct dirty_row *r, bool have, dev_t dev)
{
	/* Heard by the row's first event: see name_table_find(). (A file a process holds
	 * open, even unlinked, is found among its descriptors.) */
	const struct name_entry *e = names_find(d->files, have, dev, r->ino, r->pid,
						r->first_drain);
	static const char *const suffix[] = { "", " (deleted)", " (renamed)" };
	char *path;

	if (!e)
		return false;
	if (r->path && r->named && !strncmp(r->path, e->path, strlen(e->path)) &&
	    !strcmp(r->path + strlen(e->path), suffix[e->state]))
		return true;
	if (asprintf(&path, "%s%s", e->path, suffix[e->state]) < 0)
		return r->path != NULL;
	free(r->path);
	r->path = path;
	return true;
}

/*
 * The disk's own block device: its inode number is the kernel's dev_t (MAJOR << 20 | MINOR),
 * and its pages are the file system's metadata (buffer heads, the journal) that any writer
 * dirties. Named "/dev/NAME (file system metadata)".
 */
static char *bdev_name(bool have, dev_t dev, unsigned long long ino)
{
	char file[96], line[128], *name = NULL;
	FILE *f;

	if (!have || ino != ((unsigned long long)major(dev) << 20 | minor(dev)))
		return NULL;
	snprintf(file, sizeof(file), "/sys/dev/block/%u:%u/uevent", major(dev), minor(dev));
	f = fopen(file, "re");
	while (f && !name && fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = 0;
			if (asprintf(&name, "/dev/%s (file system metadata)", line + 8) < 0)
				name = NULL;
		}
	if (f)
		fclose(f);
	return name;
}

int dirty_refresh(struct dirty_view *d, double secs, struct dirty_row **rows)
{
	char *cmdlines = NULL;
	pid_t last_pid = 0;
	bool last_gone = false;

	if (d->files)
		names_refresh(d->files);

	paths_next_round();
	for (int i = 0; i < d->nrows; i++) {
		struct dirty_row *r = &d->rows[i];
		dev_t dev = 0;
		bool have = bdi_dev(r->dev, &dev);

		if (r->pid_unknown) { /* every event drained now: the thread's making too */
			r->pid_unknown = false;
			r->pid = thread_group(d, r->tid);
			for (int p = 0; p < d->npids && !r->shown; p++)
				r->shown = d->pids[p] == r->pid;
		}
		if (r->comm[0] == '?' && !r->comm[1])
			exited_comm(d, r);
		if (r->comm[0] == '?' && !r->comm[1] && r->idle == 0)
			saved_comm(&cmdlines, r);
		r->rate = secs > 0 ? (double)(r->events - r->events_before) / secs : 0;
		r->idle = r->events == r->events_before ? r->idle + 1 : 0;
		/* one look a process: its rows are mostly made one after another */
		if (r->pid != last_pid)
			last_gone = kill(last_pid = r->pid, 0) < 0 && errno == ESRCH;
		r->gone = last_gone ? r->gone + 1 : 0;
		if (r->shown && name_row(d, r, have, dev))
			r->named = true;
		/* Looked for while the file is being dirtied: then the process likely has it. */
		else if (r->shown && !r->path && r->events != r->events_before &&
			 !(r->path = bdev_name(have, dev, r->ino)))
			walk_name(r);
		r->events_before = r->events;
	}
	free(cmdlines);
	*rows = d->rows;
	return d->nrows;
}

const char *dirty_event_name(struct dirty_view *d)
{
	return d->event;
}

const char *dirty_filter(struct dirty_view *d)
{
	return d->filter;
}

unsigned long long dirty_lost(struct dirty_view *d)
{
	return d->lost;
}

void dirty_flag_names(struct dirty_view *d, unsigned long flags, char *out, size_t len)
{
	size_t at = 0;

	out[0] = 0;
	for (int i = 0; i < d->nnames && flags; i++) {
		if (!d->names[i].value || (flags & d->names[i].value) != d->names[i].value)
			continue;
		at += (size_t)snprintf(out + at, at < len ? len - at : 0, "%s%s", at ? "|" : "",
				       d->names[i].name);
		flags &= ~d->names[i].value;
	}
	if (flags)
		snprintf(out + (at < len ? at : len - 1), at < len ? len - at : 1, "%s0x%lx",
			 at ? "|" : "", flags);
}

void dirty_names(struct dirty_view *d, char *out, size_t len)
{
	names_describe(d->files, d->names_why, out, len);
}

void dirty_names_json(struct dirty_view *d)
{
	names_json(d->files, d->names_why);
}

void dirty_close(struct dirty_view *d)
{
	if (!d)
		return;
	names_close(d->files);
	kinst_remove(d->ki);
	for (int i = 0; i < d->nrows; i++)
		free(d->rows[i].path);
	free(d->rows);
	free(d->slots);
	free(d->page);
	free(d);
	paths_free();
}
