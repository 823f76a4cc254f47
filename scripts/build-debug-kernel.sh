#!/bin/bash
# Builds a debug lane's kernel and prints the path of its build tree:
#
#   scripts/build-debug-kernel.sh         # Debian 12's linux-source-6.1
#   scripts/build-debug-kernel.sh --rt    # Debian 13's linux-source-6.12,
#                                         # PREEMPT_RT
#
# x86_64 defconfig, kvm_guest.config, tests/debug-kernel/debug.config and
# trim.config (and rt.config for --rt).  The tree is cached outside the
# clone, keyed by the fragments, the build recipe and the source package's
# version, so it is rebuilt only when one of them changes (about 15 minutes
# on 2 cores); an interrupted build is resumed.
# Debian 13's source comes from a Debian 13 chroot (scripts/debian-chroot.sh),
# the machine's apt is not touched.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${PN_CACHE:-/var/cache/pnotify}
fragments=("$top/tests/debug-kernel/debug.config" "$top/tests/debug-kernel/trim.config")

case ${1:-} in
'')
	name=debug-kernel
	tarball=/usr/src/linux-source-6.1.tar.xz
	[ -f "$tarball" ] || { echo "no $tarball: run 'make deps'" >&2; exit 1; }
	version=$(dpkg-query -W -f='${Version}' linux-source-6.1) ;;
--rt)
	name=debug-kernel-rt
	fragments+=("$top/tests/debug-kernel/rt.config")
	"$top/scripts/debian-chroot.sh" trixie deps linux-source-6.12 >&2
	tarball=$("$top/scripts/debian-chroot.sh" trixie path)/usr/src/linux-source-6.12.tar.xz
	version=$("$top/scripts/debian-chroot.sh" trixie run \
		dpkg-query -W -f='${Version}' linux-source-6.12) ;;
*)
	sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2 ;;
esac

# build TREE: configures and builds the kernel in TREE, a fresh directory.
build() {
	local f line opt missing=0
	tar -C "$1" --strip-components=1 -xf "$tarball"
	cd "$1"
	make defconfig
	make kvm_guest.config
	scripts/kconfig/merge_config.sh -m .config "${fragments[@]}"
	make olddefconfig
	# Every option of the fragments must have survived olddefconfig.
	for f in "${fragments[@]}"; do
		while read -r line; do
			case $line in
			CONFIG_*=n) opt=${line%=n}
				grep -q "^$opt=" .config && { echo "still set: $line"; missing=1; } ;;
			CONFIG_*) grep -qx "$line" .config || { echo "not set: $line"; missing=1; } ;;
			esac
		done < "$f"
	done
	[ "$missing" = 0 ]
	make -j"$(nproc)" bzImage modules
	touch .pn-built
}

key=$(cat "${fragments[@]}" <(declare -f build) <(echo "$tarball $version") |
	sha256sum | cut -c1-16)
tree=$cache/$name-$key
log=$cache/$name-$key.log
mkdir -p "$cache"
# One build of a tree at a time; a second caller waits for it and uses it.
exec 8> "$cache/$name-$key.lock"
flock 8
if [ -f "$tree/.pn-built" ]; then
	echo "$tree"
	exit 0
fi

# A build that was interrupted after its configuration passed the checks
# (make has written auto.conf) goes on where it stopped.
if [ -f "$tree/include/config/auto.conf" ]; then
	echo "resuming the debug kernel's build in $tree (log: $log)" >&2
	(cd "$tree" && make -j"$(nproc)" bzImage modules && touch .pn-built) >> "$log" 2>&1 ||
		{ tail -30 "$log" >&2; exit 1; }
	echo "$tree"
	exit 0
fi
echo "building the debug kernel in $tree (log: $log)" >&2
rm -rf "$tree"
mkdir -p "$tree"
(build "$tree") > "$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
echo "$tree"
