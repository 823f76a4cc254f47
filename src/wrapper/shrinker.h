/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A shrinker across kernel versions: since 6.7 the kernel allocates it
 * (shrinker_alloc(), shrinker_register(), shrinker_free()); before, the
 * caller's struct is registered, by name since 6.0.
 */
#ifndef _PNOTIFY_WRAPPER_SHRINKER_H
#define _PNOTIFY_WRAPPER_SHRINKER_H

#include <linux/version.h>
#include <linux/shrinker.h>
#include <linux/slab.h>

typedef unsigned long (*pn_shrink_fn)(struct shrinker *shrinker,
				      struct shrink_control *sc);

static inline void pn_shrinker_init(struct shrinker *shrinker,
				    pn_shrink_fn count, pn_shrink_fn scan)
{
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker->seeks = DEFAULT_SEEKS;
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)

/* A shrinker of @count and @scan, registered as @name; NULL without memory. */
static inline struct shrinker *pn_shrinker_register(const char *name,
						    pn_shrink_fn count,
						    pn_shrink_fn scan)
{
	struct shrinker *shrinker = shrinker_alloc(0, "%s", name);

	if (!shrinker)
		return NULL;
	pn_shrinker_init(shrinker, count, scan);
	shrinker_register(shrinker);
	return shrinker;
}

static inline void pn_shrinker_unregister(struct shrinker *shrinker)
{
	shrinker_free(shrinker);
}

#else

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 0, 0)
#define pn_register_shrinker(shrinker, name) \
	register_shrinker(shrinker, "%s", name)
#else
#define pn_register_shrinker(shrinker, name) register_shrinker(shrinker)
#endif

static inline struct shrinker *pn_shrinker_register(const char *name,
						    pn_shrink_fn count,
						    pn_shrink_fn scan)
{
	struct shrinker *shrinker = kzalloc(sizeof(*shrinker), GFP_KERNEL);

	if (!shrinker)
		return NULL;
	pn_shrinker_init(shrinker, count, scan);
	if (pn_register_shrinker(shrinker, name)) {
		kfree(shrinker);
		return NULL;
	}
	return shrinker;
}

static inline void pn_shrinker_unregister(struct shrinker *shrinker)
{
	unregister_shrinker(shrinker);
	kfree(shrinker);
}

#endif

#endif /* _PNOTIFY_WRAPPER_SHRINKER_H */
