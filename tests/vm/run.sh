#!/bin/bash
# Host-side runner: boots the test kernel under QEMU with an initramfs holding
# the modules, test programs and scenarios, runs the scenarios and checks the
# console log for failures and kernel splats.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

# Kernel log lines that make a scenario fail (awk EREs).
SPLATS=(
	'BUG:' 'WARNING:' 'Oops' 'Call Trace'
	'sleeping function called from invalid context'
	'possible recursive locking' 'possible circular locking'
	'inconsistent lock state' 'suspicious RCU usage'
	'lock held when returning to user space' 'DEBUG_LOCKS_WARN_ON'
	'KASAN:' 'UBSAN:'
	'kmemleak: [0-9]+ new suspected memory leak' 'unreferenced object 0x'
	'general protection fault' 'Kernel panic'
	'INFO: task .* blocked' 'RCU detected stall' 'detected stalls? on CPU'
	'self-detected stall' 'watchdog: BUG'
)

usage() {
	cat >&2 <<USAGE
usage: $0 [options] SCENARIO... | all
  --kernel IMAGE      kernel image (default /boot/vmlinuz-\$(cat BUILD/kver))
  --build DIR         build directory (default $repo/build)
  --scenarios DIR     scenario directory (default $here/scenarios)
  --timeout SECONDS   per-scenario timeout (default 300)
  --append "ARGS"     extra kernel command line
  --env "K=V;K=V"     variables exported to the scenarios (repeatable)
  --add DIR=PATH      also put the files of DIR in the image under PATH
  --shell             boot to an interactive shell (pnotify + --load loaded)
  --load MOD,MOD      extra modules to load in --shell mode
  --verbose           also copy the console to stdout
  --list              list the scenarios
  --parse LOG SCENARIO...   only check an existing console log
env: PN_VM_ACCEL=kvm, PN_VM_MEM (MiB, default 1024), PN_VM_SMP (default 2),
     PN_VM_QEMU_ARGS (more QEMU arguments, split at spaces),
     PN_VM_QEMU (the QEMU program, default qemu-system-x86_64; e.g.
     scripts/qemu-trixie.sh)
USAGE
	exit 2
}

die() { echo "run.sh: $*" >&2; exit 2; }

list_scenarios() {
	local f
	for f in "$scendir"/*.sh; do
		[ -e "$f" ] || continue
		f=${f##*/}
		echo "${f%.sh}"
	done
}

