/*
 * pairbench.h — interleaved A/B pairs for controllerreg's benchmarks (header-only; C and C++).
 *
 * A comparison "A over B" is never the ratio of two medians taken minutes apart: A and B are timed
 * back to back, block after block (A B, B A, A B, ...; the order alternates so neither side always
 * runs first), and every pair of blocks gives one ratio A/B. On a shared machine a busy phase slows
 * both sides of the same pair, so the ratios keep their value; Benchmarks/scripts/driver.py reports
 * their min / median / max. See Benchmarks/README.md for how a new pair row is added.
 *
 *   pb_init_from_env();                         BENCH_PAIRS, BENCH_BLOCK_MS, BENCH_CLOCK
 *   pb_pair_ops("c.cr.leaf", op_a, ctx_a, "c.baseline.lookup_call", op_b, ctx_b);
 *       -> PAIR {"a": ..., "b": ..., "unit": "ns/op", "a_samples": [...], "b_samples": [...]}
 *   pb_pair_blocks(...)                         the same with self-timed blocks (e.g. one load each)
 *   pb_measured_region(op, ctx, n)              runs op n times; callgrind counts only inside it
 *                                               (valgrind --tool=callgrind --toggle-collect='*pb_measured_region*')
 *
 * Time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID) unless BENCH_CLOCK=wall.
 */
#ifndef CONTROLLERREG_PAIRBENCH_H
#define CONTROLLERREG_PAIRBENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PB_MAX_PAIRS 256

/** One operation, run many times in a block (a create and its destroy, a lookup + call, ...). */
typedef void (*pb_op)(void *ctx);
/** A self-timed block: does `n` operations and returns the nanoseconds to count (setup and
 *  teardown that must not be counted stay outside its own clock reads). */
typedef double (*pb_block)(void *ctx, long n);

typedef struct {
    int pairs;       /* A/B pairs per comparison (BENCH_PAIRS, default 21) */
    double block_ms; /* CPU time one block of an op-based pair aims at (BENCH_BLOCK_MS, default 4) */
    clockid_t clock; /* CLOCK_THREAD_CPUTIME_ID, or CLOCK_MONOTONIC with BENCH_CLOCK=wall */
} pb_config;

static pb_config pb_cfg = {21, 4.0, CLOCK_THREAD_CPUTIME_ID};

static inline void pb_init_from_env(void) {
    const char *p = getenv("BENCH_PAIRS"), *b = getenv("BENCH_BLOCK_MS"), *c = getenv("BENCH_CLOCK");
    if (p && atoi(p) > 0) pb_cfg.pairs = atoi(p) < PB_MAX_PAIRS ? atoi(p) : PB_MAX_PAIRS;
    if (b && atof(b) > 0) pb_cfg.block_ms = atof(b);
    if (c && strcmp(c, "wall") == 0) pb_cfg.clock = CLOCK_MONOTONIC;
}

static inline double pb_clock_ns(clockid_t clk) {
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
static inline double pb_now_ns(void) { return pb_clock_ns(pb_cfg.clock); }

/** Runs `op` `n` times. Never inlined: callgrind's --toggle-collect counts exactly this call. */
#if defined(__GNUC__)
__attribute__((noinline, used))
#endif
static void
pb_measured_region(pb_op op, void *ctx, long n) {
    for (long i = 0; i < n; i++) op(ctx);
    __asm__ __volatile__("" ::: "memory");
}

/** Untimed: warm `op` up, then `n` runs inside pb_measured_region (the callgrind mode). */
static inline void pb_count(pb_op op, void *ctx, long warmup, long n) {
    for (long i = 0; i < warmup; i++) op(ctx);
    pb_measured_region(op, ctx, n);
}

static inline void pb_print_samples(const char *key, const double *s, int n) {
    printf(", \"%s\": [", key);
    for (int i = 0; i < n; i++) printf("%s%.6g", i ? ", " : "", s[i]);
    printf("]");
}

/** Prints one PAIR line: A's and B's samples in the same order (sample i of each = pair i). */
static inline void pb_emit_pair(const char *a, const char *b, const char *unit, const double *as, const double *bs, int n,
                                const char *extra_json) {
    printf("PAIR {\"a\": \"%s\", \"b\": \"%s\", \"unit\": \"%s\"", a, b, unit);
    pb_print_samples("a_samples", as, n);
    pb_print_samples("b_samples", bs, n);
    printf("%s%s}\n", extra_json ? ", " : "", extra_json ? extra_json : "");
    fflush(stdout);
}

/** Prints one RESULT line (a single-sided measurement: memory, soak). */
static inline void pb_emit_result(const char *name, const char *unit, const double *s, int n, const char *extra_json) {
    printf("RESULT {\"name\": \"%s\", \"unit\": \"%s\"", name, unit);
    pb_print_samples("samples", s, n);
    printf("%s%s}\n", extra_json ? ", " : "", extra_json ? extra_json : "");
    fflush(stdout);
}

typedef struct {
    pb_op op;
    void *ctx;
} pb_op_block_ctx;
static double pb_op_block(void *c, long n) {
    pb_op_block_ctx *x = (pb_op_block_ctx *)c;
    double t0 = pb_now_ns();
    for (long i = 0; i < n; i++) x->op(x->ctx);
    return pb_now_ns() - t0;
}

/** Iterations of `blk` that take about pb_cfg.block_ms (at least 1). */
static inline long pb_calibrate(pb_block blk, void *ctx) {
    long n = 1;
    for (;;) {
        double ns = blk(ctx, n);
        if (ns >= pb_cfg.block_ms * 1e6 / 4 || n >= (1L << 30)) {
            double per = ns / (double)n;
            long want = per > 0 ? (long)(pb_cfg.block_ms * 1e6 / per) : n;
            return want > 0 ? want : 1;
        }
        n *= 4;
    }
}

/** The pair loop: `pairs` times, one block of A and one of B in alternating order; samples are
 *  per operation (ns / n). `na`, `nb` <= 0 calibrate to pb_cfg.block_ms. */
static inline void pb_pair_blocks(const char *a, pb_block ablk, void *actx, long na, const char *b, pb_block bblk, void *bctx,
                                  long nb, const char *unit, double scale, const char *extra_json) {
    static double as[PB_MAX_PAIRS], bs[PB_MAX_PAIRS];
    if (na <= 0) na = pb_calibrate(ablk, actx);
    if (nb <= 0) nb = pb_calibrate(bblk, bctx);
    int n = pb_cfg.pairs;
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0) {
            as[i] = ablk(actx, na) / (double)na * scale;
            bs[i] = bblk(bctx, nb) / (double)nb * scale;
        } else {
            bs[i] = bblk(bctx, nb) / (double)nb * scale;
            as[i] = ablk(actx, na) / (double)na * scale;
        }
    }
    pb_emit_pair(a, b, unit, as, bs, n, extra_json);
}

/** A/B pair of two operations, in ns per operation, each block ~pb_cfg.block_ms. */
static inline void pb_pair_ops(const char *a, pb_op aop, void *actx, const char *b, pb_op bop, void *bctx) {
    pb_op_block_ctx x = {aop, actx}, y = {bop, bctx};
    pb_pair_blocks(a, pb_op_block, &x, 0, b, pb_op_block, &y, 0, "ns/op", 1.0, NULL);
}

#endif
