// SPDX-License-Identifier: MIT
/*
 * outstruct_test - the public out-structs can grow. tpoint_stats() and tpoint_jump_stats()
 * pass the size of the struct the program was built with:
 *	a program built against a newer header (a struct with a field more at its end) gets
 *	the fields this library knows, that field zeroed, and its array walked at its stride;
 *	a size smaller than the first version's is refused with -EINVAL;
 *	a program built against the first version, which calls the functions by their old
 *	names, gets what it always got.
 */
#include "testutil.h"

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_abi.h>

/* The struct as a later header might declare it. */
struct newer_event_stats {
	struct tpoint_event_stats v1;
	uint64_t later_field;
};

struct newer_jump_stats {
	struct tpoint_jump_stats v1;
	uint64_t later_field;
};

/* The functions as a program built against the first version calls them. */
static int first_version_stats(struct tpoint_event_stats *out, int max)
{
	return (tpoint_stats)(out, max);
}

static int first_version_jump_stats(struct tpoint_jump_stats *out)
{
	return (tpoint_jump_stats)(out);
}

int main(void)
{
	struct newer_event_stats newer[4];
	struct tpoint_event_stats now[4], old[4];
	struct newer_jump_stats jnewer;
	struct tpoint_jump_stats jnow, jold;
	int n, nnow, nold, mine = -1;

	REQUIRE(tpoint_enable("tpt_abi:abi_now") == 1, "tpt_abi:abi_now enabled");
	memset(newer, 0x5a, sizeof(newer));
	n = tpoint_stats_sized(&newer[0].v1, 4, sizeof(newer[0]));
	nnow = tpoint_stats(now, 4);
	nold = first_version_stats(old, 4);
	REQUIRE(n > 0 && n == nnow && n == nold, "the three calls count the same events "
		"(%d, %d, %d)", n, nnow, nold);
	for (int i = 0; i < n && i < 4; i++) {
		CHECK(!strcmp(newer[i].v1.system, now[i].system) &&
		      !strcmp(newer[i].v1.name, now[i].name) &&
		      newer[i].v1.enabled == now[i].enabled,
		      "entry %d at the newer struct's stride: %s:%s, want %s:%s", i,
		      newer[i].v1.system, newer[i].v1.name, now[i].system, now[i].name);
		CHECK(newer[i].later_field == 0, "entry %d: the field this library does not know "
		      "is zeroed (%#" PRIx64 ")", i, newer[i].later_field);
		CHECK(!strcmp(old[i].system, now[i].system) && !strcmp(old[i].name, now[i].name),
		      "entry %d: the first version's function gives %s:%s, the sized %s:%s", i,
		      old[i].system, old[i].name, now[i].system, now[i].name);
		if (!strcmp(now[i].name, "abi_now"))
			mine = i;
	}
	CHECK(mine >= 0 && now[mine].enabled && old[mine].enabled && newer[mine].v1.enabled,
	      "tpt_abi:abi_now shows enabled through each call");
	CHECK(n >= 4 || newer[n].v1.system[0] == 0x5a,
	      "nothing written past the entries filled");
	CHECK(tpoint_stats_sized(now, 4, offsetof(struct tpoint_event_stats, enabled)) == -EINVAL,
	      "a size smaller than the first version's struct is refused");
	CHECK(tpoint_stats_sized(NULL, 0, sizeof(now[0])) == n, "counting only: %d", n);

	memset(&jnewer, 0x5a, sizeof(jnewer));
	CHECK(tpoint_jump_stats_sized(&jnewer.v1, sizeof(jnewer)) == 0, "jump stats, newer");
	CHECK(tpoint_jump_stats(&jnow) == 0 && first_version_jump_stats(&jold) == 0,
	      "jump stats, as built and as the first version");
	CHECK(jnewer.later_field == 0, "jump stats: the unknown field zeroed (%#" PRIx64 ")",
	      jnewer.later_field);
	CHECK(jnewer.v1.sites == jnow.sites && jold.sites == jnow.sites &&
	      !strcmp(jnewer.v1.reason, jnow.reason),
	      "jump stats agree: %zu, %zu, %zu sites", jnewer.v1.sites, jnow.sites, jold.sites);
	CHECK(tpoint_jump_stats_sized(&jnow, sizeof(jnow) - 1) == -EINVAL,
	      "jump stats: a smaller size is refused");
	return tu_finish();
}
