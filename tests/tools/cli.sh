#!/bin/bash
# posix-trace record/attach/report/stat on the host (no module): report in
# its three formats and stat on the logs the module wrote
# (fuzz/corpus/module-*.log), the rest of the corpus, a log with names
# that need escaping and one of kernel events (their data decoded, paths
# escaped), logs of system calls of known durations (each exit's, the
# time off CPU, the --summary table with and without sched events):
# every format shows the same events as an
# independent reader of the file (cli_check.py); garbage (cut and flipped
# logs, random bytes, /dev/null, a FIFO, a directory, a missing file)
# gives exit status 0 or 1 with a message, never a signal, also under
# AddressSanitizer/UBSan; --help exits 0; bad usage exits 2; record and
# attach without the module say so.
set -uo pipefail

P=tools/posix-trace/posix-trace
CHECK="python3 tests/tools/cli_check.py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. tests/tools/lib.sh

# The events of a log as each format shows them, compared with the file.
same_events() {
	local f=$1 fmt
	for fmt in json csv text; do
		"$P" report --format "$fmt" "$f" >"$T/out.$fmt" || return 1
	done
	$CHECK compare "$f" "$T/out.text" "$T/out.json" "$T/out.csv"
}

# stat names every type the report shows, and the log's attributes.
stat_agrees() {
	local f=$1 name
	"$P" stat "$f" >"$T/stat" || return 1
	grep -q '^stream size: [0-9][0-9]*$' "$T/stat" &&
		grep -q '^max data size: [0-9][0-9]*$' "$T/stat" &&
		grep -q '^log full policy: \(loop\|until-full\|append\)$' "$T/stat" &&
		grep -q '^stream status: ' "$T/stat" || return 1
	sed -n 's/^# type \(.*\): [0-9]*$/\1/p' "$T/out.text" | while IFS= read -r name; do
		grep -qxF "  ${name}" <(sed 's/^  [0-9]* /  /' "$T/stat") ||
			{ echo "# stat lacks type $name" >&2; exit 1; }
	done
}

python3 -c 1 2>/dev/null || { ok "cli # SKIP python3 missing"; exit 0; }
[[ -x $P ]] || { not_ok "cli: $P not built"; exit 0; }

if ! cc -std=gnu11 -Wall -Wextra -Werror -Iinclude -Iinclude/uapi -Ilibtrace -Itests/unit \
	-D_GNU_SOURCE -o "$T/mklog" tests/tools/cli_mklog.c libtrace/libposixtrace.a -ldl -pthread ||
	! "$T/mklog" "$T/odd.log" "$T/kernel.log" "$T/timing.log" "$T/timing-nosched.log"; then
	not_ok "cli_mklog builds and writes a log"
fi

for f in fuzz/corpus/module-*.log fuzz/corpus/seq fuzz/corpus/ring fuzz/corpus/packed \
	fuzz/corpus/ring-packed "$T/odd.log" "$T/kernel.log" "$T/timing.log" \
	"$T/timing-nosched.log"; do
	check "report text, json and csv show the events of $(basename "$f") as in the file" \
		same_events "$f"
	check "stat of $(basename "$f") names the attributes and every type" stat_agrees "$f"
done

