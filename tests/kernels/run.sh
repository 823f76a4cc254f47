#!/bin/bash
# The VM scenarios on every Debian kernel of tests/kernels/kernels.list:
#
#   tests/kernels/run.sh [--kernels NAME,...] [--timeout S] [SCENARIO... | all]
#
# For each kernel: its image and headers, the newest of its series, from
# Debian's archive through the apt of that release's chroot
# (scripts/debian-chroot.sh; the machine's apt sources, /boot and
# /lib/modules are not touched); the modules built there against those
# headers with that release's compiler, into BUILD/kernels/NAME/; then the
# scenarios (default all) booted on that kernel by tests/vm/run.sh with the
# userspace programs of BUILD/bin (`make all` first).  Images are cached in
# $PN_CACHE (default /var/cache/pnotify)/kernel-PACKAGE_VERSION/.
#
# Prints one table, kernel | compiler | builds | scenarios, and ends with
# "N passed, N failed" (a kernel's build counts as one test, each scenario
# as one); the exit status is 0 iff none failed.  VM logs:
# BUILD/kernels/NAME/vm/logs/.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${BUILD:-$repo/build}
cache=${PN_CACHE:-/var/cache/pnotify}
chroot_sh=$repo/scripts/debian-chroot.sh

usage() {
	sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
only='' timeout=300
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) [ $# -ge 2 ] || usage; only=,$2,; shift 2 ;;
	--timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
	-*) usage ;;
	*) break ;;
	esac
