/* deal54.c -- post 004's dealer: a 54-card deck (4 suits x 13 + two
 * jokers) shuffled into a copy so the original deck stays in order, then
 * dealt as Dou Dizhu: three hands of 17 and 3 landlord cards.  With an
 * argument, the deal is replayable from that seed.
 *   cc deal54.c $(pkg-config --cflags --libs fairshuf) && ./a.out [SEED] */
#include <fairshuf.h>
#include <stdio.h>

static void print_card(int c)
{
    static const char *ranks[] = {"A", "2", "3", "4", "5", "6", "7",
                                  "8", "9", "10", "J", "Q", "K"};
    static const char *suits[] = {"\u2660", "\u2665", "\u2666", "\u2663"};
    if (c == 52)
        printf(" BJ");
    else if (c == 53)
        printf(" RJ");
    else
        printf(" %s%s", ranks[c % 13], suits[c / 13]);
}

int main(int argc, char **argv)
{
    int deck[54], shuffled[54];
    for (int i = 0; i < 54; i++)
        deck[i] = i;
    fs_rng *rng = NULL;
    int rc = fs_rng_new(&rng, "chacha20", argc > 1 ? argv[1] : NULL);
    if (rc == FS_OK)
        rc = fs_shuffle_copy(shuffled, deck, 54, sizeof deck[0], rng);
    fs_rng_free(rng);
    if (rc != FS_OK) {
        fprintf(stderr, "deal54: %s\n", fs_strerror(rc));
        return 1;
    }
    for (int p = 0; p < 3; p++) {
        printf("player %d:", p + 1);
        for (int i = 0; i < 17; i++)
            print_card(shuffled[p * 17 + i]);
        printf("\n");
    }
    printf("landlord:");
    for (int i = 51; i < 54; i++)
        print_card(shuffled[i]);
    printf("\ndeck still in order: %s\n", deck[0] == 0 && deck[53] == 53 ? "yes" : "no");
    return 0;
}