# Counts of the module's logs, known from how they were written.
n=$("$P" report --format json fuzz/corpus/module-loop.log | tail -n1 |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
check "report counts the 520 events of module-loop.log" test "$n" = 520

# Summary of the escaping log: counts per type, its status, the span.
odd_summary() {
	"$P" report "$T/odd.log" >"$T/odd.txt" &&
		grep -qxF '# type q"uote: 2' "$T/odd.txt" &&
		grep -qxF '# log: overrun yes, full no' "$T/odd.txt" &&
		grep -qxF '# span: 1.000000999 s' "$T/odd.txt"
}
check "report text summary: counts per type, log overrun, span" odd_summary

# Kernel events: decoded in text, system calls as strace shows them
# (their flags and constants named, an exit with its entry's arguments,
# a call in one record timed by the age it carries, a pending one
# unfinished and its exit timed from its entry),
# paths escaped and quoted; a "kernel" object in JSON; every line clean.
kernel_text() {
	"$P" report "$T/kernel.log" >"$T/k.txt" || return 1
	local want
	for want in \
		'posix_trace_syscall_entry 80 bytes: openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC)' \
		'posix_trace_syscall_exit 24 bytes: openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3 <4.1 us>' \
		'openat(AT_FDCWD, "/tmp/q\x22uo\x5cte\x01\xff é", O_RDONLY|O_CLOEXEC)' \
		'posix_trace_syscall_exit 30 bytes: openat(AT_FDCWD, "/nope\x0a", O_RDONLY|O_CLOEXEC) = -2 (ENOENT) <1.0 us>' \
		'bytes: open(0xffffffffffffff9c, "/very/long"..., ' \
		'bytes: stat(0xffffffffffffff9c, 0x7ffc0000beef)' \
		'bytes: [32-bit] open(0xffffffffffffff9c, 0x7ffc0000beef, 0x80000, 0, 0, 0)' \
		'posix_trace_process_fork 16 bytes: child=4243' \
		'posix_trace_process_fork 16 bytes: child=4242 tid=4250 (thread)' \
		'posix_trace_process_exec 15 bytes: file="/bin/ls" old_tid=4242' \
		'posix_trace_process_exit 8 bytes: status=0x100 (exited 1)' \
		'posix_trace_process_exit 8 bytes: status=0x9 (killed by SIGKILL)' \
		'openat(AT_FDCWD, "/cut"..., O_RDONLY|O_CLOEXEC)' \
		'posix_trace_signal_generate 24 bytes: sig=10 (SIGUSR1) code=0 (SI_USER) from=1234 result=delivered group' \
		'posix_trace_signal_deliver 32 bytes: sig=10 (SIGUSR1) code=-6 (SI_TKILL) from=1234 action=handler handler=0x401136 sa_flags=0x4000000' \
		'posix_trace_signal_generate 24 bytes: sig=17 (SIGCHLD) code=1 (CLD_EXITED) from=0 result=already_pending' \
		'posix_trace_signal_deliver 32 bytes: sig=35 (SIGRTMIN+3) code=-1 (SI_QUEUE) from=77 action=default sa_flags=0' \
		'posix_trace_signal_generate 24 bytes: sig=99 code=7 from=1 result=9' \
		'posix_trace_signal_deliver 12 bytes: sig=11 (SIGSEGV) code=128 (SI_KERNEL) from=0 action=handler handler=0 sa_flags=0' \
		'posix_trace_signal_generate 3 bytes: sig=9 (SIGKILL) code=0 (SI_USER) from=0 result=delivered' \
		'posix_trace_sched_out 8 bytes: reason=sleeping cpu=1' \
		'posix_trace_sched_wakeup 16 bytes: by=1234/1235' \
		'posix_trace_sched_in 8 bytes: cpu=0 off=2.0 us (sleeping)' \
		'posix_trace_sched_wakeup 16 bytes: by=irq' \
		'posix_trace_sched_wakeup 16 bytes: by=other' \
		'posix_trace_sched_out 8 bytes: reason=7 cpu=3' \
		'posix_trace_sched_out 4 bytes: reason=blocked cpu=0' \
		'posix_trace_sched_wakeup 6 bytes: by=77/78' \
		'posix_trace_syscall_entry 72 bytes: openat(AT_FDCWD, "/tmp/new", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644)' \
		'posix_trace_syscall_exit 24 bytes: openat(AT_FDCWD, "/tmp/new", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 4 <1.0 us>' \
		'posix_trace_syscall_entry 68 bytes: openat(3, "data", O_RDONLY|0x40000000)' \
		'posix_trace_syscall_exit 24 bytes: openat(3, "data", O_RDONLY|0x40000000) = -22 (EINVAL) <1.0 us>' \
		'posix_trace_syscall_entry 64 bytes: mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0)' \
		'posix_trace_syscall_exit 24 bytes: mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000001000 <1.0 us>' \
		'posix_trace_syscall_entry 64 bytes: mmap(0x7f0000001000, 4096, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE|0x200, 3, 0x2000)' \
		'posix_trace_syscall_entry 64 bytes: mprotect(0x7f0000001000, 4096, PROT_NONE)' \
		'posix_trace_syscall_entry 74 bytes: access("/etc/hosts", R_OK|W_OK)' \
		'posix_trace_syscall_entry 64 bytes: lseek(3, 0, SEEK_END)' \
		'posix_trace_syscall_entry 64 bytes: fcntl(3, F_SETFL, O_NONBLOCK)' \
		'posix_trace_syscall_entry 64 bytes: fcntl(3, F_GETFL)' \
		'posix_trace_syscall_entry 64 bytes: clone(CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, NULL, NULL, 0x7f00000029d0, 0)' \
		'posix_trace_fault_major 24 bytes: addr=0x7f0000001000 ip=0x401136 (user)' \
		'posix_trace_fault_minor 24 bytes: addr=0x7ffc00001000 (in syscall)' \
		'posix_trace_fault_minor 8 bytes: addr=0x7f0000002000 (in syscall)' \
		'posix_trace_syscall_exit 24 bytes: execve("/bin/true", 0x7ffc0000bf00, 0x7ffc0000bf10) = 0' \
		'posix_trace_syscall 90 bytes: openat(AT_FDCWD, "/etc/hosts", O_RDONLY|O_CLOEXEC) = 5 <700 ns>' \
		'posix_trace_syscall 80 bytes: read(3, 0x7ffc0000b000, 4096) <unfinished ...>' \
		'posix_trace_syscall_exit 24 bytes: read(3, 0x7ffc0000b000, 4096) = 4096 <1.3 us>' \
		'posix_trace_syscall 84 bytes: openat(AT_FDCWD, "/cut"..., O_RDONLY) = 6 <9 ns>' \
		'# type posix_trace_syscall: 3' \
		'# type posix_trace_syscall_entry: 17' \
		'# type posix_trace_signal_generate: 4' \
		'# type posix_trace_sched_out: 3' \
		'# type posix_trace_sched_in: 1' \
		'# type posix_trace_sched_wakeup: 4' \
		'# type posix_trace_fault_major: 1' \
		'# type posix_trace_fault_minor: 2'; do
		grep -qF -- "$want" "$T/k.txt" || { echo "# no line with: $want"; return 1; }
	done
	# The issue's line, whole: nothing else after the name and size.
	grep -qE ' posix_trace_syscall_exit 24 bytes: openat\(AT_FDCWD, "/etc/ld\.so\.cache", O_RDONLY\|O_CLOEXEC\) = 3 <4\.1 us>$' \
		"$T/k.txt" || { echo "# the openat exit line differs"; return 1; }
	# An exit after another call's entry: its arguments are not known,
	# and it has no duration.  (An execve() another thread called ends in
	# the leader's id, with its arguments: above.)
	grep -qE 'bytes: mmap\(\?, \?, \?, \?, \?, \?\) = 0x7f1234567000$' "$T/k.txt" ||
		{ echo "# mmap without its entry"; return 1; }
	"$P" report --format json "$T/kernel.log" >"$T/k.json" &&
		"$P" report --format csv "$T/kernel.log" >"$T/k.csv" &&
		$CHECK clean "$T/k.txt" "$T/k.json" "$T/k.csv"
}
check "report decodes kernel events: system calls, paths, signals, sched, faults, fork, exec, exit" \
	kernel_text

# The arguments of the entries in JSON: the registers in hex as they
# were, "args_decoded" beside them: a name where text shows one, null
# for numbers, addresses, the path, arguments a call does not use.
kernel_args_json() {
	"$P" report --format json "$T/kernel.log" | python3 -c '
import json, sys
k = [o["kernel"] for o in map(json.loads, sys.stdin) if o.get("id") == 16]
assert len(k) == 17, k
d = {(e["syscall"], e["args"][0], e["args"][2]): e["args_decoded"] for e in k}
N = None
assert k[0]["args"] == ["0xffffffffffffff9c", "0x7ffc0000beef", "0x80000", "0x0", "0x0", "0x0"]
assert k[0]["args_decoded"] == ["AT_FDCWD", N, "O_RDONLY|O_CLOEXEC", N, N, N], k[0]
assert d["openat", "0xffffff9c", "0x80241"] == \
    ["AT_FDCWD", N, "O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC", "0644", N, N]
assert d["openat", "0x3", "0x40000000"] == [N, N, "O_RDONLY|0x40000000", N, N, N]
assert d["mmap", "0x0", "0x3"] == [N, N, "PROT_READ|PROT_WRITE", "MAP_PRIVATE|MAP_ANONYMOUS", N, N]
assert d["mmap", "0x7f0000001000", "0x5"] == \
    [N, N, "PROT_READ|PROT_EXEC", "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE|0x200", N, N]
assert d["mprotect", "0x7f0000001000", "0x0"] == [N, N, "PROT_NONE", N, N, N]
assert d["access", "0x7ffc0000beef", "0x0"] == [N, "R_OK|W_OK", N, N, N, N]
assert d["lseek", "0x3", "0x2"] == [N, N, "SEEK_END", N, N, N]
assert d["fcntl", "0x3", "0x800"] == [N, "F_SETFL", "O_NONBLOCK", N, N, N]
assert d["fcntl", "0x3", "0x7ffc0000beef"] == [N, "F_GETFL", N, N, N, N]
assert d["clone", "0x1200011", "0x0"][0] == "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD"
# A 32-bit call is named by i386 numbers (5: open), not decoded.
c = [e for e in k if e["compat"]]
assert [e["syscall"] for e in c] == ["open"], c
assert all(x is None for x in c[0]["args_decoded"]), "32-bit: not decoded"
'
}
check "report --format json: an entry's args_decoded beside its args" kernel_args_json

# The fault records in JSON: the address and the instruction's as hex
# strings (beyond a double), whether the thread's instruction faulted;
# one cut after its address reads zeros.
kernel_fault_json() {
	"$P" report --format json "$T/kernel.log" | python3 -c '
import json, sys
k = [o["kernel"] for o in map(json.loads, sys.stdin) if o.get("id") in (23, 27)]
assert k == [
    {"event": "fault_major", "address": "0x7f0000001000", "ip": "0x401136", "user": True},
    {"event": "fault_minor", "address": "0x7ffc00001000", "ip": "0x0", "user": False},
    {"event": "fault_minor", "address": "0x7f0000002000", "ip": "0x0", "user": False},
], k
'
}
check "report --format json: fault_major and fault_minor fields, a cut record as zeros" \
	kernel_fault_json

# The signal records in JSON, field by field (cli_check.py compares every
# kernel object with the hex; this pins the names).
kernel_signal_json() {
	"$P" report --format json "$T/kernel.log" | python3 -c '
import json, sys
k = [o["kernel"] for o in map(json.loads, sys.stdin) if o.get("id") in (18, 19)]
assert len(k) == 7, k
assert k[0] == {"event": "signal_generate", "signo": 10, "signal_name": "SIGUSR1",
                "code": 0, "code_name": "SI_USER", "sender_pid": 1234, "result": 0,
                "result_name": "delivered", "group": True}, k[0]
assert k[1] == {"event": "signal_deliver", "signo": 10, "signal_name": "SIGUSR1",
                "code": -6, "code_name": "SI_TKILL", "sender_pid": 1234, "action": 0,
                "action_name": "handler", "handler": "0x401136",
                "sa_flags": 0x4000000}, k[1]
assert (k[4]["signal_name"], k[4]["code_name"], k[4]["result"], k[4]["result_name"]) == \
    (None, None, 9, None), k[4]
assert (k[5]["signo"], k[5]["action_name"], k[5]["handler"], k[5]["sa_flags"]) == \
    (11, "handler", "0x0", 0), k[5]
assert (k[6]["signo"], k[6]["code"], k[6]["group"]) == (9, 0, False), k[6]
'
}
check "report --format json: signal generate and deliver fields, cut records as zeros" \
	kernel_signal_json

# The sched records in JSON, in the log's order: a sleep (out, wakeup by
# another thread, in), wakeups from an interrupt and by the kernel, a
# reason without a name, two records cut short.
kernel_sched_json() {
	"$P" report --format json "$T/kernel.log" | python3 -c '
import json, sys
k = [o["kernel"] for o in map(json.loads, sys.stdin) if o.get("id") in (20, 21, 22)]
assert k == [
    {"event": "sched_out", "reason": 1, "reason_name": "sleeping", "cpu": 1},
    {"event": "sched_wakeup", "waker_pid": 1234, "waker_tid": 1235, "irq": False, "other": False},
    {"event": "sched_in", "cpu": 0},
    {"event": "sched_wakeup", "waker_pid": 0, "waker_tid": 0, "irq": True, "other": False},
    {"event": "sched_wakeup", "waker_pid": 0, "waker_tid": 0, "irq": False, "other": True},
    {"event": "sched_out", "reason": 7, "reason_name": None, "cpu": 3},
    {"event": "sched_out", "reason": 2, "reason_name": "blocked", "cpu": 0},
    {"event": "sched_wakeup", "waker_pid": 77, "waker_tid": 78, "irq": False, "other": False},
], k
'
}
check "report --format json: sched out, in and wakeup fields, cut records as zeros" \
	kernel_sched_json

# Durations in text: each exit after its entry (same process, same
# number) ends with it, a sched_in with the time since its sched_out and
# why; process 5152's read is timed apart from 5151's openat around it;
# no duration across an OVERFLOW, nor the entry's arguments, none for
# exit_group.  --filter does not change them: the exits alone show the
# same, arguments included.
timing_text() {
	"$P" report "$T/timing.log" | sed -n 's/^[0-9.]* pid \([0-9]*\) .* bytes: /\1 /p' \
		>"$T/timing.txt" || return 1
	diff -u - "$T/timing.txt" <<'EOF' || return 1
5151 openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC)
5151 openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3 <5.0 us>
5151 read(-100, 0x7ffc0000beef, 524288)
5151 reason=sleeping cpu=2
5151 cpu=2 off=3.0 ms (sleeping)
5151 read(-100, 0x7ffc0000beef, 524288) = 100 <3.0 ms>
5151 openat(AT_FDCWD, "/nonexistent", O_RDONLY|O_CLOEXEC)
5152 read(-100, 0x7ffc0000beef, 524288)
5152 read(-100, 0x7ffc0000beef, 524288) = 5 <1.2 us>
5151 openat(AT_FDCWD, "/nonexistent", O_RDONLY|O_CLOEXEC) = -2 (ENOENT) <7.5 us>
5151 nanosleep(0xffffffffffffff9c, 0x7ffc0000beef)
5151 reason=sleeping cpu=2
5151 cpu=2 off=1.20 s (sleeping)
5151 nanosleep(0xffffffffffffff9c, 0x7ffc0000beef) = 0 <1.20 s>
5151 close(-100)
5151 close(-100) = 0 <800 ns>
5152 write(-100, 0x7ffc0000beef, 524288)
5152 write(?, ?, ?) = 4
5151 exit_group(-100)
5151 reason=exiting cpu=2
EOF
	"$P" report --filter posix_trace_syscall_exit "$T/timing.log" |
		sed -n 's/^[0-9.]* pid \([0-9]*\) .* bytes: /\1 /p' >"$T/timing-exits.txt" &&
		diff -u <(grep ') = ' "$T/timing.txt") "$T/timing-exits.txt"
}
check "report: a system call's exit ends with its duration, a sched_in with the time off CPU" \
	timing_text

