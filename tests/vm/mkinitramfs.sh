#!/bin/bash
# Build the gzip'd newc initramfs used by the VM tests.
# Usage: mkinitramfs.sh OUT --build DIR [--scenarios DIR] [--add DIR=PATH]...
set -euo pipefail
shopt -s nullglob

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Dynamically linked host programs copied into the VM with their libraries.
HOST_PROGS=(/usr/bin/keyctl)
BUSYBOX=/bin/busybox

die() { echo "mkinitramfs: $*" >&2; exit 1; }
usage() { die "usage: $0 OUT --build DIR [--scenarios DIR] [--add DIR=PATH]..."; }

out='' build='' scenarios=$here/scenarios adds=()
while [ $# -gt 0 ]; do
	case $1 in
	--build) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
	--scenarios) [ $# -ge 2 ] || usage; scenarios=$2; shift 2 ;;
	--add)
		[[ $# -ge 2 && $2 == ?*=/?* ]] || usage
		adds+=("$2")
		shift 2 ;;
	-*) usage ;;
	*) [ -z "$out" ] || usage; out=$1; shift ;;
	esac
done
{ [ -n "$out" ] && [ -n "$build" ]; } || usage
[ -d "$build" ] || die "build dir $build does not exist"
[ -d "$scenarios" ] || die "scenario dir $scenarios does not exist"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# install SRC DST [MODE]: copy SRC (dereferenced) to DST inside the image
install_file() {
	install -D -m "${3:-0644}" "$1" "$stage/$2"
}

# copy_dynamic PROG: copy PROG and every shared object ldd reports, including
# the ELF interpreter, at the same absolute paths.
copy_dynamic() {
	local f
	install_file "$1" "$1" 0755
	for f in $(ldd "$1" | grep -o '/[^ ]*'); do
		install_file "$f" "$f" 0755
	done
}

mkdir -p "$stage"/{proc,sys,dev,tmp,run,root,etc,lib/pn/modules,scenarios,usr/local/bin}

install_file "$BUSYBOX" bin/busybox 0755
while read -r applet; do
	[ -e "$stage/$applet" ] || { mkdir -p "$stage/${applet%/*}"; ln -s /bin/busybox "$stage/$applet"; }
done < <("$BUSYBOX" --list-full)

# A scenario directory may add host programs (file host-progs, one path a
# line) and shell helpers (lib/*.sh, installed next to lib.sh).
extra_progs=()
[ ! -f "$scenarios/host-progs" ] || mapfile -t extra_progs < <(grep -v '^#' "$scenarios/host-progs")
for p in "${HOST_PROGS[@]}" "${extra_progs[@]}"; do
	[ -x "$p" ] || die "host program $p is not installed"
	copy_dynamic "$p"
done
for f in "$scenarios"/lib/*.sh; do
	install_file "$f" "lib/pn/${f##*/}"
done

install_file "$here/init" init 0755
install_file "$here/lib.sh" lib/pn/lib.sh
for f in "$build"/modules/*.ko; do
	install_file "$f" "lib/pn/modules/${f##*/}"
done
# Symlinks stay links (the SGI commands are links to jobctl) and are also
# put in /usr/bin, where SGI's jobtest runs them from.
mkdir -p "$stage/usr/bin"
for f in "$build"/bin/*; do
	if [ -L "$f" ]; then
		ln -sfn "$(readlink "$f")" "$stage/usr/local/bin/${f##*/}"
		ln -sfn "/usr/local/bin/${f##*/}" "$stage/usr/bin/${f##*/}"
	else
		install_file "$f" "usr/local/bin/${f##*/}" 0755
	fi
done
for f in "$scenarios"/*.sh; do
	install_file "$f" "scenarios/${f##*/}" 0755
done
# --add DIR=PATH: the files of DIR (another build's modules, say) at PATH.
for a in "${adds[@]}"; do
	[ -d "${a%%=*}" ] || die "--add: ${a%%=*} is not a directory"
	for f in "${a%%=*}"/*; do
		install_file "$f" "${a#*=}/${f##*/}"
	done
done

cat > "$stage/etc/passwd" <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
pnuser:x:1000:1000:pnuser:/tmp:/bin/sh
pngroot:x:1001:0:pngroot (group root, not root):/tmp:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
PASSWD
cat > "$stage/etc/group" <<'GROUP'
root:x:0:
pnuser:x:1000:
nogroup:x:65534:
GROUP
cat > "$stage/etc/profile" <<'PROFILE'
export PATH=/usr/local/bin:/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root
PS1='pn-vm:$PWD# '
. /lib/pn/lib.sh
PROFILE
echo /bin/sh > "$stage/etc/shells"
chmod 1777 "$stage/tmp"

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
