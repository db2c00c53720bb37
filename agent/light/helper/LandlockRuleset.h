#pragma once

#include "agent/light/helper/LandlockAbi.h"

#include <cstdint>
#include <string>

namespace runbox::light {

/// Access-right bundles used by the light tier's rules (Documentation/userspace-api/landlock.rst).
namespace rights {
/// System directories that hold programs: run and read them (/usr, /bin, /lib…).
inline constexpr std::uint64_t kReadExecute =
    landlock::kFsExecute | landlock::kFsReadFile | landlock::kFsReadDir;
/// Read-only trees (/etc, /proc, /sys).
inline constexpr std::uint64_t kReadOnly = landlock::kFsReadFile | landlock::kFsReadDir;
/// Device nodes such as /dev/null: open for reading and writing, `> /dev/null` (O_TRUNC), no ioctl.
inline constexpr std::uint64_t kDeviceReadWrite =
    landlock::kFsReadFile | landlock::kFsWriteFile | landlock::kFsTruncate;
/// The workspace home: everything (masked down to what the ABI handles).
inline constexpr std::uint64_t kEverything = ~0ull;
} // namespace rights

/// One Landlock ruleset (an owned ruleset fd), built for a given ABI and then applied to the
/// calling thread with restrictSelf(). Pure libc: used by the supervisor helper, the agent's probe
/// and the benchmark. Every right known at the ABI is handled, so anything not granted by a rule
/// is denied: filesystem rights, TCP bind and connect (ABI ≥ 4), abstract-unix-socket and signal
/// scopes (ABI ≥ 6). Source: Documentation/userspace-api/landlock.rst.
class LandlockRuleset final {
public:
    /// Highest Landlock ABI of the running kernel (landlock_create_ruleset with
    /// LANDLOCK_CREATE_RULESET_VERSION); 0 when Landlock is not built in or disabled, with the
    /// reason in @p reason. Cheap (one syscall); not cached.
    static int probeAbi(std::string* reason = nullptr);

    LandlockRuleset() = default;
    ~LandlockRuleset();
    LandlockRuleset(LandlockRuleset&& other) noexcept;
    LandlockRuleset& operator=(LandlockRuleset&& other) noexcept;
    LandlockRuleset(const LandlockRuleset&) = delete;
    LandlockRuleset& operator=(const LandlockRuleset&) = delete;

    /// Creates a ruleset handling every right known at @p abi (1 ≤ abi ≤ kernel's ABI). With
    /// @p scoped false the signal / abstract-socket scopes are left out (used for per-exec nested
    /// network layers, which must not split the workspace's scope). Returns false with @p error.
    bool create(int abi, bool scoped, std::string* error);
    /// Same, handling only TCP bind + connect (a nested layer that narrows the network policy).
    bool createNetworkOnly(int abi, std::string* error);

    /// Grants @p access (masked to the handled rights, and to file rights when @p fd is not a
    /// directory) beneath the file or directory @p fd (borrowed; O_PATH is fine).
    bool allowPath(int fd, std::uint64_t access, std::string* error);
    /// Same by path, opened O_PATH|O_CLOEXEC (symlinks followed, as for any rule); a missing path
    /// is skipped when @p optional.
    bool allowPath(const char* path, std::uint64_t access, bool optional, std::string* error);
    /// Allows TCP connect to @p port (ABI ≥ 4; the port applies to every address).
    bool allowConnectPort(std::uint16_t port, std::string* error);

    /// Sets PR_SET_NO_NEW_PRIVS and enforces the ruleset on the calling thread (and what it forks
    /// and executes afterwards). The fd stays open; close() it if no longer needed.
    bool restrictSelf(std::string* error);
    /// Closes the ruleset fd.
    void close();

    int abi() const { return m_abi; }
    int fd() const { return m_fd; }
    std::uint64_t handledFs() const { return m_attr.handledAccessFs; }
    std::uint64_t handledNet() const { return m_attr.handledAccessNet; }
    std::uint64_t scoped() const { return m_attr.scoped; }

private:
    bool createWith(int abi, const landlock::RulesetAttr& attr, std::string* error);

    int m_fd = -1;
    int m_abi = 0;
    landlock::RulesetAttr m_attr;
};

} // namespace runbox::light
