# pnotify: process notification and job containers for stock kernels.
#
#   make            modules (against KDIR) and userspace programs
#   make deps       install the Debian packages the project needs
#   make check      static checks, then every VM scenario on the stock kernel
#   make check-kernels  every VM scenario on each Debian kernel (5.10 to
#                   6.12 PREEMPT_RT), built against with its release's gcc
#   make demo       boot the VM and show the modules at work
#   make bench      the benchmarks, into bench/results/ (not a test)
#   make bench-compare BASE=REV
#                   guest instructions per operation of REV's modules against
#                   the working tree's, measured in one boot
#   make vm-shell   a shell in the VM with the modules loaded

# The running kernel's build tree when there is one, else the newest installed.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1))
BUILD ?= $(CURDIR)/build

CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror=implicit-function-declaration
STATIC_LDFLAGS = -static -pthread

TEST_PROGS = pnotify_test jobtest forkexit job_fuzz job_race job_keyring \
	forkways
TEST_BINS = $(addprefix $(BUILD)/bin/,$(TEST_PROGS))
BENCH_PROGS = procfarm opcount
BENCH_BINS = $(addprefix $(BUILD)/bin/,$(BENCH_PROGS))
# 32-bit builds of jobctl and jobtest exercise job.ko's compat_ioctl,
# forkways32 the ia32 entry of a fork pnotify restarts.
COMPAT_BINS = $(BUILD)/bin/jobctl32 $(BUILD)/bin/jobtest32 \
	$(BUILD)/bin/forkways32
SGI_COMMANDS = jstat jkill jwait jattach jdetach jsethid
UAPI_CFLAGS = -Iinclude/uapi -Iuserspace

LIBJOB_SONAME = libjob.so.0
LIBJOB_SO = $(BUILD)/lib/$(LIBJOB_SONAME).1

.PHONY: all modules userspace deps check check-kernels bench bench-compare \
	icount-plugin demo vm-shell clean

all: modules userspace

include userspace/Makefile.inc
include integrations/Makefile.inc
-include mk/package.mk

modules:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "no kernel build tree: run 'make deps' or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
	mkdir -p $(BUILD)/modules
	cp src/*.ko tests/kmod/*.ko $(BUILD)/modules/
	modinfo -F vermagic src/pnotify.ko | cut -d' ' -f1 > $(BUILD)/kver

userspace: $(TEST_BINS) $(BENCH_BINS) $(BUILD)/bin/jobctl $(LIBJOB_SO) \
	$(BUILD)/lib/pkgconfig/libjob.pc $(UNIT_BINS) $(COMPAT_BINS) \
	$(PAM_JOB) $(SPANK_JOB)

# Static programs, so that they run in the VM's initramfs as they are.
STATIC_PROG_DEPS = userspace/job.h include/uapi/job.h $(BUILD)/lib/libjob.a
define static_prog
	mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(UAPI_CFLAGS) -o $@ $< $(BUILD)/lib/libjob.a $(STATIC_LDFLAGS)
endef
$(BUILD)/bin/%: tests/%.c $(wildcard tests/*.h) $(STATIC_PROG_DEPS)
	$(static_prog)
$(BUILD)/bin/%: bench/%.c $(wildcard bench/*.h) $(STATIC_PROG_DEPS)
	$(static_prog)

$(BUILD)/bin/jobctl: $(JOBCTL_SOURCES) $(JOBCTL_HEADERS) $(BUILD)/lib/libjob.a
	mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(UAPI_CFLAGS) -o $@ $(JOBCTL_SOURCES) $(BUILD)/lib/libjob.a $(STATIC_LDFLAGS)
	for c in $(SGI_COMMANDS); do ln -sf jobctl $(BUILD)/bin/$$c; done

$(BUILD)/bin/jobctl32: $(JOBCTL_SOURCES) $(JOBCTL_HEADERS) userspace/libjob.c
	mkdir -p $(dir $@)
	$(CC) -m32 $(CFLAGS) $(UAPI_CFLAGS) -o $@ $(JOBCTL_SOURCES) userspace/libjob.c $(STATIC_LDFLAGS)

$(BUILD)/bin/%32: tests/%.c userspace/job.h include/uapi/job.h userspace/libjob.c
	mkdir -p $(dir $@)
	$(CC) -m32 $(CFLAGS) $(UAPI_CFLAGS) -o $@ $< userspace/libjob.c $(STATIC_LDFLAGS)

$(BUILD)/lib/libjob.a: userspace/libjob.c userspace/job.h include/uapi/job.h
	mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(UAPI_CFLAGS) -c -o $(BUILD)/lib/libjob.o $<
	$(AR) rcs $@ $(BUILD)/lib/libjob.o

$(LIBJOB_SO): userspace/libjob.c userspace/job.h include/uapi/job.h $(LIBJOB_MAP)
	mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(UAPI_CFLAGS) -fPIC -shared -Wl,-soname,$(LIBJOB_SONAME) \
		$(LIBJOB_MAP_LDFLAGS) -o $@ $<
	ln -sf $(LIBJOB_SONAME).1 $(BUILD)/lib/$(LIBJOB_SONAME)
	ln -sf $(LIBJOB_SONAME) $(BUILD)/lib/libjob.so

deps:
	scripts/install-deps.sh

check: deps
	$(MAKE) all icount-plugin
	tests/run-all.sh

# KERNELS=5.10,6.12-rt SCENARIOS="smoke job_jobtest" for a part of the matrix.
check-kernels: deps userspace
	tests/kernels/run.sh $(if $(KERNELS),--kernels $(KERNELS)) $(or $(SCENARIOS),all)

# The QEMU plugin that counts the guest's instructions (bench/icount/).
ICOUNT_PLUGIN = $(BUILD)/icount/pn_icount.so
icount-plugin: $(ICOUNT_PLUGIN)
$(ICOUNT_PLUGIN): bench/icount/plugin.c bench/icount/qemu_plugin_v1.h
	mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $<

BENCH_DEPS = stress-ng rt-tests gnuplot-nox python3 linux-perf

# PN_BENCH_QUICK=1 for a run of a few minutes; see bench/run.sh.
bench: deps
	scripts/install-deps.sh $(BENCH_DEPS)
	$(MAKE) all icount-plugin
	bench/run.sh

bench-compare: deps
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=REV" >&2; exit 2; }
	scripts/install-deps.sh $(BENCH_DEPS)
	$(MAKE) all icount-plugin
	KDIR="$(KDIR)" bench/compare.sh "$(BASE)"

demo: deps
	$(MAKE) all
	tests/vm/run.sh --scenarios tests/vm/demo demo
	@sed -n '/^@@PN BEGIN demo/,/^@@PN DMESG demo/p' $(BUILD)/vm/logs/latest.log | \
		grep -v -e '^@@PN' -e '^pn: '

vm-shell: all
	tests/vm/run.sh --shell --load job,keyring_bridge

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
