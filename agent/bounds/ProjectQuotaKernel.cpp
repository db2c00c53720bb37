#include "agent/bounds/ProjectQuotaKernel.h"

#include "agent/bounds/EffectiveCapability.h"

#include <cerrno>
#include <cstring>

#include <linux/dqblk_xfs.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/quota.h>
#include <sys/syscall.h>
#include <unistd.h>

// quotactl_fd(2), Linux 5.14: the same number on x86_64 and aarch64 (asm-generic/unistd.h);
// older headers lack it.
#ifndef SYS_quotactl_fd
#define SYS_quotactl_fd 443
#endif

namespace runbox::bounds {

namespace {

int quotactlFd(int fd, int command, quint32 id, void* addr) {
    if (::syscall(SYS_quotactl_fd, fd, QCMD(command, PRJQUOTA), id, addr) == 0)
        return 0;
    return errno;
}

class SystemKernel final : public ProjectQuotaKernel {
public:
    bool hasCapSysAdmin() override { return holdsEffectiveCapSysAdmin(); }

    int quotaFlags(int fd, quint32* flags) override {
        fs_quota_statv state;
        std::memset(&state, 0, sizeof state);
        state.qs_version = FS_QSTATV_VERSION1;
        if (const int err = quotactlFd(fd, Q_XGETQSTATV, 0, &state))
            return err;
        *flags = state.qs_flags;
        return 0;
    }

    int usage(int fd, quint32 projectId, Usage* out) override {
        struct dqblk q; // glibc's struct dqblk is the kernel's struct if_dqblk
        std::memset(&q, 0, sizeof q);
        if (const int err = quotactlFd(fd, Q_GETQUOTA, projectId, &q))
            return err;
        out->bytes = qint64(q.dqb_curspace);
        out->inodes = qint64(q.dqb_curinodes);
        out->hardLimitKiB = q.dqb_bhardlimit;
        out->inodeHardLimit = q.dqb_ihardlimit;
        return 0;
    }

    int setBlockLimit(int fd, quint32 projectId, quint64 hardLimitKiB) override {
        struct dqblk q;
        std::memset(&q, 0, sizeof q);
        q.dqb_bhardlimit = hardLimitKiB;
        q.dqb_bsoftlimit = 0;
        q.dqb_valid = QIF_BLIMITS;
        return quotactlFd(fd, Q_SETQUOTA, projectId, &q);
    }

    int project(int fd, quint32* projectId, bool* inherit) override {
        fsxattr attr;
        std::memset(&attr, 0, sizeof attr);
        if (::ioctl(fd, FS_IOC_FSGETXATTR, &attr) != 0)
            return errno;
        *projectId = attr.fsx_projid;
        *inherit = (attr.fsx_xflags & FS_XFLAG_PROJINHERIT) != 0;
        return 0;
    }

    int setProject(int fd, quint32 projectId, bool inherit) override {
        fsxattr attr;
        std::memset(&attr, 0, sizeof attr);
        if (::ioctl(fd, FS_IOC_FSGETXATTR, &attr) != 0)
            return errno;
        attr.fsx_projid = projectId;
        if (inherit)
            attr.fsx_xflags |= FS_XFLAG_PROJINHERIT;
        else
            attr.fsx_xflags &= ~__u32(FS_XFLAG_PROJINHERIT);
        if (::ioctl(fd, FS_IOC_FSSETXATTR, &attr) != 0)
            return errno;
        return 0;
    }
};

} // namespace

ProjectQuotaKernel& ProjectQuotaKernel::system() {
    static SystemKernel kernel;
    return kernel;
}

} // namespace runbox::bounds
