#!/bin/bash
# posix-trace report, stat and convert on hostile logs, built with
# AddressSanitizer and UBSan: logs from someone else whose blocks are all
# valid (CRCs match) and whose values are what an attacker chooses
# (tests/tools/hostile_mklog.c writes them).  Any sanitizer report, signal
# or hang is a failure.  examples/analyzer, which reads logs too, is run
# on them as well.
set -uo pipefail

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

. tests/tools/lib.sh

if ! cc -std=gnu11 -Wall -Wextra -Werror -Iinclude -Iinclude/uapi -Ilibtrace -Itests/unit \
	-D_GNU_SOURCE -o "$T/mklog" tests/tools/hostile_mklog.c libtrace/libposixtrace.a \
	-ldl -pthread; then
	not_ok "hostile_mklog builds"
	exit 1
fi
for k in maxdata bigdata longname span backspan escape bare; do
	"$T/mklog" "$k" "$T/$k.log" || { not_ok "hostile_mklog writes $k.log"; exit 1; }
done
if ! build_san_tool "$T/pt" || ! build_san_tool "$T/pt-huge" tests/tools/hostile_shim.c; then
	ok "hostile logs # SKIP cannot build with -fsanitize: $(head -c 200 "$T/pt.err")"
	exit 0
fi
export ASAN_OPTIONS=detect_leaks=1:exitcode=99
export UBSAN_OPTIONS=halt_on_error=1:exitcode=98:print_stacktrace=1

# run BIN ARGS...: BIN's status; its output in $T/out, stderr in $T/err.
run() {
	timeout 60 "$@" >"$T/out" 2>"$T/err"
}

# Every command that reads a log, as "ARGS" (the log is added last).
readers=("report" "report --format json" "report --format csv" "stat"
	 "convert --chrome $T/x.json" "convert --ctf $T/x.ctf")

# status BIN LOG WANT: every reader of LOG exits WANT, and with 1 says why.
status() {
	local bin=$1 log=$2 want=$3 args rc fail=0
	for args in "${readers[@]}"; do
		rm -rf "$T/x.json" "$T/x.ctf"
		# shellcheck disable=SC2086 # split on purpose
		run "$bin" $args "$log"
		rc=$?
		if ((rc != want)) || { ((rc == 1)) && ! grep -q '^posix-trace: ' "$T/err"; }; then
			echo "# $args: status $rc, want $want: $(head -c 400 "$T/err")"
			fail=1
		fi
	done
	return $fail
}

# --- 11: sizes from the log ---
check "max-data-size 2^64-1 in the log: every reader exits 1 with a message" \
	status "$T/pt" "$T/maxdata.log" 1
# The tool on its own: a getter saying SIZE_MAX must not size a buffer.
json_lens() {
	run "$T/pt-huge" report --format json "$T/bigdata.log" || return 1
	test "$(grep -c '"len":4000,' "$T/out")" = 3
}
check "max-data-size SIZE_MAX from the library: the tools' sizes do not wrap" \
	status "$T/pt-huge" "$T/bigdata.log" 0
check "max-data-size SIZE_MAX from the library: report shows 3 events of 4000 bytes" json_lens

# --- 13: a LOOP log of the most slots the format allows (8 MiB) ---
# Reading it was quadratic: about 36 minutes.  tests/unit/test_log_hostile
# counts the reads; this is the tool's view, with a bound no machine
# misses.
big_ring() {
	"$T/mklog" ring 65536 "$T/ring.log" && run "$T/pt" report --format json "$T/ring.log" &&
		tail -n1 "$T/out" | grep -q '^{"type":"summary","events":65536,' ||
		{ echo "# status $?: $(head -c 300 "$T/err")"; return 1; }
}
check "a LOOP log of 65536 slots: report reads it within 60 s" big_ring
rm -f "$T/ring.log"

