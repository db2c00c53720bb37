#pragma once

#include "agent/sandbox/SandboxUser.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace runbox::sandbox {

/// The descriptor numbers a launch hands to bwrap: one table, so features cannot collide.
namespace LaunchFd {
inline constexpr int kSeccomp = 3;     ///< --seccomp
inline constexpr int kJsonStatus = 4;  ///< --json-status-fd
inline constexpr int kSetupStatus = 5; ///< a wrapping helper's `ready` line (egress bridge)
inline constexpr int kWorkspace = 6;   ///< --bind-fd … /workspace (O_PATH directory)
inline constexpr int kPasswd = 7;      ///< --ro-bind-data … /etc/passwd
inline constexpr int kGroup = 8;       ///< --ro-bind-data … /etc/group
} // namespace LaunchFd

/// A descriptor the launcher hands to the child as @c childFd: the file at @c path opened with
/// @c openFlags (the seccomp program on fd 3 for `--seccomp 3`; the workspace directory with
/// O_PATH for `--bind-fd`), or, when @c isData, a sealed memfd holding those bytes (for
/// `--ro-bind-data`: passwd and group need no file the sandbox user could not open).
struct FdBinding {
    int childFd = -1;
    QString path;
    int openFlags = 0; ///< besides O_CLOEXEC; 0 = O_RDONLY
    QByteArray data;   ///< the memfd's bytes when isData
    bool isData = false;

    /// The file at @p path opened with @p openFlags as @p childFd.
    static FdBinding file(int childFd, const QString& path, int openFlags = 0) {
        return FdBinding{childFd, path, openFlags, {}, false};
    }
    /// A sealed memfd holding @p bytes as @p childFd.
    static FdBinding bytes(int childFd, const QByteArray& bytes) {
        return FdBinding{childFd, {}, 0, bytes, true};
    }
};

/// How a launch's set-up went wrong, as the stage that wrapped the command reads its status line
/// (SandboxLaunch::readSetupStatus).
struct SetupFailure {
    QString status = QStringLiteral("setup_failed"); ///< the execution's end state
    int exitCode = -1;                               ///< -1: none to report
    QString reason;                                  ///< human text
};

/// Everything needed to start one sandbox, as one value: what is run, with which environment,
/// where, and which descriptors. Built by BwrapCommand, recorded as provenance, started by
/// execution::SandboxProcess. Tests read it instead of intercepting exec.
struct SandboxLaunch {
    QString program;                           ///< absolute path of bwrap
    QStringList arguments;                     ///< bwrap's argv after argv[0]
    QMap<QString, QString> environment;        ///< bwrap's own, fixed and minimal
    QString workingDirectory;                  ///< host cwd of bwrap (the state dir)
    QList<FdBinding> fds;                      ///< extra descriptors for the child
    QMap<QString, QString> sandboxEnvironment; ///< exactly what --setenv injects
    QString sandboxCwd;                        ///< cwd inside the sandbox
    QStringList command;                       ///< argv run inside, after "--"
    int jsonStatusFd = LaunchFd::kJsonStatus;  ///< fd given to --json-status-fd
    /// When >= 0: the write end of a pipe is handed to the child as this fd (inherited through
    /// bwrap) for a helper that wraps the command (the egress bridge's `--status-fd`) to say
    /// `ready` or `error: …`; the launcher reads it (execution::ProcessExit::setupStatus).
    int setupStatusFd = -1;
    /// Reads what the helper wrote on setupStatusFd (trimmed, "" when nothing) and the
    /// sandbox's exit code: std::nullopt when the set-up succeeded (the command's own exit
    /// status stands), else the failure to report. Set by the stage that added the helper, so
    /// the launcher knows none of its words.
    std::function<std::optional<SetupFailure>(const QString& line, int exitCode)> readSetupStatus;
    /// When set, the launcher runs as this unprivileged host user (SandboxUser::dropInChild)
    /// instead of as the agent: always when the agent is privileged (root or capabilities).
    std::optional<SandboxUser> user;
    /// RLIMIT_FSIZE of the launch (bytes; 0 = inherit): no file the sandbox writes grows past
    /// its workspace quota (getrlimit(2); a write past it gets SIGXFSZ, or EFBIG when ignored).
    qint64 maxFileBytes = 0;
    /// When >= 0: the `cgroup.procs` of the execution's cgroup, which the child joins before it
    /// execs (so bwrap and everything below it start inside; docs/bounds.md). Not owned.
    int cgroupProcsFd = -1;

    /// `{"program","arguments":[…],"environment":{…},"sandboxEnvironment":{…},"sandboxCwd",
    /// "command":[…]}` for provenance.
    QJsonObject toJson() const;
};

} // namespace runbox::sandbox
