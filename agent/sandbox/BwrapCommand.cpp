#include "agent/sandbox/BwrapCommand.h"

#include "agent/sandbox/SandboxIdentity.h"

#include <QFileInfo>

#include <fcntl.h>

namespace runbox::sandbox {

namespace {

void roBindIfPresent(QStringList& a, const QString& path) {
    if (QFileInfo::exists(path))
        a << QStringLiteral("--ro-bind") << path << path;
}

/// CA trust stores of Debian/Ubuntu, Fedora/RHEL/openEuler, SUSE and Alpine.
const char* const kCaTrustPaths[] = {"/etc/ssl/certs",    "/etc/pki/tls/certs",
                                     "/etc/pki/ca-trust", "/etc/ca-certificates",
                                     "/etc/ssl/cert.pem", "/etc/ssl/ca-bundle.pem"};

} // namespace

QStringList BwrapCommand::readOnlyProcPaths() {
    // No sandbox may write these, whatever its uid: sysctls, magic SysRq.
    QStringList present;
    for (const char* path : {"/proc/sys", "/proc/sysrq-trigger"})
        if (QFileInfo::exists(QLatin1String(path)))
            present << QLatin1String(path);
    return present;
}

QMap<QString, QString> BwrapCommand::bwrapEnvironment() {
    return {{QStringLiteral("PATH"), QStringLiteral("/usr/bin:/bin")},
            {QStringLiteral("LANG"), QStringLiteral("C.UTF-8")}};
}

QMap<QString, QString> BwrapCommand::sandboxEnvironment(const QMap<QString, QString>& userEnv,
                                                        const QMap<QString, QString>& extraEnv) {
    QMap<QString, QString> env{
        {QStringLiteral("HOME"), QStringLiteral("/tmp")},
        {QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin")},
        {QStringLiteral("LANG"), QStringLiteral("C.UTF-8")},
        {QStringLiteral("PYTHONNOUSERSITE"), QStringLiteral("1")},
        {QStringLiteral("TMPDIR"), QStringLiteral("/tmp")},
    };
    for (auto it = userEnv.begin(); it != userEnv.end(); ++it)
        env.insert(it.key(), it.value());
    for (auto it = extraEnv.begin(); it != extraEnv.end(); ++it)
        env.insert(it.key(), it.value());
    return env;
}

SandboxLaunch BwrapCommand::build(const SandboxCapability& cap, const LaunchSpec& spec) {
    SandboxLaunch launch;
    launch.program = cap.bwrapPath;
    launch.environment = bwrapEnvironment();
    launch.workingDirectory = spec.stateDir;
    launch.sandboxCwd = spec.cwd.isEmpty() ? QStringLiteral("/workspace")
                                           : QStringLiteral("/workspace/") + spec.cwd;
    launch.sandboxEnvironment = sandboxEnvironment(spec.userEnv, spec.extraEnv);
    launch.command = spec.command;

    QStringList& a = launch.arguments;
    a << QStringLiteral("--die-with-parent") << QStringLiteral("--new-session")
      << QStringLiteral("--unshare-all") << QStringLiteral("--unshare-user");
    if (cap.usernsBlocking == UsernsBlocking::Supported)
        a << QStringLiteral("--disable-userns");
    a << QStringLiteral("--cap-drop") << QStringLiteral("ALL");
    a << QStringLiteral("--ro-bind") << QStringLiteral("/usr") << QStringLiteral("/usr");
    a << QStringLiteral("--symlink") << QStringLiteral("usr/bin") << QStringLiteral("/bin");
    a << QStringLiteral("--symlink") << QStringLiteral("usr/sbin") << QStringLiteral("/sbin");
    a << QStringLiteral("--symlink") << QStringLiteral("usr/lib") << QStringLiteral("/lib");
    a << QStringLiteral("--symlink") << QStringLiteral("usr/lib64") << QStringLiteral("/lib64");
    roBindIfPresent(a, QStringLiteral("/etc/alternatives"));
    roBindIfPresent(a, QStringLiteral("/etc/ld.so.cache"));
    roBindIfPresent(a, QStringLiteral("/etc/localtime"));
    roBindIfPresent(a, QStringLiteral("/etc/R"));
    for (const char* path : kCaTrustPaths)
        roBindIfPresent(a, QLatin1String(path));
    if (cap.procMode == ProcMode::New)
        a << QStringLiteral("--proc") << QStringLiteral("/proc");
    else
        a << QStringLiteral("--ro-bind") << QStringLiteral("/proc") << QStringLiteral("/proc");
    // Read-only whatever bwrap itself concluded: bwrap covers these only when they look
    // writable to its caller, which an unprivileged sandbox user's view does not
    // (docs/contracts.md "No sandbox is host root"; the probe checks the result).
    for (const QString& path : readOnlyProcPaths())
        a << QStringLiteral("--ro-bind") << path << path;
    a << QStringLiteral("--dev") << QStringLiteral("/dev");
    a << spec.extraArgs;
    // docs/bounds.md "tmpfs": --dev's own tmpfs (which holds /dev/shm) is half the RAM, so /dev
    // becomes read-only after the device binds above and /dev/shm a sized tmpfs of its own.
    const bool sized = cap.sizedTmpfs && spec.tmpfsBytes > 0;
    if (sized)
        a << QStringLiteral("--remount-ro") << QStringLiteral("/dev") << QStringLiteral("--perms")
          << QStringLiteral("01777") << QStringLiteral("--size") << QString::number(spec.tmpfsBytes)
          << QStringLiteral("--tmpfs") << QStringLiteral("/dev/shm");
    if (sized)
        a << QStringLiteral("--size") << QString::number(spec.tmpfsBytes);
    a << QStringLiteral("--tmpfs") << QStringLiteral("/tmp");
    // Descriptors, not paths: a sandbox user cannot open the agent's state dir by path.
    a << QStringLiteral("--ro-bind-data") << QString::number(LaunchFd::kPasswd)
      << QStringLiteral("/etc/passwd");
    launch.fds.append(FdBinding::bytes(LaunchFd::kPasswd, SandboxIdentity::passwd(spec.identity)));
    a << QStringLiteral("--ro-bind-data") << QString::number(LaunchFd::kGroup)
      << QStringLiteral("/etc/group");
    launch.fds.append(FdBinding::bytes(LaunchFd::kGroup, SandboxIdentity::group(spec.identity)));
    a << QStringLiteral("--bind-fd") << QString::number(LaunchFd::kWorkspace)
      << QStringLiteral("/workspace");
    launch.fds.append(FdBinding::file(LaunchFd::kWorkspace, spec.workspaceDir,
                                      O_PATH | O_DIRECTORY | O_NOFOLLOW));
    // Every mount is in place: the root itself (bwrap's own tmpfs, unsized and counted by no
    // one) becomes read-only, so nothing but /tmp, /dev/shm and /workspace takes a write
    // (docs/bounds.md "tmpfs"). Not recursive: the mounts below keep their own flags.
    a << QStringLiteral("--remount-ro") << QStringLiteral("/");
    a << QStringLiteral("--chdir") << launch.sandboxCwd;
    a << QStringLiteral("--clearenv");
    for (auto it = launch.sandboxEnvironment.begin(); it != launch.sandboxEnvironment.end(); ++it)
        a << QStringLiteral("--setenv") << it.key() << it.value();
    a << QStringLiteral("--seccomp") << QString::number(LaunchFd::kSeccomp);
    launch.fds.append(FdBinding::file(LaunchFd::kSeccomp, spec.seccompPath));
    launch.fds.append(spec.extraFds);
    launch.user = spec.user;
    a << QStringLiteral("--json-status-fd") << QString::number(launch.jsonStatusFd);
    a << QStringLiteral("--");
    a << spec.command;
    return launch;
}

} // namespace runbox::sandbox
