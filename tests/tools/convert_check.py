#!/usr/bin/env python3
# Test helper of tests/tools/convert.sh: reads the exports of
# "posix-trace convert" back and checks them against the reference lines
# of "convert_helper dump LOG" (one event a line:
#   NS NAME_HEX PID THREAD_HEX ADDRESS_HEX TRUNCATION DATA_HEX, "-" if empty).
#
#   convert_check.py bt2 < "babeltrace2 --clock-seconds --no-delta" output
#       prints the events in the reference form (to diff with it)
#   convert_check.py chrome REF FILE.json [REF FILE.json...]
#       checks the Trace Event Format: prints what is wrong, exits 1
#   convert_check.py report REF < "posix-trace report --format json" output
#       checks that report shows the same events as the reference (so as
#       both exports): count, ns timestamps, names, pids, threads,
#       truncation and data; prints what differs, exits 1
#   convert_check.py names REPORT.jsonl FILE.json
#       the two JSON outputs write each event's name as the same JSON text,
#       byte for byte (one escaper); prints the first that differ, exits 1
#   convert_check.py kchrome FILE.json
#       the Chrome export of "convert_helper kernel": slices nested on each
#       track, system calls and off-CPU time where and as long as the log
#       says, the instants decoded; prints what is wrong, exits 1
#   convert_check.py kbt2 REF < "babeltrace2 --clock-seconds --no-delta"
#       output of its CTF export: every event at its time, the kernel
#       events' fields by name; prints what is wrong, exits 1
#
# In "chrome", the kernel events (ids 16..27, known by their names in
# the reference) are left to kchrome: they are slices and decoded
# instants there, not one instant each with the data in hex.
import decimal
import json
import re
import sys

EVENT = re.compile(
    rb'\[(\d+)\.(\d{9})\] (.*?): \{ pid = (-?\d+), thread = 0x([0-9A-F]+), '
    rb'address = 0x([0-9A-F]+), truncation = \( .*? : container = (\d+) \), '
    rb'data_length = (\d+), data = \[ (.*?)\] \}\n', re.S)
ITEM = re.compile(rb'\[(\d+)\] = (\d+)')
TRUNCATED = {0: 'no', 1: 'record', 2: 'read'}
KERNEL_NAMES = {b'posix_trace_' + n for n in (
    b'syscall_entry', b'syscall_exit', b'signal_generate', b'signal_deliver',
    b'sched_out', b'sched_in', b'sched_wakeup', b'fault_major', b'process_fork',
    b'process_exec', b'process_exit', b'fault_minor')}
# The categories of what convert --chrome makes of user and system events.
USER_CATS = ('posix_trace', 'user')


# A kernel event: its typed fields (ctf_kev.h), on one line (babeltrace2
# escapes what a path holds).
KEVENT = re.compile(
    rb'\[(\d+)\.(\d{9})\] (posix_trace_(?:syscall_entry|syscall_exit|signal_generate|'
    rb'signal_deliver|sched_out|sched_in|sched_wakeup|fault_major|fault_minor|'
    rb'process_fork|process_exec|process_exit)): \{ pid = (-?\d+), tid = -?\d+, truncation = '
    rb'\( .*? : container = (\d+) \), data_length = (\d+)(?:, .*?)? \}\n')


def bt2_event(m):
    """A user or system event in the reference form."""
    items = ITEM.findall(m.group(9))
    data = bytes(int(v) for _, v in items)
    if [int(i) for i, _ in items] != list(range(len(data))) or \
            len(data) != int(m.group(8)):
        sys.exit('bt2: bad data field: %r' % m.group(0)[:200])
    print(int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3).hex() or '-',
          int(m.group(4)), m.group(5).decode().lower(), m.group(6).decode().lower(),
          int(m.group(7)), data.hex() or '-')


def bt2():
    """The events as the reference has them; a kernel event, whose data
    are fields (kbt2 checks them), with "-" for thread and address and
    "kernel" for its data."""
    text = sys.stdin.buffer.read()
    pos = 0
    while pos < len(text):
        m = KEVENT.match(text, pos)
        if m:
            print(int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3).hex(),
                  int(m.group(4)), '-', '-', int(m.group(5)), 'kernel')
        else:
            m = EVENT.match(text, pos)
            if not m:
                sys.exit('bt2: cannot parse: %r' % text[pos:][:200])
            bt2_event(m)
        pos = m.end()


