# Debian packaging and the end-to-end install test; included by the top
# Makefile.
#
#   make deb             pnotify-dkms, jobctl, libjob0, libjob-dev in
#                        $(BUILD)/deb/, checked with lintian
#   make check-install   installs them in a Debian 12 system (debootstrap,
#                        cached in /var/cache/pnotify), boots it under QEMU
#                        and checks the modules, jobtest and the removal

DEB_DIR = $(BUILD)/deb
DEB_VERSION := $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)

.PHONY: deb deb-deps check-install

deb-deps:
	scripts/install-deps.sh build-essential debhelper dh-dkms dkms dpkg-dev \
		fakeroot lintian debootstrap e2fsprogs qemu-system-x86 pkg-config man-db \
		libpam0g-dev libslurm-dev

# Built from a copy of the work tree (tracked and untracked files that git
# does not ignore), so that dpkg-buildpackage neither writes in the tree nor
# puts its results beside it.
deb: deb-deps
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src/pnotify-$(DEB_VERSION)
	git ls-files -z -c -o --exclude-standard | grep -z -v '^build/' | \
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null | \
		tar -xf - -C $(DEB_DIR)/src/pnotify-$(DEB_VERSION)
	cd $(DEB_DIR)/src/pnotify-$(DEB_VERSION) && \
		timeout 900 dpkg-buildpackage -b -us -uc --no-sign \
		> $(DEB_DIR)/build.log 2>&1 || \
		{ tail -n 40 $(DEB_DIR)/build.log; exit 1; }
	mv $(DEB_DIR)/src/*.deb $(DEB_DIR)/src/*.buildinfo \
		$(DEB_DIR)/src/*.changes $(DEB_DIR)/
	rm -rf $(DEB_DIR)/src
	@ls -1 $(DEB_DIR)/*.deb
	timeout 600 lintian --fail-on error --tag-display-limit 0 \
		$(DEB_DIR)/*.changes

check-install: deb
	tests/install/run.sh
