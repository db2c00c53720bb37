#pragma once
// A fake delegated cgroup v2 tree for the cgroup path's unit tests (docs/bounds.md): the files
// the kernel would show for an agent running in system.slice/runbox.service with the given
// controllers, and directory ops that make an execution cgroup's interface files as the kernel
// would (empty).
#include "agent/bounds/CgroupDelegation.h"
#include "agent/bounds/ExecutionCgroup.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <cerrno>
#include <unistd.h>

namespace runbox::testsupport {

/// The interface files of a fresh execution cgroup made empty.
inline bounds::ExecutionCgroup::DirectoryOps fakeCgroupOps() {
    return {[](const QString& d) {
                if (!QDir().mkdir(d))
                    return errno = EEXIST, false;
                for (const char* name :
                     {"memory.max", "memory.swap.max", "memory.oom.group", "pids.max", "cpu.weight",
                      "cpu.max", "cgroup.procs", "cgroup.kill", "cgroup.freeze"})
                    QFile(d + QLatin1Char('/') + QLatin1String(name)).open(QIODevice::WriteOnly);
                return true;
            },
            [](const QString& d) { return QDir(d).removeRecursively(); }};
}

/// A delegated subtree whose cgroup.controllers lists @p controllers, with the agent's leaf
/// ready for CgroupDelegation::prepare().
class FakeCgroupTree final {
public:
    explicit FakeCgroupTree(const QByteArray& controllers = "cpuset cpu io memory pids") {
        service = m_dir.filePath(QStringLiteral("system.slice/runbox.service"));
        QDir().mkpath(service + QStringLiteral("/agent"));
        write(m_dir.filePath(QStringLiteral("cgroup")), "0::/system.slice/runbox.service\n");
        write(service + QStringLiteral("/cgroup.controllers"), controllers + '\n');
        write(service + QStringLiteral("/cgroup.subtree_control"), "");
        write(service + QStringLiteral("/cgroup.procs"), QByteArray::number(::getpid()) + '\n');
        write(service + QStringLiteral("/agent/cgroup.procs"), "");
    }
    bounds::CgroupPaths paths() const {
        bounds::CgroupPaths p;
        p.procSelfCgroup = m_dir.filePath(QStringLiteral("cgroup"));
        p.mountOverride = m_dir.path();
        return p;
    }
    static void write(const QString& path, const QByteArray& text) {
        QFile f(path);
        if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            f.write(text);
    }
    static QByteArray read(const QString& path) {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed() : QByteArray("<missing>");
    }

    QString service; ///< the agent's delegated cgroup

private:
    QTemporaryDir m_dir;
};

} // namespace runbox::testsupport
