/* rng.c -- the generator interface: registry, construction, the stream's
 * slow path, the per-thread default generator. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "../internal.h"
#include "generators.h"

const unsigned char fs__zeros[FS_RNG_BUF];

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fairshuf's stream reads words little-endian straight from memory"
#endif

static const fs_rng_vtable *const registry[] = {
    &fs__chacha20_vt, &fs__xoshiro256ss_vt, &fs__pcg64_vt, &fs__mt19937_vt,
    &fs__mt19937_64_vt, &fs__splitmix64_vt, &fs__rand_vt, &fs__delphi_vt,
};
#define NGEN (sizeof registry / sizeof registry[0])

static fs_rng_info infos[NGEN];
static pthread_once_t infos_once = PTHREAD_ONCE_INIT;

static void infos_init(void)
{
    for (size_t i = 0; i < NGEN; i++)
        infos[i] = *registry[i]->info;
}

const fs_rng_info *fs_rng_list(size_t *count)
{
    pthread_once(&infos_once, infos_init);
    if (count)
        *count = NGEN;
    return infos;
}

static const fs_rng_vtable *find_vt(const char *name)
{
    if (name == NULL)
        return registry[0];
    for (size_t i = 0; i < NGEN; i++)
        if (strcmp(registry[i]->info->name, name) == 0)
            return registry[i];
    return NULL;
}

const fs_rng_info *fs_rng_find(const char *name)
{
    const fs_rng_vtable *vt = find_vt(name);
    return vt && name ? vt->info : NULL;
}

const fs_rng_info *fs_rng_info_of(const fs_rng *rng)
{
    return rng ? rng->vt->info : NULL;
}

int fs_rng_error(const fs_rng *rng)
{
    if (rng == NULL) /* NULL: this thread's default generator */
        rng = fs_rng_default();
    return rng ? rng->error : FS_ERANDOM;
}

void fs_rng_set_error(fs_rng *rng, int status)
{
    if (rng && rng->error == FS_OK)
        rng->error = status;
}

int fs_rng_new(fs_rng **out, const char *name, const char *seed)
{
    if (out == NULL)
        return FS_EINVAL;
    *out = NULL;
    const fs_rng_vtable *vt = find_vt(name);
    if (vt == NULL)
        return FS_ENOTFOUND;
    if (seed != NULL && seed[0] == '\0')
        return FS_ESEED;
    fs_rng *rng = calloc(1, sizeof *rng);
    if (rng == NULL)
        return FS_ENOMEM;
    rng->vt = vt;
    rng->s = &rng->own;
    int rc = fs__gen_seed(rng, seed);
    if (rc != FS_OK) {
        fs_rng_free(rng);
        return rc;
    }
    *out = rng;
    return FS_OK;
}

void fs_rng_free(fs_rng *rng)
{
    if (rng == NULL)
        return;
    if (rng->vt && rng->vt->destroy)
        rng->vt->destroy(rng);
    sodium_memzero(rng, sizeof *rng);
    free(rng);
}

uint64_t fs__rng_take_slow(fs_rng *rng, unsigned n)
{
    unsigned char b[8] = {0};
    unsigned got = 0;
    while (got < n) {
        fs_stream *s = rng->s;
        if (s->pos >= s->end) {
            rng->vt->refill(rng);
            s = rng->s;
            if (s->end == 0) /* a source that cannot refill */
                break;
        }
        size_t c = s->end - s->pos;
        if (c > n - got)
            c = n - got;
        memcpy(b + got, s->buf + s->pos, c);
        memset(s->buf + s->pos, 0, c); /* erased as handed out */
        s->pos += c;
        got += (unsigned)c;
    }
    uint64_t v;
    memcpy(&v, b, 8);
    return v;
}

uint64_t fs_rng_u64(fs_rng *rng)
{
    rng = fs__rng(rng);
    return rng ? fs__u64(rng) : 0;
}

uint32_t fs_rng_u32(fs_rng *rng)
{
    rng = fs__rng(rng);
    return rng ? fs__u32(rng) : 0;
}

void fs_rng_bytes(fs_rng *rng, void *buf, size_t n)
{
    rng = fs__rng(rng);
    unsigned char *p = buf;
    if (rng == NULL) {
        memset(buf, 0, n);
        return;
    }
    while (n > 0) {
        fs_stream *s = rng->s;
        if (s->pos >= s->end) {
            rng->vt->refill(rng);
            s = rng->s;
            if (s->end == 0) {
                memset(p, 0, n);
                return;
            }
        }
        size_t c = s->end - s->pos;
        if (c > n)
            c = n;
        memcpy(p, s->buf + s->pos, c);
        memset(s->buf + s->pos, 0, c); /* erased as handed out */
        s->pos += c;
        p += c;
        n -= c;
    }
}

/* The per-thread default generator, freed by the key's destructor. */
static pthread_key_t default_key;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static _Thread_local fs_rng *default_rng;

static void default_free(void *p)
{
    fs_rng_free(p);
}

static void default_key_init(void)
{
    (void)pthread_key_create(&default_key, default_free);
}

fs_rng *fs_rng_default(void)
{
    if (FS_LIKELY(default_rng != NULL))
        return default_rng;
    fs_rng *rng;
    if (fs_rng_new(&rng, "chacha20", NULL) != FS_OK)
        return NULL;
    pthread_once(&default_once, default_key_init);
    (void)pthread_setspecific(default_key, rng);
    default_rng = rng;
    return rng;
}
