// baseline_std -- C++ std::shuffle with std::mt19937_64 over 8-byte
// elements, the baseline of `fairshuf bench` (protocol in baseline.h).
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "baseline.h"

int main(int argc, char **argv)
{
    size_t n;
    double min_ns;
    if (!baseline_args(argc, argv, &n, &min_ns))
        return 2;
    std::vector<uint64_t> a(n);
    std::iota(a.begin(), a.end(), uint64_t{0});
    std::mt19937_64 g(42);
    double t0 = baseline_now_ns(), t;
    size_t reps = 0;
    do {
        std::shuffle(a.begin(), a.end(), g);
        reps++;
    } while ((t = baseline_now_ns()) - t0 < min_ns);
    volatile uint64_t sink = a[n / 2]; // keep the work observable
    (void)sink;
    std::printf("%.6f %ld %s\n", (t - t0) / ((double)reps * (double)n),
                baseline_peak_kib(), BASELINE_COMPILER);
    return 0;
}
