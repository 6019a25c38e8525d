#!/bin/bash
# posix-trace report matches a system call's entry and exit, and a
# sched_out and its sched_in, per thread: the records' kernel thread ids
# (posix_trace_event_tid_np(3)), not the process, so two threads whose
# calls interleave each get their own durations; a thread id that comes
# again after its process exited or exec'd is a new thread; an exec a
# non-leader thread called ends in the leader's id.  report --summary
# counts page faults per process.  The log is tests/tools/sctime_mklog.c's
# (what is in it, and when, is written there).  No module needed.
set -uo pipefail

P=tools/posix-trace/posix-trace
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. tests/tools/lib.sh

[[ -x $P ]] || { not_ok "sctime_tid: $P not built"; exit 0; }
if ! cc -std=gnu11 -Wall -Wextra -Werror -Iinclude -Iinclude/uapi -Ilibtrace -Itests/unit \
	-D_GNU_SOURCE -o "$T/mklog" tests/tools/sctime_mklog.c libtrace/libposixtrace.a \
	-ldl -pthread || ! "$T/mklog" "$T/threads.log" "$T/calls.log"; then
	not_ok "sctime_mklog builds and writes a log"
	exit 0
fi
ok "sctime_mklog builds and writes a log"

KERNEL=posix_trace_syscall_entry,posix_trace_syscall_exit,posix_trace_sched_out
KERNEL+=,posix_trace_sched_in,posix_trace_process_exec

# Each exit's duration from its own thread's entry: A's read 9 us (not
# 6 us from B's read entry), B's getpid inside it 500 ns, B's read 9 us;
# each thread's time off CPU from its own sched_out; C's execve ends as
# 6000 1.8 us later; the new 6101's getpid 300 ns.  What the report adds
# to a line, after the decoded data (whose format is kdata.c's).
per_thread_text() {
	"$P" report --filter "$KERNEL" "$T/threads.log" | awk '/^#/ { next } {
		note = ""
		if (match($0, / <[^<>]*>$/) || match($0, / off=.*$/))
			note = substr($0, RSTART)
		print $3, $6 note
	}' >"$T/text" || return 1
	diff -u - "$T/text" <<'EOF'
6000 posix_trace_syscall_entry
6000 posix_trace_syscall_entry
6000 posix_trace_syscall_exit <500 ns>
6000 posix_trace_sched_out
6000 posix_trace_syscall_entry
6000 posix_trace_sched_out
6000 posix_trace_sched_in off=6.0 us (sleeping)
6000 posix_trace_syscall_exit <9.0 us>
6000 posix_trace_sched_in off=7.0 us (sleeping)
6000 posix_trace_syscall_exit <9.0 us>
6000 posix_trace_syscall_entry
6000 posix_trace_syscall_entry
6000 posix_trace_process_exec
6000 posix_trace_syscall_exit <1.8 us>
6000 posix_trace_syscall_entry
6100 posix_trace_syscall_entry
6100 posix_trace_syscall_entry
6100 posix_trace_syscall_entry
6100 posix_trace_syscall_exit <300 ns>
EOF
}
check "report: interleaved calls of two threads of a process are timed per thread" \
	per_thread_text

# The same in JSON: duration_ns and off_ns of each exit and sched_in.
per_thread_json() {
	python3 -c 1 2>/dev/null || { echo "# python3 missing"; return 0; }
	"$P" report --format json "$T/threads.log" | python3 -c '
import json, sys
evs = [o for o in map(json.loads, sys.stdin) if o["type"] == "event"]
d = [(o["pid"], o["id"], o.get("duration_ns"), o.get("off_ns")) for o in evs
     if o["id"] in (17, 21)]
assert d == [(6000, 17, 500, None), (6000, 21, None, 6000), (6000, 17, 9000, None),
             (6000, 21, None, 7000), (6000, 17, 9000, None), (6000, 17, 1800, None),
             (6100, 17, 300, None)], d
'
}
check "report --format json: duration_ns and off_ns per thread" per_thread_json

# The table: read's 3 calls (the third never returned: its process
# exited), 2 timed, 13 us of their 18 us blocked; A's nanosleep, cut by
# C's exec, and both exit_group calls without time.  Then the faults.
summary_text() {
	"$P" report --summary "$T/threads.log" >"$T/sum" || return 1
	sed -n '/^# % time/,$p' "$T/sum" | diff -u - <(sed 's/^|//' <<'EOF'
|# % time     seconds  usecs/call     calls    errors   max usecs      on-cpu     blocked syscall
|# ------ ----------- ----------- --------- --------- ----------- ----------- ----------- ----------------
|#  87.38    0.000018           9         3                     9    0.000005    0.000013 read
|#   8.74    0.000001           1         1                     1    0.000001    0.000000 execve
|#   3.88    0.000000           0         2                     0    0.000000    0.000000 getpid
|#   0.00    0.000000           0         2                     0    0.000000    0.000000 exit_group
|#   0.00    0.000000           0         1                     0    0.000000    0.000000 nanosleep
|# ------ ----------- ----------- --------- --------- ----------- ----------- ----------- ----------------
|# 100.00    0.000020           4         9                     9    0.000007    0.000013 total
|# timed calls: 5 of 9 (the others lack their entry or exit record)
|# page faults: 4 major, 1,235 minor
|#   pid 6200: 3 major, 1,234 minor
|#   pid 6000: 1 major, 1 minor
EOF
)
}
check "report --summary: per-thread table, then page faults per process, most first" \
	summary_text

