# pnotify: process notification and job containers for stock kernels.
#
#   make            modules (against KDIR) and userspace programs
#   make deps       install the Debian packages the project needs
#   make check      unit tests, then every VM scenario on the stock kernel
#   make vm-shell   a shell in the VM with the modules loaded

# The running kernel's build tree when there is one, else the newest installed.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(shell ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1))
BUILD ?= $(CURDIR)/build

CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror=implicit-function-declaration
STATIC_LDFLAGS = -static -pthread

TEST_PROGS = pnotify_test
TEST_BINS = $(addprefix $(BUILD)/bin/,$(TEST_PROGS))

.PHONY: all modules userspace deps check unit-test vm-test vm-shell clean

all: modules userspace

modules:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "no kernel build tree: run 'make deps' or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
	mkdir -p $(BUILD)/modules
	cp src/*.ko tests/kmod/*.ko $(BUILD)/modules/
	modinfo -F vermagic src/pnotify.ko | cut -d' ' -f1 > $(BUILD)/kver

userspace: $(TEST_BINS)

$(BUILD)/bin/%: tests/%.c
	mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(STATIC_LDFLAGS)

deps:
	scripts/install-deps.sh

unit-test:
	@echo "no userspace unit tests yet"

vm-test: all
	tests/vm/run.sh all

check: deps
	$(MAKE) all
	tests/vm/run.sh all

vm-shell: all
	tests/vm/run.sh --shell

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
