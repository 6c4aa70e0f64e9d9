/* SPDX-License-Identifier: MIT */
/*
 * A private tracefs instance, through libtracefs (kinstance.h). The kernel's events are
 * enabled, filtered and read in the instance only: the top-level buffer and other tools'
 * instances stay as they are.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracefs.h>
#include "globs.h"
#include "kinstance.h"
#include "owner.h"

/* Where an instance's lock lives: root's, as the instances are (kinstance.h). */
#define LOCK_DIR "/run/tpoint"

struct kinstance {
	struct tracefs_instance *inst;
	char name[64];
	int lock_fd; /* NAME.lock in LOCK_DIR, held while the instance is ours; or -1 */
	struct tracefs_cpu **cpu; /* per CPU, or NULL (a CPU without a buffer) */
	int ncpus;
};

/* Why tracefs refuses us, in the words a user can act on. */
static void access_error(char *err, size_t errlen, const char *what, int e)
{
	char lock[256] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");

	if (f) {
		if (!fgets(lock, sizeof(lock), f))
			lock[0] = 0;
		fclose(f);
	}
	if (strstr(lock, "[confidentiality]"))
		snprintf(err, errlen, "%s: %s: the kernel is locked down (confidentiality: "
			 "/sys/kernel/security/lockdown), it refuses tracefs", what, strerror(e));
	else if ((e == EACCES || e == EPERM) && geteuid() != 0)
		snprintf(err, errlen, "needs root: %s: %s (kernel events need root: tracefs "
			 "instances are root's)", what, strerror(e));
	else
		snprintf(err, errlen, "%s: %s", what, strerror(e));
}

int kinst_check(char *err, size_t errlen)
{
	const char *dir = NULL;
	char *inst;

	/* Asked before anything of libtracefs that would mount it: we only use what is there. */
	if (tracefs_tracing_dir_is_mounted(false, &dir) != 1 || !dir) {
		snprintf(err, errlen, "tracefs is not mounted (mount -t tracefs nodev "
			 "/sys/kernel/tracing): the kernel's events cannot be read");
		return -1;
	}
	/* libtracefs 1.6 hands out its own copy of the path (trace_find_tracing_dir()). */
	if (asprintf(&inst, "%s/instances", dir) < 0)
		inst = NULL;
	free((char *)dir);
	if (!inst) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (access(inst, W_OK)) {
		access_error(err, errlen, inst, errno);
		free(inst);
		return -1;
	}
	free(inst);
	return 0;
}

void kevent_list_free(struct kevent_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->name[i]);
	free(l->name);
	l->name = NULL;
	l->n = 0;
}

int kevent_list_add(struct kevent_list *l, const char *event)
{
	char **n;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], event))
			return 0;
	n = realloc(l->name, (l->n + 1) * sizeof(*n));
	if (!n)
		return -1;
	l->name = n;
	n[l->n] = strdup(event);
	if (!n[l->n])
		return -1;
	l->n++;
	return 0;
}

int kinst_match(const char *globs, struct kevent_list *out, char *err, size_t errlen)
{
	char *avail = tracefs_instance_file_read(NULL, "available_events", NULL);
	const char *g;
	size_t glen;
	int ret = 0;

	if (!avail) {
		access_error(err, errlen, "available_events", errno ? errno : EIO);
		return -1;
	}
	for (const char *at = globs; !ret && tp_globs_next(&at, &g, &glen);) {
		bool any = false;
		char *p = avail;

		while (*p && !ret) {
			char *nl = strchr(p, '\n'), *colon;

			if (nl)
				*nl = 0;
			colon = strchr(p, ':');
			if (colon) {
				*colon = 0;
				/* ftrace's own events (function, print) are not events to enable */
				if (strcmp(p, "ftrace") && tp_glob_selects(g, glen, p, colon + 1)) {
					*colon = ':';
					any = true;
					if (kevent_list_add(out, p) < 0) {
						snprintf(err, errlen, "out of memory");
						ret = -1;
					}
				}
				*colon = ':';
			}
			if (!nl)
				break;
			*nl = '\n';
			p = nl + 1;
		}
		if (!any && !ret) {
			snprintf(err, errlen, "-k '%.*s' matches no kernel event (expected "
				 "system:name, system:* or system, as in %s/available_events)",
				 (int)glen, g, tracefs_tracing_dir());
			ret = -1;
		}
	}
	free(avail);
	return ret;
}

