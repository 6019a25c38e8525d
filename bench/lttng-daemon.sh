# shellcheck shell=bash
# An LTTng session daemon of our own, for bench/measure and bench/record
# (user space only) and bench/kernel-events (--kernel): LTTNG_HOME in a
# fresh temporary directory, started and stopped by the pid we started
# (never by name), clients that never spawn another one.
# Sourced; uses $lttng_home and $sessiond_pid, and $lttng_na for why not.

lttng_home=""
sessiond_pid=""

# --no-sessiond: the client must never spawn a daemon we do not know of.
lt() { lttng --no-sessiond "$@" >>"$lttng_home/lttng.log" 2>&1; }

# Starts the daemon; 0, or 1 with lttng_na set.  --kernel: with the
# kernel tracer (root; the daemon modprobes lttng-modules, which must be
# installed for the running kernel), and fails unless "lttng list -k"
# works.  Without it the daemon runs --no-kernel.
lttng_daemon_start() {
	local i kernel=0 tries=600 reason
	[[ ${1:-} == --kernel ]] && kernel=1
	command -v lttng-sessiond >/dev/null || { lttng_na="n/a (lttng-tools not installed)"; return 1; }
	if ((kernel)) && [[ $(id -u) != 0 ]]; then
		lttng_na="n/a (kernel tracing needs root)"
		return 1
	fi
	lttng_home=$(mktemp -d "${TMPDIR:-/tmp}/ptbench-lttng.XXXXXX")
	export LTTNG_HOME=$lttng_home
	# Root's daemon lives in /var/run/lttng whatever LTTNG_HOME says, so
	# another one there would take our commands.
	if lt list; then
		lttng_na="n/a (another lttng-sessiond is running)"
		return 1
	fi
	if ((kernel)); then
		# Loading some 40 modules takes long under TCG.
		tries=1800
		lttng-sessiond >"$lttng_home/sessiond.log" 2>&1 &
	else
		lttng-sessiond --no-kernel >"$lttng_home/sessiond.log" 2>&1 &
	fi
	sessiond_pid=$!
	for ((i = 0; i < tries; i++)); do
		lt list && break
		kill -0 "$sessiond_pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! lt list; then
		lttng_na="n/a (lttng-sessiond did not start: $(tail -n1 "$lttng_home/sessiond.log" | tr '\t' ' '))"
		return 1
	fi
	if ((kernel)) && ! lt list -k; then
		reason=$(grep -m1 -iE 'error|unable|fail' "$lttng_home/sessiond.log" |
			sed 's/^.*\] //' | tr '\t' ' ' | cut -c1-100)
		lttng_na="n/a (LTTng kernel tracer not available${reason:+: $reason})"
		return 1
	fi
	return 0
}

# Stops the daemon after destroying session $1 (if given).
lttng_daemon_stop() {
	local i
	[[ -n $lttng_home ]] || return 0
	if [[ -n $sessiond_pid ]]; then
		[[ -z ${1:-} ]] || lt destroy "$1" || true
		kill "$sessiond_pid" 2>/dev/null || true
		for ((i = 0; i < 100; i++)); do
			kill -0 "$sessiond_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$sessiond_pid" 2>/dev/null || true
		wait "$sessiond_pid" 2>/dev/null || true
		sessiond_pid=""
	fi
	rm -rf "$lttng_home"
	lttng_home=""
}
