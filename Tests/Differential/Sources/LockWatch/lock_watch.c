// Defines pthread_mutex_lock in the executable: the static link binds
// ReactiveSwift's calls to it. It calls libc's and counts EDEADLK results
// (lock_watch.h says why).
#define _GNU_SOURCE
#include "lock_watch.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef int (*lock_fn)(pthread_mutex_t *);

// Per thread: an interpretation runs on a thread of its own, and a thread
// left blocked by an earlier case must not count into a later one.
static _Thread_local long reentries;
// Resolved at the first call, which comes before any constructor of ours
// (the Swift runtime locks while it registers images). dlsym takes the
// dynamic linker's own lock, not this symbol, so it cannot recurse here;
// two threads resolving at once store the same value.
static _Atomic(lock_fn) libc_lock;

int pthread_mutex_lock(pthread_mutex_t *mutex) {
    lock_fn lock = atomic_load_explicit(&libc_lock, memory_order_relaxed);
    if (!lock) {
        lock = (lock_fn)dlsym(RTLD_NEXT, "pthread_mutex_lock");
        if (!lock) abort();
        atomic_store_explicit(&libc_lock, lock, memory_order_relaxed);
    }
    int status = lock(mutex);
    if (status == EDEADLK) reentries += 1;
    return status;
}

long lock_watch_reentries(void) {
    return reentries;
}
