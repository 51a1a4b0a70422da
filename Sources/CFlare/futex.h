/*
 * futex.h — sleeping on a 32-bit word until it changes, for the C core's
 * waits (serial.c's queue limit, park.c's parking spots). Internal.
 *
 * futex_wait sleeps only while `*addr == expected` (the kernel compares and
 * sleeps atomically) and may return spuriously (futex_wait_for also once its
 * time is up); futex_wake_all wakes every
 * thread sleeping on `addr`. Callers change the word before waking.
 */
#ifndef FLARE_FUTEX_H
#define FLARE_FUTEX_H

#include <limits.h>
#include <time.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#elif defined(__APPLE__)
/* macOS 14.4+ / iOS 17.4+ (the package requires macOS 15 / iOS 18). Only
 * Linux is built and tested here: this branch is written to the SDK's
 * documentation, not run. */
#include <os/os_sync_wait_on_address.h>
#endif

static inline void futex_wait(volatile unsigned int *addr, unsigned int expected) {
#if defined(__linux__)
    syscall(SYS_futex, (unsigned int *)addr, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
#elif defined(__APPLE__)
    os_sync_wait_on_address((void *)addr, expected, sizeof *addr, OS_SYNC_WAIT_ON_ADDRESS_NONE);
#else
    (void)addr;
    (void)expected;
    struct timespec pause = {0, 50000};
    nanosleep(&pause, NULL);
#endif
}

/* futex_wait, but returns after at most `ns` nanoseconds (< 1 s) too. */
static inline void futex_wait_for(volatile unsigned int *addr, unsigned int expected, long ns) {
#if defined(__linux__)
    struct timespec timeout = {0, ns};
    syscall(SYS_futex, (unsigned int *)addr, FUTEX_WAIT_PRIVATE, expected, &timeout, NULL, 0);
#elif defined(__APPLE__)
    os_sync_wait_on_address_with_timeout((void *)addr, expected, sizeof *addr, OS_SYNC_WAIT_ON_ADDRESS_NONE,
                                         OS_CLOCK_MACH_ABSOLUTE_TIME, (uint64_t)ns);
#else
    (void)addr;
    (void)expected;
    struct timespec pause = {0, ns < 50000 ? ns : 50000};
    nanosleep(&pause, NULL);
#endif
}

static inline void futex_wake_all(volatile unsigned int *addr) {
#if defined(__linux__)
    syscall(SYS_futex, (unsigned int *)addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
#elif defined(__APPLE__)
    os_sync_wake_by_address_all((void *)addr, sizeof *addr, OS_SYNC_WAKE_BY_ADDRESS_NONE);
#else
    (void)addr;
#endif
}

#endif
