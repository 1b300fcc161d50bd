/* library.h -- the realistic music library the spread tests share
 * (test_spread.c, test_player.c): one dominant artist and a long tail. */
#ifndef FS_TEST_LIBRARY_H
#define FS_TEST_LIBRARY_H

#include <stdint.h>

#define LIBRARY_N 300

/* artist[0..300): 120 songs by artist 0; 180 by artists 1..40, sizes
 * ~ 1/k (Zipf-like, every artist at least one song). */
void library_artists(uint64_t artist[LIBRARY_N]);

#endif