# --filter counts the faults shown; none shown, no line.
summary_filter() {
	"$P" report --summary --filter posix_trace_fault_major "$T/threads.log" >"$T/maj" &&
		"$P" report --summary --filter "$KERNEL" "$T/threads.log" >"$T/nof" || return 1
	tail -n 3 "$T/maj" | diff -u - <(sed 's/^|//' <<'EOF'
|# page faults: 4 major, 0 minor
|#   pid 6200: 3 major, 0 minor
|#   pid 6000: 1 major, 0 minor
EOF
) && ! grep -q 'page faults' "$T/nof"
}
check "report --summary --filter: page faults of the records shown, no line without any" \
	summary_filter

summary_json() {
	python3 -c 1 2>/dev/null || { echo "# python3 missing"; return 0; }
	"$P" report --summary --format json "$T/threads.log" >"$T/sum.json" &&
		"$P" report --summary --format json --filter "$KERNEL" \
			"$T/threads.log" >>"$T/sum.json" || return 1
	python3 - "$T/sum.json" <<'EOF'
import json, sys
a, b = [json.loads(x) for x in open(sys.argv[1])]
s = {o["syscall"]: o for o in a["syscalls"]}
assert (s["read"]["calls"], s["read"]["timed"], s["read"]["total_ns"],
        s["read"]["max_ns"], s["read"]["blocked_ns"]) == (3, 2, 18000, 9000, 13000), s["read"]
assert (s["getpid"]["calls"], s["getpid"]["timed"], s["getpid"]["total_ns"]) == (2, 2, 800)
assert (s["execve"]["timed"], s["execve"]["total_ns"]) == (1, 1800), s["execve"]
assert (s["nanosleep"]["timed"], s["exit_group"]["calls"]) == (0, 2), a
assert a["page_faults"] == [{"pid": 6200, "major": 3, "minor": 1234},
                            {"pid": 6000, "major": 1, "minor": 1}], a["page_faults"]
assert b["page_faults"] == [] and b["syscalls"] == a["syscalls"], b
EOF
}
check "report --summary --format json: per-thread times, \"page_faults\" per process" \
	summary_json

if build_san_tool "$T/posix-trace-asan"; then
	export ASAN_OPTIONS=detect_leaks=1:exitcode=99 UBSAN_OPTIONS=halt_on_error=1:exitcode=98
	check "report and report --summary under ASan/UBSan: the threads log, text and json" \
		sh -c '"$1" report "$2" >/dev/null && "$1" report --summary "$2" >/dev/null &&
		       "$1" report --summary --format json "$2" >/dev/null' \
		sh "$T/posix-trace-asan" "$T/threads.log"
else
	skip "ASan/UBSan run" "cannot build with -fsanitize: $(head -c 200 "$T/posix-trace-asan.err")"
fi

# Calls in one record: a call that did not leave its CPU is timed from
# the entry time it carries; a pending one is an entry (at that time),
# whose exit record comes later; the table counts each call once.
one_record_text() {
	"$P" report "$T/calls.log" | awk '/^#/ { next } {
		i = index($0, ": ")
		print $6 (i ? " " substr($0, i + 2) : "")
	}' >"$T/ctext" || return 1
	diff -u - "$T/ctext" <<'EOF'
posix_trace_syscall getpid() = 6300 <400 ns>
posix_trace_syscall read(3, 0x7ffd0000, 64) <unfinished ...>
posix_trace_sched_out reason=sleeping cpu=1
posix_trace_sched_in cpu=1 off=5.0 us (sleeping)
posix_trace_syscall_exit read(3, 0x7ffd0000, 64) = 5 <7.1 us>
posix_trace_syscall openat(AT_FDCWD, "/etc/nosuch", O_RDONLY) = -2 (ENOENT) <250 ns>
EOF
}
check "report: a call in one record is timed from its entry time, a pending one by its exit" \
	one_record_text

one_record_summary() {
	"$P" report --summary "$T/calls.log" >"$T/csum" || return 1
	sed -n '/^# % time/,$p' "$T/csum" | diff -u - <(sed 's/^|//' <<'EOF'
|# % time     seconds  usecs/call     calls    errors   max usecs      on-cpu     blocked syscall
|# ------ ----------- ----------- --------- --------- ----------- ----------- ----------- ----------------
|#  91.61    0.000007           7         1                     7    0.000002    0.000005 read
|#   5.16    0.000000           0         1                     0    0.000000    0.000000 getpid
|#   3.23    0.000000           0         1         1           0    0.000000    0.000000 openat
|# ------ ----------- ----------- --------- --------- ----------- ----------- ----------- ----------------
|# 100.00    0.000007           2         3         1           7    0.000002    0.000005 total
|# timed calls: 3 of 3 (the others lack their entry or exit record)
EOF
)
}
check "report --summary: calls in one record counted once each, with their time" \
	one_record_summary
