#pragma once

#include <cstdint>
#include <string>

namespace runbox::light {

/// Resource limits applied to a light workspace (setrlimit(2); soft = hard, so code inside cannot
/// raise them). Pure libc, shared by the agent (validation) and the supervisor helper (apply).
/// Defaults follow issue #7: NPROC 256 per uid, AS 2 GiB, NOFILE 4096, CORE 0 (always).
struct Rlimits {
    std::uint64_t maxProcs = 256;                   ///< RLIMIT_NPROC, processes of the uid
    std::uint64_t maxMemoryBytes = 2048ull << 20;   ///< RLIMIT_AS per process, bytes
    std::uint64_t maxOpenFiles = 4096;              ///< RLIMIT_NOFILE per process
    std::uint64_t maxFileSizeBytes = 8192ull << 20; ///< RLIMIT_FSIZE per file written, bytes
    std::uint64_t maxCpuSeconds = 86400;            ///< RLIMIT_CPU per process, seconds

    // Accepted ranges (inclusive). A value outside is refused, never clamped.
    static constexpr std::uint64_t kProcsMin = 1, kProcsMax = 4096;
    static constexpr std::uint64_t kMemoryMbMin = 16, kMemoryMbMax = 1ull << 20; // 1 TiB
    static constexpr std::uint64_t kOpenFilesMin = 16, kOpenFilesMax = 1ull << 20;
    static constexpr std::uint64_t kFileSizeMbMin = 1, kFileSizeMbMax = 16ull << 20; // 16 TiB
    static constexpr std::uint64_t kCpuSecondsMin = 1, kCpuSecondsMax = 7ull * 86400;

    /// Checks every field against its range; false with a human message naming the field.
    bool validate(std::string* error) const;
    /// Sets NPROC, AS, NOFILE, FSIZE, CPU (soft = hard) and CORE = 0 on the calling process.
    /// Call before dropping privileges so hard limits may also be raised. False with @p error.
    bool applyToSelf(std::string* error) const;

    bool operator==(const Rlimits&) const = default;
};

} // namespace runbox::light
