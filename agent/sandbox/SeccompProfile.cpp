#include "agent/sandbox/SeccompProfile.h"