# What both JSON outputs write for any bytes (jsonstr.h): valid UTF-8 as
# is, each maximal invalid subpart as U+FFFD, as Python decodes them.
def as_text(b):
    return b.decode('utf-8', 'replace')


def read_ref(ref_path):
    ref = []
    for line in open(ref_path):
        ns, name, pid, thread, address, trunc, data = line.split()
        ref.append((int(ns), bytes.fromhex(name if name != '-' else ''), int(pid),
                    int(thread, 16), int(address, 16), int(trunc),
                    bytes.fromhex(data if data != '-' else '')))
    return ref


def check_instant(i, e, r, origin):
    """What is wrong with instant @e of reference event @r, or None."""
    ns, name, pid, thread, address, trunc, data = r
    want_ts = ns - origin
    a = e.get('args', {})
    got = {
        'keys': sorted(e), 'name': e.get('name'), 'cat': e.get('cat'),
        's': e.get('s'), 'ts_ns': decimal.Decimal(e.get('ts')) * 1000,
        'ts_float_ns': round(float(e.get('ts')) * 1000), 'pid': e.get('pid'),
        'thread': a.get('thread'), 'address': a.get('address'), 'id': a.get('id'),
        'truncated': a.get('truncated'), 'data_hex': a.get('data_hex'),
        'data_text': a.get('data_text'),
    }
    want = {
        'keys': ['args', 'cat', 'name', 'ph', 'pid', 's', 'tid', 'ts'],
        'name': as_text(name), 'cat': got['cat'], 's': 't', 'ts_ns': want_ts,
        'ts_float_ns': want_ts, 'pid': pid, 'thread': '0x%x' % thread,
        'address': '0x%x' % address, 'id': got['id'],
        'truncated': TRUNCATED.get(trunc, '?'), 'data_hex': data.hex(),
        'data_text': as_text(data),
    }
    if isinstance(a.get('id'), int):
        want['cat'] = 'posix_trace' if a['id'] < 256 else 'user'
    if got == want:
        return None
    diff = {k: (got[k], want[k]) for k in got if got[k] != want[k]}
    return 'event %d: (got, want) %r' % (i, diff)


def check_tracks(events, errors):
    """Every track (pid, tid) used is named, and only those."""
    meta = [e for e in events if e.get('ph') == 'M']
    used = {(e.get('pid'), e.get('tid')) for e in events if e.get('ph') != 'M'}
    named_pids = {e['pid'] for e in meta if e.get('name') == 'process_name'}
    named = {(e['pid'], e['tid']) for e in meta if e.get('name') == 'thread_name'}
    if named_pids != {p for p, _ in used} or named != used:
        errors.append('"M" events do not name every process and thread')
    for e in meta:
        if not isinstance(e.get('args', {}).get('name'), str) or \
                {'pid', 'tid', 'ts', 'name', 'args'} - set(e):
            errors.append('bad "M" event %r' % e)


def chrome(ref_path, json_path):
    ref = [r for r in read_ref(ref_path) if r[1] not in KERNEL_NAMES]
    nref = sum(1 for _ in open(ref_path))
    raw = open(json_path, 'rb').read()
    doc = json.loads(raw, parse_float=decimal.Decimal)
    errors = []
    if set(doc) != {'traceEvents', 'displayTimeUnit', 'otherData'} or \
            doc['displayTimeUnit'] != 'ns':
        errors.append('top level: %r' % sorted(doc))
    events = doc['traceEvents']
    inst = [e for e in events if e.get('ph') == 'i' and e.get('cat') in USER_CATS]
    if any(e.get('ph') not in ('i', 'M', 'B', 'E') for e in events):
        errors.append('events that are neither "i", "M", "B" nor "E"')
    if len(inst) != len(ref) or doc['otherData']['events'] != nref:
        errors.append('%d instant events, the log has %d' % (len(inst), len(ref)))
    origin = int(doc['otherData']['ts_origin_ns'])
    tids = {}
    for i, (e, r) in enumerate(zip(inst, ref)):
        err = check_instant(i, e, r, origin)
        if err:
            errors.append(err)
        pid, thread = r[2], r[3]
        tid = e.get('tid')
        if not isinstance(tid, int) or tid <= 0 or tid >= 2**53:
            errors.append('event %d: tid %r' % (i, tid))
        if tids.setdefault((pid, thread), tid) != tid:
            errors.append('event %d: (pid, thread) changed tid' % i)
    if len(set(tids.values())) != len(tids):
        errors.append('two (pid, thread) pairs share a tid')
    check_tracks(events, errors)
    for err in errors[:20]:
        print('chrome: %s: %s' % (json_path, err))
    return 1 if errors else 0


