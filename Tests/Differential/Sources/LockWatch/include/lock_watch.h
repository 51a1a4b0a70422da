// ReactiveSwift's locks on Linux are error-checking pthread mutexes
// (`PthreadLock`, `PTHREAD_MUTEX_ERRORCHECK`). A thread that locks one it
// already holds gets EDEADLK back, which ReactiveSwift checks only with an
// `assert`: its debug build stops there, `os_unfair_lock` stops the process
// on Apple platforms, and a Linux release build goes on unlocked, delivering
// the reentrant event nested, unserialized. Such a program has no defined
// behaviour to compare against. The tester's executable defines
// `pthread_mutex_lock` (lock_watch.c), so that ReactiveSwift's calls come
// here; it counts each EDEADLK.
#ifndef LOCK_WATCH_H
#define LOCK_WATCH_H

/// How many `pthread_mutex_lock` calls on the calling thread have returned
/// EDEADLK (the thread locking an error-checking mutex it holds).
long lock_watch_reentries(void);

#endif