# --- 15: names of TRACE_EVENT_NAME_MAX (255) bytes need 256 ---
long=$(printf 'n%.0s' {1..255})
long_name_shown() {
	run "$T/pt" report "$T/longname.log" && grep -q " $long 1 bytes: 78 |x|\$" "$T/out" &&
		grep -qx "# type $long: 1" "$T/out" || return 1
	run "$T/pt" stat "$T/longname.log" && grep -qx "  257 $long" "$T/out"
}
check "a 255-byte event name: every reader exits 0" status "$T/pt" "$T/longname.log" 0
check "a 255-byte event name: report and stat show it whole" long_name_shown
if cc -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Iinclude -o "$T/analyzer" examples/analyzer.c -Llibtrace -lposixtrace \
	-Wl,-rpath,"$PWD/libtrace" -pthread 2>"$T/analyzer.err"; then
	check "a 255-byte event name: examples/analyzer shows it" \
		eval 'run "$T/analyzer" "$T/longname.log" && grep -q "^$long " "$T/out"'
else
	not_ok "examples/analyzer builds with ASan: $(head -c 200 "$T/analyzer.err")"
fi
# Every buffer given to posix_trace_eventid_get_name() holds the NUL too.
short_buffers() {
	grep -rnE --include='*.c' --include='*.h' \
		'^\s*(static\s+)?char\b[^;=]*\[(POSIX_)?TRACE_EVENT_NAME_MAX\]' \
		bench examples fuzz include libtrace selftests tests tools && return 1
	return 0
}
check "no name buffer of TRACE_EVENT_NAME_MAX bytes in the tree (the NUL makes 256)" short_buffers

# --- 17: the span of events at realtime 0 and 2^64 - 1 ns ---
# span LOG SIGN: the text and JSON summaries give the exact span.
span() {
	run "$T/pt" report "$T/$1.log" &&
		grep -qx "# span: ${2}18446744073.709551615 s" "$T/out" &&
		run "$T/pt" report --format json "$T/$1.log" &&
		tail -n1 "$T/out" | grep -q "\"span_ns\":${2}18446744073709551615," ||
		{ head -c 400 "$T/err"; return 1; }
}
check "events 2^64-1 ns apart: report gives the span exactly, no overflow" span span ""
check "events 2^64-1 ns apart, later one first: a negative span, no overflow" span backspan -

# --- 14: names a terminal or a spreadsheet would obey ---
# Every output of every reader is UTF-8 without a control character, CSV
# without a formula; report's three formats still give every name back.
escaped() {
	local log=$T/escape.log
	run "$T/pt" report "$log" && cp "$T/out" "$T/e.txt" &&
		run "$T/pt" report --format json "$log" && cp "$T/out" "$T/e.json" &&
		run "$T/pt" report --format csv "$log" && cp "$T/out" "$T/e.csv" &&
		run "$T/pt" stat "$log" && cp "$T/out" "$T/e.stat" &&
		run "$T/pt" convert "$log" --chrome - && cp "$T/out" "$T/e.chrome" &&
		run "$T/pt" convert "$log" --ctf "$T/e.ctf" || { cat "$T/err"; return 1; }
	python3 tests/tools/cli_check.py clean "$T"/e.{txt,json,csv,stat,chrome} \
		"$T/e.ctf/metadata" || return 1
	python3 tests/tools/cli_check.py compare "$log" "$T/e.txt" "$T/e.json" "$T/e.csv" &&
		python3 tests/tools/convert_check.py names "$T/e.json" "$T/e.chrome"
}
if python3 -c 1 2>/dev/null; then
	check "names with ESC, BEL, CSI, bidi controls, formulas: escaped in every output, read back whole" \
		escaped
	[[ -x $T/analyzer ]] &&
		check "names with ESC, BEL, CSI, bidi controls: examples/analyzer prints none" \
			eval 'run "$T/analyzer" "$T/escape.log" &&
			      python3 tests/tools/cli_check.py clean "$T/out"'
else
	skip "names that need escaping" "python3 missing"
fi

# --- found by fuzz/tools_fuzz: no event type at all ---
check "a log without events or event types: every reader exits 0" status "$T/pt" "$T/bare.log" 0
