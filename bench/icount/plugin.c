// SPDX-License-Identifier: GPL-2.0
/*
 * pn_icount.so: a QEMU TCG plugin that counts the guest's instructions, for
 * the deterministic benchmark lane (bench/vm/icount.sh).
 *
 *   qemu-system-x86_64 ... -plugin PATH/pn_icount.so,out=FILE
 *
 * Each translation block adds its instruction count to one of three
 * counters when it is entered, chosen by its address: user space, the core
 * kernel, or the module area (modules, and the ftrace and kprobe
 * trampolines, which the kernel allocates there).  Whenever the guest runs
 * the marker `xchg %bx,%bx` (66 87 db, which changes nothing), the plugin
 * appends one line to FILE:
 *
 *   mark SEQ user=U kernel=K module=M
 *
 * with SEQ counting markers from 1.  A program measures an operation by
 * running the marker before and after it; its count is the difference.
 * A block is counted whole at entry even when it ends early (a fault), so a
 * count is exact for a given path, not an architectural retired count;
 * what matters is that the same path always gives the same count.
 *
 * With profile=PFILE too, it counts the kernel's instructions block by
 * block, and at each marker appends to PFILE "mark SEQ" and a line
 * "ADDRESS COUNT" (hexadecimal address, decimal count) for each kernel
 * block run since the marker before: bench/icount/profile.py adds them up
 * by function.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_v1.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* x86-64 with 4-level paging: where the kernel puts modules. */
#define MODULES_VADDR	0xffffffffc0000000ULL
#define MODULES_END	0xffffffffff000000ULL
#define KERNEL_START	0xffff800000000000ULL

enum area { AREA_USER, AREA_KERNEL, AREA_MODULE, NR_AREAS };

static const unsigned char marker[] = { 0x66, 0x87, 0xdb };

/*
 * The counters, added to by inline ops in translated code.  The benchmarks
 * run one vCPU with TCG's single thread (the ops are not atomic).
 */
static uint64_t counts[NR_AREAS];
static uint64_t marks;
static FILE *out;

/* The kernel's blocks, one per translation, for profile=. */
struct block {
	uint64_t vaddr;
	uint64_t insns;		/* run in it, added to by an inline op */
	uint64_t dumped;	/* of which written out at a marker */
};
static struct block **blocks;
static size_t nr_blocks, max_blocks;
static FILE *profile;

static enum area area_of(uint64_t vaddr)
{
	if (vaddr >= MODULES_VADDR && vaddr < MODULES_END)
		return AREA_MODULE;
	return vaddr >= KERNEL_START ? AREA_KERNEL : AREA_USER;
}

/* One line of counters: "WHAT MARKS user=U kernel=K module=M". */
static void print_counts(const char *what)
{
	fprintf(out, "%s %llu user=%llu kernel=%llu module=%llu\n", what,
		(unsigned long long)marks,
		(unsigned long long)counts[AREA_USER],
		(unsigned long long)counts[AREA_KERNEL],
		(unsigned long long)counts[AREA_MODULE]);
}

static void dump_profile(void)
{
	size_t i;

	fprintf(profile, "mark %llu\n", (unsigned long long)marks);
	for (i = 0; i < nr_blocks; i++) {
		struct block *b = blocks[i];

		if (b->insns == b->dumped)
			continue;
		fprintf(profile, "%llx %llu\n", (unsigned long long)b->vaddr,
			(unsigned long long)(b->insns - b->dumped));
		b->dumped = b->insns;
	}
	fflush(profile);
}

static void dump(unsigned int vcpu_index, void *userdata)
{
	(void)vcpu_index;
	(void)userdata;
	marks++;
	print_counts("mark");
	fflush(out);
	if (profile)
		dump_profile();
}

/* A new block's counter; NULL without memory (the block goes unprofiled). */
static uint64_t *profile_block(uint64_t vaddr)
{
	struct block *b;

	if (nr_blocks == max_blocks) {
		size_t max = max_blocks ? 2 * max_blocks : 65536;
		struct block **grown = realloc(blocks, max * sizeof(*blocks));

		if (!grown)
			return NULL;
		blocks = grown;
		max_blocks = max;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->vaddr = vaddr;
	blocks[nr_blocks++] = b;
	return &b->insns;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	uint64_t *block;

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &counts[area_of(vaddr)], n);
	if (profile && area_of(vaddr) != AREA_USER) {
		block = profile_block(vaddr);
		if (block)
			qemu_plugin_register_vcpu_tb_exec_inline(tb,
								 QEMU_PLUGIN_INLINE_ADD_U64,
								 block, n);
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (qemu_plugin_insn_size(insn) == sizeof(marker) &&
		    !memcmp(qemu_plugin_insn_data(insn), marker, sizeof(marker)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, dump,
							       QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	(void)id;
	(void)userdata;
	print_counts("exit");
	fclose(out);
	if (profile)
		fclose(profile);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	const char *path = NULL, *profile_path = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "profile=", 8)) {
			profile_path = argv[i] + 8;
		} else {
			fprintf(stderr, "pn_icount: unknown argument '%s' (out=FILE[,profile=PFILE])\n",
				argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "pn_icount: out=FILE is required\n");
		return -1;
	}
	if (strcmp(info->target_name, "x86_64") || !info->system_emulation) {
		fprintf(stderr, "pn_icount: needs qemu-system-x86_64, not %s\n",
			info->target_name);
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	if (profile_path) {
		profile = fopen(profile_path, "w");
		if (!profile) {
			perror(profile_path);
			fclose(out);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