# The same in JSON, beside "kernel": only where known, never null.
timing_json() {
	"$P" report --format json "$T/timing.log" | python3 -c '
import json, sys
evs = [o for o in map(json.loads, sys.stdin) if o["type"] == "event"]
d = [(o["pid"], o["id"], o.get("duration_ns"), o.get("off_ns")) for o in evs
     if "duration_ns" in o or "off_ns" in o or o["id"] == 17]
assert d == [(5151, 17, 5000, None), (5151, 21, None, 3000000), (5151, 17, 3002000, None),
             (5152, 17, 1200, None), (5151, 17, 7500, None), (5151, 21, None, 1200000000),
             (5151, 17, 1200003000, None), (5151, 17, 800, None), (5152, 17, None, None)], d
'
}
check "report --format json: duration_ns on exits, off_ns on sched_in, where known" timing_json

# --summary: no events, the summary, then the table of the calls, most
# time first; blocked is the time off CPU inside a call (3 ms of read's
# 3.002 ms, 1.2 s of nanosleep's 1.200003 s), on-cpu the rest; exit_group
# and the write cut by the OVERFLOW are calls without time.
summary_sched() {
	"$P" report --summary "$T/timing.log" >"$T/sum.txt" || return 1
	grep -qx '# events: 21' "$T/sum.txt" && ! grep -v '^# ' "$T/sum.txt" || return 1
	sed -n '/^# % time/,$p' "$T/sum.txt" | diff -u - <(sed 's/^|//' <<'EOF'
|# % time     seconds  usecs/call     calls    errors   max usecs      on-cpu     blocked syscall
|# ------ ----------- ----------- --------- --------- ----------- ----------- ----------- ----------------
|#  99.75    1.200003     1200003         1               1200003    0.000003    1.200000 nanosleep
|#   0.25    0.003003        1501         2                  3002    0.000003    0.003000 read
|#   0.00    0.000012           6         2         1           7    0.000012    0.000000 openat
|#   0.00    0.000000           0         1                     0    0.000000    0.000000 close
|#   0.00    0.000000           0         1                     0    0.000000    0.000000 write
|#   0.00    0.000000           0         1                     0    0.000000    0.000000 exit_group
|# ------ ----------- ----------- --------- --------- ----------- ----------- ----------- ----------------
|# 100.00    1.203019      200503         8         1     1200003    0.000019    1.203000 total
|# timed calls: 6 of 8 (the others lack their entry or exit record)
EOF
)
}
check "report --summary: per-syscall table (time, calls, errors, max), on-cpu and blocked" \
	summary_sched

