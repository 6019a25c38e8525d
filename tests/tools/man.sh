#!/bin/bash
# Man pages (man/man*/*): each renders without a warning from groff and
# from man-db; then tests/tools/man-pages.py checks what they say against
# the sources (exports, <trace.h> prototypes, aliases, sections, the
# command's subcommands and options, the module's parameters).
# Run by tests/tools/run from the repository root; no module needed.
set -uo pipefail

# The same rendering everywhere: UTF-8, 80 columns, no pager.
export LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat PAGER=cat
ALL=(man/man*/*.[1-8])
# The pages that are not ".so" aliases: man-db renders an alias as the
# page it names, which groff -s already checks the alias resolves to.
mapfile -t MAIN < <(grep -L '^\.so ' "${ALL[@]}")

# lint NAME PAGES... -- CMD...: runs CMD on each page from man/ (where
# ".so man3/x.3" resolves); prints "ok"/"not ok" for test NAME and, on
# failure, what CMD printed for each page.
lint() {
	local name=$1 page out bad=0 pages=()
	shift
	while [[ $1 != -- ]]; do
		pages+=("$1")
		shift
	done
	shift
	for page in "${pages[@]}"; do
		out=$(cd man && "$@" "${page#man/}" 2>&1 >/dev/null)
		if [[ -n $out ]]; then
			printf '# %s:\n%s\n' "$page" "$(sed 's/^/#   /' <<<"$out")"
			bad=1
		fi
	done
	if ((bad)); then echo "not ok - $name"; else echo "ok - $name"; fi
}

# groff's own warnings on a terminal device; -s: the .so of alias pages,
# -t: tables (a page with one says so on its first line, as man-db needs:
# man-pages.py checks that).
groff_lint() {
	groff -s -t -man -Tutf8 -ww -z "$1"
}

# man-db's view: preprocessors from the page's '\" line, its own width.
man_lint() {
	man --warnings -l "$1"
}

if ! command -v groff >/dev/null; then
	echo "ok - man pages render without groff warnings # SKIP groff not installed"
else
	lint "man pages render without groff warnings" "${ALL[@]}" -- groff_lint
fi
if ! command -v man >/dev/null; then
	echo "ok - man -l renders every page without warnings # SKIP man-db not installed"
else
	lint "man -l renders every page without warnings" "${MAIN[@]}" -- man_lint
fi
python3 tests/tools/man-pages.py
