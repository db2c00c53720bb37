#include "agent/sandbox/BwrapPreflight.h"
