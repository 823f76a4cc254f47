#!/bin/bash
# End-to-end test of the Debian packages, installed the way a user does:
#
#  1. a Debian system of RELEASE (debootstrap, stock kernel and headers,
#     dkms, systemd; cached by mkrootfs.sh) is copied to
#     BUILD/install-test/RELEASE/rootfs;
#  2. in a chroot, `apt install ./pnotify-dkms_*.deb ./jobctl_*.deb
#     ./libjob0_*.deb ./libpam-job_*.deb ./slurm-spank-job_*.deb` builds the
#     modules through DKMS for its kernel;
#  3. the system boots under QEMU from an ext4 image of that root filesystem
#     (boot.sh); a systemd unit checks that the modules were loaded at boot,
#     runs jobtest, pam_job under pamtester and su, spank_job under Slurm's
#     daemons (guest-integrations.sh), and powers off;
#  4. in the chroot again: a kernel without CONFIG_KPROBES_ON_FTRACE,
#     CONFIG_DYNAMIC_FTRACE_WITH_REGS or CONFIG_KEYS is
#     refused cleanly, and `apt remove pnotify-dkms` removes the modules.
#
#   tests/install/run.sh [--release RELEASE] [--debs DIR] [--checks LIST]
#       [--keep] [--verbose]
#
# RELEASE is bookworm (Debian 12, the default) or trixie (Debian 13).  The
# debs come from `make deb DEB_RELEASE=RELEASE` (BUILD/deb, BUILD/deb-trixie).
# --checks runs only some of the booted system's checks, a comma-separated
# LIST of jobtest, integrations, cross-user and keyrings (default: all).
# The last line is "N passed, N failed"; the exit status is 0 iff all passed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${BUILD:-$repo/build}
release=bookworm debs= checks=
keep= verbose=
while [ $# -gt 0 ]; do
	case $1 in
	--release) release=$2; shift 2 ;;
	--debs) debs=$2; shift 2 ;;
	--checks) checks=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--verbose) verbose=1; shift ;;
	*) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
[ -n "$debs" ] || debs=$build/deb$([ "$release" = bookworm ] || echo "-$release")
work=$build/install-test/$release

npass=0 nfail=0
t_start=$SECONDS
pass() { npass=$((npass + 1)); echo "PASS $*"; }
fail() { nfail=$((nfail + 1)); echo "FAIL $*"; }
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
finish() {
	cleanup_mounts
	if [ "$nfail" = 0 ] && [ -z "$keep" ]; then
		rm -f "$work/rootfs.img"
		safe_rm "$work/rootfs"
	fi
	echo "install test took $((SECONDS - t_start)) s (logs: $work)"
	echo "$npass passed, $nfail failed"
	[ "$nfail" = 0 ]
	exit
}
log() { echo "== $*"; }

rootfs=$work/rootfs
mounts=()
mount_chroot() {
	local m
	for m in proc sys dev dev/pts; do
		mount --bind "/$m" "$rootfs/$m" || return 1
		mounts+=("$rootfs/$m")
	done
}
cleanup_mounts() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" 2>/dev/null
	done
	mounts=()
}
# Removes a copy of the root filesystem, never through a mount point.
safe_rm() {
	[ -e "$1" ] || return 0
	if findmnt -rn -o TARGET | grep -q "^$1/"; then
		echo "run.sh: $1 still has mounts, not removed" >&2
		return 1
	fi
	rm -rf --one-file-system "$1"
}
in_chroot() {
	timeout --kill-after=10 "${CHROOT_TIMEOUT:-900}" chroot "$rootfs" \
		/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 HOME=/root "$@"
}
trap 'fail "interrupted"; finish' INT TERM

[ "$(id -u)" = 0 ] || { echo "run.sh: needs root (debootstrap, chroot, mount)" >&2; fail "root"; finish; }
"$repo/scripts/install-deps.sh" debootstrap e2fsprogs qemu-system-x86 >&2 ||
	{ fail "install the test's packages"; finish; }

pkgs=()
for p in pnotify-dkms jobctl libjob0 libpam-job slurm-spank-job; do
	f=$(ls "$debs"/${p}_*.deb 2>/dev/null | sort -V | tail -n 1)
	[ -n "$f" ] || { fail "package $p in $debs (run make deb)"; finish; }
	pkgs+=("$f")
done
pass "packages built: ${pkgs[*]##*/}"

