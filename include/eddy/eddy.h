/* eddy: umbrella header. */
#ifndef EDDY_EDDY_H
#define EDDY_EDDY_H
#include "types.h"
#include "sim.h"
#include "surface.h"
#include "wind.h"
#endif
