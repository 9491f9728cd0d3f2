/* The calling thread's epoch reader record (EpochReclamation.swift), cached in a C thread-local so a
 * create finds it with one load from the thread pointer instead of a pthread_getspecific call.
 * Initial-exec: the variable sits in the static TLS block (8 bytes; a library loaded with dlopen
 * takes it from glibc's reserve for exactly this). Header-only: a weak, hidden definition, so every
 * object file the compiler emits it into defines the same one variable, which the linker merges and
 * does not export (it shows in the dynamic symbol table only as a local, for its TLS relocation),
 * whichever modules the optimiser inlines the accessors into. The pthread key in
 * EpochReclamation.swift stays the owner of the record's lifetime (its destructor releases the
 * record at thread exit and clears this cache). */
#ifndef CONTROLLERREG_THREAD_RECORD_H
#define CONTROLLERREG_THREAD_RECORD_H

__attribute__((weak, visibility("hidden"), tls_model("initial-exec"))) __thread void *controllerreg_thread_record = 0;

/* This thread's record, or NULL before its first create (or after its exit began). */
static inline void *controllerreg_thread_record_get(void) { return controllerreg_thread_record; }

/* Caches (or, with NULL, forgets) this thread's record. */
static inline void controllerreg_thread_record_set(void *record) { controllerreg_thread_record = record; }

/* The calling thread's last-error record (LastError.swift), cached the same way: a host reading every
 * problem of a failure calls cr_last_error_problem once per problem, and each call found the record
 * through a lazily created pthread key and pthread_getspecific (about 40 of its 60 instructions).
 * The pthread key stays the owner (its destructor frees the record at thread exit and clears this);
 * the out-of-memory marker is never cached. */
__attribute__((weak, visibility("hidden"), tls_model("initial-exec"))) __thread void *controllerreg_last_error = 0;

/* This thread's last-error record, or NULL when it has none cached. */
static inline void *controllerreg_last_error_get(void) { return controllerreg_last_error; }

/* Caches (or, with NULL, forgets) this thread's last-error record. */
static inline void controllerreg_last_error_set(void *record) { controllerreg_last_error = record; }

/* Whether registries closed while creates were inside them wait to be torn down
 * (ClosedRegistries.swift). Read by every outermost create as it leaves (one relaxed load of a plain
 * hidden global: a Swift global would be reached through its lazy-initialisation accessor), written
 * only when such a registry is buried or collected. Weak and hidden as the variable above. */
__attribute__((weak, visibility("hidden"))) int controllerreg_closed_waiting = 0;

static inline int controllerreg_closed_waiting_get(void) {
    return __atomic_load_n(&controllerreg_closed_waiting, __ATOMIC_RELAXED);
}

static inline void controllerreg_closed_waiting_set(int waiting) {
    __atomic_store_n(&controllerreg_closed_waiting, waiting, __ATOMIC_SEQ_CST);
}

#endif