# 1. The cached system.
log "root filesystem (cache: $("$here/mkrootfs.sh" --release "$release" --print-path))"
cached=$(timeout 2400 "$here/mkrootfs.sh" --release "$release" | tail -n 1)
[ -e "$cached/.pnotify-rootfs-complete" ] || { fail "debootstrap root filesystem"; finish; }
pass "Debian $release root filesystem: $cached"
kver=$(cat "$cached/.pnotify-kver")
mkdir -p "$work"
safe_rm "$rootfs" || { fail "remove the previous test system"; finish; }
rm -f "$work/rootfs.img" "$work"/*.log
cp -a "$cached" "$rootfs" || { fail "copy the root filesystem"; finish; }

# 2. apt install, DKMS build.
log "apt install ${pkgs[*]##*/} (kernel $kver)"
mkdir -p "$rootfs/root/debs"
cp "${pkgs[@]}" "$rootfs/root/debs/"
mount_chroot || { fail "mount /proc, /sys, /dev in the chroot"; finish; }
names=()
for f in "${pkgs[@]}"; do names+=("./${f##*/}"); done
in_chroot sh -c "cd /root/debs && apt-get install -y ${names[*]}" \
	> "$work/apt-install.log" 2>&1
rc=$?
[ -n "$verbose" ] && cat "$work/apt-install.log"
if [ "$rc" = 0 ]; then
	pass "apt install ${names[*]}"
else
	tail -n 30 "$work/apt-install.log"
	fail "apt install ${names[*]} (exit status $rc, log: $work/apt-install.log)"
fi
in_chroot dkms status > "$work/dkms-status.log" 2>&1
cat "$work/dkms-status.log"
check "dkms status: pnotify installed for $kver" \
	grep -q "^pnotify/.*, $kver, .*: installed" "$work/dkms-status.log"
pkgver=$(ls "$rootfs/usr/src" | sed -n 's/^pnotify-//p' | head -n 1)
modules=$(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"/\1/p' "$rootfs"/usr/src/pnotify-*/dkms.conf)
for m in $modules; do
	check "DKMS built $m: /lib/modules/$kver/updates/dkms/$m.ko" \
		test -n "$(find "$rootfs/lib/modules/$kver/updates/dkms" -name "$m.ko*")"
done
check "modules.dep knows pnotify and job" \
	grep -q "updates/dkms/job.ko.*pnotify.ko" "$rootfs/lib/modules/$kver/modules.dep"
check "modules-load.d: pnotify and job at boot" \
	grep -qx job "$rootfs/usr/lib/modules-load.d/pnotify.conf"
check "libjob.so.0 in the linker cache" \
	sh -c "chroot '$rootfs' ldconfig -p | grep -q 'libjob.so.0 '"
check "man pages: jobctl(1), jkill(1), job_create(3)... job(7)" \
	test -e "$rootfs/usr/share/man/man1/jobctl.1.gz" -a -e "$rootfs/usr/share/man/man1/jkill.1.gz" \
	-a -e "$rootfs/usr/share/man/man7/job.7.gz"
check "pam_job.so in the PAM module directory" \
	sh -c "test -e '$rootfs'/usr/lib/*/security/pam_job.so"
check "spank_job.so in Slurm's plugin directory" \
	sh -c "test -e '$rootfs'/usr/lib/*/slurm-wlm/spank_job.so"
cleanup_mounts

# 3. Boot.
log "boot under QEMU"
install -m 755 "$here/guest-check.sh" "$rootfs/usr/local/sbin/pnotify-install-check"
install -m 644 "$here/guest-integrations.sh" "$rootfs/usr/local/sbin/pnotify-integration-check"
install -m 644 "$here/guest-cross-user.sh" "$rootfs/usr/local/sbin/pnotify-cross-user-check"
install -m 644 "$here/guest-keyrings.sh" "$rootfs/usr/local/sbin/pnotify-keyring-check"
install -m 644 "$here/pnotify-install-check.service" "$rootfs/etc/systemd/system/"
ln -sf /etc/systemd/system/pnotify-install-check.service \
	"$rootfs/etc/systemd/system/multi-user.target.wants/pnotify-install-check.service"
size=$(( $(du -sm --apparent-size "$rootfs" | cut -f1) * 5 / 4 + 512 ))
if timeout 600 mkfs.ext4 -q -F -L pnotify-root -d "$rootfs" "$work/rootfs.img" "${size}M" \
	> "$work/mkfs.log" 2>&1; then
	pass "ext4 image of the root filesystem (${size} MiB)"
else
	cat "$work/mkfs.log"
	fail "ext4 image of the root filesystem"
fi
rm -f "$rootfs/etc/systemd/system/multi-user.target.wants/pnotify-install-check.service" \
	"$rootfs/etc/systemd/system/pnotify-install-check.service" \
	"$rootfs/usr/local/sbin/pnotify-install-check" \
	"$rootfs/usr/local/sbin/pnotify-integration-check" \
	"$rootfs/usr/local/sbin/pnotify-cross-user-check" \
	"$rootfs/usr/local/sbin/pnotify-keyring-check"
t_boot=$SECONDS
boot_args=(--kernel "$rootfs/boot/vmlinuz-$kver" --initrd "$rootfs/boot/initrd.img-$kver"
	--image "$work/rootfs.img" --log "$work/boot.log" --timeout "${PN_INSTALL_BOOT_TIMEOUT:-2400}"
	# The console is the test's: no login prompt on it (a getty started on
	# ttyS0 as the guest powered itself off mid-test).
	--append "systemd.mask=serial-getty@ttyS0.service${checks:+ pnotify.checks=$checks}")
[ -n "$verbose" ] && boot_args+=(--verbose)
"$here/boot.sh" "${boot_args[@]}"
rc=$?
echo "boot took $((SECONDS - t_boot)) s"
tr -d '\r' < "$work/boot.log" | grep -a -E '^(jobtest|splat): ' | tail -n 5
while read -r verdict name; do
	case $verdict in
	PASS) pass "$name" ;;
	FAIL) fail "$name" ;;
	esac
