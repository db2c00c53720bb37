#pragma once

// Landlock user-space ABI, declared here because the build machine's <linux/landlock.h> comes from
// Linux 6.1 (ABI 1–2 only) while the kernels we run on report up to ABI 7. Source of every value:
// the kernel's include/uapi/linux/landlock.h and Documentation/userspace-api/landlock.rst.
// The names differ from the kernel's macros on purpose, so this header never collides with a
// newer <linux/landlock.h> pulled in by some other include.

#include <cstddef>
#include <cstdint>

namespace runbox::light::landlock {

// landlock_create_ruleset() flags.
inline constexpr std::uint32_t kCreateRulesetVersion = 1u << 0; ///< returns the highest ABI
inline constexpr std::uint32_t kCreateRulesetErrata = 1u << 1; ///< returns fixed errata (ABI ≥ 7)

// landlock_add_rule() rule types.
inline constexpr int kRulePathBeneath = 1; ///< struct PathBeneathAttr
inline constexpr int kRuleNetPort = 2;     ///< struct NetPortAttr (ABI ≥ 4)

// Filesystem access rights (handled_access_fs / allowed_access).
inline constexpr std::uint64_t kFsExecute = 1ull << 0;
inline constexpr std::uint64_t kFsWriteFile = 1ull << 1;
inline constexpr std::uint64_t kFsReadFile = 1ull << 2;
inline constexpr std::uint64_t kFsReadDir = 1ull << 3;
inline constexpr std::uint64_t kFsRemoveDir = 1ull << 4;
inline constexpr std::uint64_t kFsRemoveFile = 1ull << 5;
inline constexpr std::uint64_t kFsMakeChar = 1ull << 6;
inline constexpr std::uint64_t kFsMakeDir = 1ull << 7;
inline constexpr std::uint64_t kFsMakeReg = 1ull << 8;
inline constexpr std::uint64_t kFsMakeSock = 1ull << 9;
inline constexpr std::uint64_t kFsMakeFifo = 1ull << 10;
inline constexpr std::uint64_t kFsMakeBlock = 1ull << 11;
inline constexpr std::uint64_t kFsMakeSym = 1ull << 12;
inline constexpr std::uint64_t kFsRefer = 1ull << 13;    ///< ABI ≥ 2
inline constexpr std::uint64_t kFsTruncate = 1ull << 14; ///< ABI ≥ 3
inline constexpr std::uint64_t kFsIoctlDev = 1ull << 15; ///< ABI ≥ 5

// Network access rights (handled_access_net; NetPortAttr::allowedAccess), ABI ≥ 4.
inline constexpr std::uint64_t kNetBindTcp = 1ull << 0;
inline constexpr std::uint64_t kNetConnectTcp = 1ull << 1;

// IPC scopes (RulesetAttr::scoped), ABI ≥ 6.
inline constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0;
inline constexpr std::uint64_t kScopeSignal = 1ull << 1;

// landlock_restrict_self() flags, ABI ≥ 7 (audit logging control). Declared for completeness; the
// light tier keeps the kernel's default logging and passes 0.
inline constexpr std::uint32_t kRestrictSelfLogSameExecOff = 1u << 0;
inline constexpr std::uint32_t kRestrictSelfLogNewExecOn = 1u << 1;
inline constexpr std::uint32_t kRestrictSelfLogSubdomainsOff = 1u << 2;

/// struct landlock_ruleset_attr. The kernel accepts a size that covers only the fields it knows:
/// pass rulesetAttrSize(abi), never sizeof, so an older kernel does not reject the call (E2BIG).
struct RulesetAttr {
    std::uint64_t handledAccessFs = 0;
    std::uint64_t handledAccessNet = 0; ///< ABI ≥ 4
    std::uint64_t scoped = 0;           ///< ABI ≥ 6
};
static_assert(sizeof(RulesetAttr) == 24);

/// struct landlock_path_beneath_attr (packed: 12 bytes).
struct __attribute__((packed)) PathBeneathAttr {
    std::uint64_t allowedAccess = 0;
    std::int32_t parentFd = -1;
};
static_assert(sizeof(PathBeneathAttr) == 12);

/// struct landlock_net_port_attr (16 bytes; the port is a host-endian 64-bit value).
struct NetPortAttr {
    std::uint64_t allowedAccess = 0;
    std::uint64_t port = 0;
};
static_assert(sizeof(NetPortAttr) == 16);

/// Size of RulesetAttr to pass for @p abi: 8 bytes (fs only) below ABI 4, 16 below ABI 6, else 24.
constexpr std::size_t rulesetAttrSize(int abi) {
    if (abi >= 6)
        return 24;
    if (abi >= 4)
        return 16;
    return 8;
}

/// Every filesystem right the kernel knows at @p abi (all of them get handled = denied by default).
constexpr std::uint64_t fsRightsForAbi(int abi) {
    if (abi < 1)
        return 0;
    std::uint64_t rights = (kFsMakeSym << 1) - 1; // ABI 1: EXECUTE … MAKE_SYM
    if (abi >= 2)
        rights |= kFsRefer;
    if (abi >= 3)
        rights |= kFsTruncate;
    if (abi >= 5)
        rights |= kFsIoctlDev;
    return rights;
}

/// Every network right the kernel knows at @p abi.
constexpr std::uint64_t netRightsForAbi(int abi) {
    return abi >= 4 ? (kNetBindTcp | kNetConnectTcp) : 0;
}

/// Every scope the kernel knows at @p abi.
constexpr std::uint64_t scopesForAbi(int abi) {
    return abi >= 6 ? (kScopeAbstractUnixSocket | kScopeSignal) : 0;
}

} // namespace runbox::light::landlock
