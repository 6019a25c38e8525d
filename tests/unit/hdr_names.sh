#!/bin/sh
# REQ: MODEL-52
# Every name <trace.h> adds to what its own includes define is
# the standard's (posix_, POSIX_, _POSIX_, trace_, TRACE_) or reserved to
# the implementation (__, _ and an uppercase letter).
#   usage: hdr_names.sh CC INCDIR
# Prints one "ok"/"not ok" line.
set -u
cc=$1 inc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <sys/types.h>\n#include <stddef.h>\n#include <time.h>\n#include <unistd.h>\n#include <limits.h>\n#include <pthread.h>\n' >"$tmp/base.c"
printf '#include <trace.h>\n' >"$tmp/trace.c"
# Macros
$cc -E -dM -I"$inc" "$tmp/base.c" | awk '{print $2}' | sed 's/(.*//' | sort -u >"$tmp/base.m"
$cc -E -dM -I"$inc" "$tmp/trace.c" | awk '{print $2}' | sed 's/(.*//' | sort -u >"$tmp/trace.m"
# Identifiers declared at file scope: typedef names, functions, tags.
$cc -E -P -I"$inc" "$tmp/base.c" >"$tmp/base.i"
$cc -E -P -I"$inc" "$tmp/trace.c" >"$tmp/trace.i"
ids() {
	tr -c 'A-Za-z0-9_' '\n' <"$1" | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | sort -u
}
ids "$tmp/base.i" >"$tmp/base.id"
ids "$tmp/trace.i" >"$tmp/trace.id"
{
	comm -13 "$tmp/base.m" "$tmp/trace.m"
	comm -13 "$tmp/base.id" "$tmp/trace.id"
} | sort -u | grep -Ev '^(posix_|POSIX_|_POSIX_|trace_|TRACE_|__|_[A-Z])' \
	>"$tmp/bad"
# C keywords are not names.  Parameter names count: an application may
# define a macro "attr" before including <trace.h>.
grep -Ev '^(restrict|const|int|void|char|unsigned|long|struct|union|enum|typedef|extern|static|inline|signed|short|return|if|else|sizeof)$' \
	"$tmp/bad" >"$tmp/bad2"
if [ -s "$tmp/bad2" ]; then
	echo "# names outside the reserved prefixes:" $(cat "$tmp/bad2")
	echo "not ok 5 - <trace.h> defines only reserved names (MODEL-52)"
else
	echo "ok 5 - <trace.h> defines only reserved names (MODEL-52)"
fi