done
scenarios=("${@:-all}")
[ "$(id -u)" = 0 ] || { echo "run.sh: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
[ -x "$build/bin/jobctl" ] || { echo "run.sh: no $build/bin/jobctl: run 'make all' first" >&2; exit 2; }

mapfile -t kernels < <(grep -v -e '^#' -e '^[[:space:]]*$' "$here/kernels.list")
if [ -n "$only" ]; then
	for k in ${only//,/ }; do
		printf '%s\n' "${kernels[@]}" | grep -q "^$k " ||
			{ echo "run.sh: no kernel '$k' in kernels.list" >&2; exit 2; }
	done
fi

npass=0 nfail=0 nskip=0 rows=()
updated=' '

# resolve CHROOT PACKAGE SUITE: prints the image package that PACKAGE (a
# metapackage) stands for in SUITE ("-": the release's candidate), and its
# version.
resolve() {
	local pkg=$2 img ver
	[ "$3" = - ] || pkg=$2/$3
	img=$("$chroot_sh" "$1" run apt-cache show --no-all-versions "$pkg" |
		sed -n 's/^Depends: //p' | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
		grep -m1 '^linux-image-') || return 1
	ver=$("$chroot_sh" "$1" run apt-cache show --no-all-versions "$img" |
		sed -n 's/^Version: //p') || return 1
	echo "$img $ver"
}

# fetch_image CHROOT IMG VER: prints the path of the image's vmlinuz, fetched
# into the cache unless it is there.
fetch_image() {
	local dir=$cache/kernel-${2}_$3 tmp
	if [ ! -e "$dir/vmlinuz" ]; then
		tmp=$(mktemp -d "$cache/.kernel-${2}_$3.XXXXXX") || return 1
		chmod 755 "$tmp"
		"$chroot_sh" "$1" run --bind "$tmp" sh -c "cd '$tmp' && apt-get download -q -o APT::Sandbox::User=root '$2=$3'" >&2 &&
			dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" ./boot &&
			mv "$tmp"/boot/vmlinuz-* "$tmp/vmlinuz" && mv "$tmp"/boot/config-* "$tmp/config" &&
			rm -rf "${tmp:?}"/*.deb "${tmp:?}/boot" && mv "$tmp" "$dir" ||
			{ rm -rf "$tmp"; return 1; }
	fi
	echo "$dir/vmlinuz"
}

# build_modules CHROOT ABI DIR: builds the modules of a copy of the work
# tree against linux-headers-ABI in the chroot, into DIR/modules.
build_modules() {
	local dir=$3
	rm -rf "$dir/src" "$dir/modules"
	mkdir -p "$dir/src"
	(cd "$repo" && git ls-files -z -c -o --exclude-standard | grep -z -v '^build/' |
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$dir/src" || return 1
	"$chroot_sh" "$1" run --bind "$dir" make -C "$dir/src" --no-print-directory \
		modules KDIR="/usr/src/linux-headers-$2" BUILD="$dir"
}

for line in "${kernels[@]}"; do
	read -r name release pkg suite <<< "$line"
	[ -z "$only" ] || [[ $only = *,$name,* ]] || continue
	dir=$build/kernels/$name
	mkdir -p "$dir"
	echo "== kernel $name ($([ "$suite" = - ] && echo "$release" || echo "$suite"): $pkg)"
	if [[ $updated != *" $release "* ]]; then
		"$chroot_sh" "$release" run apt-get update -q > "$dir/apt-update.log" 2>&1 ||
			{ tail -n 5 "$dir/apt-update.log"; echo "WARNING: apt-get update failed in the $release chroot"; }
		updated+="$release "
	fi
	if ! read -r img ver < <(resolve "$release" "$pkg" "$suite") || [ -z "${img:-}" ]; then
		echo "FAIL $name: $pkg not found in $release ($suite)"
		nfail=$((nfail + 1))
		rows+=("$name | ? | no: $pkg not found | not run")
		continue
	fi
	abi=${img#linux-image-}
	abi=${abi%-unsigned}
	kver="$abi ($ver)"
	echo "   $img $ver"
	if ! vmlinuz=$(fetch_image "$release" "$img" "$ver"); then
		echo "FAIL $name: fetch $img $ver"
		nfail=$((nfail + 1))
		rows+=("$kver | ? | no: image not fetched | not run")
		continue
	fi
	if ! "$chroot_sh" "$release" deps "linux-headers-$abi" > "$dir/headers.log" 2>&1; then
		tail -n 10 "$dir/headers.log"
		echo "FAIL $name: install linux-headers-$abi (log: $dir/headers.log)"
		nfail=$((nfail + 1))
		rows+=("$kver | ? | no: headers not installed | not run")
		continue
	fi
	# "gcc-10 (Debian 10.2.1-6)": the compiler the kernel was built with.
	compiler=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^)]*)\).*/\1/p' "$(dirname "$vmlinuz")/config")
	if build_modules "$release" "$abi" "$dir" > "$dir/modules.log" 2>&1; then
		warnings=$(grep -c -i 'warning' "$dir/modules.log")
		if [ "$warnings" = 0 ]; then
			builds='yes, no warning'
			echo "PASS $name: modules built ($compiler)"
			npass=$((npass + 1))
		else
			builds="yes, $warnings warnings"
			grep -i warning "$dir/modules.log" | head -n 10
			echo "FAIL $name: modules built with $warnings warnings (log: $dir/modules.log)"
			nfail=$((nfail + 1))
		fi
	else
		tail -n 20 "$dir/modules.log"
		echo "FAIL $name: modules did not build (log: $dir/modules.log)"
		nfail=$((nfail + 1))
		rows+=("$kver | $compiler | no | not run")
		continue
	fi
	ln -sfn ../../bin "$dir/bin"
	"$repo/tests/vm/run.sh" --kernel "$vmlinuz" --build "$dir" --timeout "$timeout" \
		"${scenarios[@]}" | tee "$dir/vm.log"
	result=$(tail -n 1 "$dir/vm.log")
	if [[ $result =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)?$ ]]; then
		npass=$((npass + BASH_REMATCH[1]))
		nfail=$((nfail + BASH_REMATCH[2]))
		nskip=$((nskip + ${BASH_REMATCH[4]:-0}))
		failed_names=$(sed -n 's/^FAIL \([^:]*\):.*/\1/p' "$dir/vm.log" | paste -sd' ')
		[ -z "$failed_names" ] || result+=" ($failed_names)"
	else
		echo "FAIL $name: the VM run gave no result"
		nfail=$((nfail + 1))
		result='no result'
	fi
	rows+=("$kver | $compiler | $builds | $result")
done

echo
echo "| kernel | compiler | builds | scenarios |"
echo "|---|---|---|---|"
for r in "${rows[@]}"; do echo "| $r |"; done
echo
skipped=
[ "$nskip" = 0 ] || skipped=", $nskip skipped"
echo "$npass passed, $nfail failed$skipped"
[ "$nfail" = 0 ]
