#include "agent/workspace/WorkspaceSnapshot.h"

#include "agent/workspace/WorkspaceTreeWalker.h"

#include <QJsonArray>

#include <algorithm>

namespace runbox::workspace {

namespace {

bool isFileLike(FileType t) {
    return t != FileType::Directory;
}

void record(QList<QByteArray>* list, qint64* count, const QByteArray& path, qsizetype max,
            bool* truncated) {
    ++*count;
    if (list->size() < max)
        list->append(path);
    else
        *truncated = true;
}

QJsonArray toArray(const QList<QByteArray>& paths) {
    QJsonArray a;
    for (const QByteArray& p : paths)
        a.append(QString::fromUtf8(p));
    return a;
}

} // namespace

QJsonObject WorkspaceDiff::toJson() const {
    return QJsonObject{{QStringLiteral("createdFiles"), toArray(createdFiles)},
                       {QStringLiteral("modifiedFiles"), toArray(modifiedFiles)},
                       {QStringLiteral("deletedFiles"), toArray(deletedFiles)},
                       {QStringLiteral("createdCount"), createdCount},
                       {QStringLiteral("modifiedCount"), modifiedCount},
                       {QStringLiteral("deletedCount"), deletedCount},
                       {QStringLiteral("truncated"), truncated}};
}

Result<WorkspaceSnapshot> WorkspaceSnapshot::capture(int rootFd, qint64 maxEntries,
                                                     qint64 maxPathBytes) {
    WorkspaceSnapshot snap;
    qint64 pathBytes = 0;
    bool tooDeep = false;
    auto onEntry = [&](const WorkspaceTreeWalker::Entry& e) {
        tooDeep = tooDeep || e.beyondDepthLimit;
        if (maxEntries > 0 && qint64(snap.m_entries.size()) >= maxEntries)
            return WorkspaceTreeWalker::Action::Stop;
        pathBytes += e.relativePath.size();
        if (maxPathBytes > 0 && pathBytes > maxPathBytes)
            return WorkspaceTreeWalker::Action::Stop;
        const FileInfo info = FileInfo::fromStat(QByteArrayView(), *e.st);
        snap.m_entries.push_back(
            Entry{e.relativePath.toByteArray(), info.type, info.size, info.mtimeNs, info.ino});
        return WorkspaceTreeWalker::Action::Continue;
    };
    bool stopped = false;
    const Status walked =
        WorkspaceTreeWalker::walk(rootFd, WorkspaceTreeWalker::Options(), onEntry, {}, &stopped);
    if (!walked)
        return walked.error();
    snap.m_complete = !stopped && !tooDeep;
    std::sort(snap.m_entries.begin(), snap.m_entries.end(),
              [](const Entry& a, const Entry& b) { return a.path < b.path; });
    return snap;
}

WorkspaceDiff WorkspaceSnapshot::diff(const WorkspaceSnapshot& before,
                                      const WorkspaceSnapshot& after, qsizetype maxListed) {
    WorkspaceDiff d;
    d.truncated = !before.complete() || !after.complete();
    const auto& a = before.m_entries;
    const auto& b = after.m_entries;
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        if (j == b.size() || (i < a.size() && a[i].path < b[j].path)) {
            if (isFileLike(a[i].type))
                record(&d.deletedFiles, &d.deletedCount, a[i].path, maxListed, &d.truncated);
            ++i;
        } else if (i == a.size() || b[j].path < a[i].path) {
            if (isFileLike(b[j].type))
                record(&d.createdFiles, &d.createdCount, b[j].path, maxListed, &d.truncated);
            ++j;
        } else {
            const Entry& x = a[i];
            const Entry& y = b[j];
            const bool wasFile = isFileLike(x.type), isFile = isFileLike(y.type);
            if (wasFile && isFile) {
                if (x.type != y.type || x.size != y.size || x.mtimeNs != y.mtimeNs ||
                    x.ino != y.ino)
                    record(&d.modifiedFiles, &d.modifiedCount, y.path, maxListed, &d.truncated);
            } else if (wasFile) {
                record(&d.deletedFiles, &d.deletedCount, x.path, maxListed, &d.truncated);
            } else if (isFile) {
                record(&d.createdFiles, &d.createdCount, y.path, maxListed, &d.truncated);
            }
            ++i;
            ++j;
        }
    }
    return d;
}

} // namespace runbox::workspace
