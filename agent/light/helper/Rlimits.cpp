#include "agent/light/helper/Rlimits.h"

#include <cerrno>
#include <cstring>
#include <sys/resource.h>

namespace runbox::light {

namespace {

bool inRange(std::uint64_t value, std::uint64_t min, std::uint64_t max, const char* field,
             const char* unit, std::string* error) {
    if (value >= min && value <= max)
        return true;
    if (error)
        *error = std::string(field) + " must be between " + std::to_string(min) + " and " +
                 std::to_string(max) + unit + ", got " + std::to_string(value) + unit;
    return false;
}

bool setLimit(int resource, std::uint64_t value, const char* name, std::string* error) {
    rlimit limit{};
    limit.rlim_cur = static_cast<rlim_t>(value);
    limit.rlim_max = static_cast<rlim_t>(value);
    if (::setrlimit(resource, &limit) == 0)
        return true;
    if (error)
        *error = std::string("setrlimit(") + name + "): " + std::strerror(errno);
    return false;
}

} // namespace

bool Rlimits::validate(std::string* error) const {
    // Byte fields are checked in whole MiB so the range matches what the JSON accepts.
    return inRange(maxProcs, kProcsMin, kProcsMax, "maxProcs", "", error) &&
           inRange(maxMemoryBytes >> 20, kMemoryMbMin, kMemoryMbMax, "maxMemoryMb", " MiB",
                   error) &&
           inRange(maxOpenFiles, kOpenFilesMin, kOpenFilesMax, "maxOpenFiles", "", error) &&
           inRange(maxFileSizeBytes >> 20, kFileSizeMbMin, kFileSizeMbMax, "maxFileSizeMb", " MiB",
                   error) &&
           inRange(maxCpuSeconds, kCpuSecondsMin, kCpuSecondsMax, "maxCpuSeconds", " s", error);
}

bool Rlimits::applyToSelf(std::string* error, bool withCpu) const {
    if (!validate(error))
        return false;
    return setLimit(RLIMIT_NPROC, maxProcs, "RLIMIT_NPROC", error) &&
           setLimit(RLIMIT_AS, maxMemoryBytes, "RLIMIT_AS", error) &&
           setLimit(RLIMIT_NOFILE, maxOpenFiles, "RLIMIT_NOFILE", error) &&
           setLimit(RLIMIT_FSIZE, maxFileSizeBytes, "RLIMIT_FSIZE", error) &&
           (!withCpu || applyCpuToSelf(error)) && setLimit(RLIMIT_CORE, 0, "RLIMIT_CORE", error);
}

bool Rlimits::applyCpuToSelf(std::string* error) const {
    return setLimit(RLIMIT_CPU, maxCpuSeconds, "RLIMIT_CPU", error);
}

} // namespace runbox::light
