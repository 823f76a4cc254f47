/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SGI's job commands jstat, jkill, jwait, jattach, jdetach and jsethid, with
 * SGI's output formats, messages and exit codes, for the scripts written
 * against them.  jobctl runs them when called by their names.
 */
#ifndef _SGI_COMMANDS_H
#define _SGI_COMMANDS_H

#include <stdbool.h>

bool is_sgi_command(const char *name);
/* Runs the SGI command called name; returns its exit status. */
int run_sgi_command(const char *name, int argc, char **argv);

#endif /* _SGI_COMMANDS_H */
