#include "agent/sandbox/CapabilityProbe.h"
