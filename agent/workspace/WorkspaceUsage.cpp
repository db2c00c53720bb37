#include "agent/workspace/WorkspaceUsage.h"

#include "agent/workspace/WorkspaceFd.h"
#include "agent/workspace/WorkspaceTreeWalker.h"

#include <QSet>

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <utility>

namespace runbox::workspace {

Result<UsageReport> WorkspaceUsage::measure(int rootFd, const Options& options) {
    UsageReport report;
    struct stat rootSt {};
    if (::fstat(rootFd, &rootSt) != 0)
        return errnoError(errno, QStringLiteral("stat"), QByteArray());
    report.allocatedBytes = qint64(rootSt.st_blocks) * 512;
    QSet<std::pair<quint64, quint64>> hardLinked;
    auto onEntry = [&](const WorkspaceTreeWalker::Entry& e) {
        const struct stat& st = *e.st;
        ++report.entries;
        if (e.beyondDepthLimit)
            report.depthLimited = true;
        const bool counted = S_ISDIR(st.st_mode) || st.st_nlink <= 1 ||
                             !hardLinked.contains({quint64(st.st_dev), quint64(st.st_ino)});
        if (counted) {
            if (!S_ISDIR(st.st_mode) && st.st_nlink > 1)
                hardLinked.insert({quint64(st.st_dev), quint64(st.st_ino)});
            report.allocatedBytes += qint64(st.st_blocks) * 512;
            if (S_ISREG(st.st_mode))
                report.apparentBytes += qint64(st.st_size);
        }
        if (options.budgetBytes > 0 && report.allocatedBytes > options.budgetBytes) {
            report.over = true;
            return WorkspaceTreeWalker::Action::Stop;
        }
        if (options.maxEntries > 0 && report.entries >= options.maxEntries)
            return WorkspaceTreeWalker::Action::Stop;
        return WorkspaceTreeWalker::Action::Continue;
    };
    bool stopped = false;
    WorkspaceTreeWalker::Options walk;
    walk.maxOpenDirectories = options.maxOpenDirectories;
    const Status walked = WorkspaceTreeWalker::walk(rootFd, walk, onEntry, {}, &stopped);
    if (!walked)
        return walked.error();
    if (options.budgetBytes > 0 &&
        (report.allocatedBytes > options.budgetBytes || report.depthLimited))
        report.over = true;
    report.complete = !stopped && !report.depthLimited;
    return report;
}

Result<UsageReport> WorkspaceUsage::measure(const QString& rootPath, const Options& options) {
    const QByteArray p = rootPath.toLocal8Bit();
    UniqueFd fd(::open(p.constData(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid())
        return errnoError(errno, QStringLiteral("open"), QByteArray());
    return measure(fd.get(), options);
}

} // namespace runbox::workspace
