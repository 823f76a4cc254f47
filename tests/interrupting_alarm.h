/* SPDX-License-Identifier: GPL-2.0 */
/* A SIGALRM that interrupts blocking calls (EINTR) instead of restarting them. */
#ifndef _INTERRUPTING_ALARM_H
#define _INTERRUPTING_ALARM_H

#include <signal.h>

static void interrupting_alarm_handler(int sig)
{
	(void)sig;
}

static inline int install_interrupting_alarm(void)
{
	struct sigaction sa = { .sa_handler = interrupting_alarm_handler };

	sigemptyset(&sa.sa_mask);
	return sigaction(SIGALRM, &sa, NULL);
}

#endif /* _INTERRUPTING_ALARM_H */
