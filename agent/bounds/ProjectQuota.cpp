#include "agent/bounds/ProjectQuota.h"

#include "agent/workspace/WorkspaceTreeWalker.h"

#include <QFile>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <linux/dqblk_xfs.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::bounds {

namespace {

/// The probe directory detect() makes in the workspace root (workspace ids start with "w").
constexpr const char* kProbeName = ".runbox-project-quota-probe";

QString errnoText(int err) {
    return QStringLiteral("%1 (errno %2)").arg(QString::fromLocal8Bit(std::strerror(err))).arg(err);
}

Error unenforceable(const QString& message) {
    return Error{ErrorKind::Unavailable, QStringLiteral("limit_unenforceable"), message};
}

} // namespace

ProjectQuota::ProjectQuota(workspace::UniqueFd rootFd, ProjectQuotaKernel* kernel, QString root)
    : m_rootFd(std::move(rootFd)), m_kernel(kernel), m_root(std::move(root)) {}

quint64 ProjectQuota::hardLimitKiB(qint64 bytes) {
    if (bytes <= 0)
        return 0;
    return std::max<quint64>(1, quint64(bytes) / 1024);
}

std::unique_ptr<ProjectQuota> ProjectQuota::detect(const QString& workspaceRoot,
                                                   quint32 probeProjectId, QString* why,
                                                   ProjectQuotaKernel* kernel) {
    if (!kernel)
        kernel = &ProjectQuotaKernel::system();
    if (!kernel->hasCapSysAdmin()) {
        *why = QStringLiteral("the agent lacks CAP_SYS_ADMIN (quotactl Q_SETQUOTA needs it)");
        return nullptr;
    }
    const QByteArray root = QFile::encodeName(workspaceRoot);
    workspace::UniqueFd rootFd(
        ::open(root.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!rootFd.valid()) {
        *why = QStringLiteral("%1 cannot be opened: %2").arg(workspaceRoot, errnoText(errno));
        return nullptr;
    }
    quint32 flags = 0;
    if (const int err = kernel->quotaFlags(rootFd.get(), &flags)) {
        *why = QStringLiteral("the filesystem of %1 answers no project quota state "
                              "(quotactl_fd Q_XGETQSTATV PRJQUOTA: %2)%3")
                   .arg(workspaceRoot, errnoText(err),
                        err == ENOSYS ? QStringLiteral(": the kernel has no quota support for it "
                                                       "(or is older than 5.14)")
                                      : QString());
        return nullptr;
    }
    if (!(flags & FS_QUOTA_PDQ_ACCT) || !(flags & FS_QUOTA_PDQ_ENFD)) {
        *why = QStringLiteral("project quota %1 is off on the filesystem of %2 (mount it with "
                              "prjquota)")
                   .arg(!(flags & FS_QUOTA_PDQ_ACCT) ? QStringLiteral("accounting")
                                                     : QStringLiteral("enforcement"),
                        workspaceRoot);
        return nullptr;
    }
    // The attribute calls on a directory of our own, then the limit call on the probe id.
    ::unlinkat(rootFd.get(), kProbeName, AT_REMOVEDIR);
    if (::mkdirat(rootFd.get(), kProbeName, 0700) != 0) {
        *why = QStringLiteral("cannot make the probe directory in %1: %2")
                   .arg(workspaceRoot, errnoText(errno));
        return nullptr;
    }
    int probeErr = 0;
    QString probeStep;
    {
        const workspace::UniqueFd probe(
            ::openat(rootFd.get(), kProbeName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        quint32 readBack = 0;
        bool inherit = false;
        if (!probe.valid()) {
            probeErr = errno;
            probeStep = QStringLiteral("open");
        } else if ((probeErr = kernel->setProject(probe.get(), probeProjectId, true))) {
            probeStep = QStringLiteral("FS_IOC_FSSETXATTR");
        } else if ((probeErr = kernel->project(probe.get(), &readBack, &inherit))) {
            probeStep = QStringLiteral("FS_IOC_FSGETXATTR");
        } else if (readBack != probeProjectId || !inherit) {
            probeErr = EINVAL;
            probeStep = QStringLiteral("FS_IOC_FSGETXATTR read back project %1 (inherit %2)")
                            .arg(readBack)
                            .arg(inherit);
        }
    }
    ::unlinkat(rootFd.get(), kProbeName, AT_REMOVEDIR);
    if (probeErr) {
        *why = QStringLiteral("project ids cannot be set on the filesystem of %1 (%2 of project "
                              "%3: %4)")
                   .arg(workspaceRoot, probeStep)
                   .arg(probeProjectId)
                   .arg(errnoText(probeErr));
        return nullptr;
    }
    if (const int err = kernel->setBlockLimit(rootFd.get(), probeProjectId, 0)) {
        *why = QStringLiteral("quotactl_fd Q_SETQUOTA of project %1 failed: %2")
                   .arg(probeProjectId)
                   .arg(errnoText(err));
        return nullptr;
    }
    return std::unique_ptr<ProjectQuota>(
        new ProjectQuota(std::move(rootFd), kernel, workspaceRoot));
}

void ProjectQuota::setStandingLimit(qint64 bytes) {
    m_standingBytes = std::max<qint64>(0, bytes);
    for (const auto& [id, project] : m_projects)
        if (!project.inRun)
            if (auto err = applyLimit(id, m_standingBytes))
                qWarning("warning: %s", qPrintable(err->message));
}

std::optional<Error> ProjectQuota::applyLimit(quint32 projectId, qint64 bytes) {
    if (const int err = m_kernel->setBlockLimit(m_rootFd.get(), projectId, hardLimitKiB(bytes)))
        return unenforceable(QStringLiteral("the project quota of workspace project %1 could not "
                                            "be set to %2 bytes (quotactl Q_SETQUOTA: %3)")
                                 .arg(projectId)
                                 .arg(bytes)
                                 .arg(errnoText(err)));
    return std::nullopt;
}

std::optional<Error> ProjectQuota::markTree(int dirFd, quint32 projectId,
                                            const QString& directory) {
    // The directory first without PROJINHERIT (a walk in progress: a restart resumes it
    // without taking the charges of the entries already marked for another owner's), with it
    // last (the walk was completed: a restart does not walk again).
    if (const int err = m_kernel->setProject(dirFd, projectId, false))
        return unenforceable(QStringLiteral("workspace %1 could not be given project %2: %3")
                                 .arg(directory)
                                 .arg(projectId)
                                 .arg(errnoText(err)));
    std::optional<Error> failure;
    const auto onEntry = [&](const workspace::WorkspaceTreeWalker::Entry& e) {
        using Action = workspace::WorkspaceTreeWalker::Action;
        const bool dir = S_ISDIR(e.st->st_mode);
        // Only files and directories hold data blocks worth moving, and only they can be
        // opened without following a link (O_PATH descriptors take no ioctl).
        if (!dir && !S_ISREG(e.st->st_mode))
            return Action::Continue;
        if (e.beyondDepthLimit) { // its contents would keep another project's charges
            failure = unenforceable(
                QStringLiteral("%1 of workspace %2 lies deeper than %3 levels, which the walk "
                               "does not enter")
                    .arg(QString::fromUtf8(e.relativePath), directory)
                    .arg(workspace::WorkspaceTreeWalker::maxDepth(
                        workspace::WorkspaceTreeWalker::kMaxOpenDirectories)));
            return Action::Stop;
        }
        const workspace::UniqueFd fd(::openat(e.parentFd, e.name,
                                              O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
                                                  O_CLOEXEC | (dir ? O_DIRECTORY : 0)));
        struct stat now;
        int err = 0;
        if (!fd.valid())
            err = errno;
        else if (::fstat(fd.get(), &now) != 0)
            err = errno;
        else if (now.st_dev != e.st->st_dev || now.st_ino != e.st->st_ino)
            err = ESTALE; // swapped since the walk saw it
        else
            err = m_kernel->setProject(fd.get(), projectId, dir);
        if (err == 0)
            return Action::Continue;
        failure = unenforceable(QStringLiteral("%1 of workspace %2 could not be given project %3: "
                                               "%4")
                                    .arg(QString::fromUtf8(e.relativePath), directory)
                                    .arg(projectId)
                                    .arg(errnoText(err)));
        return Action::Stop;
    };
    const workspace::Status walked = workspace::WorkspaceTreeWalker::walk(dirFd, {}, onEntry);
    if (failure)
        return failure;
    if (!walked)
        return unenforceable(QStringLiteral("the tree of workspace %1 could not be walked: %2")
                                 .arg(directory, walked.error().message));
    if (const int err = m_kernel->setProject(dirFd, projectId, true))
        return unenforceable(QStringLiteral("workspace %1 could not be given project %2: %3")
                                 .arg(directory)
                                 .arg(projectId)
                                 .arg(errnoText(err)));
    return std::nullopt;
}

std::optional<Error> ProjectQuota::attach(const QString& directory, quint32 projectId) {
    const workspace::UniqueFd dirFd(::open(QFile::encodeName(directory).constData(),
                                           O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dirFd.valid())
        return unenforceable(
            QStringLiteral("workspace %1 cannot be opened: %2").arg(directory, errnoText(errno)));
    quint32 current = 0;
    bool inherit = false;
    if (const int err = m_kernel->project(dirFd.get(), &current, &inherit))
        return unenforceable(QStringLiteral("the project of workspace %1 cannot be read: %2")
                                 .arg(directory, errnoText(err)));
    if (current != projectId) {
        // Not ours yet (new, or made before project quotas): the id must be free on the fs.
        ProjectQuotaKernel::Usage used;
        const int err = m_kernel->usage(m_rootFd.get(), projectId, &used);
        if (err != 0 && err != ENOENT && err != ESRCH)
            return unenforceable(QStringLiteral("the usage of project %1 cannot be read: %2")
                                     .arg(projectId)
                                     .arg(errnoText(err)));
        if (err == 0 && (used.bytes > 0 || used.inodes > 0))
            return unenforceable(QStringLiteral("project id %1 is in use on the filesystem of %2 "
                                                "(%3 bytes, %4 inodes outside workspace %5)")
                                     .arg(projectId)
                                     .arg(m_root)
                                     .arg(used.bytes)
                                     .arg(used.inodes)
                                     .arg(directory));
    }
    if (current != projectId || !inherit)
        if (auto error = markTree(dirFd.get(), projectId, directory))
            return error;
    m_projects[projectId] = Project{};
    if (auto err = applyLimit(projectId, m_standingBytes)) {
        m_projects.erase(projectId);
        return err;
    }
    return std::nullopt;
}

void ProjectQuota::detach(quint32 projectId) {
    if (m_projects.erase(projectId) == 0)
        return;
    if (auto err = applyLimit(projectId, 0))
        qWarning("warning: %s", qPrintable(err->message));
}

std::optional<Error> ProjectQuota::beginRun(quint32 projectId, qint64 limitBytes) {
    const auto it = m_projects.find(projectId);
    if (it == m_projects.end())
        return unenforceable(QStringLiteral("the workspace of sandbox uid %1 has no project quota "
                                            "(see the agent's log): its executions are refused")
                                 .arg(projectId));
    if (auto err = applyLimit(projectId, limitBytes))
        return err;
    it->second.inRun = true;
    return std::nullopt;
}

void ProjectQuota::endRun(quint32 projectId) {
    const auto it = m_projects.find(projectId);
    if (it == m_projects.end())
        return; // deleted while it ran: detach() removed the limit
    it->second.inRun = false;
    if (auto err = applyLimit(projectId, m_standingBytes))
        qWarning("warning: %s", qPrintable(err->message));
}

std::optional<ProjectQuotaKernel::Usage> ProjectQuota::usage(quint32 projectId) {
    ProjectQuotaKernel::Usage used;
    if (m_kernel->usage(m_rootFd.get(), projectId, &used) != 0)
        return std::nullopt;
    return used;
}

QJsonObject ProjectQuota::toJson() const {
    return QJsonObject{
        {QStringLiteral("mode"), QStringLiteral("project_quota")},
        {QStringLiteral("reason"),
         QStringLiteral("the filesystem of %1 enforces project quotas: each strong workspace is "
                        "a project (id = its sandbox uid) with a block hard limit of "
                        "maxWorkspaceBytes (a request's tighter value while its execution "
                        "runs), and the kernel refuses a write past it with EDQUOT; light "
                        "workspaces keep the watcher (their code may change the project id of "
                        "the files it owns)")
             .arg(m_root)},
        {QStringLiteral("projects"), int(m_projects.size())},
    };
}

} // namespace runbox::bounds
