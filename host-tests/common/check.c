/* The tiny assertion helper (see check.h). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>

static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;
static int passed_count;
static int failed_count;
static pthread_key_t buffer_key;
static pthread_once_t buffer_once = PTHREAD_ONCE_INIT;

static void make_key(void) { pthread_key_create(&buffer_key, free); }

const char *check_format(const char *fmt, ...) {
    pthread_once(&buffer_once, make_key);
    char *buffer = pthread_getspecific(buffer_key);
    if (!buffer) {
        buffer = malloc(2048);
        if (!buffer) return fmt;
        pthread_setspecific(buffer_key, buffer);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buffer, 2048, fmt, ap);
    va_end(ap);
    return buffer;
}

int check_record(int ok, const char *file, int line, const char *what) {
    pthread_mutex_lock(&check_lock);
    if (ok) {
        passed_count++;
    } else {
        failed_count++;
        fprintf(stderr, "%s:%d: FAILED %s\n", file, line, what);
        fflush(stderr);
    }
    pthread_mutex_unlock(&check_lock);
    return ok;
}

void check_note(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&check_lock);
    printf("note: ");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    pthread_mutex_unlock(&check_lock);
    va_end(ap);
}

int check_passed(void) {
    pthread_mutex_lock(&check_lock);
    int n = passed_count;
    pthread_mutex_unlock(&check_lock);
    return n;
}

int check_failed(void) {
    pthread_mutex_lock(&check_lock);
    int n = failed_count;
    pthread_mutex_unlock(&check_lock);
    return n;
}

int check_finish(void) {
    int p = check_passed(), f = check_failed();
    printf("%d passed, %d failed\n", p, f);
    fflush(stdout);
    /* The per-thread buffer of the main thread (other threads' are freed at their exit). */
    pthread_once(&buffer_once, make_key);
    free(pthread_getspecific(buffer_key));
    pthread_setspecific(buffer_key, NULL);
    return f == 0 ? 0 : 1;
}