/* LOCK_DIR, made if it is not there: a directory of ours that no one else can write; or -1. */
static int lock_dir(bool make)
{
	struct stat st;
	int fd;

	if (make && mkdir(LOCK_DIR, 0700) < 0 && errno != EEXIST)
		return -1;
	fd = open(LOCK_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The spill directory a lock names ("DEV INO PATH"), removed if it is still that directory:
 * what a recorder killed with SIGKILL left beside its output.
 */
static void remove_spill(int lock_fd)
{
	char buf[4200], *path, *slash;
	unsigned long long dev, ino;
	struct stat st;
	ssize_t n = pread(lock_fd, buf, sizeof(buf) - 1, 0);
	int consumed = 0, parent;

	if (n <= 0)
		return;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	if (sscanf(buf, "%llu %llu %n", &dev, &ino, &consumed) < 2 || !consumed)
		return;
	path = buf + consumed;
	slash = strrchr(path, '/');
	if (!slash || slash == path || !slash[1])
		return;
	*slash = 0;
	parent = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parent < 0)
		return;
	if (fstatat(parent, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_dev == (dev_t)dev && st.st_ino == (ino_t)ino)
		owner_remove_dir(parent, slash + 1);
	close(parent);
}

int kinst_remove_stale(void)
{
	char *dir = NULL;
	struct dirent *e;
	int removed = 0, locks = lock_dir(false);
	DIR *d;

	if (locks < 0)
		return 0; /* no lock of any instance: none can be proved stale */
	/* The directory read here, not tracefs_instances(): libtracefs 1.6 leaks its regex. */
	if (asprintf(&dir, "%s/instances", tracefs_tracing_dir()) < 0) {
		close(locks);
		return 0;
	}
	d = opendir(dir);
	free(dir);
	while (d && (e = readdir(d))) {
		char lock[300];
		struct tracefs_instance *in;
		struct stat st;
		int fd;

		if (strncmp(e->d_name, "tpoint-", 7))
			continue;
		snprintf(lock, sizeof(lock), "%s.lock", e->d_name);
		fd = openat(locks, lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue; /* no lock: its owner cannot be proved gone (kinstance.h) */
		/* Taken: whoever held it is gone, however it ended, in whatever namespace. */
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    flock(fd, LOCK_EX | LOCK_NB) < 0) {
			close(fd);
			continue;
		}
		in = tracefs_instance_alloc(NULL, e->d_name);
		if (in) {
			tracefs_trace_off(in);
			if (tracefs_instance_destroy(in) == 0)
				removed++;
		}
		tracefs_instance_free(in);
		remove_spill(fd);
		unlinkat(locks, lock, 0);
		close(fd);
	}
	if (d)
		closedir(d);
	close(locks);
	return removed;
}

/* PREFIX-PID-RANDOM in k->name, with its lock taken when LOCK_DIR can hold it. */
static int name_and_lock(struct kinstance *k, const char *prefix)
{
	int locks = lock_dir(true);

	for (int tries = 0; tries < 16; tries++) {
		unsigned int r = 0;
		char lock[300];

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
			r = (unsigned int)rand() ^ (unsigned int)getpid() << 16;
		snprintf(k->name, sizeof(k->name), "%s-%d-%08x", prefix, (int)getpid(), r);
		if (tracefs_instance_exists(k->name))
			continue;
		if (locks < 0)
			return 0; /* an instance no one else can prove stale: ours to remove */
		snprintf(lock, sizeof(lock), "%s.lock", k->name);
		k->lock_fd = openat(locks, lock, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				    0600);
		if (k->lock_fd < 0 && errno == EEXIST)
			continue;
		if (k->lock_fd >= 0 && flock(k->lock_fd, LOCK_EX | LOCK_NB) < 0) {
			close(k->lock_fd);
			unlinkat(locks, lock, 0);
			k->lock_fd = -1;
		}
		close(locks);
		return 0;
	}
	if (locks >= 0)
		close(locks);
	errno = EEXIST;
	return -1;
}

struct kinstance *kinst_create(const char *prefix, char *err, size_t errlen)
{
	struct kinstance *k = calloc(1, sizeof(*k));

	if (!k) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	k->lock_fd = -1;
	errno = 0;
	k->inst = name_and_lock(k, prefix) < 0 ? NULL : tracefs_instance_create(k->name);
	if (!k->inst) {
		char what[128];

		snprintf(what, sizeof(what), "tracefs instance %s", k->name);
		access_error(err, errlen, what, errno ? errno : EIO);
		kinst_remove(k);
		return NULL;
	}
	if (tracefs_trace_off(k->inst) < 0 ||
	    tracefs_instance_file_write(k->inst, "trace_clock", "mono") < 0) {
		char what[128];

		snprintf(what, sizeof(what), "tracefs instance %s: trace_clock mono", k->name);
		access_error(err, errlen, what, errno ? errno : EIO);
		kinst_remove(k);
		return NULL;
	}
	return k;
}

void kinst_set_spill(struct kinstance *k, const char *dir)
{
	char *abs = realpath(dir, NULL);
	struct stat st;

	if (k->lock_fd >= 0 && abs && stat(abs, &st) == 0 && ftruncate(k->lock_fd, 0) == 0)
		dprintf(k->lock_fd, "%llu %llu %s\n", (unsigned long long)st.st_dev,
			(unsigned long long)st.st_ino, abs);
	free(abs);
}

const char *kinst_name(const struct kinstance *k)
{
	return k->name;
}

/* "system:name" -> its two parts in buf. */
static int split_event(const char *event, char *buf, size_t len, char **name)
{
	char *colon;

	snprintf(buf, len, "%s", event);
	colon = strchr(buf, ':');
	if (!colon)
		return -1;
	*colon = 0;
	*name = colon + 1;
	return 0;
}

/* The kernel's complaint about a filter, from the filter file it leaves it in. */
static void filter_complaint(struct kinstance *k, const char *sys, const char *name, char *out,
			     size_t len)
{
	char *text = tracefs_event_file_read(k->inst, sys, name, "filter", NULL);
	char *why = text ? strstr(text, "parse_error:") : NULL;

	if (why) {
		why[strcspn(why, "\n")] = 0;
		snprintf(out, len, "%s", why);
	} else {
		snprintf(out, len, "rejected");
	}
	free(text);
}

int kinst_enable(struct kinstance *k, const char *event, const char *filter, char *err,
		 size_t errlen)
{
	char buf[256], *name;

	if (split_event(event, buf, sizeof(buf), &name) < 0) {
		snprintf(err, errlen, "'%s': expected system:name", event);
		return -1;
	}
	if (filter && tracefs_event_file_write(k->inst, buf, name, "filter", filter) < 0) {
		char why[256];

		filter_complaint(k, buf, name, why, sizeof(why));
		snprintf(err, errlen, "filter '%s' on kernel event %s: the kernel says: %s",
			 filter, event, why);
		return -1;
	}
	if (tracefs_event_file_write(k->inst, buf, name, "enable", "1") < 0) {
		char what[300];

		snprintf(what, sizeof(what), "enable kernel event %s", event);
		access_error(err, errlen, what, errno ? errno : EIO);
		return -1;
	}
	return 0;
}

int kinst_set_pids(struct kinstance *k, const pid_t *pids, size_t n, bool follow_fork,
		   char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		char v[32];

		snprintf(v, sizeof(v), "%d", (int)pids[i]);
		/* Appended: each write adds its pid to the list (the file's first write clears it). */
		if ((i ? tracefs_instance_file_append(k->inst, "set_event_pid", v)
		       : tracefs_instance_file_write(k->inst, "set_event_pid", v)) < 0) {
			snprintf(err, errlen, "set_event_pid %s: %s", v, strerror(errno ? errno : EIO));
			return -1;
		}
	}
	if (follow_fork && tracefs_option_enable(k->inst, TRACEFS_OPTION_EVENT_FORK) < 0) {
		snprintf(err, errlen, "options/event-fork: %s", strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

int kinst_set_notrace(struct kinstance *k, const pid_t *tids, size_t n, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		char v[32];

		snprintf(v, sizeof(v), "%d", (int)tids[i]);
		if ((i ? tracefs_instance_file_append(k->inst, "set_event_notrace_pid", v)
		       : tracefs_instance_file_write(k->inst, "set_event_notrace_pid", v)) < 0) {
			snprintf(err, errlen, "set_event_notrace_pid %s: %s", v,
				 strerror(errno ? errno : EIO));
			return -1;
		}
	}
	return 0;
}

char *kinst_format(struct kinstance *k, const char *event)
{
	char buf[256], *name;

	if (split_event(event, buf, sizeof(buf), &name) < 0)
		return NULL;
	return tracefs_event_file_read(k->inst, buf, name, "format", NULL);
}

char *kinst_event_file(struct kinstance *k, const char *event, const char *file)
{
	char buf[256], *name;

	if (split_event(event, buf, sizeof(buf), &name) < 0)
		return NULL;
	return tracefs_event_file_read(k->inst, buf, name, file, NULL);
}

bool kinst_has_hist(struct kinstance *k, const char *event)
{
	char *text = kinst_event_file(k, event, "trigger");
	const char *avail = text ? strstr(text, "# Available triggers:") : NULL;
	bool has = false;

	/* "# Available triggers:\n# traceon traceoff ... hist": the second line's words */
	if (avail && (avail = strchr(avail, '\n'))) {
		size_t len = strcspn(avail + 1, "\n");
		char *line = strndup(avail + 1, len);

		for (char *w = line ? strtok(line, "# ") : NULL; w; w = strtok(NULL, "# "))
			has |= !strcmp(w, "hist");
		free(line);
	}
	free(text);
	return has;
}

/* What error_log puts before the command it quotes. */
#define ERR_LOG_CMD "  Command: "

int kinst_set_trigger(struct kinstance *k, const char *event, const char *trigger, char *err,
		      size_t errlen)
{
	char buf[256], *name, *why;

	if (split_event(event, buf, sizeof(buf), &name) < 0) {
		snprintf(err, errlen, "'%s': expected system:name", event);
		return -1;
	}
	tracefs_error_clear(k->inst);
	if (tracefs_event_file_append(k->inst, buf, name, "trigger", trigger) >= 0)
		return 0;
	/*
	 * The kernel's words are in error_log (tracing_err_log_seq_show()): "[TIME] LOC: error:
	 * TEXT", "  Command: CMD", then a caret under the token, its column.
	 */
	why = tracefs_error_last(k->inst);
	if (why && *why) {
		const char *cmd = strstr(why, "\n" ERR_LOG_CMD), *caret;
		int column = 0;

		if (cmd && (caret = strchr(cmd + 1, '\n')) && strchr(caret, '^'))
			column = (int)(strchr(caret, '^') - caret - 1) - (int)strlen(ERR_LOG_CMD) + 1;
		why[strcspn(why, "\n")] = 0;
		snprintf(err, errlen, "trigger '%s' on kernel event %s: the kernel says: %s%s%.0d",
			 trigger, event, strstr(why, "] ") ? strstr(why, "] ") + 2 : why,
			 column > 0 ? " at column " : "", column > 0 ? column : 0);
	} else {
		char what[512];

		snprintf(what, sizeof(what), "trigger '%s' on kernel event %s", trigger, event);
		access_error(err, errlen, what, errno ? errno : EINVAL);
	}
	free(why);
	return -1;
}

char *kinst_saved_cmdlines(void)
{
	return tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
}

int kinst_trace(struct kinstance *k, bool on, char *err, size_t errlen)
{
	if ((on ? tracefs_trace_on(k->inst) : tracefs_trace_off(k->inst)) < 0) {
		snprintf(err, errlen, "%s/tracing_on: %s", k->name, strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

int kinst_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

int kinst_open_cpus(struct kinstance *k, char *err, size_t errlen)
{
	int size = -1;

	k->ncpus = kinst_cpus();
	k->cpu = calloc((size_t)k->ncpus, sizeof(*k->cpu));
	if (!k->cpu) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int c = 0; c < k->ncpus; c++) {
		k->cpu[c] = tracefs_cpu_open(k->inst, c, true);
		if (k->cpu[c] && size < 0)
			size = tracefs_cpu_read_size(k->cpu[c]);
	}
	if (size <= 0)
		snprintf(err, errlen, "%s: no CPU's trace_pipe_raw can be read: %s", k->name,
			 strerror(errno ? errno : EIO));
	return size;
}

int kinst_read_page(struct kinstance *k, int cpu, void *buf, enum kinst_read how)
{
	int n;

	if (cpu >= k->ncpus || !k->cpu[cpu])
		return 0;
	switch (how) {
	case KINST_WHOLE_PAGES: /* through a pipe (splice), the kernel's way to be read */
		n = tracefs_cpu_buffered_read(k->cpu[cpu], buf, true);
		break;
	case KINST_LATEST: /* read() copies out the page being written: no wait for it to fill */
		n = tracefs_cpu_read(k->cpu[cpu], buf, true);
		break;
	default:
		n = tracefs_cpu_flush(k->cpu[cpu], buf);
		break;
	}
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	return n;
}

int kinst_cpu_stats(struct kinstance *k, int cpu, struct kinst_cpu_stats *st)
{
	char file[64], *text;
	static const struct { const char *key; size_t off; } keys[] = {
		{ "entries:", offsetof(struct kinst_cpu_stats, entries) },
		{ "overrun:", offsetof(struct kinst_cpu_stats, overrun) },
		{ "commit overrun:", offsetof(struct kinst_cpu_stats, commit_overrun) },
		{ "dropped events:", offsetof(struct kinst_cpu_stats, dropped) },
		{ "read events:", offsetof(struct kinst_cpu_stats, read) },
	};

	memset(st, 0, sizeof(*st));
	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = tracefs_instance_file_read(k->inst, file, NULL);
	if (!text)
		return -1;
	for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strncmp(l, keys[i].key, strlen(keys[i].key)))
				*(uint64_t *)(void *)((char *)st + keys[i].off) =
					strtoull(l + strlen(keys[i].key), NULL, 10);
	free(text);
	return 0;
}

long kinst_buffer_kb(struct kinstance *k)
{
	long long v;

	return tracefs_instance_file_read_number(k->inst, "buffer_size_kb", &v) ? -1 : (long)v;
}

void kinst_remove(struct kinstance *k)
{
	if (!k)
		return;
	for (int c = 0; c < k->ncpus; c++)
		if (k->cpu[c])
			tracefs_cpu_close(k->cpu[c]);
	free(k->cpu);
	if (k->inst) {
		tracefs_trace_off(k->inst);
		tracefs_instance_destroy(k->inst);
		tracefs_instance_free(k->inst);
	}
	if (k->lock_fd >= 0) { /* the instance first: a lock that can be taken means it is stale */
		int locks = lock_dir(false);
		char lock[300];

		snprintf(lock, sizeof(lock), "%s.lock", k->name);
		if (locks >= 0) {
			unlinkat(locks, lock, 0);
			close(locks);
		}
		close(k->lock_fd);
	}
	free(k);
}
