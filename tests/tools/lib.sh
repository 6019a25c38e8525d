# shellcheck shell=bash
# What every tests/tools/*.sh prints (tests/tools/run counts it): sourced.

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; }
# skip NAME WHY
skip() { echo "ok - $1 # SKIP $2"; }
# check NAME CMD...: ok if CMD succeeds, else not ok with the end of what
# CMD printed; returns CMD's verdict.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		not_ok "$name"
		printf '%s\n' "$out" | sed 's/^/#   /' | tail -n 30
		return 1
	fi
}

# build_san_tool OUT [SOURCE...]: posix-trace built with ASan and UBSan,
# the SOURCEs linked in too (they may stand in for library functions);
# what the compiler said in OUT.err.  Run from the repository root.
build_san_tool() {
	local out=$1
	shift
	cc -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer -Iinclude -Iinclude/uapi -o "$out" \
		tools/posix-trace/*.c "$@" -Llibtrace -lposixtrace -Wl,-rpath,"$PWD/libtrace" \
		-pthread 2>"$out.err"
}
