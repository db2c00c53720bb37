#include "agent/sandbox/CapabilityProbe.h"

#include "agent/sandbox/BwrapCommand.h"
#include "agent/sandbox/BwrapInvocation.h"
#include "agent/sandbox/BwrapPreflight.h"

#include <QFile>
#include <QHash>
#include <QLoggingCategory>
#include <QRegularExpression>

#include <future>
#include <mutex>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace runbox::sandbox {
namespace {

Q_LOGGING_CATEGORY(lcProbe, "runbox.sandbox.probe", QtInfoMsg)

/// Per probe launch, as the original runner (SANDBOX_PROBE_TIMEOUT_MS).
constexpr int kProbeTimeoutMs = 15000;

const QString kNestedUsernsConsequence = QStringLiteral(
    "Namespace isolation, seccomp and the mount allowlist still apply, but nested user "
    "namespaces inside executions are not blocked by bubblewrap (Runbox's seccomp profile still "
    "refuses unshare, setns and clone with CLONE_NEW* flags).");

/// Exits 0 when every path given is a read-only mount in /proc/self/mountinfo (proc(5): field 5
/// is the mount point, field 6 its options).
const char kReadOnlyCheck[] =
    "for want in \"$@\"; do ok=; while read -r id parent dev root mp opts rest; do "
    "[ \"$mp\" = \"$want\" ] && case \",$opts,\" in *,ro,*) ok=1;; *) ok=;; esac; "
    "done < /proc/self/mountinfo; [ -n \"$ok\" ] || { echo \"$want is writable\" >&2; exit 1; }; "
    "done";

/// The probe launch (reference §3.1): no --seccomp, --cap-drop or --new-session.
QStringList probeArguments(ProcMode mode, bool disableUserns,
                           const QStringList& command = {QStringLiteral("/usr/bin/true")}) {
    QStringList args{QStringLiteral("--unshare-all"), QStringLiteral("--unshare-user"),
                     QStringLiteral("--die-with-parent")};
    if (disableUserns)
        args << QStringLiteral("--disable-userns");
    args << QStringLiteral("--ro-bind") << QStringLiteral("/usr") << QStringLiteral("/usr")
         << QStringLiteral("--symlink") << QStringLiteral("usr/bin") << QStringLiteral("/bin")
         << QStringLiteral("--symlink") << QStringLiteral("usr/lib") << QStringLiteral("/lib")
         << QStringLiteral("--symlink") << QStringLiteral("usr/lib64") << QStringLiteral("/lib64");
    if (mode == ProcMode::New)
        args << QStringLiteral("--proc") << QStringLiteral("/proc");
    else
        args << QStringLiteral("--ro-bind") << QStringLiteral("/proc") << QStringLiteral("/proc");
    args << command;
    return args;
}

struct Attempt {
    bool ok = false;
    QString detail; ///< failure detail (last non-empty stderr line, else how it failed)
};

Attempt attemptLaunch(const QString& bwrap, ProcMode mode, bool disableUserns,
                      const std::optional<SandboxUser>& user) {
    const BwrapInvocation::Result run = BwrapInvocation::run(
        bwrap, probeArguments(mode, disableUserns), kProbeTimeoutMs, false, user);
    Attempt attempt;
    attempt.ok = run.succeeded();
    if (!attempt.ok)
        attempt.detail = run.failureDetail();
    qCDebug(lcProbe) << "probe" << bwrap << "proc" << toString(mode) << "disable-userns"
                     << disableUserns << (attempt.ok ? QStringLiteral("ok") : attempt.detail);
    return attempt;
}

QString readVersion(const QString& bwrap) {
    const BwrapInvocation::Result run =
        BwrapInvocation::run(bwrap, {QStringLiteral("--version")}, kProbeTimeoutMs, true);
    if (!run.succeeded())
        return {};
    for (const QByteArray& line : run.standardOutput.split('\n')) {
        const QString text = QString::fromUtf8(line).trimmed();
        if (!text.isEmpty())
            return text.left(200);
    }
    return {};
}

/// "name = value" for a sysctl readable on this host, empty when the knob does not exist.
QString sysctlValue(const QString& name) {
    QFile file(QStringLiteral("/proc/sys/") + QString(name).replace(QLatin1Char('.'), '/'));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QStringLiteral("%1 = %2").arg(name, QString::fromUtf8(file.readAll()).trimmed());
}

QString unusableReason(const QString& bwrap, const QString& detail) {
    QString reason =
        QStringLiteral(
            "bubblewrap at \"%1\" could not build a sandbox: %2. bubblewrap is installed but "
            "cannot create a sandbox on this host. The agent still serves health and settings, "
            "but executions are refused with 503 sandbox_unavailable; nothing runs unsandboxed. "
            "Check that unprivileged user namespaces are permitted: `sysctl "
            "kernel.unprivileged_userns_clone` (1 where the knob exists), `sysctl "
            "kernel.apparmor_restrict_unprivileged_userns` (0 on Ubuntu 24.04 and later) and "
            "`sysctl user.max_user_namespaces` (above 0); inside a container, its runtime must "
            "allow user namespaces too.")
            .arg(bwrap, detail);
    QStringList current;
    for (const QString& knob : {QStringLiteral("kernel.unprivileged_userns_clone"),
                                QStringLiteral("kernel.apparmor_restrict_unprivileged_userns"),
                                QStringLiteral("user.max_user_namespaces")}) {
        const QString value = sysctlValue(knob);
        if (!value.isEmpty())
            current << value;
    }
    if (!current.isEmpty())
        reason += QStringLiteral(" On this host: %1.").arg(current.join(QStringLiteral(", ")));
    return reason;
}

QString procFallbackWarning(const QString& procDetail) {
    return QStringLiteral(
               "bubblewrap could not mount a new /proc (%1), so sandboxes get the fallback "
               "--ro-bind /proc /proc and see the host's or container's process list. In Docker "
               "this comes from the default readonlyPaths/maskedPaths over /proc; run the "
               "container with `security_opt: systempaths=unconfined` (docker run --security-opt "
               "systempaths=unconfined) to give sandboxes their own /proc. Do not use privileged "
               "mode for this.")
        .arg(procDetail);
}

QString usernsWarning(UsernsBlocking blocking, const QString& bwrap, const QString& detail) {
    if (blocking == UsernsBlocking::OptionUnknown)
        return QStringLiteral("bubblewrap at \"%1\" does not know --disable-userns (%2): the "
                              "option requires bwrap >= 0.8 (Ubuntu 22.04 ships 0.6). Upgrade "
                              "bubblewrap to block nested user namespaces. ")
                   .arg(bwrap, detail) +
               kNestedUsernsConsequence;
    return QStringLiteral("bubblewrap at \"%1\" rejected --disable-userns (%2). This is expected "
                          "under LXC and other containers where /proc/sys is read-only: bwrap "
                          "implements the option by writing user.max_user_namespaces inside the "
                          "sandbox. ")
               .arg(bwrap, detail) +
           kNestedUsernsConsequence;
}

/// Empty when /proc/sys (and /proc/sysrq-trigger) are read-only inside, else why not.
QString checkReadOnlyKernelKnobs(const QString& bwrap, ProcMode mode,
                                 const std::optional<SandboxUser>& user) {
    const QStringList targets = BwrapCommand::readOnlyProcPaths();
    if (targets.isEmpty())
        return {};
    QStringList args = probeArguments(mode, false, {});
    for (const QString& path : targets)
        args << QStringLiteral("--ro-bind") << path << path;
    args << QStringLiteral("/bin/sh") << QStringLiteral("-c") << QLatin1String(kReadOnlyCheck)
         << QStringLiteral("sh") << targets;
    const BwrapInvocation::Result run =
        BwrapInvocation::run(bwrap, args, kProbeTimeoutMs, false, user);
    return run.succeeded() ? QString() : run.failureDetail();
}

/// Whether bwrap sizes a tmpfs (`--size`) and remounts /dev read-only with a sized /dev/shm
/// on it, as BwrapCommand does; empty when it does, else why not.
QString checkSizedTmpfs(const QString& bwrap, ProcMode mode,
                        const std::optional<SandboxUser>& user) {
    QStringList args = probeArguments(mode, false, {});
    args << QStringLiteral("--dev") << QStringLiteral("/dev") << QStringLiteral("--remount-ro")
         << QStringLiteral("/dev") << QStringLiteral("--perms") << QStringLiteral("01777")
         << QStringLiteral("--size") << QStringLiteral("1048576") << QStringLiteral("--tmpfs")
         << QStringLiteral("/dev/shm") << QStringLiteral("--size") << QStringLiteral("1048576")
         << QStringLiteral("--tmpfs") << QStringLiteral("/tmp") << QStringLiteral("/usr/bin/true");
    const BwrapInvocation::Result run =
        BwrapInvocation::run(bwrap, args, kProbeTimeoutMs, false, user);
    return run.succeeded() ? QString() : run.failureDetail();
}

SandboxCapability runProbe(const QString& bwrap, const std::optional<SandboxUser>& user) {
    SandboxCapability cap;
    cap.bwrapPath = bwrap;
    cap.bwrapVersion = readVersion(bwrap);

    const Attempt withNewProc = attemptLaunch(bwrap, ProcMode::New, false, user);
    if (withNewProc.ok) {
        cap.procMode = ProcMode::New;
    } else {
        const Attempt withBoundProc = attemptLaunch(bwrap, ProcMode::Bind, false, user);
        if (!withBoundProc.ok) {
            cap.usable = false;
            cap.usernsBlocking = UsernsBlocking::Unusable;
            cap.detail = withNewProc.detail;
            cap.unusableReason = unusableReason(bwrap, cap.detail);
            return cap;
        }
        cap.procMode = ProcMode::Bind;
        cap.procDetail = withNewProc.detail;
        cap.warnings << procFallbackWarning(cap.procDetail);
    }
    if (const QString problem = checkReadOnlyKernelKnobs(bwrap, cap.procMode, user);
        !problem.isEmpty()) {
        cap.usable = false;
        cap.usernsBlocking = UsernsBlocking::Unusable;
        cap.detail = problem;
        cap.unusableReason =
            QStringLiteral("bubblewrap at \"%1\" could not make /proc/sys read-only inside the "
                           "sandbox (%2): executions are refused with 503 sandbox_unavailable, "
                           "since a sandbox could otherwise write the host's sysctls")
                .arg(bwrap, problem);
        return cap;
    }
    cap.usable = true;
    if (const QString problem = checkSizedTmpfs(bwrap, cap.procMode, user); problem.isEmpty())
        cap.sizedTmpfs = true;
    else
        cap.warnings << QStringLiteral("bubblewrap at \"%1\" cannot size tmpfs mounts (%2): a "
                                       "sandbox's /tmp and /dev/shm can grow to half of the "
                                       "host's memory, bounded only by the memory watcher")
                            .arg(bwrap, problem);

    const Attempt withDisableUserns = attemptLaunch(bwrap, cap.procMode, true, user);
    if (withDisableUserns.ok) {
        cap.usernsBlocking = UsernsBlocking::Supported;
        return cap;
    }
    static const QRegularExpression unknownOption(QStringLiteral("unknown option"),
                                                  QRegularExpression::CaseInsensitiveOption);
    cap.detail = withDisableUserns.detail;
    cap.usernsBlocking = unknownOption.match(cap.detail).hasMatch()
                             ? UsernsBlocking::OptionUnknown
                             : UsernsBlocking::OptionRejected;
    cap.warnings << usernsWarning(cap.usernsBlocking, bwrap, cap.detail);
    return cap;
}

/// path + device + inode + size + mtime (ns): a replaced or rebuilt binary gets a new key.
bool binaryIdentity(const QString& path, QString* key, QString* error) {
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0) {
        *error = QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    *key = QStringLiteral("%1|%2|%3|%4|%5.%6")
               .arg(path)
               .arg(quint64(st.st_dev))
               .arg(quint64(st.st_ino))
               .arg(qint64(st.st_size))
               .arg(qint64(st.st_mtim.tv_sec))
               .arg(qint64(st.st_mtim.tv_nsec));
    return true;
}

SandboxCapability missingBinary(const QString& path, const QString& error) {
    SandboxCapability cap;
    cap.bwrapPath = path;
    cap.usable = false;
    cap.usernsBlocking = UsernsBlocking::Unusable;
    cap.detail = error;
    cap.unusableReason =
        QStringLiteral("bubblewrap at \"%1\" could not be run: %2. ").arg(path, error) +
        BwrapPreflight::installHint();
    return cap;
}

struct ProbeCache {
    std::mutex mutex;
    QHash<QString, std::shared_future<SandboxCapability>> results;
};

ProbeCache& cache() {
    static ProbeCache instance;
    return instance;
}

} // namespace

SandboxCapability CapabilityProbe::probe(const QString& bwrapPath,
                                         const std::optional<SandboxUser>& user) {
    QString error;
    const QString path = BwrapPreflight::resolve(bwrapPath, &error);
    if (path.isEmpty())
        return missingBinary(bwrapPath, error);
    QString key;
    if (!binaryIdentity(path, &key, &error))
        return missingBinary(path, error);
    key += QStringLiteral("|uid %1").arg(user ? qint64(user->uid) : -1);

    // The first caller for a key probes; concurrent callers wait on the same future.
    std::promise<SandboxCapability> promise;
    std::shared_future<SandboxCapability> future;
    bool mustProbe = false;
    {
        const std::lock_guard<std::mutex> lock(cache().mutex);
        auto it = cache().results.constFind(key);
        if (it != cache().results.constEnd()) {
            future = it.value();
        } else {
            future = promise.get_future().share();
            cache().results.insert(key, future);
            mustProbe = true;
        }
    }
    if (mustProbe)
        promise.set_value(runProbe(path, user));
    return future.get();
}

void CapabilityProbe::resetCacheForTests() {
    const std::lock_guard<std::mutex> lock(cache().mutex);
    cache().results.clear();
}

} // namespace runbox::sandbox
