/* shuffle_array.c -- the smallest useful program: shuffle an array with the
 * default generator (ChaCha20 keyed from the OS), checking for errors.
 *   cc shuffle_array.c $(pkg-config --cflags --libs fairshuf) */
#include <fairshuf.h>
#include <stdio.h>

int main(void)
{
    int cards[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    int rc = fs_shuffle(cards, 10, sizeof cards[0], NULL);
    if (rc != FS_OK) { /* e.g. the OS refused randomness: no result */
        fprintf(stderr, "shuffle_array: %s\n", fs_strerror(rc));
        return 1;
    }
    for (int i = 0; i < 10; i++)
        printf("%d%c", cards[i], i == 9 ? '\n' : ' ');
    return 0;
}