# Without the sched class: no on-cpu and blocked columns, a note says why.
summary_nosched() {
	"$P" report --summary "$T/timing-nosched.log" >"$T/sum2.txt" || return 1
	sed -n '/^# % time/,$p' "$T/sum2.txt" | diff -u - <(sed 's/^|//' <<'EOF'
|# % time     seconds  usecs/call     calls    errors   max usecs syscall
|# ------ ----------- ----------- --------- --------- ----------- ----------------
|#  99.75    1.200003     1200003         1               1200003 nanosleep
|#   0.25    0.003003        1501         2                  3002 read
|#   0.00    0.000012           6         2         1           7 openat
|#   0.00    0.000000           0         1                     0 close
|#   0.00    0.000000           0         1                     0 write
|#   0.00    0.000000           0         1                     0 exit_group
|# ------ ----------- ----------- --------- --------- ----------- ----------------
|# 100.00    1.203019      200503         8         1     1200003 total
|# timed calls: 6 of 8 (the others lack their entry or exit record)
|# on-cpu, blocked: not known, the log has no sched events (record --kernel sched)
EOF
) && "$P" report --summary "$T/odd.log" | tail -n1 | grep -qx '# system calls: none'
}
check "report --summary without sched events: no on-cpu/blocked, a note; none without calls" \
	summary_nosched

