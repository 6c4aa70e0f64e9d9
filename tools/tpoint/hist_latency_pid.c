// SPDX-License-Identifier: MIT
/*
 * tpoint hist -p PID --latency SYS:START,SYS:END --key F [--by G] (hist_cmd.h): the short
 * form of a latency pair, set in the process. The two events' fields come from the process
 * (CTL_LIST gives their ids, CTL_FORMATS their format texts); lib/hist_latency.c writes the
 * synthetic event and the three triggers they stand for, said on stderr as the
 * `tpoint trigger` commands a user would type; they are set through the control socket
 * (CTL_TRIGGER), and removed at the end, but for those that were there already.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "control_client.h"
#include "fmt/control_msg.h"
#include "hist_cmd.h"
#include "hist_fields.h"
#include "hist_set.h"
#include "tool.h"

/* The event's id from the process's list, or -1. */
static long event_id(const char *list, const char *event)
{
	char *copy = strdup(list), *cur = copy;
	struct ctl_event_row row;
	long id = -1;

	while (cur && id < 0 && tp_ctl_event_row_next(&cur, &row))
		if (!strcmp(row.event, event))
			id = (long)row.id;
	free(copy);
	return id;
}

/* The fields of the event whose format has "ID: id" in the CTL_FORMATS text; -1 if none. */
static int event_fields(const char *formats, long id, struct hist_fields *out)
{
	char want[32];
	const char *at, *start, *end;

	snprintf(want, sizeof(want), "\nID: %ld\n", id);
	at = strstr(formats, want);
	if (!at)
		return -1;
	for (start = at; start > formats && strncmp(start, "name: ", 6); start--)
		;
	end = strstr(at, "\nname: ");
	if (!end)
		end = formats + strlen(formats);
	return hist_fields_parse(start, (size_t)(end - start), out);
}

/* One CTL_TRIGGER: the request's result, err filled when it fails. */
static int send_trigger(struct ctl_conn *conn, const char *event, const char *text, char *err,
			size_t errlen)
{
	struct ctl_text req = { 0 };
	char *reply = NULL;
	int ret;

	tp_ctl_filter_req_put(&req, &(struct ctl_filter_req){ event, text });
	ret = req.oom ? -ENOMEM : ctl_request(conn, CTL_TRIGGER, req.buf, &reply, err, errlen);
	if (req.oom)
		snprintf(err, errlen, "out of memory");
	free(reply);
	tp_ctl_text_free(&req);
	return ret;
}

/* The events' fields, and the expansion into ls; an exit status, or -1 to go on. */
static int expand(const struct hist_cmd_opts *o, struct ctl_conn *conn,
		  struct hist_latency_set *ls)
{
	char err[1024], *list = NULL, *formats = NULL, start[256], *comma;
	struct hist_fields f[2] = { 0 };
	int ret = EXIT_FAIL;

	snprintf(start, sizeof(start), "%s", o->latency);
	comma = strchr(start, ',');
	if (!comma || !strchr(start, ':') || !strchr(comma + 1, ':')) {
		tool_error(HIST_VERB, "--latency '%s': expected SYSTEM:START,SYSTEM:END", o->latency);
		return EXIT_USAGE;
	}
	*comma = 0;
	if (ctl_request(conn, CTL_LIST, NULL, &list, err, sizeof(err)) < 0 ||
	    ctl_request(conn, CTL_FORMATS, NULL, &formats, err, sizeof(err)) < 0) {
		tool_error(HIST_VERB, "process %d: %s", (int)ls->pid, err);
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		const char *ev = i ? comma + 1 : start;
		long id = event_id(list, ev);

		if (id < 0 || event_fields(formats, id, &f[i]) < 0) {
			tool_error(HIST_VERB, "--latency: no event '%s' in process %d", ev,
				   (int)ls->pid);
			goto out;
		}
	}
	if (tp_hist_latency_expand(o->latency, o->key, o->by, f[0].fields, f[0].n, f[1].fields,
				   f[1].n, ls->synth, sizeof(ls->synth), ls->triggers,
				   sizeof(ls->triggers), err, sizeof(err)) < 0) {
		tool_error(HIST_VERB, "%s", err);
		goto out;
	}
	ret = -1;
out:
	hist_fields_free(&f[0]);
	hist_fields_free(&f[1]);
	free(list);
	free(formats);
	return ret;
}