def slices(events, errors):
    """The B/E pairs of each track as (pid, tid, name, begin, end, depth,
    B args, E args), ns from the first event; what is wrong in @errors: an E
    that is not the innermost open slice's, a track going back in time,
    a slice left open."""
    stacks, last, out = {}, {}, []
    for i, e in enumerate(events):
        if e.get('ph') not in ('B', 'E'):
            continue
        track = (e['pid'], e['tid'])
        ts = decimal.Decimal(e['ts']) * 1000
        if ts < last.get(track, ts):
            errors.append('event %d: track %r goes back in time' % (i, track))
        last[track] = ts
        stack = stacks.setdefault(track, [])
        if e['ph'] == 'B':
            stack.append((e['name'], ts, e.get('args', {})))
            continue
        if not stack or stack[-1][0] != e['name']:
            errors.append('event %d: E of %r, open: %r' % (i, e['name'],
                                                            [s[0] for s in stack]))
            continue
        name, begin, bargs = stack.pop()
        out.append((track[0], track[1], name, int(begin), int(ts), len(stack), bargs,
                    e.get('args', {})))
    for track, stack in stacks.items():
        if stack:
            errors.append('track %r: slices left open: %r' % (track, stack))
    return out


def subset(got, want):
    return all(got.get(k) == v for k, v in want.items())


# convert_helper kernel: (pid, tid, name, begin, end, depth, B args,
# E args), ns after the first record; "tid" is the record's kernel tid.
KSLICES = [
    (300, 300, 'openat', 0, 252500, 0, {'nr': 257, 'path': '/etc/passwd', 'path_arg': 1},
     {'ret': 3}),
    (300, 300, 'off-CPU: blocked', 1000, 251000, 1, {'reason_name': 'blocked', 'cpu': 1},
     {'cpu_in': 2}),
    (300, 303, 'read', 1200, 2500, 0, {'nr': 0}, {'ret': 1}),
    (301, 301, 'write', 2000, 3000, 0, {'nr': 1}, {'ret': 5}),
    (300, 300, 'read', 310000, 311000, 0, {'nr': 0}, {'ret': 4096}),
    (300, 300, 'off-CPU: preempted', 320000, 330000, 0, {'cpu': 2}, {'cpu_in': 0}),
    (301, 301, 'kill', 339000, 341000, 0, {'nr': 62}, {'ret': -3, 'errno': 'ESRCH'}),
    (301, 301, 'getpid', 350000, 350100, 0,
     {'nr': 39, 'args': ['0x55667788', '0x0', '0x0', '0x0', '0x0', '0x0']}, {'ret': 301}),
    (301, 304, 'futex', 400500, 420000, 0, {'nr': 202}, {'unfinished': True, 'why': 'exec'}),
    (301, 304, 'off-CPU: sleeping', 401000, 420000, 1, {'reason_name': 'sleeping'},
     {'unfinished': True, 'why': 'exec'}),
    (301, 301, 'execve', 410000, 430000, 0, {'path': '/bin/true'},
     {'unfinished': True, 'why': 'next system call'}),
    (301, 301, 'exit_group', 430000, 431000, 0, {'nr': 231},
     {'unfinished': True, 'why': 'process exit'}),
    (300, 300, 'off-CPU: sleeping', 360500, 500000, 1, {'reason_name': 'sleeping'},
     {'cpu_in': 0}),
    (300, 303, 'write', 500000, 500000, 0, {'nr': 1}, {'ret': 5}),
    (300, 300, 'nanosleep', 360000, 500000, 0, {'nr': 35},
     {'unfinished': True, 'why': 'end of log'}),
]
# (pid, tid, name, time, args)
KINSTANTS = [
    (300, 300, 'sched_wakeup', 1500, {'irq': True, 'waker_pid': 0}),
    (300, 300, 'fault_major', 300000, {'address': '0x7f0000001000', 'ip': '0x401000',
                                       'user': True}),
    (300, 300, 'fault_minor', 310100, {'address': '0x7ffc00001000', 'ip': '0x0',
                                       'user': False}),
    (301, 301, 'signal_generate', 339500, {'signo': 15, 'signal_name': 'SIGTERM', 'code': 0,
                                           'sender_pid': 0}),
    (300, 300, 'signal_generate', 340000, {'signo': 10, 'signal_name': 'SIGUSR1',
                                           'sender_pid': 301, 'result_name': 'delivered'}),
    (300, 300, 'signal_deliver', 340500, {'signo': 10, 'code': -6, 'code_name': 'SI_TKILL',
                                          'action_name': 'handler', 'handler': '0x401136'}),
    (301, 301, 'fault_minor', 345000, {'address': '0x7f0000002000', 'ip': '0x0',
                                       'user': False}),
    (300, 300, 'write', 350050, {'no_entry': True, 'ret': 5}),
    (301, 301, 'process_fork', 400000, {'child_pid': 302, 'child_tid': 302}),
    (301, 301, 'process_exec', 420000, {'file': '/bin/true', 'old_tid': 301}),
    (301, 301, 'process_exit', 431000, {'status': 0, 'exit_code': 0}),
    (301, 301, 'sched_out: exiting', 432000, {'reason_name': 'exiting', 'cpu': 3}),
    (300, 300, 'sched_wakeup', 500000, {'irq': True}),
]
KTRACKS = {(300, 300), (300, 303), (301, 301), (301, 304)}