# The table in JSON; --filter counts the calls of which a record is shown
# (the exits alone: exit_group is gone, the rest stays, times included).
summary_json() {
	"$P" report --summary --format json "$T/timing.log" >"$T/sum.json" &&
		"$P" report --summary --format json --filter posix_trace_syscall_exit \
			"$T/timing.log" >>"$T/sum.json" &&
		"$P" report --summary --format json "$T/timing-nosched.log" >>"$T/sum.json" || return 1
	python3 - "$T/sum.json" <<'EOF'
import json, sys
a, b, c = [json.loads(x) for x in open(sys.argv[1])]
assert all(o["type"] == "summary" for o in (a, b, c))
s = {o["syscall"]: o for o in a["syscalls"]}
assert [o["syscall"] for o in a["syscalls"]] == \
    ["nanosleep", "read", "openat", "close", "write", "exit_group"], a
assert s["nanosleep"] == {"nr": 35, "syscall": "nanosleep", "compat": False, "calls": 1,
                          "errors": 0, "timed": 1, "total_ns": 1200003000,
                          "max_ns": 1200003000, "on_cpu_ns": 3000,
                          "blocked_ns": 1200000000}, s["nanosleep"]
assert (s["read"]["calls"], s["read"]["total_ns"], s["read"]["max_ns"], s["read"]["on_cpu_ns"],
        s["read"]["blocked_ns"]) == (2, 3003200, 3002000, 3200, 3000000), s["read"]
assert (s["openat"]["calls"], s["openat"]["errors"], s["openat"]["total_ns"]) == (2, 1, 12500)
assert (s["write"]["calls"], s["write"]["timed"], s["exit_group"]["timed"]) == (1, 0, 0)
t = {o["syscall"]: o for o in b["syscalls"]}
assert "exit_group" not in t and sum(o["calls"] for o in b["syscalls"]) == 7, b
assert t["read"]["total_ns"] == 3003200 and b["events"] == 7, b
assert all(o["on_cpu_ns"] is None and o["blocked_ns"] is None for o in c["syscalls"]), c
assert [o["total_ns"] for o in c["syscalls"]] == [o["total_ns"] for o in a["syscalls"]], c
EOF
}
check "report --summary --format json: the table as \"syscalls\", --filter counts what is shown" \
	summary_json

