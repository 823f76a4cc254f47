/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A minimal unit test harness: CHECK() prints "PASS name" or "FAIL name",
 * unit_summary() the final "N passed, N failed" line and the exit status.
 */
#ifndef _UNIT_H
#define _UNIT_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int unit_passed, unit_failed;

static inline void unit_check(bool ok, const char *name, const char *expr,
			      int line)
{
	if (ok) {
		printf("PASS %s\n", name);
		unit_passed++;
	} else {
		printf("FAIL %s (line %d: %s)\n", name, line, expr);
		unit_failed++;
	}
}

#define CHECK(name, expr) unit_check((expr), (name), #expr, __LINE__)

static inline int unit_summary(void)
{
	printf("%d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* _UNIT_H */
