/* lines.h -- `fairshuf-mpi lines`: the engine behind the command (one
 * collective call), kept apart from option parsing. */
#ifndef FS_MPI_LINES_H
#define FS_MPI_LINES_H

#include "internal.h"
#include "outfile.h"

typedef struct fs_mpi_lines_config {
    char *const *files;   /* the input: these files' concatenation */
    int nfiles;
    unsigned char delim;  /* '\n' or '\0' */
    uint8_t key[32];      /* K of the keyed order (the same on all ranks) */
    const char *pattern;  /* shard names: one %d (the rank), %% for % */
    uint64_t memory;      /* per-rank budget in bytes (0: none); a share
                             that does not fit is streamed in pieces and
                             what arrives is bucketed to temporary files */
    const char *tmpdir;   /* for those files (NULL: /tmp) */
    int fail_rank;        /* test hook: this rank's read fails (-1: none) */
    int local_only;       /* negative control: lines stay on their rank */
    uint64_t head;        /* write at most this many shuffled lines in all
                             (UINT64_MAX: every line); the shards are the
                             first `head` lines of the full order */
    uint64_t header;      /* the input's first `header` lines go first,
                             unshuffled, at the start of rank 0's shard;
                             line numbers (keys) count from the next one */
    int csv;              /* items are CSV records (lib/lines/csv.h: a
                             record ends at a LF outside double quotes);
                             delim is then '\n' */
    int shared;           /* when every rank runs on one node and the
                             input is one FILE: each rank reads it and
                             writes its key slice, nothing exchanged (0:
                             the lines themselves, in rounds) */
} fs_mpi_lines_config;

typedef struct fs_mpi_lines_result {
    int bad_rank;         /* lowest failing rank, -1 if none */
    char msg[8192];       /* its message, "what: why" (on every rank) */
    uint64_t bytes_in, lines_in, bytes_out, lines_out, sent, received;
    uint64_t spilled;     /* bytes written to temporary files */
    uint64_t rounds;      /* rounds of the overlapped exchange (0: one
                             exchange, or none) */
    double t_read, t_keys, t_exchange, t_spill, t_sort, t_write; /* s;
                             in rounds: keys = count pass and packing,
                             exchange = waiting for rounds (what packing
                             and placing did not hide), sort = placing
                             what arrived and the group sorts */
    double t_total;       /* the whole call */
} fs_mpi_lines_result;

/* Shuffles the lines of the input into one shard per rank (see
 * docs/distributed.md).  Shards are written under temporary names and
 * renamed only when every rank has written its shard; on failure no shard
 * and no temporary file is left.  Returns FS_OK or the failure's status
 * on every rank, res->bad_rank and res->msg saying where and why. */
int fs_mpi__lines(const fs_mpi_lines_config *c, MPI_Comm comm,
                  fs_mpi_lines_result *res);

/* The shard name of rank into out[cap]: pattern with %d replaced by the
 * rank and %% by %.  -1 if the pattern is not exactly one %d plus %%s,
 * or out is too small. */
int fs_mpi__shard_name(const char *pattern, int rank, char *out, size_t cap);

/* A shard being written, by lib/outfile.h's rules: fd is a new file that
 * takes the shard's name only at commit -- an unnamed (O_TMPFILE) file
 * where the system allows, so a rank that dies, even by SIGKILL, leaves
 * nothing behind; else a hidden .SHARD.fairshuf-XXXXXX, announced to
 * fs_mpi__shard_on_temp (when set) for removal on a signal.  tmp is the
 * name messages give (the shard's).  Each returns FS_OK or a status with
 * "what: why" in msg[cap]; all are local (the caller agrees with the
 * other ranks between the steps). */
typedef struct fs_mpi__shard {
    char name[4096], tmp[4096 + 32];
    int fd, committed;
    fs__outfile out;
} fs_mpi__shard;

/* The program's hook for a temporary file's name (NULL: none). */
extern void (*fs_mpi__shard_on_temp)(const char *name, void *arg);

/* Opens the new file (fails early if SHARD is a directory). */
int fs_mpi__shard_open(fs_mpi__shard *s, const char *pattern, int rank,
                       char *msg, size_t cap);
/* Syncs the new file (an error is a write error); it stays open. */
int fs_mpi__shard_close(fs_mpi__shard *s, char *msg, size_t cap);
/* Gives it its name: call only when every rank's shard is closed. */
int fs_mpi__shard_commit(fs_mpi__shard *s, char *msg, size_t cap);
/* write(2) until done; -1 with errno on failure. */
int fs_mpi__write_all(int fd, const void *buf, size_t n);
/* On failure: removes the temporary file, or the committed shard. */
void fs_mpi__shard_discard(fs_mpi__shard *s);

#endif /* FS_MPI_LINES_H */
