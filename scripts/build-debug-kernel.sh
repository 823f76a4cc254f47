#!/bin/bash
# Builds the debug lane's kernel from Debian's linux-source-6.1 and prints
# the path of its build tree.  The tree is cached outside the clone, keyed by
# the config fragment, this script and the source package's version, so it
# is rebuilt only when one of them changes (about 10 minutes on 2 cores).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fragment=$top/tests/debug-kernel/debug.config
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${PN_CACHE:-/var/cache/pnotify}

[ -f "$tarball" ] || { echo "no $tarball: run 'make deps'" >&2; exit 1; }
version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$(cat "$fragment" "$0" <(echo "$version") | sha256sum | cut -c1-16)
tree=$cache/debug-kernel-$key
if [ -f "$tree/.pn-built" ]; then
	echo "$tree"
	exit 0
fi

log=$cache/debug-kernel-$key.log
mkdir -p "$cache"
echo "building the debug kernel in $tree (log: $log)" >&2
rm -rf "$tree"
mkdir -p "$tree"
{
	tar -C "$tree" --strip-components=1 -xf "$tarball"
	cd "$tree"
	make defconfig
	make kvm_guest.config
	scripts/kconfig/merge_config.sh -m .config "$fragment"
	make olddefconfig
	# Every option of the fragment must have survived olddefconfig.
	missing=0
	while read -r line; do
		case $line in
		CONFIG_*=n) opt=${line%=n}
			grep -q "^$opt=" .config && { echo "still set: $line"; missing=1; } ;;
		CONFIG_*) grep -qx "$line" .config || { echo "not set: $line"; missing=1; } ;;
		esac
	done < "$fragment"
	[ "$missing" = 0 ]
	make -j"$(nproc)" bzImage modules
	touch .pn-built
} > "$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
echo "$tree"