# The kernel data decoder alone, every type and length in a buffer of
# exactly that length, with ASan and UBSan where they build.
kdata_test() {
	local cc=(cc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Iinclude -Iinclude/uapi
		  -Itools/posix-trace -o "$T/kdata_test" tests/tools/kdata_test.c
		  tools/posix-trace/{kdata,syscalls,sysflags,textfmt,jsonstr,utf8}.c)
	"${cc[@]}" -fsanitize=address,undefined -fno-sanitize-recover=all 2>/dev/null ||
		"${cc[@]}" || return 1
	"$T/kdata_test"
}
check "kdata.c: kernel data of every type cut at every length, every call, every kind of argument; flag values as the host's headers" \
	kdata_test
check "stat names the kernel event classes of a log, none for the others" sh -c \
	'"$1" stat "$2" | grep -qx "kernel events: syscall,signal,sched,fault,process" &&
	 "$1" stat "$3" | grep -qx "kernel events: none"' sh "$P" "$T/kernel.log" "$T/odd.log"
check "report --filter keeps kernel events by name" test \
	"$("$P" report --filter posix_trace_process_fork "$T/kernel.log" | grep -c ' posix_trace_process_fork ')" = 2

# --filter shows only the named types; the summary counts those.
"$P" report --filter smoke_ev,posix_trace_stop fuzz/corpus/module-append.log >"$T/filt" 2>"$T/filt.err"
rc=$?
check "report --filter shows only the named types" test $rc = 0 -a \
	"$(grep -vc '^# ' "$T/filt")" = "$(grep -c ' \(smoke_ev\|posix_trace_stop\) ' "$T/filt")"
