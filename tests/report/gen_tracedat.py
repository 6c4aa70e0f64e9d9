#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write small trace-cmd trace.dat version 6 files for the report tests.

The layout follows trace-cmd.dat.v6(5): the v6 format as trace-cmd 3.1.6 reads
it, more of it than tpoint writes (docs/TRACEDAT-FORMAT.md has that part).  The
generator is independent of tpoint's own writer on purpose: the report is
checked against files built from the format description, so a bug shared by
tpoint's writer and reader cannot hide itself.

The default file has two CPUs with three events that use __print_flags,
__print_symbolic, __get_str, %pS against a kallsyms table, __print_hex on a fixed
and on a dynamic array, a time extend, an absolute time stamp, a discarded
(padding) event, an empty page, a page with a stored lost-event count, a page
with an unknown lost-event count, an event larger than 112 bytes (type_len 0)
and two events on different CPUs with the same time stamp.

usage: gen_tracedat.py [options] OUT
  --endian little|big   byte order of the file (default little)
  --long 4|8            kernel long size: page commit word and %ld (default 8)
  --page-size N         sub-buffer size (default 4096)
  --clock NAME|none     TRACECLOCK option and clock text (default mono)
  --stats               add the tpoint statistics option (id 0x7470)
  --option ID:TEXT      add an option whose data is TEXT plus a NUL (repeatable)
  --bad-fmt             add an event whose print fmt libtraceevent cannot parse
  --unknown-id          add a record whose event id has no format
  --div-zero            add an event whose print fmt divides by a field that is 0
                        (libtraceevent 1.7.1 traps: trace-cmd report dies of SIGFPE)
  --tsc2nsec MULT:SHIFT add the TSC2NSEC option (timestamps become ticks)
  --instance NAME       add an instance buffer (option BUFFER) with a few events
