#pragma once

#include "agent/Error.h"
#include "agent/bounds/ProjectQuotaKernel.h"
#include "agent/workspace/WorkspaceFd.h"

#include <QJsonObject>
#include <QString>

#include <map>
#include <memory>
#include <optional>

namespace runbox::bounds {

/// The workspace quota enforced by the kernel (docs/bounds.md "Disk"): where the filesystem of the
/// strong workspaces' root has project quota accounting and enforcement on (ext4 or xfs mounted
/// with `prjquota`) and the agent holds CAP_SYS_ADMIN, each strong workspace is one project: its
/// directory and everything in it carry the workspace's project id, the directory with
/// FS_XFLAG_PROJINHERIT so that whatever is created under it inherits the id, and the project
/// has a block hard limit of maxWorkspaceBytes. A sandbox's write or allocation past it fails
/// with EDQUOT, however many files it spreads over and however fast.
///
/// Project id rule: the id of a workspace is its sandbox uid (docs/contracts.md "Sandbox uids":
/// stable across restarts, unique among this agent's workspaces, and the range is claimed against
/// the host's other agents by RUNBOX_UID_RANGE_REGISTRY); the range's first uid, the probe uid
/// that no workspace holds, is the id of the start-up probe. An id is taken for a workspace only
/// when its directory already carries it (a restart) or when the filesystem charges it nothing
/// (Q_GETQUOTA: no byte, no inode); otherwise another owner's files use it and the workspace
/// gets no project (its executions are then refused, fail closed).
///
/// Limits: while no execution runs, a project's limit is the standing one (the quota setting
/// maxWorkspaceBytes, setStandingLimit()); while one runs, that execution's own (a request may
/// tighten it: beginRun()/endRun()). A strong workspace runs one execution at a time (its
/// lease), so the two never overlap. Light workspaces are not covered: their code runs in the
/// initial user namespace as the owner of its files, and the owner may change a file's project
/// id there (ProjectQuotaKernel::setProject).
///
/// Lives on the agent's main thread; the calls are quick system calls on the event loop, except
/// attach() of a workspace that has files (one descriptor walk of its tree).
class ProjectQuota final {
public:
    /// Detects project quotas for the workspaces under @p workspaceRoot and, when every check
    /// passes, returns the object; else null and @p why says which check failed, with its errno:
    /// CAP_SYS_ADMIN (capget(2)), Q_XGETQSTATV on PRJQUOTA with FS_QUOTA_PDQ_ACCT and
    /// FS_QUOTA_PDQ_ENFD (quotactl(2)), FS_IOC_FSSETXATTR of @p probeProjectId with PROJINHERIT on
    /// a probe directory and FS_IOC_FSGETXATTR reading it back (ioctl_xfs_fsgetxattr(2)), and
    /// Q_SETQUOTA of @p probeProjectId. @p kernel null: the real system calls.
    static std::unique_ptr<ProjectQuota> detect(const QString& workspaceRoot,
                                                quint32 probeProjectId, QString* why,
                                                ProjectQuotaKernel* kernel = nullptr);

    /// The standing limit of every project not in a run, in bytes (0 = unlimited): the quota
    /// setting maxWorkspaceBytes. Applied at once to those projects (failures are logged).
    void setStandingLimit(qint64 bytes);
    qint64 standingLimit() const { return m_standingBytes; }

    /// Makes workspace directory @p directory project @p projectId (the rule above): every entry
    /// of its tree gets the id (a descriptor walk, WorkspaceTreeWalker: no link followed; symbolic
    /// links, sockets and device nodes cannot be opened to be set and keep theirs). The directory
    /// gets the id first, PROJINHERIT last: a directory with both was walked completely (a
    /// restart does not walk it again), one with the id alone was being walked (a restart walks
    /// it again, the id's charges being its own). Then the standing limit. Errors: Unavailable
    /// `limit_unenforceable` (the id is in use by other files, a call failed).
    std::optional<Error> attach(const QString& directory, quint32 projectId);
    /// Forgets project @p projectId and removes its limit (the workspace was deleted).
    void detach(quint32 projectId);
    bool attached(quint32 projectId) const { return m_projects.count(projectId) != 0; }
    int attachedCount() const { return int(m_projects.size()); }

    /// An execution of project @p projectId starts under @p limitBytes (its effective
    /// maxWorkspaceBytes, 0 = unlimited). Errors: Unavailable `limit_unenforceable` when the
    /// project is not attached or the limit cannot be set.
    std::optional<Error> beginRun(quint32 projectId, qint64 limitBytes);
    /// The execution ended: the standing limit again.
    void endRun(quint32 projectId);

    /// What the kernel charges project @p projectId now (Q_GETQUOTA); null when it cannot say.
    std::optional<ProjectQuotaKernel::Usage> usage(quint32 projectId);

    /// @p bytes as a block hard limit in 1 KiB blocks (if_dqblk, QIF_DQBLKSIZE), rounded down so
    /// the kernel never allows more than @p bytes, and at least 1 so a limit below 1 KiB is not
    /// read as "none"; 0 (unlimited) stays 0.
    static quint64 hardLimitKiB(qint64 bytes);

    /// `{"mode":"project_quota","reason":"…","projects":N}` for /v1/health `disk`.
    QJsonObject toJson() const;

private:
    ProjectQuota(workspace::UniqueFd rootFd, ProjectQuotaKernel* kernel, QString root);
    std::optional<Error> markTree(int dirFd, quint32 projectId, const QString& directory);
    std::optional<Error> applyLimit(quint32 projectId, qint64 bytes);

    struct Project {
        bool inRun = false;
    };
    workspace::UniqueFd m_rootFd; ///< the workspace root: names the filesystem to quotactl_fd
    ProjectQuotaKernel* m_kernel;
    QString m_root;
    qint64 m_standingBytes = 0;
    std::map<quint32, Project> m_projects;
};

} // namespace runbox::bounds
