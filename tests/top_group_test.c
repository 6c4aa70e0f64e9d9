// SPDX-License-Identifier: MIT
/*
 * top_group_test - the grouping of tpoint top's dirty rows (tools/tpoint/top_group.c) on its
 * own: by process, command and file, the folding of processes gone for a refresh, --comm and
 * --path globs, --limit, and the order by rate. tests/top_group.sh checks it end to end.
 *
 * Exit 0 when every check passes.
 */
#include "testutil.h"
#include "top_group.h"

static struct dirty_row row(pid_t pid, pid_t tid, const char *comm, char *path,
			    unsigned long long ino, double rate, unsigned gone)
{
	struct dirty_row r = { .pid = pid, .tid = tid, .ino = ino, .path = path, .rate = rate,
			       .events = (unsigned long long)rate, .gone = gone, .shown = true };

	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	snprintf(r.dev, sizeof(r.dev), "8:0");
	return r;
}

int main(void)
{
	char a[] = "/d/a.log", b[] = "/d/b.log", c[] = "/var/c.db";
	struct dirty_row rows[] = {
		row(10, 10, "dd", a, 1, 5, 2),    /* gone two refreshes: folded */
		row(11, 11, "dd", a, 1, 7, 2),
		row(12, 12, "dd", b, 2, 1, 1),    /* gone one: still on its own */
		row(20, 20, "db", c, 3, 100, 0),
		row(20, 21, "db-wal", a, 1, 50, 0),
		row(30, 30, "sh", NULL, 9, 3, 0),
	};
	int n = sizeof(rows) / sizeof(rows[0]), index[6];
	struct dirty_group g[6];
	struct group_opts o = { .by = BY_PID, .sort = SORT_RATE };
	int ng = group_dirty(&o, rows, n, index, g);

	CHECK(ng == 4, "by pid: 4 groups (one folded)");
	CHECK(g[0].key->pid == 20 && g[0].rate == 150 && g[0].nrows == 2 && !strcmp(g[0].comm, "db"),
	      "by pid: the fastest first, named by its main thread");
	CHECK(g[1].exited && g[1].processes == 2 && g[1].rate == 12 && !strcmp(g[1].comm, "dd"),
	      "by pid: two dd gone for two refreshes, one exited group");
	CHECK(!g[2].exited && g[2].key->pid == 30 && g[3].key->pid == 12,
	      "by pid: one gone for one refresh on its own");

	o.by = BY_COMM;
	ng = group_dirty(&o, rows, n, index, g);
	CHECK(ng == 4 && !strcmp(g[0].comm, "db") && !strcmp(g[1].comm, "db-wal") &&
	      !strcmp(g[2].comm, "dd") && g[2].processes == 3, "by comm: dd's 3 processes in one");

	o.by = BY_FILE;
	ng = group_dirty(&o, rows, n, index, g);
	CHECK(ng == 4 && g[0].key->ino == 3 && g[1].key->ino == 1 && g[1].nrows == 3 &&
	      g[1].processes == 3, "by file: /d/a.log of 3 processes");

	o.comm_glob = "d[bd]";
	o.by = BY_PID;
	ng = group_dirty(&o, rows, n, index, g);
	CHECK(ng == 3 && g[0].nrows == 1, "--comm 'd[bd]': db-wal and sh left out");
	o.comm_glob = NULL;
	o.path_glob = "/d/*";
	ng = group_dirty(&o, rows, n, index, g);
	CHECK(ng == 3 && g[0].key->tid == 21, "--path '/d/*': /var and the unnamed left out");
	o.path_glob = NULL;

	o.limit = 1;
	ng = group_dirty(&o, rows, n, index, g);
	CHECK(ng == 4 && g[0].shown_rows == 1 && g[0].nrows == 2,
	      "--limit 1: all groups counted, one row shown of two");

	rows[3].idle = IDLE_REFRESHES;
	rows[4].shown = false;
	o.limit = 0;
	ng = group_dirty(&o, rows, n, index, g);
	CHECK(ng == 3 && g[0].exited, "idle rows and rows -p leaves out are not grouped");

	/* the screen's keys */
	CHECK(group_limit_step(0, 1) == 0 && group_limit_step(0, -1) == 100 &&
	      group_limit_step(100, 1) == 0 && group_limit_step(10, 1) == 20 &&
	      group_limit_step(7, 1) == 10 && group_limit_step(7, -1) == 5 &&
	      group_limit_step(1, -1) == 1 && group_limit_step(500, -1) == 100 &&
	      group_limit_step(500, 1) == 0, "--limit steps: 1 5 10 20 50 100 all");
	CHECK(group_by_next(BY_PID) == BY_COMM && group_by_next(BY_COMM) == BY_FILE &&
	      group_by_next(BY_FILE) == BY_PID, "--by in turn");
	tu_note("%d checks", tu_checks);
	return tu_finish();
}