"""
import argparse
import struct
import sys

SYSTEM = "tptest"
BASE_NS = 1000 * 1000000000 + 124651496  # 1000.124651496 s
TS_BITS = 27

COMMON = (
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
)


class Gen:
    def __init__(self, args):
        self.a = args
        self.e = ">" if args.endian == "big" else "<"
        self.long = args.long
        self.psize = args.page_size
        self.hdr = 8 + self.long  # page header: u64 timestamp + long commit

    # ---- little helpers ------------------------------------------------
    def u16(self, v):
        return struct.pack(self.e + "H", v)

    def u32(self, v):
        return struct.pack(self.e + "I", v & 0xFFFFFFFF)

    def s32(self, v):
        return struct.pack(self.e + "i", v)

    def u64(self, v):
        return struct.pack(self.e + "Q", v)

    def ulong(self, v):
        return self.u64(v) if self.long == 8 else self.u32(v)

    # ---- event formats -------------------------------------------------
    def formats(self):
        L = self.long
        fmts = []
        fmts.append(
            "name: inode_dirty\nID: 1001\nformat:\n" + COMMON +
            "\tfield:u32 dev;\toffset:8;\tsize:4;\tsigned:0;\n"
            "\tfield:u32 flags;\toffset:12;\tsize:4;\tsigned:0;\n"
            "\tfield:u64 ino;\toffset:16;\tsize:8;\tsigned:0;\n"
            "\tfield:int op;\toffset:24;\tsize:4;\tsigned:1;\n"
            "\tfield:__data_loc char[] path;\toffset:28;\tsize:4;\tsigned:0;\n"
            "\n"
            'print fmt: "dev %d:%d ino=%llu flags=%s op=%s path=%s", REC->dev >> 20, '
            "REC->dev & ((1 << 20) - 1), REC->ino, __print_flags(REC->flags, \"|\", "
            '{ 0x1, "DIRTY_SYNC" }, { 0x2, "DIRTY_DATASYNC" }, { 0x4, "DIRTY_PAGES" }, '
            '{ 0x800, "DIRTY_TIME" }), __print_symbolic(REC->op, { 0, "CREATE" }, '
            '{ 1, "WRITE" }, { 2, "UNLINK" }, { 3, "RENAME" }), __get_str(path)\n')
        # sample: unsigned long ip at 8, int val, char name[16], u8 mac[6]
        off_val = 8 + L
        off_name = off_val + 4
        off_mac = off_name + 16
        fmts.append(
            "name: sample\nID: 1002\nformat:\n" + COMMON +
            "\tfield:unsigned long ip;\toffset:8;\tsize:%d;\tsigned:0;\n" % L +
            "\tfield:int val;\toffset:%d;\tsize:4;\tsigned:1;\n" % off_val +
            "\tfield:char name[16];\toffset:%d;\tsize:16;\tsigned:1;\n" % off_name +
            "\tfield:u8 mac[6];\toffset:%d;\tsize:6;\tsigned:0;\n" % off_mac +
            "\n"
            'print fmt: "ip=%pS val=%d name=%s mac=%s hex=%#x", REC->ip, REC->val, REC->name, '
            "__print_hex(REC->mac, 6), REC->val\n")
        fmts.append(
            "name: blob\nID: 1003\nformat:\n" + COMMON +
            "\tfield:u32 seq;\toffset:8;\tsize:4;\tsigned:0;\n"
            "\tfield:__data_loc u8[] data;\toffset:12;\tsize:4;\tsigned:0;\n"
            "\n"
            'print fmt: "seq=%u len=%u data=%s", REC->seq, __get_dynamic_array_len(data), '
            "__print_hex(__get_dynamic_array(data), __get_dynamic_array_len(data))\n")
        if self.a.bad_fmt:
            fmts.append(
                "name: broken\nID: 1004\nformat:\n" + COMMON +
                "\tfield:u32 dev;\toffset:8;\tsize:4;\tsigned:0;\n"
                "\n"
                'print fmt: "dev %u:%u", MAJOR(REC->dev), MINOR(REC->dev)\n')
        if self.a.div_zero:
            fmts.append(
                "name: ratio\nID: 1005\nformat:\n" + COMMON +
                "\tfield:u32 num;\toffset:8;\tsize:4;\tsigned:0;\n"
                "\tfield:u32 den;\toffset:12;\tsize:4;\tsigned:0;\n"
                "\n"
                'print fmt: "ratio=%u", REC->num / REC->den\n')
        return fmts

    # ---- records (the payload after the ring-buffer header) -------------
    def common(self, eid, pid):
        return self.u16(eid) + b"\0\0" + self.s32(pid)

    def inode_dirty(self, pid, dev, flags, ino, op, path):
        p = path.encode() + b"\0"
        fixed = 32
        return (self.common(1001, pid) + self.u32(dev) + self.u32(flags) + self.u64(ino) +
                self.s32(op) + self.u32((len(p) << 16) | fixed) + p)

    def sample(self, pid, ip, val, name, mac):
        n = name.encode()[:15].ljust(16, b"\0")
        return self.common(1002, pid) + self.ulong(ip) + self.s32(val) + n + bytes(mac)

    def blob(self, pid, seq, data):
        return self.common(1003, pid) + self.u32(seq) + self.u32((len(data) << 16) | 16) + data

    def broken(self, pid, dev):
        return self.common(1004, pid) + self.u32(dev)

    def ratio(self, pid, num, den):
        return self.common(1005, pid) + self.u32(num) + self.u32(den)

    def unknown(self, pid):
        return self.common(4242, pid) + self.u32(7)

    # ---- ring-buffer event encoding -------------------------------------
    def evhdr(self, type_len, delta):
        assert 0 <= delta < (1 << TS_BITS)
        if self.e == ">":
            w = (type_len << TS_BITS) | delta
        else:
            w = (delta << 5) | type_len
        return self.u32(w)

    def data_event(self, delta, payload):
        pad = (-len(payload)) % 4
        payload += b"\0" * pad
        if len(payload) <= 112:
            return self.evhdr(len(payload) // 4, delta) + payload
        return self.evhdr(0, delta) + self.u32(len(payload) + 4) + payload

    def extend(self, delta):
        return self.evhdr(30, delta & ((1 << TS_BITS) - 1)) + self.u32(delta >> TS_BITS)

    def abs_stamp(self, ts):
        return self.evhdr(31, ts & ((1 << TS_BITS) - 1)) + self.u32((ts >> TS_BITS) & 0xFFFFFFFF)

    def discarded(self, delta, nbytes):
        # A kernel discarded event: padding whose array[0] counts from itself.
        return self.evhdr(29, delta) + self.u32(nbytes - 4) + b"\0" * (nbytes - 8)

    def page(self, ts, body, lost=None):
        """lost: None, -1 (unknown count) or the number of lost events."""
        commit = len(body)
        room = self.psize - self.hdr
        tail = b""
        if lost is not None:
            commit |= 1 << 31
            if lost >= 0:
                commit |= 1 << 30
                tail = self.ulong(lost)
        assert len(body) + len(tail) <= room, "page overflow"
        data = body + tail
        return self.u64(ts) + self.ulong(commit) + data + b"\0" * (room - len(data))

    # ---- the CPU streams ------------------------------------------------
    def cpu_pages(self):
        t = BASE_NS
        mac = [0x00, 0x16, 0x3e, 0x12, 0x34, 0x56]
        c0 = []
        b = b""
        b += self.data_event(0, self.inode_dirty(4300, (8 << 20) | 1, 0x1, 12, 1, "/var/log/app.log"))
        b += self.data_event(1500, self.sample(4301, 0x401010, -5, "db writer", mac))
        b += self.discarded(1, 24)
        b += self.data_event(300, self.blob(4300, 1, bytes(range(200))))
        # a 0.5 s gap: needs a time extend (delta > 2^27 - 1 ns)
        gap = 500000000 + 7
        b += self.extend(gap)
        b += self.data_event(0, self.inode_dirty(4300, (8 << 20) | 2, 0x805, 13, 3, "/tmp/x"))
        b += self.data_event(2000, self.inode_dirty(0, 0, 0, 0, 7, ""))
        if self.a.bad_fmt:
            b += self.data_event(10, self.broken(4300, (8 << 20) | 3))
        if self.a.unknown_id:
            b += self.data_event(10, self.unknown(4300))
        if self.a.div_zero:
            b += self.data_event(10, self.ratio(4300, 10, 4))
            b += self.data_event(10, self.ratio(4300, 10, 0))
        c0.append(self.page(t, b))
        t0_end = t + 1500 + 1 + 300 + gap + 2000 + (20 if self.a.bad_fmt else 0)
        c0.append(self.page(t0_end + 100, b""))  # an empty page in the middle
        t2 = t0_end + 1000000
        b = self.data_event(0, self.sample(4302, 0x401234, 42, "worker", mac))
        b += self.data_event(5, self.blob(4301, 2, b"\x01\x02\x03"))
        c0.append(self.page(t2, b, lost=123))

        c1 = []
        t = BASE_NS + 700
        b = self.data_event(0, self.inode_dirty(4301, (259 << 20) | 5, 0x2, 99, 2, "/home/u/.cache"))
        # same time as CPU 0's third record: the lower CPU prints first
        b += self.data_event(1101, self.inode_dirty(4303, (8 << 20) | 1, 0x4, 100, 0, "tie"))
        ts_abs = BASE_NS + 300000000
        b += self.abs_stamp(ts_abs)
        b += self.data_event(0, self.sample(4300, 0x402000, 7, "absolute", mac))
        c1.append(self.page(t, b))
        t = BASE_NS + 600000000
        b = self.data_event(0, self.sample(4301, 0x401000, 1, "after loss", mac))
        c1.append(self.page(t, b, lost=-1))
        return [c0, c1]

    # ---- the file -------------------------------------------------------
    def header_page(self):
        L = self.long
        return ("\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
                "\tfield: local_t commit;\toffset:8;\tsize:%d;\tsigned:1;\n"
                "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
                "\tfield: char data;\toffset:%d;\tsize:%d;\tsigned:0;\n"
                % (L, self.hdr, self.psize - self.hdr)).encode()

    def header_event(self):
        return (b"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
                b"\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
                b"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n")

    def stats_text(self):
        return ("tptest:inode_dirty\t10\t3\t1\t6\t0\tflags & (I_DIRTY_SYNC | I_DIRTY_DATASYNC)\n"
                "tptest:sample\t4\t0\t0\t4\t0\t\n"
                "tptest:blob\t5\t0\t0\t2\t3\t\n").encode() + b"\0"

    def build(self):
        out = bytearray()
        out += b"\x17\x08\x44tracing6\0"
        out += bytes([1 if self.e == ">" else 0, self.long])
        out += self.u32(self.psize)
        hp = self.header_page()
        out += b"header_page\0" + self.u64(len(hp)) + hp
        he = self.header_event()
        out += b"header_event\0" + self.u64(len(he)) + he
        out += self.u32(0)  # no ftrace formats
        fmts = [f.encode() for f in self.formats()]
        out += self.u32(1) + SYSTEM.encode() + b"\0" + self.u32(len(fmts))
        for f in fmts:
            out += self.u64(len(f)) + f
        ks = (b"0000000000401000 T demo_main\n0000000000401200 t demo_worker\n"
              b"0000000000402000 T demo_end\n")
        out += self.u32(len(ks)) + ks
        pk = b'0x401800 : "demo %d\\n"\n'
        out += self.u32(len(pk)) + pk
        cl = b"4300 app\n4301 db writer\n4302 worker\n"
        out += self.u64(len(cl)) + cl
        cpus = self.cpu_pages()
        out += self.u32(len(cpus))
        opts = []
        if self.a.clock != "none":
            opts.append((4, ("[%s]" % self.a.clock).encode() + b"\0"))
        if self.a.stats:
            opts.append((0x7470, self.stats_text()))
        for o in self.a.option:
            i, _, text = o.partition(":")
            opts.append((int(i, 0), text.encode() + b"\0"))
        if self.a.tsc2nsec:
            mult, _, shift = self.a.tsc2nsec.partition(":")
            opts.append((14, self.u32(int(mult)) + self.u32(int(shift)) + self.u64(0)))
        buffer_opt = None
        if self.a.instance:
            buffer_opt = len(opts)
            opts.append((3, self.u64(0) + self.a.instance.encode() + b"\0"))
        patch = None
        if opts:
            out += b"options  \0"
            for n, (i, d) in enumerate(opts):
                out += self.u16(i) + self.u32(len(d))
                if n == buffer_opt:
                    patch = len(out)
                out += d
            out += self.u16(0)
        out += b"flyrecord\0"
        table = len(out)
        out += b"\0" * (16 * len(cpus))
        if self.a.clock != "none":
            ct = ("[%s]\n" % self.a.clock).encode()
            out += self.u64(len(ct)) + ct
        for n, pages in enumerate(cpus):
            out += b"\0" * ((-len(out)) % self.psize)
            start = len(out)
            for p in pages:
                out += p
            out[table + 16 * n:table + 16 * n + 16] = self.u64(start) + self.u64(len(out) - start)
        if patch is not None:
            # the instance: "flyrecord\0", its own table, then its pages
            out[patch:patch + 8] = self.u64(len(out))
            out += b"flyrecord\0"
            itable = len(out)
            out += b"\0" * (16 * len(cpus))
            for n in range(len(cpus)):
                if n != 1:
                    continue  # only CPU 1 has instance data; CPU 0 stays empty
                out += b"\0" * ((-len(out)) % self.psize)
                start = len(out)
                b = self.data_event(0, self.sample(4300, 0x401000, 99, "in instance", [1, 2, 3, 4, 5, 6]))
                b += self.data_event(100, self.inode_dirty(4301, 1, 1, 1, 1, "inst"))
                out += self.page(BASE_NS + 1000, b)
                out[itable + 16 * n:itable + 16 * n + 16] = self.u64(start) + self.u64(len(out) - start)
        return bytes(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endian", choices=["little", "big"], default="little")
    ap.add_argument("--long", type=int, choices=[4, 8], default=8)
    ap.add_argument("--page-size", type=int, default=4096)
    ap.add_argument("--clock", default="mono")
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--option", action="append", default=[])
    ap.add_argument("--bad-fmt", action="store_true")
    ap.add_argument("--unknown-id", action="store_true")
    ap.add_argument("--div-zero", action="store_true")
    ap.add_argument("--tsc2nsec")
    ap.add_argument("--instance")
    ap.add_argument("out")
    args = ap.parse_args()
    data = Gen(args).build()
    with open(args.out, "wb") as f:
        f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
