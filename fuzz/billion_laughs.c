/* Measures how fast and how cheaply a YAML "billion laughs" document is rejected (see
 * docs/reliability.md). Not a test (no timing assertion): prints time and peak RSS growth.
 *
 *   cc -O2 fuzz/billion_laughs.c -Iinclude -Lbuild -lcontrollerreg -Wl,-rpath,$PWD/build -o laughs
 *   ./laughs [LEVELS]      (default 9: 9^9 ≈ 387 million "lol"s if expanded) */
#include <controllerreg.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static long peak_rss_kib(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

int main(int argc, char **argv) {
    int levels = argc > 1 ? atoi(argv[1]) : 9;
    if (levels < 2 || levels > 26) levels = 9;
    char text[8192];
    size_t n = (size_t)sprintf(text, "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for (int i = 1; i < levels; i++) {
        char c = (char)('a' + i), prev = (char)('a' + i - 1);
        n += (size_t)sprintf(text + n, "%c: &%c [", c, c);
        for (int k = 0; k < 9; k++) n += (size_t)sprintf(text + n, "%s*%c", k ? "," : "", prev);
        n += (size_t)sprintf(text + n, "]\n");
    }
    /* Warm up (first use of libyaml and the runtime) so the figures are the load's own. */
    static const char warm[] = "w: [1, &x [2], *x]\n";
    cr_registry *w = cr_registry_new();
    cr_load_string(w, warm, sizeof warm - 1, CR_FORMAT_YAML);
    cr_registry_free(w);

    cr_registry *reg = cr_registry_new();
    long before = peak_rss_kib();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = cr_load_string(reg, text, n, CR_FORMAT_YAML);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long after = peak_rss_kib();
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    printf("billion laughs, %d levels (%zu bytes): %s (%d) in %.2f ms, peak RSS +%ld KiB\n  %s\n", levels, n, cr_status_name(rc),
           rc, ms, after - before, cr_last_error_message());
    cr_registry_free(reg);
    return rc == CR_ERR_LIMIT ? 0 : 1;
}
