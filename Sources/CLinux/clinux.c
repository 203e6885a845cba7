/* Every call is a static inline function in include/clinux.h; SwiftPM needs one source file for the target. */
#include "clinux.h"