# parse_log LOG SCENARIO...: print one PASS/FAIL line per scenario (plus the
# boot/shutdown pseudo-scenario if needed) and the totals; fails if any failed.
parse_log() {
	local log=$1 re
	shift
	re=$(IFS='|'; echo "${SPLATS[*]}")
	awk -v names="$*" -v logf="$log" -v splat_re="$re" '
	function splat(seg, text) {
		sub(/^.*\[ *[0-9]+\.[0-9]+\] /, "", text)	# dedupe console vs dmesg copies
		if ((seg, text) in seen) return
		seen[seg, text] = 1
		if (nsplat[seg]++ < 10) splats[seg] = splats[seg] "    " text "\n"
	}
	# A kmemleak report in a "@@PN LEAKS" section counts against the
	# scenarios it names (see tests/vm/init), anything else against the
	# current one.
	function blame(text,    k, nl, l) {
		if (leaks != "" && text ~ /kmemleak: |unreferenced object 0x/) {
			nl = split(leaks, l, ",")
			for (k = 1; k <= nl; k++) splat(l[k], text)
		} else {
			splat(cur == "" ? "boot/shutdown" : cur, text)
		}
	}
	function report(name, reason, time) {
		if (reason == "" && !(name in nsplat)) {
			npass++
			printf "PASS %s%s\n", name, time
			return
		}
		if (name in nsplat) reason = reason (reason == "" ? "" : "; ") "kernel splat"
		nfail++
		printf "FAIL %s: %s (log: %s)\n%s%s", name, reason, logf, faults[name], splats[name]
	}
	{
		sub(/\r+$/, "")
		line = $0
		i = index(line, "@@PN ")
		text = i ? substr(line, 1, i - 1) : line
		# Only kernel messages count: dmesg dumps and timestamped console lines,
		# never what a scenario prints itself.
		if ((indmesg || text ~ /\[ *[0-9]+\.[0-9]+\] /) && text ~ splat_re &&
		    text !~ /Kernel command line:/)
			blame(text)
		if (cur != "" && !indmesg && line ~ /^SKIP: /) skipwhy[cur] = substr(line, 7)
		# What a failed scenario said of its failure, shown with its FAIL
		# line: a CI log that keeps only the end still says why.
		if (cur != "" && !indmesg && !i && line ~ /FAIL/ && nfault[cur]++ < 20)
			faults[cur] = faults[cur] "    " line "\n"
		if (!i) next
		n = split(substr(line, i + 5), f, " ")
		indmesg = 0
		leaks = ""
		if (f[1] == "BOOT") indmesg = 1
		else if (f[1] == "LEAKS") { indmesg = 1; leaks = f[2] }
		else if (f[1] == "BEGIN") { cur = f[2]; up0[cur] = f[3] }
		else if (f[1] == "DMESG") indmesg = 1
		else if (f[1] == "END") {
			name = f[2]; ended[name] = 1; cur = ""
			for (k = 3; k <= n; k++) {
				split(f[k], kv, "=")
				val[name, kv[1]] = substr(f[k], length(kv[1]) + 2)
			}
		} else if (f[1] == "DONE") done = 1
	}
	END {
		nn = split(names, list, " ")
		for (j = 1; j <= nn; j++) {
			name = list[j]; reason = ""; time = ""
			if (!(name in ended)) {
				reason = "no result (timeout or VM crash), see log"
			} else {
				rc = val[name, "rc"]
				if (rc == 77 && val[name, "leftover"] == "" && !(name in nsplat)) {
					nskip++
					printf "SKIP %s: %s\n", name, skipwhy[name]
					continue
				}
				if (rc == 137) reason = "killed by the scenario timeout (rc=137)"
				else if (rc == 127) reason = "scenario not found (rc=127)"
				else if (rc != 0) reason = "exit status " rc
				if (val[name, "leftover"] != "")
					reason = reason (reason == "" ? "" : "; ") "modules left loaded: " val[name, "leftover"]
				t0 = up0[name]; t1 = val[name, "up"]
				sub(/^up=/, "", t0)
				if (t0 != "" && t1 != "") time = sprintf(" (%ds)", t1 - t0 + 0.5)
			}
			report(name, reason, time)
		}
		if (!done) {
			nfail++
			printf "FAIL boot/shutdown: VM did not finish (no @@PN DONE) (log: %s)\n%s", logf, splats["boot/shutdown"]
		} else if ("boot/shutdown" in nsplat)
			report("boot/shutdown", "")
		printf "%d passed, %d failed%s\n", npass, nfail, nskip ? ", " nskip " skipped" : ""
		exit nfail > 0
	}' "$log"
}

build=$repo/build scendir=$here/scenarios kernel='' timeout=300 append='' env=''
shell=0 load='' verbose=0 list=0 parse='' adds=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel|--build|--scenarios|--timeout|--append|--env|--load|--parse|--add)
		[ $# -ge 2 ] || usage
		case $1 in
		--kernel) kernel=$2 ;;
		--build) build=$2 ;;
		--scenarios) scendir=$2 ;;
		--timeout) timeout=$2 ;;
		--append) append=$2 ;;
		--env) env=${env:+$env;}$2 ;;
		--load) load=$2 ;;
		--parse) parse=$2 ;;
		--add) adds+=(--add "$2") ;;
		esac
		shift 2 ;;
	--shell) shell=1; shift ;;
	--verbose) verbose=1; shift ;;
	--list) list=1; shift ;;
	-h|--help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout must be a positive integer"

if [ "$list" = 1 ]; then
	list_scenarios
	exit 0
fi