check "report --filter: summary counts the shown events" grep -qx "# events: $(grep -vc '^# ' "$T/filt")" "$T/filt"
"$P" report --filter no_such_type fuzz/corpus/module-append.log >"$T/filt" 2>"$T/filt.err"
check "report --filter of an unknown type: warning, no events, status 0" test $? = 0 -a \
	"$(head -n1 "$T/filt")" = "# events: 0" -a -s "$T/filt.err"

# Garbage.  Files whose header is wrong must be refused (1); damage
# further on may leave a readable prefix (0).  Never a signal, never
# silent failure, never a hang.
mkdir "$T/bad" "$T/dir"
mkfifo "$T/bad/fifo"
head -c 4096 /dev/urandom >"$T/bad/random"
: >"$T/bad/empty"
for f in fuzz/corpus/module-append.log fuzz/corpus/module-loop.log; do
	b=$(basename "$f" .log)
	size=$(stat -c %s "$f")
	for cut in 8 63 100 1000 $((size / 2)) $((size - 1)); do
		head -c "$cut" "$f" >"$T/bad/$b.cut$cut"
	done
	flips=()
	for off in 0 20 70 150 1000 $((size / 2)) $((size - 8)); do
		flips+=("$off:$T/bad/$b.flip$off")
	done
	$CHECK flip "$f" "${flips[@]}"
