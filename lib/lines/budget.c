/* budget.c -- the default memory budget of the keyed shuffle: the least of
 * what the process may use (cgroup v2 or v1 memory limit, RLIMIT_AS,
 * RLIMIT_DATA) and the memory the machine has available, with headroom.
 * Every source is optional: one that cannot be read imposes no limit. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine.h"
#include "rng/keystream.h"

#define MIB ((uint64_t)1 << 20)

/* The first unsigned number of a file ("max" = no limit). */
static uint64_t file_u64(const char *path)
{
    FILE *f = fopen(path, "re");
    unsigned long long v = UINT64_MAX;
    if (f == NULL)
        return UINT64_MAX;
    char word[32] = "";
    if (fscanf(f, "%31s", word) == 1 && word[0] >= '0' && word[0] <= '9')
        v = strtoull(word, NULL, 10);
    fclose(f);
    return (uint64_t)v;
}

/* The value of `name` in a "name value" file (memory.stat), or 0. */
static uint64_t stat_field(const char *path, const char *name)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 0;
    char key[64];
    unsigned long long v, found = 0;
    while (fscanf(f, "%63s %llu", key, &v) == 2)
        if (strcmp(key, name) == 0) {
            found = v;
            break;
        }
    fclose(f);
    return (uint64_t)found;
}

/* Room left in one cgroup folder: limit - (usage - inactive page cache). */
static uint64_t cgroup_room(const char *dir, int v2)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
    uint64_t limit = file_u64(p);
    if (limit == UINT64_MAX || limit >= ((uint64_t)1 << 60))
        return UINT64_MAX; /* no limit (v1 writes "unlimited" as ~2^63) */
    snprintf(p, sizeof p, "%s/%s", dir, v2 ? "memory.current" : "memory.usage_in_bytes");
    uint64_t used = file_u64(p);
    if (used == UINT64_MAX)
        used = 0;
    snprintf(p, sizeof p, "%s/memory.stat", dir);
    uint64_t cache = stat_field(p, v2 ? "inactive_file" : "total_inactive_file");
    used = cache < used ? used - cache : 0;
    return used < limit ? limit - used : 0;
}

/* The least room over the process's cgroup and its ancestors, for one
 * hierarchy: v2 ("0::/path") or v1's memory controller. */
static uint64_t cgroup_limit(const char *mount, int v2)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (f == NULL)
        return UINT64_MAX;
    char line[4096], rel[4096] = "";
    int have = 0;
    while (fgets(line, sizeof line, f)) {
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (b == NULL)
            continue;
        *a = *b = '\0';
        int match = v2 ? strcmp(line, "0") == 0 && a + 1 == b
                       : strstr(a + 1, "memory") != NULL;
        if (match) {
            snprintf(rel, sizeof rel, "%s", b + 1);
            rel[strcspn(rel, "\n")] = '\0';
            have = 1;
            break;
        }
    }
    fclose(f);
    if (!have)
        return UINT64_MAX;
    uint64_t room = UINT64_MAX;
    for (;;) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s%s", mount, strcmp(rel, "/") ? rel : "");
        uint64_t r = cgroup_room(dir, v2);
        if (r < room)
            room = r;
        char *slash = strrchr(rel, '/');
        if (slash == NULL || slash == rel)
            break;
        *slash = '\0';
    }
    if (strcmp(rel, "/") != 0) { /* the root (a container's own) */
        uint64_t r = cgroup_room(mount, v2);
        room = r < room ? r : room;
    }
    return room;
}

/* What one rlimit leaves, given the pages of it already used. */
static uint64_t rlimit_room(int which, uint64_t used)
{
    struct rlimit rl;
    if (getrlimit(which, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    return (uint64_t)rl.rlim_cur > used ? (uint64_t)rl.rlim_cur - used : 0;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* What the process may still allocate: the least of the cgroup room,
 * RLIMIT_AS and RLIMIT_DATA (with headroom) and the machine's available
 * memory; UINT64_MAX when nothing limits it. */
static uint64_t memory_room(void)
{
    long psz = sysconf(_SC_PAGESIZE);
    if (psz <= 0)
        psz = 4096;
    /* The keystream library sets itself up on first use (OpenSSL 3: its
     * providers, a context for this thread), after this count unless it is
     * used first: a keystream block now, so that what it holds is in the
     * count (the default build under a tight RLIMIT_AS, lines_data.bats). */
    static const unsigned char zero[32];
    unsigned char block[64];
    fs__chacha20(block, sizeof block, zero, zero, 0);
    unsigned long long vm = 0, rss = 0, shr = 0, text = 0, lib = 0, data = 0;
    FILE *f = fopen("/proc/self/statm", "re");
    if (f) {
        if (fscanf(f, "%llu %llu %llu %llu %llu %llu", &vm, &rss, &shr,
                   &text, &lib, &data) != 6)
            vm = data = 0;
        fclose(f);
    }
    /* The address space also holds what threads reserve (glibc's 64 MiB
     * arenas, 8 MiB stacks): only a third of what is left counts. */
    uint64_t room = rlimit_room(RLIMIT_AS, (uint64_t)vm * (uint64_t)psz);
    if (room != UINT64_MAX)
        room /= 3;
    room = min64(room, rlimit_room(RLIMIT_DATA, (uint64_t)data * (uint64_t)psz) / 2);
    /* A cgroup counts the page cache of what the process writes (the
     * temporary files of the out-of-core path): half of its room. */
    uint64_t cg = cgroup_limit("/sys/fs/cgroup", 1);
    cg = min64(cg, cgroup_limit("/sys/fs/cgroup/unified", 1));
    cg = min64(cg, cgroup_limit("/sys/fs/cgroup/memory", 0));
    room = min64(room, cg == UINT64_MAX ? cg : cg / 2);
    uint64_t avail = stat_field("/proc/meminfo", "MemAvailable:") * 1024;
    if (avail == 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES);
        avail = pages > 0 ? (uint64_t)pages * (uint64_t)psz : UINT64_MAX;
    }
    return min64(room, avail);
}

size_t fs_lines_default_memory(void)
{
    uint64_t room = memory_room();
    uint64_t m = room / 2; /* headroom: output, threads, the page cache */
    /* at least 64 MiB when the process may have it, never below 1 MiB */
    uint64_t floor = min64(64 * MIB, room / 4 * 3);
    if (m < floor)
        m = floor;
    if (m < MIB)
        m = MIB;
    if (m > SIZE_MAX / 2)
        m = SIZE_MAX / 2;
    return (size_t)m;
}
