/*
 * flare_debug.h — the core's debug checks (part of flare.h).
 *
 * With FLARE_DEBUG_CHECKS defined (the package's debug configuration and
 * every CMake build of the C tests), a failed FLARE_DEBUG_CHECK prints what
 * failed and where, and aborts; without it the checks compile to nothing.
 * The drainer-only checks built on it stand with the structure they check:
 * FLARE_DRAINER_ONLY in flare_serial.h, FLARE_CORE_DRAINER_ONLY in
 * flare_bag.h.
 */
#ifndef FLARE_DEBUG_H
#define FLARE_DEBUG_H

#ifdef __cplusplus
extern "C" {
#endif

/** Prints a failed debug check (`what`, at `file`:`line`) and aborts. */
void flare_debug_check_failed(const char *what, const char *file, int line);

#ifdef FLARE_DEBUG_CHECKS
#define FLARE_DEBUG_CHECK(cond, what) ((cond) ? (void)0 : flare_debug_check_failed(what, __FILE__, __LINE__))
#else
#define FLARE_DEBUG_CHECK(cond, what) ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* FLARE_DEBUG_H */
