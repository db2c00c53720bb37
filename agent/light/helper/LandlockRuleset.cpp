#include "agent/light/helper/LandlockRuleset.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace runbox::light {

namespace {

long createRuleset(const landlock::RulesetAttr* attr, std::size_t size, std::uint32_t flags) {
    return ::syscall(SYS_landlock_create_ruleset, attr, size, flags);
}

void setError(std::string* error, const std::string& what, int err) {
    if (error)
        *error = what + ": " + std::strerror(err);
}

// Rights that make sense on a non-directory (kernel: LANDLOCK_ACCESS_FILE).
constexpr std::uint64_t kFileRights = landlock::kFsExecute | landlock::kFsWriteFile |
                                      landlock::kFsReadFile | landlock::kFsTruncate |
                                      landlock::kFsIoctlDev;

} // namespace

int LandlockRuleset::probeAbi(std::string* reason) {
    const long abi = createRuleset(nullptr, 0, landlock::kCreateRulesetVersion);
    if (abi >= 1)
        return static_cast<int>(abi);
    const int err = errno;
    if (reason) {
        if (err == ENOSYS)
            *reason = "Landlock is not built into this kernel (ENOSYS)";
        else if (err == EOPNOTSUPP)
            *reason = "Landlock is disabled on this kernel (EOPNOTSUPP; add landlock to lsm=)";
        else
            *reason = std::string("Landlock ABI query failed: ") + std::strerror(err);
    }
    return 0;
}

LandlockRuleset::~LandlockRuleset() {
    close();
}

LandlockRuleset::LandlockRuleset(LandlockRuleset&& other) noexcept
    : m_fd(other.m_fd), m_abi(other.m_abi), m_attr(other.m_attr) {
    other.m_fd = -1;
}

LandlockRuleset& LandlockRuleset::operator=(LandlockRuleset&& other) noexcept {
    if (this != &other) {
        close();
        m_fd = other.m_fd;
        m_abi = other.m_abi;
        m_attr = other.m_attr;
        other.m_fd = -1;
    }
    return *this;
}

void LandlockRuleset::close() {
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

bool LandlockRuleset::create(int abi, bool scoped, std::string* error) {
    landlock::RulesetAttr attr;
    attr.handledAccessFs = landlock::fsRightsForAbi(abi);
    attr.handledAccessNet = landlock::netRightsForAbi(abi);
    attr.scoped = scoped ? landlock::scopesForAbi(abi) : 0;
    return createWith(abi, attr, error);
}

bool LandlockRuleset::createNetworkOnly(int abi, std::string* error) {
    if (abi < 4) {
        if (error)
            *error = "Landlock ABI " + std::to_string(abi) + " has no network rules (needs 4)";
        return false;
    }
    landlock::RulesetAttr attr;
    attr.handledAccessNet = landlock::netRightsForAbi(abi);
    return createWith(abi, attr, error);
}

bool LandlockRuleset::createWith(int abi, const landlock::RulesetAttr& attr, std::string* error) {
    close();
    if (abi < 1) {
        if (error)
            *error = "Landlock is unavailable";
        return false;
    }
    const long fd = createRuleset(&attr, landlock::rulesetAttrSize(abi), 0);
    if (fd < 0) {
        setError(error, "landlock_create_ruleset", errno);
        return false;
    }
    ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    m_fd = static_cast<int>(fd);
    m_abi = abi;
    m_attr = attr;
    return true;
}

bool LandlockRuleset::allowPath(int fd, std::uint64_t access, std::string* error) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        setError(error, "fstat (Landlock rule)", errno);
        return false;
    }
    access &= m_attr.handledAccessFs;
    if (!S_ISDIR(st.st_mode))
        access &= kFileRights;
    if (access == 0)
        return true; // nothing handled to grant here
    landlock::PathBeneathAttr rule;
    rule.allowedAccess = access;
    rule.parentFd = fd;
    if (::syscall(SYS_landlock_add_rule, m_fd, landlock::kRulePathBeneath, &rule, 0) != 0) {
        setError(error, "landlock_add_rule (path)", errno);
        return false;
    }
    return true;
}

bool LandlockRuleset::allowPath(const char* path, std::uint64_t access, bool optional,
                                std::string* error) {
    const int fd = ::open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) {
        if (optional && (errno == ENOENT || errno == ENOTDIR))
            return true;
        setError(error, std::string("open ") + path, errno);
        return false;
    }
    const bool ok = allowPath(fd, access, error);
    ::close(fd);
    return ok;
}

bool LandlockRuleset::allowConnectPort(std::uint16_t port, std::string* error) {
    if (!(m_attr.handledAccessNet & landlock::kNetConnectTcp)) {
        if (error)
            *error = "this ruleset does not handle TCP connect";
        return false;
    }
    landlock::NetPortAttr rule;
    rule.allowedAccess = landlock::kNetConnectTcp;
    rule.port = port;
    if (::syscall(SYS_landlock_add_rule, m_fd, landlock::kRuleNetPort, &rule, 0) != 0) {
        setError(error, "landlock_add_rule (port)", errno);
        return false;
    }
    return true;
}

bool LandlockRuleset::restrictSelf(std::string* error) {
    if (m_fd < 0) {
        if (error)
            *error = "no ruleset";
        return false;
    }
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        setError(error, "prctl(PR_SET_NO_NEW_PRIVS)", errno);
        return false;
    }
    if (::syscall(SYS_landlock_restrict_self, m_fd, 0) != 0) {
        setError(error, "landlock_restrict_self", errno);
        return false;
    }
    return true;
}

} // namespace runbox::light
