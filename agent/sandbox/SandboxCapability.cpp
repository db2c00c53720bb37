#include "agent/sandbox/SandboxCapability.h"
