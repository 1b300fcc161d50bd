/* codec.h -- gzip and zstd streams behind one interface (internal). */
#ifndef FS_LINES_CODEC_H
#define FS_LINES_CODEC_H

#include <stddef.h>
#include "fairshuf/lines.h"

/* Receives produced bytes; a non-FS_OK return stops the feed with it. */
typedef int (*fs__emit)(void *arg, const unsigned char *p, size_t n);

typedef struct fs__codec fs__codec;

/* A decoder (encode = 0) or encoder of kind (FS_CODEC_PLAIN passes bytes
 * through).  FS_ENOMEM. */
int fs__codec_new(fs__codec **c, fs_lines_codec kind, int encode);
void fs__codec_free(fs__codec *c);

/* Feeds in[0..n); fin = 1 on the last feed (n may be 0) ends the stream
 * (an encoder writes its trailer; a decoder checks the stream is whole).
 * Output goes to emit in pieces of up to 256 KiB.  Errors: emit's, FS_ENOMEM,
 * FS_EIO with errno EBADMSG and fs__codec_why() when the data is corrupt
 * or truncated. */
int fs__codec_feed(fs__codec *c, const unsigned char *in, size_t n, int fin,
                   fs__emit emit, void *arg);

/* Why the last FS_EIO/EBADMSG: "gzip data is corrupt: invalid ...". */
const char *fs__codec_why(const fs__codec *c);

#endif
