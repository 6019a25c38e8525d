# shellcheck shell=bash
# The kernel flavours posix-trace is tested on ("make check KERNEL=..."),
# as the suffix of Debian's metapackages linux-image-<suffix> and
# linux-headers-<suffix>.  Sourced by scripts/deps and scripts/kver.
#
#   (none)    linux-image-amd64          Debian 12's kernel (6.1)
#   rt        linux-image-rt-amd64       6.1 with PREEMPT_RT
#   6.12      linux-image-6.12-amd64     6.12 (bookworm-security; Debian 13's)
#   6.12-rt   linux-image-6.12-rt-amd64  6.12 with PREEMPT_RT

# Prints the package suffix of flavour $1 (empty: the default); fails,
# saying so, for a flavour it does not know.
kflavour_suffix() {
	case ${1:-} in
	"") echo amd64 ;;
	rt) echo rt-amd64 ;;
	6.12) echo 6.12-amd64 ;;
	6.12-rt) echo 6.12-rt-amd64 ;;
	*)
		echo "unknown kernel flavour '$1' (known: rt, 6.12, 6.12-rt)" >&2
		return 1
		;;
	esac
}