def kchrome(json_path):
    doc = json.loads(open(json_path, 'rb').read(), parse_float=decimal.Decimal)
    events = doc['traceEvents']
    errors = []
    check_tracks(events, errors)
    first = min(decimal.Decimal(e['ts']) for e in events if e.get('ph') != 'M')
    if first != 0 or doc['otherData']['events'] != 39:
        errors.append('origin: first ts %s, %r events' % (first, doc['otherData']['events']))
    names = {(e['pid'], e['tid']): e['args']['name'] for e in events
             if e.get('name') == 'thread_name'}
    kernel = [e for e in events if e.get('ph') != 'M' and e.get('cat') not in USER_CATS]
    tracks = {(e['pid'], e['tid']) for e in kernel}
    if tracks != KTRACKS:
        errors.append('kernel tracks %r, want their threads %r' % (tracks, KTRACKS))
    for t in tracks:
        if names.get(t) != 'kernel events':
            errors.append('track %r named %r' % (t, names.get(t)))
    user = [e for e in events if e.get('cat') == 'user']
    if len(user) != 1 or user[0]['pid'] != 300 or (300, user[0]['tid']) in KTRACKS or \
            user[0]['args'].get('thread') != '0x7f00000000aa' or \
            decimal.Decimal(user[0]['ts']) * 1000 != 305000:
        errors.append('user event: %r' % user)
    got = slices(events, errors)
    have = sorted(s[:6] for s in got)
    want = sorted(k[:6] for k in KSLICES)
    if have != want:
        errors.append('slices (pid, tid, name, begin, end, depth):\n  got  %r\n  want %r'
                      % (have, want))
    for k in KSLICES:
        match = [s for s in got if s[:4] == k[:4]]
        if match and not (subset(match[0][6], k[6]) and subset(match[0][7], k[7])):
            errors.append('slice %s: args %r / %r, want %r / %r'
                          % (k[2], match[0][6], match[0][7], k[6], k[7]))
    inst = [(e['pid'], e['tid'], e['name'], int(decimal.Decimal(e['ts']) * 1000),
             e.get('args', {})) for e in kernel if e['ph'] == 'i']
    if [i[:4] for i in inst] != [k[:4] for k in KINSTANTS]:
        errors.append('instants:\n  got  %r\n  want %r' % ([i[:4] for i in inst],
                                                          [k[:4] for k in KINSTANTS]))
    for i, k in zip(inst, KINSTANTS):
        if i[:4] == k[:4] and not subset(i[4], k[4]):
            errors.append('instant %r: args %r, want %r' % (k[:4], i[4], k[4]))
    if any(e.get('s') != 't' for e in kernel if e['ph'] == 'i'):
        errors.append('an instant not scoped to its thread')
    for err in errors[:20]:
        print('kchrome: %s: %s' % (json_path, err))
    return 1 if errors else 0


