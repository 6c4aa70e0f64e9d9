/* SPDX-License-Identifier: MIT */
/* A small stand-in for the kernel's struct inode and its dirty flags (include/linux/fs.h). */
#ifndef EXAMPLE_INODE_H
#define EXAMPLE_INODE_H

#include <stdint.h>

struct inode {
	uint32_t i_dev; /* the kernel's dev_t encoding: major << 20 | minor */
	uint64_t i_ino;
	int i_state;
};

#define MINORBITS 20
#define MINORMASK ((1U << MINORBITS) - 1)
#define MAJOR(dev) ((unsigned int) ((dev) >> MINORBITS))
#define MINOR(dev) ((unsigned int) ((dev) & MINORMASK))
#define MKDEV(ma, mi) (((ma) << MINORBITS) | (mi))

#define I_DIRTY_SYNC (1 << 0)
#define I_DIRTY_DATASYNC (1 << 1)
#define I_DIRTY_PAGES (1 << 2)
#define I_NEW (1 << 3)
#define I_WILL_FREE (1 << 4)
#define I_FREEING (1 << 5)
#define I_CLEAR (1 << 6)
#define I_SYNC (1 << 7)
#define I_REFERENCED (1 << 8)
#define I_DIRTY (I_DIRTY_SYNC | I_DIRTY_DATASYNC | I_DIRTY_PAGES)

#define INODE_DIRTY_FLAGS \
	{ I_DIRTY_SYNC,		"DIRTY-SYNC" }, \
	{ I_DIRTY_DATASYNC,	"DIRTY-DATASYNC" }, \
	{ I_DIRTY_PAGES,	"DIRTY-PAGES" }, \
	{ I_NEW,		"NEW" }, \
	{ I_WILL_FREE,		"WILL-FREE" }, \
	{ I_FREEING,		"FREEING" }, \
	{ I_CLEAR,		"CLEAR" }, \
	{ I_SYNC,		"SYNC" }, \
	{ I_REFERENCED,		"REFERENCED" }

#endif
