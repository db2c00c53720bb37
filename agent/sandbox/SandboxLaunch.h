#pragma once

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace runbox::sandbox {

/// A file the launcher opens and hands to the child as descriptor @c childFd (e.g. the seccomp
/// program on fd 3 for `--seccomp 3`).
struct FdBinding {
    int childFd = -1;
    QString path;
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
    int jsonStatusFd = 4;                      ///< fd given to --json-status-fd
    /// When >= 0: the write end of a pipe is handed to the child as this fd (inherited through
    /// bwrap) for a helper that wraps the command (the egress bridge's `--status-fd`) to say
    /// `ready` or `error: …`; the launcher reads it (execution::ProcessExit::setupStatus).
    int setupStatusFd = -1;

    /// `{"program","arguments":[…],"environment":{…},"sandboxEnvironment":{…},"sandboxCwd",
    /// "command":[…]}` for provenance.
    QJsonObject toJson() const;
};

} // namespace runbox::sandbox
