/* failalloc: an LD_PRELOAD allocator shim that fails exactly one allocation, the Nth one counted
 * after failalloc_arm(N), and lets every other allocation through to glibc.
 *
 * It replaces malloc, calloc, realloc, posix_memalign, aligned_alloc and memalign (everything the
 * library, the Swift runtime inside it, libyaml and glibc's own strdup use); free is glibc's.
 * A host finds the control functions with dlsym(RTLD_DEFAULT, "failalloc_arm"). Single-threaded
 * hosts only: the counter is not atomic. Used by scripts/oom-campaign.sh. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static long countdown; /* allocations left before the one that fails; 0 = disarmed */
static long counted;   /* allocations seen while armed */
static int injected;   /* whether the failure has happened */

/* Fails the nth allocation from now (n >= 1). */
void failalloc_arm(long n) {
    countdown = n;
    counted = 0;
    injected = 0;
}

/* Stops counting; returns how many allocations were seen while armed. */
long failalloc_disarm(void) {
    countdown = 0;
    return counted;
}

/* Whether the armed failure happened. */
int failalloc_injected(void) { return injected; }

static int fail_now(void) {
    if (countdown <= 0) return 0;
    counted++;
    if (--countdown > 0) return 0;
    injected = 1;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t size) { return fail_now() ? NULL : __libc_malloc(size); }
void *calloc(size_t count, size_t size) { return fail_now() ? NULL : __libc_calloc(count, size); }
void *realloc(void *p, size_t size) { return fail_now() ? NULL : __libc_realloc(p, size); }
void *memalign(size_t alignment, size_t size) { return fail_now() ? NULL : __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { return fail_now() ? NULL : __libc_memalign(alignment, size); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (fail_now()) return ENOMEM;
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
