/*
 * harness.h — a tiny assert-based test harness for the C tests of the core.
 *
 * CHECK records a failure and returns from the test; each test is a
 * `static void name(void)` run by RUN. `harness_finish` prints the final line
 * "N passed, M failed" and returns the process exit status. A failure names
 * file, line and expression, so a red ctest says what broke without a debugger.
 */
#ifndef FLARE_TEST_HARNESS_H
#define FLARE_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

extern int harness_passed;
extern int harness_failed;
extern int harness_current_failed;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
            harness_current_failed = 1;                                                \
            return;                                                                    \
        }                                                                              \
    } while (0)

#define CHECK_EQ(a, b)                                                                 \
    do {                                                                               \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                \
        if (check_a_ != check_b_) {                                                    \
            fprintf(stderr, "%s:%d: check failed: %s == %s (%lld != %lld)\n", __FILE__, \
                    __LINE__, #a, #b, check_a_, check_b_);                             \
            harness_current_failed = 1;                                                \
            return;                                                                    \
        }                                                                              \
    } while (0)

/* For helpers and threads that cannot return to the test: fail hard. */
#define REQUIRE(cond)                                                                  \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: requirement failed: %s\n", __FILE__, __LINE__,     \
                    #cond);                                                            \
            abort();                                                                   \
        }                                                                              \
    } while (0)

#define RUN(test)                                                                      \
    do {                                                                               \
        harness_current_failed = 0;                                                    \
        test();                                                                        \
        if (harness_current_failed) {                                                  \
            harness_failed++;                                                          \
            fprintf(stderr, "FAIL %s\n", #test);                                       \
        } else {                                                                       \
            harness_passed++;                                                          \
            printf("ok   %s\n", #test);                                                \
        }                                                                              \
        fflush(stdout);                                                                \
    } while (0)

#define HARNESS_STATE                                                                  \
    int harness_passed, harness_failed, harness_current_failed

static inline int harness_finish(void) {
    printf("%d passed, %d failed\n", harness_passed, harness_failed);
    return harness_failed == 0 ? 0 : 1;
}

#endif
