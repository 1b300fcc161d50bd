/* player_internal.h -- what lib/playlist/player.c and player_state.c share:
 * the fs_player structure (<fairshuf/playlist.h>, docs/playlist.md "The
 * player"). */
#ifndef FS_PLAYER_INTERNAL_H
#define FS_PLAYER_INTERNAL_H

#include "fairshuf/playlist.h"

typedef struct fs_ids {
    uint64_t *id;
    size_t len, cap;
} fs_ids;

typedef struct fs_idx {
    uint64_t id, index;
} fs_idx;

struct fs_player {
    fs_playlist pl;
    /* the record (saved) */
    int present, version, fresh;
    uint8_t tag[16];
    fs_player_order order;
    uint64_t field;
    uint32_t window_asked; /* fresh players: the window to init with */
    uint64_t cycle, at, frozen, base;
    uint64_t passed; /* positions of the cycle passed (>= at, >= frozen) */
    /* ids.id[0..frozen) are saved; ids.id[frozen..ids.len) are positions
     * worked out from the list (saved list only: they are not saved) */
    fs_ids ids, avoid, queue;
    /* the list (not saved) */
    size_t n;
    uint64_t *lid;   /* lid[i]: id of item i */
    fs_idx *sorted;  /* (id, i) by id */
    uint64_t *group;
    double *weight;
    uint64_t *rest;  /* array cycles: positions after the frozen ones */
    size_t nrest;
};

int fs__ids_push(fs_ids *v, uint64_t id);

#endif