# Resolve the requested scenarios ("all" is expanded on the host for the
# report, but passed as "all" to keep the kernel command line short).
scenarios=()
if [ "$shell" = 0 ]; then
	[ $# -gt 0 ] || usage
	if [ "$*" = all ]; then
		mapfile -t scenarios < <(list_scenarios)
		[ ${#scenarios[@]} -gt 0 ] || die "no scenarios in $scendir"
	else
		for s in "$@"; do
			[ -f "$scendir/$s.sh" ] || [ -n "$parse" ] || die "no scenario $scendir/$s.sh (see --list)"
			scenarios+=("$s")
		done
	fi
fi

if [ -n "$parse" ]; then
	parse_log "$parse" "${scenarios[@]}"
	exit
fi

[ -d "$build" ] || die "build directory $build does not exist (build first)"
build=$(cd "$build" && pwd)
if [ -z "$kernel" ]; then
	[ -r "$build/kver" ] || die "$build/kver missing (build first, or pass --kernel)"
	kernel=/boot/vmlinuz-$(cat "$build/kver")
fi
[ -r "$kernel" ] || die "kernel image $kernel not found (install linux-image-$(cat "$build/kver" 2>/dev/null || echo '<kver>') or pass --kernel)"

vmdir=$build/vm
mkdir -p "$vmdir"
# One initramfs a run: runs from one tree at once (a benchmark beside the
# tests) would otherwise boot each other's scenarios.
initrd=$(mktemp "$vmdir/initramfs.XXXXXX")
trap 'rm -f "$initrd" "$initrd.tmp"' EXIT
"$here/mkinitramfs.sh" "$initrd" --build "$build" --scenarios "$scendir" "${adds[@]}"

cmdline="console=ttyS0 loglevel=4 printk.time=1 log_buf_len=8M panic=-1"
[ -z "$env" ] || cmdline+=" pn.env=$env"
[ -z "$append" ] || cmdline+=" $append"

# No 5-level paging: Linux 6.1's identify_cpu() clears the boot CPU's
# feature bits for a moment, and an interrupt in that window sees
# pgtable_l5_enabled() false, so KASAN reports the direct map's 5-level
# addresses as wild accesses (seen at 0.03 s, before any module).
qemu=("${PN_VM_QEMU:-qemu-system-x86_64}" -cpu "${PN_VM_CPU:-max,la57=off}" -smp "${PN_VM_SMP:-2}" -m "${PN_VM_MEM:-1024}"
	-nographic -no-reboot -net none -kernel "$kernel" -initrd "$initrd")
if [ "${PN_VM_ACCEL:-tcg}" = kvm ]; then
	qemu+=(-accel kvm)
else
	# One host thread for all vCPUs by default: with multi-threaded TCG a
	# vCPU can keep running a stale translation of kernel text that another
	# vCPU just patched (kprobe arming under a fork storm livelocks in the
	# int3 handler), which real CPUs never do.
	qemu+=(-accel "tcg,thread=${PN_VM_TCG_THREAD:-single}")
fi
# shellcheck disable=SC2206 # split at spaces, as documented
qemu+=(${PN_VM_QEMU_ARGS:-})

if [ "$shell" = 1 ]; then
	cmdline+=" pn.shell=1${load:+ pn.load=$load}"
	"${qemu[@]}" -serial mon:stdio -append "$cmdline"
	exit
fi

if [ "$*" = all ]; then
	cmdline+=" pn.scenarios=all"
else
	cmdline+=" pn.scenarios=$(IFS=,; echo "${scenarios[*]}")"
fi
cmdline+=" pn.timeout=$timeout"

mkdir -p "$vmdir/logs"
logname=$(date -u +%Y%m%dT%H%M%SZ)-$([ "$*" = all ] && echo all || echo "${scenarios[0]}").log
# Two runs begun in the same second keep a log each (created here, -C).
(set -C; : >"$vmdir/logs/$logname") 2>/dev/null || logname=${logname%.log}-$$.log
log=$vmdir/logs/$logname
ln -sfn "$logname" "$vmdir/logs/latest.log"
host_timeout=$((${#scenarios[@]} * timeout + 60))
echo "booting $kernel for: ${scenarios[*]} (log: $log)"
qemu+=(-monitor none -serial stdio -append "$cmdline")
# The log starts with the exact command line (the benchmarks quote it).
printf 'qemu:%s\n' "$(printf ' %q' "${qemu[@]}")" >"$log"
rc=0
if [ "$verbose" = 1 ]; then
	timeout -k 5 "$host_timeout" "${qemu[@]}" </dev/null 2>&1 | tee -a "$log" || rc=$?
else
	timeout -k 5 "$host_timeout" "${qemu[@]}" </dev/null >>"$log" 2>&1 || rc=$?
fi
[ "$rc" != 124 ] || echo "qemu killed after the host timeout of ${host_timeout}s"
parse_log "$log" "${scenarios[@]}"
