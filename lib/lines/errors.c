/* errors.c -- fs_lines_strerror: why fs_lines_shuffle failed, in the same
 * words for every door (CLI, fairshuf-mpi, Python). */
#include <string.h>

#include "fairshuf/lines.h"

const char *fs_lines_strerror(int status, const fs_lines_result *res)
{
    if (status == FS_EIO && res != NULL) {
        if (res->where == FS_LINES_INPUT_CHANGED)
            return "file changed as we read it (a large file is read more "
                   "than once, not held in memory)";
        if (res->err != 0)
            return strerror(res->err);
    }
    return fs_strerror(status);
}
