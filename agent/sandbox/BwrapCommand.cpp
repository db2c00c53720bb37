#include "agent/sandbox/BwrapCommand.h"

#include "agent/sandbox/SandboxIdentity.h"

#include <QFileInfo>

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
    a << QStringLiteral("--ro-bind") << SandboxIdentity::passwdPath(spec.identityDir)
      << QStringLiteral("/etc/passwd");
    a << QStringLiteral("--ro-bind") << SandboxIdentity::groupPath(spec.identityDir)
      << QStringLiteral("/etc/group");
    if (cap.procMode == ProcMode::New)
        a << QStringLiteral("--proc") << QStringLiteral("/proc");
    else
        a << QStringLiteral("--ro-bind") << QStringLiteral("/proc") << QStringLiteral("/proc");
    a << QStringLiteral("--dev") << QStringLiteral("/dev");
    a << spec.extraArgs;
    a << QStringLiteral("--tmpfs") << QStringLiteral("/tmp");
    a << QStringLiteral("--bind") << spec.workspaceDir << QStringLiteral("/workspace");
    a << QStringLiteral("--chdir") << launch.sandboxCwd;
    a << QStringLiteral("--clearenv");
    for (auto it = launch.sandboxEnvironment.begin(); it != launch.sandboxEnvironment.end(); ++it)
        a << QStringLiteral("--setenv") << it.key() << it.value();
    a << QStringLiteral("--seccomp") << QStringLiteral("3");
    launch.fds.append(FdBinding{3, spec.seccompPath});
    a << QStringLiteral("--json-status-fd") << QString::number(launch.jsonStatusFd);
    a << QStringLiteral("--");
    a << spec.command;
    return launch;
}

} // namespace runbox::sandbox
