#!/bin/bash
# `make check-install`: the Debian packages of each release built in that
# release (`make deb DEB_RELEASE=...`), then installed, booted and removed
# there by tests/install/run.sh:
#
#   tests/install/releases.sh RELEASE...      # bookworm trixie
#
# Ends with the sum of the runs' "N passed, N failed" lines; the exit status
# is 0 iff none failed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${BUILD:-$repo/build}
[ $# -gt 0 ] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

npass=0 nfail=0
for release in "$@"; do
	echo "== install test: Debian $release"
	log=$build/install-$release.log
	mkdir -p "$build"
	if make -C "$repo" --no-print-directory deb DEB_RELEASE="$release" > "$log" 2>&1; then
		echo "PASS $release: make deb DEB_RELEASE=$release"
		npass=$((npass + 1))
		"$here/run.sh" --release "$release" 2>&1 | tee -a "$log"
		if [[ $(tail -n 1 "$log") =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
			npass=$((npass + BASH_REMATCH[1]))
			nfail=$((nfail + BASH_REMATCH[2]))
		else
			echo "FAIL $release: the install test gave no result (log: $log)"
			nfail=$((nfail + 1))
		fi
	else
		tail -n 30 "$log"
		echo "FAIL $release: make deb DEB_RELEASE=$release (log: $log)"
		nfail=$((nfail + 1))
	fi
done
echo "$npass passed, $nfail failed"
[ "$nfail" = 0 ]