done
must_fail=("$T/bad/fifo" "$T/bad/random" "$T/bad/empty" /dev/null "$T/dir" "$T/missing"
	   "$T"/bad/*.cut8 "$T"/bad/*.cut63 "$T"/bad/*.flip0 "$T"/bad/*.flip20)

# run_bad BIN FILE: status 0, or 1 with a message; 1 required for must_fail.
# json and csv share the reading with text; json escapes the most.
run_bad() {
	local bin=$1 f=$2 args rc strict=0 x
	for x in "${must_fail[@]}"; do [[ $x == "$f" ]] && strict=1; done
	for args in "report --format json" "stat"; do
		# shellcheck disable=SC2086
		timeout 20 "$bin" $args "$f" >/dev/null 2>"$T/err"
		rc=$?
		if ((rc == 1)) && grep -q '^posix-trace: ' "$T/err"; then
			continue
		elif ((rc == 0 && !strict)); then
			continue
		fi
		echo "# $bin $args $f: status $rc: $(head -c 300 "$T/err")" >&2
		return 1
	done
}

bad_all() {
	local bin=$1 f fail=0
	for f in fuzz/corpus/* "$T"/bad/* /dev/null "$T/dir" "$T/missing"; do
		run_bad "$bin" "$f" || fail=1
	done
	return $fail
}
check "garbage, cut, flipped logs, FIFO, directory, /dev/null, missing: status 0/1 with a message" \
	bad_all "$P"

# The same under AddressSanitizer and UBSan: any error is a failure.
if build_san_tool "$T/posix-trace-asan"; then
	export ASAN_OPTIONS=detect_leaks=1:exitcode=99 UBSAN_OPTIONS=halt_on_error=1:exitcode=98
	check "report and stat under ASan/UBSan: corpus and garbage" bad_all "$T/posix-trace-asan"
	check "report under ASan/UBSan: the escaping log" \
		"$T/posix-trace-asan" report --format json "$T/odd.log" >/dev/null
	check "report under ASan/UBSan: the kernel events log, text and json" \
		sh -c '"$1" report "$2" >/dev/null && "$1" report --format json "$2" >/dev/null' \
		sh "$T/posix-trace-asan" "$T/kernel.log"
	check "report --summary under ASan/UBSan: the kernel and timing logs, text and json" \
		sh -c 'for f in "$2" "$3" "$4"; do "$1" report --summary "$f" >/dev/null &&
			"$1" report --summary --format json "$f" >/dev/null || exit 1; done' \
		sh "$T/posix-trace-asan" "$T/kernel.log" "$T/timing.log" "$T/timing-nosched.log"
else
	ok "ASan/UBSan run # SKIP cannot build with -fsanitize: $(head -c 200 "$T/posix-trace-asan.err")"
fi

# Output errors are reported, not ignored.
"$P" report fuzz/corpus/module-loop.log >/dev/full 2>"$T/err"
check "report to a full device: status 1 with a message" test $? = 1 -a -s "$T/err"

for c in record attach report stat; do
	"$P" "$c" --help >"$T/help" 2>&1
	check "$c --help: usage on stdout, status 0" test $? = 0 -a \
		"$(head -n1 "$T/help" | cut -d' ' -f1-3)" = "usage: posix-trace $c"
done

# bad usage NAME ARGS...: status 2 and a usage message on stderr.
bad_usage() {
	"$P" "$@" >/dev/null 2>"$T/err"
	local rc=$?
	((rc == 2)) && grep -q usage: "$T/err" && return 0
	echo "# posix-trace $*: status $rc" >&2
	return 1
}
check "bad usage exits 2" bad_usage report
check "bad usage exits 2: report --format xml" bad_usage report --format xml fuzz/corpus/seq
check "bad usage exits 2: report --bogus" bad_usage report --bogus fuzz/corpus/seq
check "bad usage exits 2: report two logs" bad_usage report fuzz/corpus/seq fuzz/corpus/ring
check "bad usage exits 2: report --summary --format csv" \
	bad_usage report --summary --format csv fuzz/corpus/seq
check "bad usage exits 2: stat without log" bad_usage stat
check "bad usage exits 2: record without command" bad_usage record -o "$T/x.log"
check "bad usage exits 2: record --size 12Q" bad_usage record --size 12Q -- true
check "bad usage exits 2: record --size -1" bad_usage record --size -1 -- true
check "bad usage exits 2: record --stream-policy append" bad_usage record --stream-policy append -- true
check "bad usage exits 2: record --log-policy flush" bad_usage record --log-policy flush -- true
check "bad usage exits 2: record --kernel faults" bad_usage record --kernel faults -- true
check "bad usage exits 2: attach --kernel syscall,bogus" bad_usage attach --kernel syscall,bogus 1
check "bad usage exits 2: record --kernel ''" bad_usage record --kernel '' -- true
check "bad usage exits 2: record --kernel signal,bogus" bad_usage record --kernel signal,bogus -- true
check "bad usage exits 2: record --kernel sched,bogus" bad_usage record --kernel sched,bogus -- true

# kernel_ok ARGS...: the --kernel classes parse: status 0, or 1 without
# the module (or with one that lacks a class), never a usage error.
kernel_ok() {
	timeout 20 "$P" "$@" >/dev/null 2>"$T/err"
	local rc=$?
	((rc == 0 || rc == 1)) && ! grep -q 'usage:\|unknown kernel event class' "$T/err" &&
		return 0
	echo "# posix-trace $*: status $rc: $(head -c 300 "$T/err")" >&2
	return 1
}
for k in signal sched fault all syscall,signal signal,process,syscall sched,signal \
	syscall,fault; do
	check "record --kernel $k is accepted" kernel_ok record --kernel "$k" -o "$T/k-$k.log" -- true
done
# No process has the id pid_max: attach stops after parsing.
check "attach --kernel syscall,signal is accepted" \
	kernel_ok attach --kernel syscall,signal -o "$T/k-attach.log" "$(cat /proc/sys/kernel/pid_max)"
check "attach --kernel sched is accepted" \
	kernel_ok attach --kernel sched -o "$T/k-attach-sched.log" "$(cat /proc/sys/kernel/pid_max)"
check "attach --kernel fault is accepted" \
	kernel_ok attach --kernel fault -o "$T/k-attach-fault.log" "$(cat /proc/sys/kernel/pid_max)"
check "bad usage exits 2: attach without pid" bad_usage attach
check "bad usage exits 2: attach abc" bad_usage attach abc
check "bad usage exits 2: attach 0" bad_usage attach 0
check "bad usage exits 2: unknown command" bad_usage frobnicate

if [[ -e /dev/posix_trace ]]; then
	ok "record and attach without the module # SKIP /dev/posix_trace exists"
else
	(cd "$T" && "$OLDPWD/$P" record -- true) 2>"$T/err"
	check "record without the module: status 1, says to load it, writes no log" \
		test $? = 1 -a ! -e "$T/posix-trace.log" -a \
		"$(grep -c 'is the posix_trace module loaded?' "$T/err")" = 1
	"$P" attach -o "$T/a.log" 1 2>"$T/err"
	check "attach without the module: status 1, says to load it" \
		test $? = 1 -a "$(grep -c 'is the posix_trace module loaded?' "$T/err")" = 1
fi
