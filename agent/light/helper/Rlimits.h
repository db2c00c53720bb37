#pragma once

#include <cstdint>
#include <string>

namespace runbox::light {

/// Resource limits applied to a light workspace (setrlimit(2); soft = hard, so code inside cannot
/// raise them). Pure libc, shared by the agent (validation) and the supervisor helper (apply).
/// Defaults (docs/light-workspaces.md): NPROC 256 per uid, AS 2 GiB, NOFILE 4096, CORE 0 (always).
struct Rlimits {
    std::uint64_t maxProcs = 256;                   ///< RLIMIT_NPROC, processes of the uid
    std::uint64_t maxMemoryBytes = 2048ull << 20;   ///< RLIMIT_AS per process, bytes
    std::uint64_t maxOpenFiles = 4096;              ///< RLIMIT_NOFILE per process
    std::uint64_t maxFileSizeBytes = 8192ull << 20; ///< RLIMIT_FSIZE per file written, bytes
    std::uint64_t maxCpuSeconds = 86400;            ///< RLIMIT_CPU per process, seconds

    // Accepted ranges (inclusive). A value outside is refused, never clamped.
    /// At least 4: the uid's count also holds the workspace's supervisor and one tracking process
    /// per running exec.
    static constexpr std::uint64_t kProcsMin = 4, kProcsMax = 4096;
    static constexpr std::uint64_t kMemoryMbMin = 16, kMemoryMbMax = 1ull << 20; // 1 TiB
    static constexpr std::uint64_t kOpenFilesMin = 16, kOpenFilesMax = 1ull << 20;
    static constexpr std::uint64_t kFileSizeMbMin = 1, kFileSizeMbMax = 16ull << 20; // 16 TiB
    static constexpr std::uint64_t kCpuSecondsMin = 1, kCpuSecondsMax = 7ull * 86400;

    /// Checks every field against its range; false with a human message naming the field.
    bool validate(std::string* error) const;
    /// Sets NPROC, AS, NOFILE, FSIZE, CPU (soft = hard) and CORE = 0 on the calling process.
    /// Call before dropping privileges so hard limits may also be raised. With @p withCpu false
    /// RLIMIT_CPU is left alone (the long-lived supervisor would otherwise die of SIGXCPU after
    /// accumulating the budget over many execs; each exec's tracking process sets it instead).
    /// False with @p error.
    bool applyToSelf(std::string* error, bool withCpu = true) const;
    /// Sets only RLIMIT_CPU (soft = hard).
    bool applyCpuToSelf(std::string* error) const;

    bool operator==(const Rlimits&) const = default;
};

} // namespace runbox::light
