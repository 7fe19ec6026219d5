#!/bin/sh
# quiet.sh CMD...: waits until the two vCPUs have been at least 90 % idle for 3 s in a row,
# then runs CMD. The VM is shared with another session's builds and tests (session 63 waited
# for cc1 alone; session 64 found test binaries and `rowreduce` runs taking both cores, copy
# speed down to 10 GB/s): the idle time of /proc/stat, a second at a time.
sample() {
	read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
	echo $((user + nice + system + irq + softirq + steal)) $((idle + iowait))
}
n=0
while [ $n -lt 3 ]; do
	read -r b0 i0 <<EOS
$(sample)
EOS
	sleep 1
	read -r b1 i1 <<EOS
$(sample)
EOS
	if [ $(((i1 - i0) * 100 / (b1 - b0 + i1 - i0 + 1))) -ge 90 ]; then
		n=$((n + 1))
	else
		n=0
	fi
done
exec "$@"
