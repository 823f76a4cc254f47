# Debian packaging and the end-to-end install test; included by the top
# Makefile.
#
#   make deb             pnotify-dkms, jobctl, libjob0, libjob-dev,
#                        libpam-job, slurm-spank-job in $(BUILD)/deb/,
#                        checked with lintian
#   make deb DEB_RELEASE=trixie
#                        the same built in a Debian 13 chroot
#                        (scripts/debian-chroot.sh), against its libc, PAM
#                        and Slurm, in $(BUILD)/deb-trixie/
#   make check-install   installs them in a Debian 12 and a Debian 13 system
#                        (debootstrap, cached in /var/cache/pnotify), boots
#                        each under QEMU and checks the modules, jobtest, the
#                        integrations and the removal (INSTALL_RELEASES=
#                        "bookworm trixie" by default)

# Debian 12 (bookworm) is the machine's own release: its packages are built
# on it; another release's in that release's chroot.
DEB_RELEASE ?= bookworm
DEB_DIR = $(BUILD)/deb$(if $(filter-out bookworm,$(DEB_RELEASE)),-$(DEB_RELEASE))
DEB_VERSION := $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)
DEB_BUILD_DEPS = build-essential debhelper dh-dkms dkms dpkg-dev fakeroot \
	lintian pkg-config man-db libpam0g-dev libslurm-dev
IN_DEB_RELEASE = $(if $(filter-out bookworm,$(DEB_RELEASE)),\
	scripts/debian-chroot.sh $(DEB_RELEASE) run --bind $(DEB_DIR))
INSTALL_RELEASES ?= bookworm trixie

.PHONY: deb deb-deps check-install

deb-deps:
	scripts/install-deps.sh $(DEB_BUILD_DEPS) debootstrap e2fsprogs qemu-system-x86
	$(if $(IN_DEB_RELEASE),scripts/debian-chroot.sh $(DEB_RELEASE) deps $(DEB_BUILD_DEPS))

# Built from a copy of the work tree (tracked and untracked files that git
# does not ignore), so that dpkg-buildpackage neither writes in the tree nor
# puts its results beside it.
deb: deb-deps
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src/pnotify-$(DEB_VERSION)
	git ls-files -z -c -o --exclude-standard | grep -z -v '^build/' | \
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null | \
		tar -xf - -C $(DEB_DIR)/src/pnotify-$(DEB_VERSION)
	$(IN_DEB_RELEASE) sh -c 'cd $(DEB_DIR)/src/pnotify-$(DEB_VERSION) && \
		timeout 900 dpkg-buildpackage -b -us -uc --no-sign' \
		> $(DEB_DIR)/build.log 2>&1 || \
		{ tail -n 40 $(DEB_DIR)/build.log; exit 1; }
	mv $(DEB_DIR)/src/*.deb $(DEB_DIR)/src/*.buildinfo \
		$(DEB_DIR)/src/*.changes $(DEB_DIR)/
	rm -rf $(DEB_DIR)/src
	@ls -1 $(DEB_DIR)/*.deb
	$(IN_DEB_RELEASE) timeout 600 lintian --fail-on error --tag-display-limit 0 \
		$(DEB_DIR)/*.changes

check-install:
	tests/install/releases.sh $(INSTALL_RELEASES)
