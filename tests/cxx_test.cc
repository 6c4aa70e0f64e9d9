// SPDX-License-Identifier: MIT
/*
 * cxx_test - trace headers compile as C++17 under -Wall -Wextra -Werror, on both sides: the
 * declaring pass (every includer) and the CREATE_TRACE_POINTS passes (the defining file),
 * for a header with C++ types and for golden_test's header with every field kind and print
 * helper. An event hit from C++ code (a method, a lambda) is then read back by trace-cmd.
 */
#include "testutil.h"
#include <string>
#include <vector>

#define CREATE_TRACE_POINTS
#include <trace/events/tpt_cxx.h>
#include <trace/events/tpt_golden.h>

namespace app {

class Widget {
public:
	explicit Widget(std::string name) : name_(std::move(name)) {}
	void run(unsigned depth) const { trace_cxx_call(name_ + "::run", depth, depth % 2 == 0); }

private:
	std::string name_;
};

} // namespace app

int main()
{
	struct tu_lines lines = { nullptr, 0, 0 };
	struct tu_report rep;
	struct tpoint_event_stats st;
	int ret;

	tu_require_trace_cmd();
	CHECK(tpoint_enable("tpt_cxx:*,tpt_golden:golden_open") == 2, "events enabled");
	ret = tpoint_record_start("cxx.dat");
	REQUIRE(ret == 0, "tpoint_record_start: %s", strerror(-ret));
	CHECK(trace_cxx_call_enabled(), "on while recording");

	app::Widget w("Widget");
	std::vector<unsigned> depths = { 3, 12, 4 };

	for (unsigned d : depths)
		w.run(d); /* 12 fails the condition */
	auto lambda = [](int id) { trace_golden_open(id, std::string("from a lambda").c_str()); };
	lambda(77);

	ret = tpoint_record_stop();
	REQUIRE(ret == 0, "tpoint_record_stop: %s", strerror(-ret));
	CHECK(tu_stats("tpt_cxx", "cxx_call", &st) == 0 && st.cond_skipped == 1 &&
		      st.recorded == 2,
	      "cxx_call: skipped %" PRIu64 " recorded %" PRIu64 ", want 1 and 2", st.cond_skipped,
	      st.recorded);

	ret = tu_check_events("cxx.dat");
	CHECK(ret == 0, "trace-cmd report --check-events exit %d", ret);
	REQUIRE(tu_report_each("cxx.dat", tu_save_line, &lines, &rep) == 0, "run trace-cmd");
	CHECK(rep.status == 0, "trace-cmd report exit %d", rep.status);

	static const char *const want[][2] = {
		{ "cxx_call", "who=Widget::run depth=3 ok=0" },
		{ "cxx_call", "who=Widget::run depth=4 ok=1" },
		{ "golden_open", "id=77 what=from a lambda" },
	};
	CHECK(lines.n == 3, "report has %zu events, want 3", lines.n);
	for (size_t i = 0; i < lines.n && i < 3; i++) {
		CHECK(!strcmp(lines.v[i].l.name, want[i][0]) && !strcmp(lines.v[i].text, want[i][1]),
		      "line %zu: got '%s: %s', want '%s: %s'", i, lines.v[i].l.name,
		      lines.v[i].text, want[i][0], want[i][1]);
		CHECK(lines.v[i].l.tid == (int)tu_gettid(), "line %zu: tid %d", i,
		      lines.v[i].l.tid);
	}
	tu_note("C++17 -Wall -Wextra -Werror: both headers compiled on both sides; %zu events "
		"from C++ code read back exactly by trace-cmd",
		lines.n);
	tu_lines_free(&lines);
	return tu_finish();
}
