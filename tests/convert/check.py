# SPDX-License-Identifier: MIT
"""tests/convert.sh's checks: a trace.dat against its CTF conversion (as babeltrace2 prints it)
and its JSON lines (as Python's json module reads them), against tpoint report --stats,
tpoint report and trace-cmd report.

    check.py TPOINT FILE.dat CTFDIR JSONFILE
"""
import collections
import json
import re
import subprocess
import sys

tpoint, dat, ctf, jsonfile = sys.argv[1:5]
failed = []


def fail(msg):
    failed.append(msg)
    print("FAIL: " + msg)


def run(*cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("latin-1"), p.stderr.decode("latin-1")


# ---- babeltrace2's text, parsed -----------------------------------------------------------
class Parser:
    def __init__(self, s):
        self.s, self.i = s, 0

    def ws(self):
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def eat(self, t):
        self.ws()
        if not self.s.startswith(t, self.i):
            raise ValueError("expected %r at %d: %r" % (t, self.i, self.s[self.i:self.i + 40]))
        self.i += len(t)

    def value(self):
        self.ws()
        c = self.s[self.i]
        if c == "{":
            return self.struct()
        if c == "[":
            self.i += 1
            out = []
            self.ws()
            while self.s[self.i] != "]":
                self.eat("[")
                while self.s[self.i] != "]":
                    self.i += 1
                self.eat("]")
                self.eat("=")
                out.append(self.value())
                self.ws()
                if self.s[self.i] == ",":
                    self.i += 1
                self.ws()
            self.i += 1
            return out
        if c == "(":
            self.i += 1
            self.ws()
            label = self.value() if self.s[self.i] == '"' else self.word()
            self.eat(":")
            self.eat("container")
            self.eat("=")
            v = self.value()
            self.eat(")")
            return ("enum", label, v)
        if c == '"':
            self.i += 1
            out = []
            while self.s[self.i] != '"':
                ch = self.s[self.i]
                if ch == "\\":
                    self.i += 1
                    ch = {"n": "\n", "t": "\t", "r": "\r"}.get(self.s[self.i], self.s[self.i])
                out.append(ch)
                self.i += 1
            self.i += 1
            return "".join(out)
        w = self.word()
        return int(w, 16) if w.lower().startswith("0x") else int(w)

    def word(self):
        self.ws()
        j = self.i
        while self.i < len(self.s) and self.s[self.i] not in " ,}])":
            self.i += 1
        return self.s[j:self.i]

    def struct(self):
        self.eat("{")
        out = collections.OrderedDict()
        self.ws()
        while self.s[self.i] != "}":
            name = self.word()
            self.eat("=")
            out[name] = self.value()
            self.ws()
            if self.s[self.i] == ",":
                self.i += 1
            self.ws()
        self.i += 1
        return out


line_re = re.compile(r"^\[(\d+)\] \(\+[?\d]+\) \S+ (\S+): ")
rc, out, err = run("babeltrace2", "--clock-cycles", ctf)
if rc != 0:
    fail("babeltrace2 %s exited %d: %s" % (ctf, rc, err[-500:]))
discarded = 0
for l in err.splitlines():
    m = re.match(r"WARNING: Tracer discarded (\d+) events? between ", l)
    if m:
        discarded += int(m.group(1))
    elif l.strip() and not l.startswith(" "):
        fail("babeltrace2 said: " + l)
bt = []
for l in out.splitlines():
    m = line_re.match(l)
    if not m:
        fail("babeltrace2 line not understood: " + l[:200])
        continue
    p = Parser(l[m.end():])
    ctx1 = p.struct()
    p.eat(",")
    ctx2 = p.struct()
    p.ws()
    fields = collections.OrderedDict()
    if p.i < len(p.s):
        p.eat(",")
        fields = p.struct()
    # the length fields babeltrace2 shows before each sequence are not fields of the event
    for k in [k for k in fields if k.startswith("_") and k.endswith("_length") and
              k[1:-7] in fields]:
        del fields[k]
    bt.append((int(m.group(1)), m.group(2), ctx1["cpu_id"], ctx2["tid"], ctx2["comm"], fields))

# ---- the JSON lines ---------------------------------------------------------------------
js = []
with open(jsonfile, encoding="utf-8") as f:
    for n, l in enumerate(f, 1):
        try:
            js.append(json.loads(l))
        except ValueError as e:
            fail("%s line %d is not JSON: %s" % (jsonfile, n, e))
rc, rout, _ = run(tpoint, "report", "--json", dat)
if rc != 0:
    fail("tpoint report --json exited %d" % rc)
if rout.encode("latin-1") != open(jsonfile, "rb").read():
    fail("tpoint report --json and convert --to json differ")

# ---- counts: report --stats, babeltrace2, JSON ----------------------------------------------
rc, sout, _ = run(tpoint, "report", "--stats", dat)
stats, lost, col = {}, 0, 6
for l in sout.splitlines():
    w = l.split()
    if len(w) == 2 and w == ["event", "in-file"]:
        col = 1  # a file without tpoint's statistics: the records counted only
    elif len(w) > col and ":" in w[0] and w[col].isdigit():
        stats[w[0]] = int(w[col])
    m = re.match(r"lost: (\d+), (all marked|of which (\d+) are marked)", l)
    if m:
        lost = int(m.group(3) or m.group(1))
stats = {k: v for k, v in stats.items() if v}
bt_count = collections.Counter(e[1] for e in bt)
js_count = collections.Counter(e["system"] + ":" + e["event"] for e in js)
if dict(bt_count) != stats:
    fail("babeltrace2 counts %s, report --stats %s" % (dict(bt_count), stats))
if dict(js_count) != stats:
    fail("JSON counts %s, report --stats %s" % (dict(js_count), stats))
if discarded != lost:
    fail("babeltrace2 says %d discarded, report --stats %d lost (marked)" % (discarded, lost))
js_dropped = sum(e.get("dropped") or 0 for e in js)
if js_dropped != lost:
    fail("JSON \"dropped\" sum %d, report --stats %d lost (marked)" % (js_dropped, lost))


# ---- values: babeltrace2 against JSON, every record --------------------------------------
def norm(v):
    if isinstance(v, tuple):
        return v[2]
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v


def key(ts, ev, cpu):
    return (ts, ev, cpu)


byjs = collections.defaultdict(list)
for e in js:
    byjs[key(e["ts"], e["system"] + ":" + e["event"], e["cpu"])].append(e)
mismatch = 0
for ts, ev, cpu, tid, comm, fields in bt:
    cands = byjs.get(key(ts, ev, cpu))
    if not cands:
        mismatch += 1
        if mismatch < 5:
            fail("babeltrace2 record %s at %d on CPU %d: not in the JSON" % (ev, ts, cpu))
        continue
    j = cands.pop(0)
    jf = {k: v for k, v in j["fields"].items() if not k.endswith("_text")}
    if "raw" in j:
        jf = {"raw": j["raw"]}  # a record no format describes: its bytes, in both
    bf = {k: norm(v) for k, v in fields.items()}
    if bf != jf or tid != j["pid"] or comm != j["comm"]:
        mismatch += 1
        if mismatch < 5:
            fail("%s at %d: babeltrace2 %s tid %d comm %s, JSON %s pid %d comm %s" %
                 (ev, ts, bf, tid, comm, jf, j["pid"], j["comm"]))
    for k, v in fields.items():
        if isinstance(v, tuple) and k + "_text" in j["fields"] and \
                j["fields"][k + "_text"] != v[1] and not v[1].startswith("<"):
            fail("%s %s: CTF enumeration label %r, JSON %r" % (ev, k, v[1],
                                                               j["fields"][k + "_text"]))

# ---- timestamps: JSON against trace-cmd report -t (ns), per CPU in file order --------------
rc, tout, _ = run("trace-cmd", "report", "-t", dat)
tc = collections.defaultdict(list)
for l in tout.splitlines():
    m = re.search(r"\[(\d{3})\]\s+(\d+)\.(\d{9}): ", l)
    if m:
        tc[int(m.group(1))].append(int(m.group(2)) * 10**9 + int(m.group(3)))
jc = collections.defaultdict(list)
for e in js:
    jc[e["cpu"]].append(e["ts"])
bc = collections.defaultdict(list)
for e in bt:
    bc[e[2]].append(e[0])
if dict(tc) != dict(jc):
    fail("JSON times differ from trace-cmd report -t's")
if dict(bc) != dict(jc):
    fail("babeltrace2's clock cycles differ from the JSON times")

# ---- values: JSON against tpoint report's lines, for tpt_conv's events -------------------
rc, rep, _ = run(tpoint, "report", dat)
lines = [l for l in rep.splitlines() if re.search(r"\] +\d+\.\d{6}: ", l)]
jl = [e for e in js]
if len(lines) != len(jl):
    fail("tpoint report has %d records, the JSON %d" % (len(lines), len(jl)))
checked = collections.Counter()
for l, e in zip(lines, jl):
    f = e["fields"]
    name = e["event"]
    exp = None
    if name == "conv_ints":
        exp = "u8=%d s32=%d u32=%d s64=%d u64=%d hex=%x ptr=0x%x" % (
            f["u8v"], f["s32v"], f["u32v"], f["s64v"], f["u64v"], f["hexv"], f["ptr"])
        got = re.sub(r"s8=\S+ ", "", re.sub(r"s16=\S+ u16=\S+ ", "", l.split("conv_ints:")[1].strip()))
    elif name == "conv_syms":
        exp = "state=%s flags=%s" % (f["state_text"], f["flags_text"])
        got = l.split("conv_syms:")[1].strip()
    elif name == "conv_arrays" and "\\" not in f["name"]:
        # __print_array as the kernel prints it (trace_print_array_seq()): {0x1,0x2}.
        exp = "tag=%s mac=%s quad=%s name=%s vals={{%s}} shorts={{%s}} rname=%s" % (
            f["tag"], " ".join("%02x" % b for b in f["mac"]), ",".join(map(str, f["quad"])),
            f["name"], ",".join("0x%x" % (v & 0xffffffff) for v in f["vals"]),
            ",".join("0x%x" % v for v in f["shorts"]), f["rname"])
        got = l.split("conv_arrays:")[1].strip().split(" bits=")[0]
    elif name == "conv_cond":
        exp, got = "i=%d" % f["i"], l.split("conv_cond:")[1].strip()
    elif name == "ctl_tick":
        exp, got = "n=%d name=%s" % (f["n"], f["name"]), l.split("ctl_tick:")[1].strip()
    if exp is None:
        continue
    checked[name] += 1
    if exp != got:
        fail("%s: report says %r, the JSON %r" % (name, got, exp))
        break
    if "%s-%d" % (e["comm"], e["pid"]) not in l:
        fail("%s: report line %r, JSON comm %s pid %d" % (name, l, e["comm"], e["pid"]))
        break

if failed:
    sys.exit(1)
print("ok: %s: %d records (%s), %d discarded; babeltrace2, JSON, report --stats, tpoint "
      "report and trace-cmd agree (report lines checked: %s)" %
      (dat, len(bt), ", ".join("%s %d" % kv for kv in sorted(stats.items())), discarded,
       dict(checked)))