BT2_LINE = re.compile(r'^\[(\d+)\.(\d{9})\] (\S+): \{ (.*) \}$')
# convert_helper kernel in babeltrace2: (event name, what one of its lines
# holds).  Records cut short read as zeros past their data_length.
KBT2 = [
    ('posix_trace_syscall_entry', ['pid = 300, tid = 300,', 'data_length = 75', 'nr = 257',
                                   'flags = 0x2',
                                   'args = [ [0] = 0xFFFFFFFFFFFFFF9C, [1] = 0x7FFC0000BEEF,',
                                   'path_arg = 1', 'path_len = 11', 'path_length = 11',
                                   'path = "/etc/passwd"']),
    ('posix_trace_syscall_entry', ['pid = 301', 'data_length = 12', 'nr = 39', 'flags = 0x0',
                                   'args = [ [0] = 0x55667788, [1] = 0x0, [2] = 0x0,',
                                   'path_len = 0', 'path_length = 0', 'path = ""']),
    ('posix_trace_syscall_exit', ['pid = 301', 'nr = 62', 'ret = -3', 'path_length = 0']),
    ('posix_trace_syscall_exit', ['pid = 300, tid = 300,', 'nr = 0', 'ret = 4096']),
    ('posix_trace_syscall_exit', ['pid = 300, tid = 303,', 'nr = 0', 'ret = 1']),
    ('posix_trace_sched_out', ['pid = 301, tid = 304,', 'reason = ( "SLEEPING" : container = 1 )',
                               'cpu = 0']),
    ('posix_trace_signal_generate', ['pid = 300', 'data_length = 24', 'signo = 10',
                                     'code = 0', 'sender_pid = 301',
                                     'result = ( "DELIVERED" : container = 0 )',
                                     'flags = 0x0']),
    ('posix_trace_signal_generate', ['pid = 301', 'data_length = 4', 'signo = 15',
                                     'code = 0', 'sender_pid = 0']),
    ('posix_trace_signal_deliver', ['signo = 10', 'code = -6', 'sender_pid = 301',
                                    'action = ( "HANDLER" : container = 0 )',
                                    'handler = 0x401136', 'sa_flags = 0x0']),
    ('posix_trace_sched_out', ['reason = ( "BLOCKED" : container = 2 )', 'cpu = 1']),
    ('posix_trace_sched_out', ['reason = ( "EXITING" : container = 4 )', 'cpu = 3']),
    ('posix_trace_sched_in', ['pid = 300', 'cpu = 2']),
    ('posix_trace_sched_wakeup', ['waker_pid = 0', 'waker_tid = 0', 'flags = 0x1']),
    ('posix_trace_fault_major', ['data_length = 24', 'address = 0x7F0000001000',
                                 'ip = 0x401000', 'flags = 0x1']),
    ('posix_trace_fault_minor', ['pid = 301', 'data_length = 8', 'address = 0x7F0000002000',
                                 'ip = 0x0', 'flags = 0x0']),
    ('posix_trace_process_fork', ['child_pid = 302', 'child_tid = 302', 'flags = 0x0']),
    ('posix_trace_process_exec', ['old_tid = 301', 'name_len = 9', 'file_length = 9',
                                  'file = "/bin/true"']),
    ('posix_trace_process_exit', ['pid = 301', 'status = 0x0']),
    ('user_ev', ['pid = 300', 'thread = 0x7F00000000AA', 'address = 0x401234',
                 'data_length = 6', 'data = [ [0] = 104, [1] = 101,']),
]


