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


def bt2():
    text = sys.stdin.buffer.read()
    pos = 0
    for m in EVENT.finditer(text):
        if m.start() != pos:
            sys.exit('bt2: cannot parse: %r' % text[pos:m.start()][:200])
        pos = m.end()
        items = ITEM.findall(m.group(9))
        data = bytes(int(v) for _, v in items)
        if [int(i) for i, _ in items] != list(range(len(data))) or \
                len(data) != int(m.group(8)):
            sys.exit('bt2: bad data field: %r' % m.group(0)[:200])
        print(int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3).hex() or '-',
              int(m.group(4)), m.group(5).decode().lower(), m.group(6).decode().lower(),
              int(m.group(7)), data.hex() or '-')
    if pos != len(text):
        sys.exit('bt2: cannot parse: %r' % text[pos:][:200])


# What both JSON outputs write for any bytes (jsonstr.h): valid UTF-8 as
# is, each maximal invalid subpart as U+FFFD, as Python decodes them.
def as_text(b):
    return b.decode('utf-8', 'replace')


def chrome(ref_path, json_path):
    ref = []
    for line in open(ref_path):
        ns, name, pid, thread, address, trunc, data = line.split()
        ref.append((int(ns), bytes.fromhex(name if name != '-' else ''), int(pid),
                    int(thread, 16), int(address, 16), int(trunc),
                    bytes.fromhex(data if data != '-' else '')))
    raw = open(json_path, 'rb').read()
    doc = json.loads(raw, parse_float=decimal.Decimal)
    errors = []
    if set(doc) != {'traceEvents', 'displayTimeUnit', 'otherData'} or \
            doc['displayTimeUnit'] != 'ns':
        errors.append('top level: %r' % sorted(doc))
    events = doc['traceEvents']
    inst = [e for e in events if e.get('ph') == 'i']
    meta = [e for e in events if e.get('ph') == 'M']
    if len(inst) + len(meta) != len(events):
        errors.append('events that are neither "i" nor "M"')
    if len(inst) != len(ref) or doc['otherData']['events'] != len(ref):
        errors.append('%d instant events, the log has %d' % (len(inst), len(ref)))
    origin = int(doc['otherData']['ts_origin_ns'])
    tids = {}
    for i, (e, r) in enumerate(zip(inst, ref)):
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
        if got != want:
            diff = {k: (got[k], want[k]) for k in got if got[k] != want[k]}
            errors.append('event %d: (got, want) %r' % (i, diff))
        tid = e.get('tid')
        if not isinstance(tid, int) or tid <= 0 or tid >= 2**53:
            errors.append('event %d: tid %r' % (i, tid))
        if tids.setdefault((pid, thread), tid) != tid:
            errors.append('event %d: (pid, thread) changed tid' % i)
    if len(set(tids.values())) != len(tids):
        errors.append('two (pid, thread) pairs share a tid')
    named_pids = {e['pid'] for e in meta if e.get('name') == 'process_name'}
    named_tids = {e['tid'] for e in meta if e.get('name') == 'thread_name'}
    if named_pids != {p for p, _ in tids} or named_tids != set(tids.values()):
        errors.append('"M" events do not name every process and thread')
    for e in meta:
        if not isinstance(e.get('args', {}).get('name'), str) or \
                {'pid', 'tid', 'ts', 'name', 'args'} - set(e):
            errors.append('bad "M" event %r' % e)
    for err in errors[:20]:
        print('chrome: %s: %s' % (json_path, err))
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
REPORT_NAME = re.compile(rb'^\{"type":"event",.*?,"id":\d+,"name":(' + STRING + rb'),')
CHROME_NAME = re.compile(rb'^\{"name":(' + STRING + rb'),"cat":')


def names(report_path, chrome_path):
    """The events' names in report --format json and convert --chrome."""
    rep = [m.group(1) for m in map(REPORT_NAME.match, open(report_path, 'rb'))
           if m]
    chr_ = [m.group(1) for m in map(CHROME_NAME.match, open(chrome_path, 'rb'))
            if m]
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
    else:
        sys.exit('usage: convert_check.py bt2 | chrome REF FILE.json [REF FILE.json...]'
                 ' | report REF | names REPORT.jsonl FILE.json')
