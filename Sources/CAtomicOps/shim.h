#ifndef FLARE_CATOMICOPS_SHIM_H
#define FLARE_CATOMICOPS_SHIM_H
#include <atomic_ops.h>
#endif
