#!/usr/bin/env python3
# onecell.py N T EPS SEED -- T permutations of 0..N-1, one per line: fair
# (Python's seeded Mersenne Twister), except that in a fraction EPS of them
# element 0 is forced to position 0 and the others shuffled fairly (issue
# 30's single-cell bias).  For tests/cli/trust.bats.
import random, sys
n, T, eps, seed = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)
out = []
for _ in range(T):
    if rnd.random() < eps:  # element 0 forced to position 0, rest fair
        a = list(range(1, n))
        rnd.shuffle(a)
        a = [0] + a
    else:
        a = list(range(n))
        rnd.shuffle(a)
    out.append(" ".join(map(str, a)))
print("\n".join(out))