def kbt2(ref_path):
    ref = [(r[0], r[1].decode()) for r in read_ref(ref_path)]
    lines = sys.stdin.read().splitlines()
    got, errors = [], []
    for line in lines:
        m = BT2_LINE.match(line)
        if not m:
            errors.append('cannot parse: %r' % line[:200])
            continue
        got.append((int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3), m.group(4)))
    if [g[:2] for g in got] != ref:
        errors.append('events (ns, name) differ from the reference')
    for name, parts in KBT2:
        if not any(g[1] == name and all(p in g[2] for p in parts) for g in got):
            errors.append('no %s with %r' % (name, parts))
    for g in got:
        if g[1].encode() in KERNEL_NAMES and 'thread =' in g[2]:
            errors.append('a kernel event with the user events\' fields: %r' % (g,))
    for err in errors[:20]:
        print('kbt2: %s' % err)
    return 1 if errors else 0


REPORT_TRUNC = {'none': 0, 'record': 1, 'read': 2}


def report(ref_path):
    """posix-trace report writes names as convert --chrome does (as_text)."""
    ref = [line.split() for line in open(ref_path)]
    got = [json.loads(line) for line in sys.stdin]
    got = [e for e in got if e.get('type') == 'event']
    bad = 0
    if len(got) != len(ref):
        print('report: %d events, reference %d' % (len(got), len(ref)))
        return 1
    for i, (r, e) in enumerate(zip(ref, got)):
        ns, name, pid, thread, _address, trunc, data = r
        want = (int(ns), as_text(bytes.fromhex(name if name != '-' else '')),
                int(pid), int(thread, 16), int(trunc), data if data != '-' else '')
        have = (e['sec'] * 10**9 + e['nsec'], e['name'],
                e['pid'], int(e['thread'], 16), REPORT_TRUNC.get(e['truncated'], -1),
                e['hex'])
        if want != have:
            print('report: event %d: %r, reference %r' % (i, have, want))
            bad += 1
            if bad > 5:
                break
    return 1 if bad else 0


# A JSON string token as written, quotes included.
STRING = rb'"(?:[^"\\]|\\.)*"'
REPORT_NAME = re.compile(rb'^\{"type":"event",.*?,"id":(\d+),"name":(' + STRING + rb'),')
CHROME_NAME = re.compile(rb'^\{"name":(' + STRING + rb'),"cat":"([a-z_]+)"')


def names(report_path, chrome_path):
    """The names of the user and system events in report --format json and
    convert --chrome (the kernel events are slices there, named otherwise)."""
    rep = [m.group(2) for m in map(REPORT_NAME.match, open(report_path, 'rb'))
           if m and not 16 <= int(m.group(1)) <= 27]
    chr_ = [m.group(1) for m in map(CHROME_NAME.match, open(chrome_path, 'rb'))
            if m and m.group(2) in (b'posix_trace', b'user')]
    if not rep or len(rep) != len(chr_):
        print('names: %d events in %s, %d in %s' % (len(rep), report_path,
                                                   len(chr_), chrome_path))
        return 1
    bad = [(i, r, c) for i, (r, c) in enumerate(zip(rep, chr_)) if r != c]
    for i, r, c in bad[:5]:
        print('names: event %d: report %s, chrome %s' % (i, r.decode(errors='replace'),
                                                       c.decode(errors='replace')))
    return 1 if bad else 0


if __name__ == '__main__':
    if sys.argv[1:2] == ['bt2']:
        bt2()
    elif sys.argv[1:2] == ['chrome'] and len(sys.argv) >= 4 and len(sys.argv) % 2 == 0:
        pairs = zip(sys.argv[2::2], sys.argv[3::2])
        sys.exit(max(chrome(ref, path) for ref, path in pairs))
    elif sys.argv[1:2] == ['report'] and len(sys.argv) == 3:
        sys.exit(report(sys.argv[2]))
    elif sys.argv[1:2] == ['names'] and len(sys.argv) == 4:
        sys.exit(names(sys.argv[2], sys.argv[3]))
    elif sys.argv[1:2] == ['kchrome'] and len(sys.argv) == 3:
        sys.exit(kchrome(sys.argv[2]))
    elif sys.argv[1:2] == ['kbt2'] and len(sys.argv) == 3:
        sys.exit(kbt2(sys.argv[2]))
    else:
        sys.exit('usage: convert_check.py bt2 | chrome REF FILE.json [REF FILE.json...]'
                 ' | report REF | names REPORT.jsonl FILE.json | kchrome FILE.json'
                 ' | kbt2 REF')
