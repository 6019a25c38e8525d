#!/bin/bash
# Host tests of "posix-trace convert" (run by tests/tools/run): the CTF
# export read back by the real babeltrace2 and the Chrome export by a JSON
# parser, both compared event by event with the reference, on the logs
# the module wrote (fuzz/corpus/module-*.log) and on logs whose names and
# data hold every byte quoting must survive; exit codes, refusals, and no
# crash on damaged input.
#
# Kernel events (convert_helper kernel: system calls, off-CPU time,
# signals, faults, processes, records cut short) have exports of their
# own, checked against what that log holds (convert_check.py kchrome,
# kbt2): slices and decoded instants in the JSON, typed fields in CTF.
#
# The reference is "convert_helper dump": each event as the library's
# posix_trace_getnext_event() returns it (its own reading, not the tool's
# logview.c), as "NS NAME_HEX PID THREAD ADDRESS TRUNCATION DATA_HEX".
# To compare with another reader, change reference() only.
set -uo pipefail

PT=$PWD/tools/posix-trace/posix-trace
CHECK="python3 tests/tools/convert_check.py"
T=$(mktemp -d /tmp/convert-test.XXXXXX) || exit 2
trap 'rm -rf "$T"' EXIT

. tests/tools/lib.sh

reference() { "$T/helper" dump "$1"; }

bt2_events() { babeltrace2 --clock-seconds --no-delta "$@" | $CHECK bt2; }

have_bt2=1 have_py=1
command -v babeltrace2 >/dev/null || have_bt2=0
command -v python3 >/dev/null || have_py=0

if ! cc -std=gnu11 -Wall -Wextra -Werror -pthread -Iinclude -Iinclude/uapi -Ilibtrace \
	-Itests/unit -o "$T/helper" tests/tools/convert_helper.c libtrace/libposixtrace.a -pthread; then
	not_ok "convert: build the test helper"
	exit 1
fi
# The exporters' hash table alone, with ASan and UBSan where they build.
table_test() {
	local cc=(cc -std=gnu11 -O1 -g -Wall -Wextra -Werror -Itools/posix-trace -o "$T/table_test"
		  tests/tools/table_test.c tools/posix-trace/table.c -Wl,--wrap=calloc,--wrap=realloc)
	"${cc[@]}" -fsanitize=address,undefined -fno-sanitize-recover=all 2>/dev/null ||
		"${cc[@]}" || return 1
	"$T/table_test"
}
check "table.c: 200000 keys numbered in order through every growth, found again; a failed growth gives ENOMEM, table unchanged" table_test

"$T/helper" odd "$T/odd.log" || exit 1
"$T/helper" odd "$T/many.log" 3000 || exit 1
"$T/helper" odd "$T/back.log" 40 back || exit 1
"$T/helper" kernel "$T/kernel.log" || exit 1

# --- command line ---
out=$("$PT" convert --help 2>"$T/err"); rc=$?
check "convert --help prints the usage on stdout and exits 0" \
	test $rc -eq 0 -a ! -s "$T/err" -a "${out:0:27}" = "usage: posix-trace convert "
usage_errors=0
for args in "" "$T/odd.log" "--ctf $T/u1" "$T/odd.log $T/odd.log --ctf $T/u2" \
	"$T/odd.log --bogus --ctf $T/u3" "$T/odd.log --ctf"; do
	# shellcheck disable=SC2086 # split on purpose
	"$PT" convert $args >/dev/null 2>&1
	rc=$?
	[[ $rc -eq 2 ]] || { echo "# convert $args: exit $rc, want 2"; usage_errors=1; }
done
check "convert usage errors (no LOG, no output, two LOGs, bad option) exit 2 and write nothing" \
	test $usage_errors -eq 0 -a ! -e "$T/u1" -a ! -e "$T/u2" -a ! -e "$T/u3"

# --- exports equal the reference ---
logs=(fuzz/corpus/module-*.log fuzz/corpus/seq fuzz/corpus/ring "$T/odd.log" "$T/many.log")
for log in "${logs[@]}"; do
	b=$(basename "$log")
	reference "$log" >"$T/$b.ref"
	"$PT" convert "$log" --ctf "$T/$b.ctf" --chrome "$T/$b.json" 2>"$T/err"
	rc=$?
	n=$(wc -l <"$T/$b.ref")
	check "convert $b (--ctf and --chrome together) exits 0 silently" \
		test $rc -eq 0 -a ! -s "$T/err" -a "$n" -gt 0
	if ((have_bt2)); then
		bt2_events "$T/$b.ctf" >"$T/$b.bt"
		check "CTF of $b read by babeltrace2: $n events, names, ns timestamps, payloads equal the reference" \
			cmp -s "$T/$b.ref" "$T/$b.bt"
	else
		ok "CTF of $b read by babeltrace2 # SKIP babeltrace2 missing (scripts/deps)"
	fi
	if ((have_py)); then
		check "Chrome JSON of $b: valid JSON, Trace Event Format fields, $n events equal the reference" \
			$CHECK chrome "$T/$b.ref" "$T/$b.json"
		"$PT" report --format json "$log" >"$T/$b.report" 2>/dev/null
		check "posix-trace report of $b shows the same $n events as the reference, so as both exports" \
			$CHECK report "$T/$b.ref" <"$T/$b.report"
	else
		ok "Chrome JSON of $b # SKIP python3 missing"
	fi