/* Item i of the expansion's triggers: its event and trigger, cut in place; false after. */
static bool item(char *all, unsigned i, char **event, char **text)
{
	char *cur = all, *h;

	for (unsigned k = 0; k < i && cur; k++) {
		cur = strchr(cur, ';');
		cur = cur ? cur + 1 : NULL;
	}
	if (!cur || !*cur)
		return false;
	h = strstr(cur, ":hist:");
	if (!h)
		return false;
	*h = 0;
	*event = cur;
	*text = h + 1;
	h = strchr(*text, ';');
	if (h)
		*h = 0;
	return true;
}

int hist_latency_set(const struct hist_cmd_opts *o, struct hist_latency_set *ls)
{
	struct ctl_conn conn;
	char err[1024];
	int ret;

	if (o->npids != 1) {
		tool_error(HIST_VERB, "--latency: one -p PID");
		return EXIT_USAGE;
	}
	ls->pid = o->pids[0];
	if (ctl_connect(ls->pid, &conn, err, sizeof(err)) < 0) {
		tool_error(HIST_VERB, "%s", err);
		return EXIT_FAIL;
	}
	ret = expand(o, &conn, ls);
	if (ret >= 0) {
		ctl_close(&conn);
		return ret;
	}
	/* Said as the commands a user would type: the same in two lines of a script. */
	fprintf(stderr, "tpoint hist: --latency stands for:\n"
		"  tpoint trigger -p %d -e synthetic_events '%s'\n", (int)ls->pid, ls->synth);
	ret = send_trigger(&conn, "synthetic_events", ls->synth, err, sizeof(err));
	ls->synth_added = ret >= 0;
	if (ret < 0 && !strstr(err, "Event already exists")) /* a run before ours left it */
		goto fail;
	for (unsigned i = 0; i < HIST_LATENCY_TRIGGERS; i++) {
		char all[sizeof(ls->triggers)], *event, *text;

		snprintf(all, sizeof(all), "%s", ls->triggers);
		if (!item(all, i, &event, &text))
			break;
		fprintf(stderr, "  tpoint trigger -p %d -e %s '%s'\n", (int)ls->pid, event, text);
		ret = send_trigger(&conn, event, text, err, sizeof(err));
		ls->added[i] = ret >= 0;
		if (ret < 0 && ret != -EEXIST)
			goto fail;
	}
	ctl_close(&conn);
	return -1;
fail:
	tool_error(HIST_VERB, "process %d: %s", (int)ls->pid, err);
	ctl_close(&conn);
	hist_latency_unset(ls);
	return EXIT_FAIL;
}

void hist_latency_unset(struct hist_latency_set *ls)
{
	struct ctl_conn conn;
	char err[1024];

	if (ctl_connect(ls->pid, &conn, err, sizeof(err)) < 0)
		return; /* the process is gone, and its triggers with it */
	/* In the reverse order: a trigger goes before what it names. */
	for (unsigned i = HIST_LATENCY_TRIGGERS; i-- > 0;) {
		char all[sizeof(ls->triggers)], *event, *text, rm[sizeof(ls->triggers) + 1];

		snprintf(all, sizeof(all), "%s", ls->triggers);
		if (!ls->added[i] || !item(all, i, &event, &text))
			continue;
		snprintf(rm, sizeof(rm), "!%s", text);
		if (send_trigger(&conn, event, rm, err, sizeof(err)) < 0)
			tool_error(HIST_VERB, "process %d: removing %s's trigger: %s", (int)ls->pid,
				   event, err);
	}
	if (ls->synth_added) {
		char name[64] = "!";

		snprintf(name + 1, sizeof(name) - 1, "%.*s", (int)strcspn(ls->synth, " "), ls->synth);
		if (send_trigger(&conn, "synthetic_events", name, err, sizeof(err)) < 0)
			tool_error(HIST_VERB, "process %d: removing the synthetic event: %s",
				   (int)ls->pid, err);
	}
	ctl_close(&conn);
}
