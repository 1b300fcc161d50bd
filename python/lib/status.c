/* status.c -- error names and the library's version. */
#include "internal.h"

const char *fs_version(void)
{
    return FS_VERSION_STRING;
}

const char *fs_strerror(int status)
{
    switch (status) {
    case FS_OK: return "success";
    case FS_EINVAL: return "invalid argument";
    case FS_ENOMEM: return "memory exhausted";
    case FS_ERANDOM: return "the operating system refused randomness";
    case FS_ENOTFOUND: return "no such name";
    case FS_EIO: return "input/output error";
    case FS_ERANGE: return "value out of range";
    case FS_EEOF: return "end of file";
    case FS_ESEED: return "empty or malformed seed";
    case FS_EUNSUPPORTED: return "not supported";
    default: return "unknown error";
    }
}
