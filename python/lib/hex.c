/* hex.c -- bytes to and from hex: seeds, keys and commitments. */
#include "internal.h"

void fs_hex_encode(const uint8_t *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

static int nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int fs_hex_decode(const char *hex, uint8_t *bytes, size_t n)
{
    if (hex == NULL || bytes == NULL || strlen(hex) != 2 * n)
        return FS_EINVAL;
    for (size_t i = 0; i < n; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return FS_EINVAL;
        bytes[i] = (uint8_t)(hi << 4 | lo);
    }
    return FS_OK;
}
