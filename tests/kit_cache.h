/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the tests that drain pnotify's kit cache, so that forks find no kit:
 * the kernel's reclaim of its slab caches (drop_caches) takes all but a few
 * of the cache's kits back (up to 2,048 are kept), and forks that keep
 * their children take the rest.
 */
#ifndef PN_TESTS_KIT_CACHE_H
#define PN_TESTS_KIT_CACHE_H

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* The kits pnotify's shrinker leaves (its PN_KITS_LOW). */
#define KITS_SHRINK_LEAVES	16

/*
 * Best effort: without it, a drain may take a fork per kit kept.  Every
 * slab cache of the system is shrunk, and the kernel logs a line: callers
 * shrink only a cache that holds more than KITS_SHRINK_LEAVES.
 */
static inline void shrink_kit_cache(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, "2", 1) < 0)
		perror("drop_caches");
	close(fd);
}

#endif /* PN_TESTS_KIT_CACHE_H */
