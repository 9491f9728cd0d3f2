/* A plug-in host: opens libcontrollerreg.so with dlopen (it is not linked against it), uses it on
 * a second thread, closes it with dlclose while that thread is still alive, lets the thread exit,
 * then opens the library again and uses it. The library keeps per-thread records released by
 * thread-exit destructors, so it must stay mapped after dlclose (it is linked -z nodelete): were it
 * unmapped, the exiting thread would call into unmapped code and the process would crash.
 *
 *   controllerreg-dlopen-test PATH-TO-libcontrollerreg.so */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <controllerreg.h>

typedef struct {
    cr_registry *(*registry_new)(void);
    void (*registry_free)(cr_registry *);
    int (*register_class)(cr_registry *, const char *, const cr_class *, void *);
    int (*load_string)(cr_registry *, const char *, size_t, cr_format);
    void *(*registry_create)(cr_registry *, const char *, const cr_value *);
    const char *(*last_error_message)(void);
} api;

static void *make(const cr_value *args, void *user_data) {
    (void)args;
    (void)user_data;
    return malloc(8);
}

static int failures;
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static void *open_api(const char *path, api *a) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        exit(1);
    }
    *(void **)&a->registry_new = dlsym(h, "cr_registry_new");
    *(void **)&a->registry_free = dlsym(h, "cr_registry_free");
    *(void **)&a->register_class = dlsym(h, "cr_register_class");
    *(void **)&a->load_string = dlsym(h, "cr_load_string");
    *(void **)&a->registry_create = dlsym(h, "cr_registry_create");
    *(void **)&a->last_error_message = dlsym(h, "cr_last_error_message");
    if (!a->registry_new || !a->registry_free || !a->register_class || !a->load_string || !a->registry_create ||
        !a->last_error_message) {
        fprintf(stderr, "dlsym: a cr_* function is missing\n");
        exit(1);
    }
    return h;
}

/* Every kind of per-thread state: a failed load (last error record), a create (reader record). */
static void use(const api *a) {
    cr_registry *reg = a->registry_new();
    cr_class cls = {.create = make};
    CHECK(a->register_class(reg, "C", &cls, NULL) == CR_OK);
    CHECK(a->load_string(reg, "A: [", 4, CR_FORMAT_YAML) == CR_ERR_SYNTAX);
    CHECK(strstr(a->last_error_message(), "<string>:") != NULL);
    CHECK(a->load_string(reg, "A: C", 4, CR_FORMAT_YAML) == CR_OK);
    void *o = a->registry_create(reg, "A", NULL);
    CHECK(o != NULL);
    free(o);
    a->registry_free(reg);
}

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int phase;

static void *worker(void *arg) {
    use(arg);
    pthread_mutex_lock(&mutex);
    phase = 1;
    pthread_cond_broadcast(&cond);
    while (phase < 2) pthread_cond_wait(&cond, &mutex);
    pthread_mutex_unlock(&mutex);
    return NULL; /* the thread's destructors run now, after dlclose */
}

static void *plain_worker(void *arg) {
    use(arg);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    api a;
    void *h = open_api(argv[1], &a);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, &a) != 0) return 1;
    pthread_mutex_lock(&mutex);
    while (phase < 1) pthread_cond_wait(&cond, &mutex);
    pthread_mutex_unlock(&mutex);
    CHECK(dlclose(h) == 0);
    pthread_mutex_lock(&mutex);
    phase = 2;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&mutex);
    pthread_join(t, NULL);

    /* Open and close it again many times, using it on this thread and on new ones each time. */
    for (int i = 0; i < 20; i++) {
        h = open_api(argv[1], &a);
        use(&a);
        pthread_t u;
        if (pthread_create(&u, NULL, plain_worker, &a) != 0) return 1;
        pthread_join(u, NULL);
        CHECK(dlclose(h) == 0);
    }
    if (failures) return 1;
    printf("dlopen: ok\n");
    return 0;
}