done < <(tr -d '\r' < "$work/boot.log" | sed -n 's/^.*@@PNI \(PASS\|FAIL\) /\1 /p')
# grep the file itself: under pipefail, a grep -q that stops reading early
# fails the pipeline when the log is longer than a pipe's buffer.
if grep -aq '@@PNI END' "$work/boot.log" && [ "$rc" = 0 ]; then
	pass "boot: checks ran and the system powered off"
else
	tr -d '\r' < "$work/boot.log" | tail -n 30
	fail "boot: checks ran and the system powered off (qemu exit status $rc, log: $work/boot.log)"
fi

# 4. Refusal of unsupported kernels, then removal.
mount_chroot || { fail "mount /proc, /sys, /dev in the chroot"; finish; }
for opt in CONFIG_KPROBES_ON_FTRACE CONFIG_DYNAMIC_FTRACE_WITH_REGS CONFIG_KEYS; do
	fake=$kver-no-${opt#CONFIG_}
	fake=${fake,,}
	log "refusal: kernel $fake without $opt"
	# A kernel's headers as far as DKMS looks: its .config and include/.
	mkdir -p "$rootfs/usr/src/linux-headers-$fake/include" "$rootfs/lib/modules/$fake"
	sed "s/^$opt=.*/# $opt is not set/" "$rootfs/usr/src/linux-headers-$kver/.config" \
		> "$rootfs/usr/src/linux-headers-$fake/.config"
	ln -sfn "/usr/src/linux-headers-$fake" "$rootfs/lib/modules/$fake/build"
	# What runs when such a kernel's headers are installed.
	in_chroot /etc/kernel/header_postinst.d/dkms "$fake" > "$work/refuse-$fake.log" 2>&1
	rc=$?
	in_chroot dkms build -m pnotify -v "$pkgver" -k "$fake" \
		>> "$work/refuse-$fake.log" 2>&1
	rc_build=$?
	sed 's/^/    /' "$work/refuse-$fake.log"
	check "refusal without $opt: the kernel hook succeeds (exit status $rc)" test "$rc" = 0
	check "refusal without $opt: dkms build says skipped (exit status 77, got $rc_build)" \
		test "$rc_build" = 77
	check "refusal without $opt: the kernel hook says why" \
		grep -q "kernel $fake has no $opt" "$work/refuse-$fake.log"
	check "refusal without $opt: dkms build names BUILD_EXCLUSIVE" \
		grep -q "includes a BUILD_EXCLUSIVE directive" "$work/refuse-$fake.log"
	check "refusal without $opt: no module installed for $fake" \
		test -z "$(find "$rootfs/lib/modules/$fake" -name '*.ko*' 2>/dev/null)"
	rm -rf --one-file-system "$rootfs/usr/src/linux-headers-$fake" "$rootfs/lib/modules/$fake"
done

log "apt remove pnotify-dkms"
in_chroot apt-get remove -y pnotify-dkms > "$work/apt-remove.log" 2>&1
rc=$?
[ -n "$verbose" ] && cat "$work/apt-remove.log"
check "apt remove pnotify-dkms (exit status $rc)" test "$rc" = 0
for m in $modules; do
	check "apt remove: $m.ko gone from /lib/modules/$kver" \
		test -z "$(find "$rootfs/lib/modules/$kver" -name "$m.ko*")"
done
check "apt remove: modules.dep no longer names job.ko" \
	sh -c "! grep -q '/job.ko' '$rootfs/lib/modules/$kver/modules.dep'"
check "apt remove: DKMS forgot pnotify" \
	test -z "$(in_chroot dkms status -m pnotify 2>&1)"
check "apt remove: modules-load.d file gone" \
	test ! -e "$rootfs/usr/lib/modules-load.d/pnotify.conf"
finish
