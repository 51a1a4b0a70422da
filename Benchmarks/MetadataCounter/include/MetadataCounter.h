#ifndef FLARE_METADATA_COUNTER_H
#define FLARE_METADATA_COUNTER_H

#include <stdint.h>

/// Whether this process's calls to the Swift runtime's type lookups go
/// through the counting wrappers (false where they are not built: the
/// counters then stay zero).
int md_is_active(void);

/// Turns counting on or off for the whole process (off at start). The
/// counters below only move while counting is on; read them as deltas.
void md_set_counting(int on);

/// Calls to `swift_getGenericMetadata` while counting was on: each is a
/// look-up of a generic type's metadata in the runtime's cache (a hash-map
/// probe), made by generic code that runs unspecialized.
uint64_t md_generic_metadata_lookups(void);

/// Calls to `swift_getWitnessTable` while counting was on: conformances
/// instantiated or looked up at run time (a generic type's conformance to
/// a protocol, needed by unspecialized code).
uint64_t md_witness_table_lookups(void);

#endif
