#pragma once

#include <QtGlobal>

namespace runbox::bounds {

/// The system calls of the kernel's project quota (docs/bounds.md "Disk"), one method each, so
/// that ProjectQuota's rules can be tested over a fake. Every method returns 0 or the errno of
/// the call. @p fd is a descriptor of a directory (or, for the attribute calls, of any file
/// opened for reading) on the filesystem concerned: quotactl_fd(2) names the filesystem by any
/// descriptor on it (Linux 5.14), so no block device path is needed.
class ProjectQuotaKernel {
public:
    /// Usage and limits of one project id (quotactl(2) Q_GETQUOTA, struct if_dqblk).
    struct Usage {
        qint64 bytes = 0;           ///< dqb_curspace
        qint64 inodes = 0;          ///< dqb_curinodes
        quint64 hardLimitKiB = 0;   ///< dqb_bhardlimit, 1 KiB blocks (QIF_DQBLKSIZE); 0 = none
        quint64 inodeHardLimit = 0; ///< dqb_ihardlimit; 0 = none
    };

    virtual ~ProjectQuotaKernel() = default;

    /// Whether this process holds CAP_SYS_ADMIN in its effective set (capget(2)): Q_SETQUOTA
    /// needs it (quotactl(2)).
    virtual bool hasCapSysAdmin() = 0;

    /// The quota state flags of the filesystem (quotactl(2) Q_XGETQSTATV on PRJQUOTA, struct
    /// fs_quota_statv qs_flags: FS_QUOTA_PDQ_ACCT, FS_QUOTA_PDQ_ENFD of linux/dqblk_xfs.h).
    /// ext4 answers it through the generic quota layer as well as xfs.
    virtual int quotaFlags(int fd, quint32* flags) = 0;
    /// Q_GETQUOTA of project @p projectId.
    virtual int usage(int fd, quint32 projectId, Usage* out) = 0;
    /// Q_SETQUOTA of project @p projectId with QIF_BLIMITS: block hard limit @p hardLimitKiB (0 =
    /// none), soft limit 0. Needs CAP_SYS_ADMIN.
    virtual int setBlockLimit(int fd, quint32 projectId, quint64 hardLimitKiB) = 0;
    /// FS_IOC_FSGETXATTR (ioctl_xfs_fsgetxattr(2), struct fsxattr): fsx_projid and whether
    /// FS_XFLAG_PROJINHERIT is set.
    virtual int project(int fd, quint32* projectId, bool* inherit) = 0;
    /// FS_IOC_FSSETXATTR: sets fsx_projid to @p projectId and FS_XFLAG_PROJINHERIT to @p inherit,
    /// keeping the other flags (read first). The kernel lets the file's owner (or CAP_FOWNER) do
    /// it, but only from the initial user namespace: elsewhere a change of either is EINVAL
    /// (vfs_fileattr_set → fileattr_set_prepare; measured in docs/bounds.md "Disk").
    virtual int setProject(int fd, quint32 projectId, bool inherit) = 0;

    /// The real system calls.
    static ProjectQuotaKernel& system();
};

} // namespace runbox::bounds