done
# One escaper: names with control characters and bytes that are not
# UTF-8 (odd.log has both) are the same JSON text in both outputs.
((have_py)) && check "odd.log: report --format json and convert --chrome write each name as the same JSON text" \
	$CHECK names "$T/odd.log.report" "$T/odd.log.json"
check "CTF of many.log spans several packets" test "$(stat -c %s "$T/many.log.ctf/stream")" -gt 200000

# Each output alone is the same as both together; "-" is stdout.
"$PT" convert "$T/odd.log" --chrome "$T/alone.json" &&
	"$PT" convert "$T/odd.log" --chrome - >"$T/stdout.json"
same_files() { cmp -s "$1" "$2" && cmp -s "$2" "$3"; }
check "--chrome alone and --chrome - write what --ctf --chrome writes" \
	same_files "$T/odd.log.json" "$T/alone.json" "$T/stdout.json"
if ((have_bt2)); then
	"$PT" convert "$T/odd.log" --ctf "$T/alone.ctf" && bt2_events "$T/alone.ctf" >"$T/alone.bt"
	check "--ctf alone writes what --ctf --chrome writes" cmp -s "$T/alone.bt" "$T/odd.log.bt"
fi

# A log out of time order (only a damaged one is): the CTF trace stays
# readable (each late event at the time of the one before), with a warning;
# the JSON keeps the log's times.
"$PT" convert "$T/back.log" --ctf "$T/back.ctf" --chrome "$T/back.json" 2>"$T/err"
rc=$?
reference "$T/back.log" >"$T/back.ref"
first=$(awk 'NR == 1 { print $1 }' "$T/back.ref")
awk -v t="$first" '{ $1 = t; print }' "$T/back.ref" >"$T/back.want"
warned=$(grep -c "39 events earlier than the event before them" "$T/err")
check "a log going back in time converts with a warning" test $rc -eq 0 -a "$warned" -eq 1
if ((have_bt2)); then
	bt2_events "$T/back.ctf" >"$T/back.bt"
	check "babeltrace2 reads it, every event at the first one's time" cmp -s "$T/back.want" "$T/back.bt"
fi
((have_py)) && check "its JSON keeps the log's times (negative ts)" \
	$CHECK chrome "$T/back.ref" "$T/back.json"

# --- kernel events ---
"$PT" convert "$T/kernel.log" --ctf "$T/kernel.ctf" --chrome "$T/kernel.json" 2>"$T/err"
rc=$?
reference "$T/kernel.log" >"$T/kernel.ref"
check "convert of a log of kernel events (--ctf and --chrome) exits 0 silently" \
	test $rc -eq 0 -a ! -s "$T/err"
if ((have_py)); then
	check "Chrome JSON of kernel events: system calls as slices of their thread's track (pid, kernel tid; B at the entry, E at the exit, args ret/errno/path), off-CPU time as slices named by the reason nested in them, nesting valid, times to the ns; unfinished calls end at the next call, an exec, the process's exit or the log's end; signals, faults, wake-ups, fork, exec, exit and an exit without entry as decoded instants of the thread" \
		$CHECK kchrome "$T/kernel.json"
	check "Chrome JSON of kernel events: the user event in it as before, every track named" \
		$CHECK chrome "$T/kernel.ref" "$T/kernel.json"
	"$PT" report --format json "$T/kernel.log" >"$T/kernel.report" 2>/dev/null
	check "report --format json and convert --chrome name the user events of the kernel log alike" \
		$CHECK names "$T/kernel.report" "$T/kernel.json"
else
	ok "Chrome JSON of kernel events # SKIP python3 missing"
