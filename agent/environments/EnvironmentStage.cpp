#include "agent/environments/EnvironmentStage.h"

#include "agent/environments/EnvironmentProvisioner.h"
#include "agent/environments/EnvironmentService.h"
#include "agent/environments/UploadedWheels.h"

#include <QDir>
#include <QFileInfo>

#include <fcntl.h>
#include <sys/stat.h>

namespace runbox::environments {

namespace {

/// Descriptor numbers of this stage (after sandbox::LaunchFd's fixed ones).
constexpr int kPrefixFd = 9;
constexpr int kFirstBuildFd = 10; ///< a build's package sources, then its tools
constexpr int kFirstMaskFd = 11;

bool isInterpreterName(const QString& name) {
    return name == QLatin1String("python") || name.startsWith(QLatin1String("python3")) ||
           name.startsWith(QLatin1String("pip")) || name == QLatin1String("R") ||
           name == QLatin1String("Rscript");
}

} // namespace

QStringList EnvironmentStage::hostInterpreters(const QString& usrBin) {
    QStringList out;
    const QStringList names =
        QDir(usrBin).entryList(QDir::Files | QDir::System | QDir::NoDotAndDotDot);
    for (const QString& name : names) {
        if (!isInterpreterName(name))
            continue;
        const QString path = usrBin + '/' + name;
        struct stat st {};
        if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
            continue;
        if (S_ISREG(st.st_mode)) {
            out.append(path);
        } else if (S_ISLNK(st.st_mode)) {
            const QString target = QFileInfo(path).canonicalFilePath();
            struct stat t {};
            if (target.startsWith(QLatin1String("/usr/")) &&
                ::lstat(QFile::encodeName(target).constData(), &t) == 0 && S_ISREG(t.st_mode))
                out.append(target);
        }
    }
    out.sort();
    out.removeDuplicates();
    return out;
}

void EnvironmentStage::prepare(const execution::LaunchContext& context, execution::LaunchPlan* plan,
                               std::function<void(std::optional<Error>)> done) {
    const QJsonObject& sections = context.epoch.features;
    const QString prefixMount = QLatin1String(EnvironmentProvisioner::kPrefixMount);
    sandbox::LaunchSpec& spec = plan->spec;
    const QJsonObject build = sections.value(QLatin1String(kBuildField)).toObject();
    if (!build.isEmpty()) {
        QString prefix, wheelStore;
        const EnvironmentProvisioner* provisioner = nullptr;
        if (auto err =
                m_service->prepareBuild(build.value(QLatin1String("revisionId")).toString(),
                                        context.workspaceId, &prefix, &provisioner, &wheelStore))
            return done(*err);
        spec.extraFds.append(
            sandbox::FdBinding::file(kPrefixFd, prefix, O_PATH | O_DIRECTORY | O_NOFOLLOW));
        spec.extraArgs << QStringLiteral("--bind-fd") << QString::number(kPrefixFd) << prefixMount;
        // What the build writes there counts like its workspace (an attack filled the disk).
        plan->diskBoundedPaths.append(prefix);
        int fd = kFirstBuildFd;
        QList<EnvironmentProvisioner::SourceMount> sources = provisioner->packageSources();
        if (!wheelStore.isEmpty())
            sources.append({wheelStore, QLatin1String(UploadedWheels::kBuildMount)});
        for (const EnvironmentProvisioner::SourceMount& source : std::as_const(sources)) {
            spec.extraFds.append(
                sandbox::FdBinding::file(fd, source.hostPath, O_PATH | O_DIRECTORY));
            spec.extraArgs << QStringLiteral("--ro-bind-fd") << QString::number(fd++)
                           << source.mount;
        }
        // Tools as the bytes that were checked (a sealed memfd), executable, read-only.
        QList<EnvironmentProvisioner::BuildTool> tools;
        if (auto err = provisioner->buildTools(&tools))
            return done(*err);
        for (const EnvironmentProvisioner::BuildTool& tool : std::as_const(tools)) {
            spec.extraFds.append(sandbox::FdBinding::bytes(fd, tool.bytes));
            spec.extraArgs << QStringLiteral("--perms") << QStringLiteral("0555")
                           << QStringLiteral("--ro-bind-data") << QString::number(fd++)
                           << tool.mount;
        }
        return done(std::nullopt);
    }
    const QString revisionId = sections.value(QLatin1String(kRevisionField)).toString();
    if (revisionId.isEmpty())
        return done(std::nullopt);
    QString prefix;
    const EnvironmentProvisioner* provisioner = nullptr;
    if (auto err = m_service->acquirePrefix(revisionId, &prefix, &provisioner))
        return done(*err);
    EnvironmentService* service = m_service;
    plan->releases.push_back([service, revisionId] { service->releasePrefix(revisionId); });
    spec.extraFds.append(
        sandbox::FdBinding::file(kPrefixFd, prefix, O_PATH | O_DIRECTORY | O_NOFOLLOW));
    spec.extraArgs << QStringLiteral("--ro-bind-fd") << QString::number(kPrefixFd) << prefixMount;
    for (qsizetype i = 0; i < m_masked.size(); ++i) {
        const int fd = kFirstMaskFd + int(i);
        spec.extraFds.append(sandbox::FdBinding::bytes(fd, QByteArray()));
        spec.extraArgs << QStringLiteral("--ro-bind-data") << QString::number(fd) << m_masked.at(i);
    }
    spec.extraEnv.insert(QStringLiteral("PATH"),
                         prefixMount + QStringLiteral("/bin:/usr/bin:/bin"));
    const QHash<QString, QString> variables = provisioner->executionEnvironment();
    for (auto it = variables.cbegin(); it != variables.cend(); ++it)
        spec.extraEnv.insert(it.key(), it.value());
    // The kinds' interpreters (ExecRequest::sandboxCommand) are the environment's.
    if (!spec.command.isEmpty() && (spec.command.first() == QLatin1String("/usr/bin/python3") ||
                                    spec.command.first() == QLatin1String("/usr/bin/R")))
        spec.command.first() =
            prefixMount + QStringLiteral("/bin/") + QFileInfo(spec.command.first()).fileName();
    done(std::nullopt);
}

} // namespace runbox::environments
