#!/bin/sh
# quiet.sh CMD...: waits until no compiler (cc1) has run for 3 s, then runs CMD (the VM is
# shared with another session's builds, which take one or both of its two cores).
n=0
while [ $n -lt 3 ]; do
	if pgrep -x cc1 >/dev/null || pgrep -x cc1plus >/dev/null || pgrep -x ld >/dev/null; then
		n=0
	else
		n=$((n + 1))
	fi
	sleep 1
done
exec "$@"