fi
if ((have_bt2 && have_py)); then
	babeltrace2 --clock-seconds --no-delta "$T/kernel.ctf" >"$T/kernel.bt" 2>"$T/err"
	check "CTF of kernel events read by babeltrace2: every event at its time, its tid, fields by name (nr = 257, path = \"/etc/passwd\", signo = 10, code = -6, reason = BLOCKED, address, ip), the user event's as before" \
		$CHECK kbt2 "$T/kernel.ref" <"$T/kernel.bt"
	check "CTF of kernel records cut short: zero-extended to the whole structure, data_length says what was there" \
		grep -q "data_length = 4, signo = 15, code = 0, sender_pid = 0, result = ( \"DELIVERED\" : container = 0 ), flags = 0x0 }" "$T/kernel.bt"
else
	ok "CTF of kernel events read by babeltrace2 # SKIP babeltrace2 or python3 missing (scripts/deps: apt-get install babeltrace2)"
fi

# --- refusals ---
mkdir "$T/empty" "$T/full"
echo keep >"$T/full/x"
"$PT" convert "$T/odd.log" --ctf "$T/empty" >/dev/null 2>&1
check "an existing empty DIR is used" test $? -eq 0 -a -s "$T/empty/metadata" -a -s "$T/empty/stream"
"$PT" convert "$T/odd.log" --ctf "$T/full" --chrome "$T/full.json" 2>"$T/err"
rc=$?
check "a DIR that is not empty is refused (exit 1), left as it was, nothing written" \
	test $rc -eq 1 -a "$(ls "$T/full")" = x -a ! -e "$T/full.json"
grep -q "not an empty directory" "$T/err" || echo "# message: $(cat "$T/err")"
bad=0
for log in /nonexistent /etc/passwd "$T" /dev/null; do
	"$PT" convert "$log" --ctf "$T/bad.ctf" --chrome "$T/bad.json" 2>"$T/err"
	rc=$?
	if [[ $rc -ne 1 || ! -s $T/err || -e $T/bad.ctf || -e $T/bad.json ]]; then
		echo "# convert $log: exit $rc, $(cat "$T/err")"
		bad=1
	fi
done
check "a LOG that is missing, not a log, a directory or empty: exit 1, a message, nothing left" \
	test $bad -eq 0
"$PT" convert "$T/odd.log" --ctf "$T/nodir/sub" 2>/dev/null
check "a DIR whose parent is missing: exit 1" test $? -eq 1
"$PT" convert "$T/many.log" --ctf "$T/wfail.ctf" --chrome /dev/full 2>"$T/err"
rc=$?
check "a write error (--chrome /dev/full): exit 1, the error said, the CTF removed, /dev/full kept" \
	test $rc -eq 1 -a -c /dev/full -a ! -e "$T/wfail.ctf" -a -n "$(grep 'No space left' "$T/err")"

# --- damaged and garbage inputs: exit 0 or 1, never a signal; what
# converts is still read by babeltrace2 and JSON, and equals the reference
mkdir "$T/g"
i=0
for f in fuzz/corpus/* "$T/odd.log" "$T/kernel.log"; do
	size=$(stat -c %s "$f")
	for cut in 0 1 8 63 64 65 100 200 $((size / 3)) $((size / 2)) $((size - 9)) $((size - 1)); do
		((cut >= 0 && cut <= size)) || continue
		head -c "$cut" "$f" >"$T/g/$i"
		i=$((i + 1))
	done
	for seed in 1 2 3 4 5 6; do
		cp "$f" "$T/g/$i"
		# Overwrite 4 bytes at a pseudo-random offset past the header.
		off=$(((seed * 7919 * 104729) % (size > 80 ? size - 70 : 1) + 64))
		printf '\xff\x00\x7f\x80' | dd of="$T/g/$i" bs=1 seek="$off" conv=notrunc 2>/dev/null
		i=$((i + 1))
	done
done
head -c 4096 /dev/urandom >"$T/g/$i"
crashed=0 converted=() pairs=() events=0
for g in "$T"/g/*; do
	"$PT" convert "$g" --ctf "$g.ctf" --chrome "$g.json" >/dev/null 2>&1
	rc=$?
	if ((rc == 0)); then
		converted+=("$g.ctf")
		reference "$g" >"$g.ref"
		events=$((events + $(wc -l <"$g.ref")))
		pairs+=("$g.ref" "$g.json")
	elif ((rc != 1)); then
		echo "# convert $g: exit $rc"
		crashed=1
	fi
done
check "$i damaged inputs: exit 0 or 1, never a signal (${#converted[@]} convert)" test $crashed -eq 0
if ((${#converted[@]})); then
	((have_py)) && check "the JSON of every damaged input that converts equals the reference" \
		$CHECK chrome "${pairs[@]}"
	if ((have_bt2)); then
		n=$(bt2_events "${converted[@]}" | wc -l)
		check "babeltrace2 reads the CTF of all of them at once: $events events" \
			test "$n" -eq "$events"
	fi
fi
exit 0
