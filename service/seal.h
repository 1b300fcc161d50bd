/* seal.h -- the unrevealed server seeds encrypted at rest (service/seal.c;
 * docs/service.md, "Server seeds at rest").  One key per process, read
 * once at start from --seed-key-file (and an old key from
 * --old-seed-key-file while keys rotate).  A sealed seed is
 *   0x01 | key id (4 bytes) | nonce (24) | XChaCha20-Poly1305 of the seed
 *   (32 + 16 tag)
 * with the table's commitment and the first 5 bytes as associated data, so
 * a sealed seed moved to another row does not open.  The key id is the
 * first 4 bytes of SHA-256("fairshuf-seed-key" || key): it names the key,
 * it does not reveal it. */
#ifndef FS_SERVICE_SEAL_H
#define FS_SERVICE_SEAL_H

#include <stddef.h>
#include <stdint.h>

#define SVC_SEALED_LEN (1 + 4 + 24 + 32 + 16)

/* Reads the key files (NULL: none): 64 hex digits on the first line, a
 * regular file readable and writable by its owner only.  0, or -1 with
 * *why ("FILE: reason").  Without a key seeds are stored as they are. */
int svc_seal_init(const char *key_file, const char *old_key_file, char *why,
                  size_t cap);
void svc_seal_free(void);
/* 1 when a key was given. */
int svc_seal_on(void);

/* A 32-byte key from a file of 64 hex digits on its first line, which
 * must be a regular file (not a symbolic link; a FIFO is refused at once)
 * that only its owner may read or write; `what` names the key in the
 * messages ("the seed key"), `hint` says how to make one.  0, or -1 and
 * *why ("FILE: reason").  Used for --seed-key-file and --vrf-key-file. */
int svc_key_file_read(const char *path, const char *what, const char *hint,
                      uint8_t out[32], char *why, size_t cap);

/* The stored form of seed: sealed under the current key (SVC_SEALED_LEN
 * bytes) or, with no key, the 32 bytes as they are.  Returns the length
 * written to out. */
size_t svc_seal_seed(const uint8_t seed[32], const uint8_t commitment[32],
                     uint8_t out[SVC_SEALED_LEN]);

/* The seed from its stored form, checked against its commitment.
 * 0: *current is 1 when the form is the one svc_seal_seed writes now (the
 * current key, or plain with no key).  -1 with *why: a sealed seed without
 * a key, under an unknown key, one that does not open (damaged or moved),
 * or a seed that is not its commitment's. */
int svc_unseal_seed(const uint8_t *in, size_t len,
                    const uint8_t commitment[32], uint8_t seed[32],
                    int *current, const char **why);

/* At the start of a SQLite store (service/store_seal.c): every row's seed
 * opens, else -1 and *why names the row; seeds not in the current form are
 * sealed again, in one transaction. */
struct sqlite3;
int svc_sqlite_seal_check(struct sqlite3 *db, char *why, size_t cap);

#endif
