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
