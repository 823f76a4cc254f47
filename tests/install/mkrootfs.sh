#!/bin/bash
# The Debian system of the install test: debootstrap minbase of a release
# (bookworm, the default, or trixie) plus its stock kernel, its headers, dkms,
# systemd and udev.  Built once per recipe and release and kept outside the
# clone:
#
#   tests/install/mkrootfs.sh [--release RELEASE] [--print-path] [--rebuild]
#
# prints the cached root filesystem's directory on its last line:
# $PN_INSTALL_CACHE (default /var/cache/pnotify)/rootfs-<hash>, where <hash>
# is that of this file and the release, so that any change to the recipe
# makes a new one.
# Nothing in the cached tree is changed by the tests: they copy it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${PN_INSTALL_CACHE:-/var/cache/pnotify}
mirror=${PN_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${PN_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
suite=bookworm
# The packages of the test system, beside debootstrap's minbase; the second
# line is what the PAM and Slurm integrations are tested with (su, login and
# script come with minbase; sudo's root processes in a user's session), the
# third MIT Kerberos for the job keyrings
# (a KDC on localhost, kinit, klist and kvno, pam_krb5: out of the common
# PAM stacks, the tests put it where they want it).
base_include=systemd-sysv,udev,kmod,procps,ca-certificates
packages="linux-image-amd64 linux-headers-amd64 dkms build-essential
	initramfs-tools e2fsprogs
	pamtester keyutils sudo munge slurmctld slurmd slurm-client
	krb5-kdc krb5-admin-server krb5-user libpam-krb5"

print_only= rebuild=
while [ $# -gt 0 ]; do
	case $1 in
	--release) suite=${2:?}; shift ;;
	--print-path) print_only=1 ;;
	--rebuild) rebuild=1 ;;
	*) echo "usage: $0 [--release RELEASE] [--print-path] [--rebuild]" >&2; exit 2 ;;
	esac
	shift
done
hash=$( { cat "${BASH_SOURCE[0]}"; echo "$mirror $security $suite"; } | sha256sum | cut -c1-16)
rootfs=$cache/rootfs-$hash
if [ -n "$print_only" ]; then
	echo "$rootfs"
	exit 0
fi

if [ -z "$rebuild" ] && [ -e "$rootfs/.pnotify-rootfs-complete" ]; then
	echo "$rootfs"
	exit 0
fi

[ "$(id -u)" = 0 ] || { echo "mkrootfs.sh: needs root" >&2; exit 1; }
"$here/../../scripts/install-deps.sh" debootstrap >&2

mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.rootfs-$hash.XXXXXX")
# It becomes the system's "/": mktemp's 0700 would lock every user but root
# out of the whole system (munge's postinst runs a shell as user munge).
chmod 755 "$tmp"
mounts=()
cleanup() {
	local m
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount -l "${mounts[i]}" 2>/dev/null || true
	done
	if [ -d "$tmp" ]; then
		# Never follow a mount out of the tree.
		if ! findmnt -rn -o TARGET | grep -q "^$tmp/"; then
			rm -rf --one-file-system "$tmp"
		fi
	fi
}
trap cleanup EXIT

t0=$SECONDS
echo "mkrootfs: debootstrap $suite into $tmp" >&2
timeout 1800 debootstrap --variant=minbase --include="$base_include" \
	"$suite" "$tmp" "$mirror" >&2

cat > "$tmp/etc/apt/sources.list" <<SOURCES
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
SOURCES
echo pnotify-test > "$tmp/etc/hostname"
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' > "$tmp/etc/fstab"
# No services start during the package installs in the chroot.
printf '#!/bin/sh\nexit 101\n' > "$tmp/usr/sbin/policy-rc.d"
chmod 755 "$tmp/usr/sbin/policy-rc.d"
# Root logs in on the console without a password (a test system only).
sed -i 's/^root:[^:]*:/root::/' "$tmp/etc/shadow"

for m in proc sys dev dev/pts; do
	mount --bind "/$m" "$tmp/$m"
	mounts+=("$tmp/$m")
done
echo "mkrootfs: installing $(echo $packages)" >&2
# shellcheck disable=SC2086
timeout 1800 chroot "$tmp" /bin/sh -c "
	export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
	apt-get update -q &&
	apt-get install -y -q --no-install-recommends $(echo $packages) &&
	pam-auth-update --package --remove krb5 &&
	apt-get clean" >&2
for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
	umount "${mounts[i]}"
done
mounts=()

kver=$(ls "$tmp/lib/modules" | sort -V | tail -n 1)
[ -e "$tmp/boot/vmlinuz-$kver" ] && [ -e "$tmp/boot/initrd.img-$kver" ] &&
	[ -d "$tmp/usr/src/linux-headers-$kver" ] || {
	echo "mkrootfs: kernel $kver, its initrd or headers missing" >&2; exit 1; }
echo "$kver" > "$tmp/.pnotify-kver"
touch "$tmp/.pnotify-rootfs-complete"

[ -e "$rootfs" ] && rm -rf --one-file-system "$rootfs"
mv "$tmp" "$rootfs"
tmp=
echo "mkrootfs: $rootfs ($kver) in $((SECONDS - t0)) s" >&2
echo "$rootfs"
