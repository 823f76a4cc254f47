#!/bin/sh
# Runs the kernel's checkpatch.pl (from Debian's linux-source-6.1) on every
# kernel source file of the project; fails on any error.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
src=/usr/src/linux-source-6.1
cp="$src/scripts/checkpatch.pl"
if [ ! -f "$cp" ]; then
	cache="$top/build/linux-source"
	cp="$cache/linux-source-6.1/scripts/checkpatch.pl"
	if [ ! -f "$cp" ]; then
		mkdir -p "$cache"
		tar -C "$cache" -xf "$src.tar.xz" \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch
	fi
fi
cd "$top"
files=$(git ls-files 'src/*.[chS]' 'include/*.h' 'tests/kmod/*.[chS]')
# shellcheck disable=SC2086
out=$(perl "$cp" --no-tree --terse --show-types -f $files 2>&1 || true)
echo "$out" | grep -E 'ERROR|WARNING' || true
! echo "$out" | grep -q ERROR
