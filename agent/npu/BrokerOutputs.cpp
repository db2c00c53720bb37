#include "agent/npu/BrokerOutputs.h"

#include "agent/workspace/WorkspaceFs.h"

#include <QCryptographicHash>

#include <vector>

namespace runbox::npu {

namespace {

constexpr qint64 kReadBytes = 1 << 20;

QStringList toStrings(const QList<QByteArray>& paths) {
    QStringList out;
    for (const QByteArray& path : paths)
        out.append(QString::fromUtf8(path));
    return out;
}

} // namespace

std::optional<workspace::WorkspaceSnapshot>
BrokerOutputs::before(const workspace::WorkspaceFs& fs) {
    auto snapshot = workspace::WorkspaceSnapshot::capture(fs.rootFd());
    if (!snapshot.ok())
        return std::nullopt;
    return std::move(snapshot.value());
}

BrokerJobFiles BrokerOutputs::after(const workspace::WorkspaceFs& fs,
                                    const std::optional<workspace::WorkspaceSnapshot>& before) {
    BrokerJobFiles files;
    if (!before)
        return files;
    const auto after = workspace::WorkspaceSnapshot::capture(fs.rootFd());
    if (!after.ok())
        return files;
    const workspace::WorkspaceDiff diff =
        workspace::WorkspaceSnapshot::diff(*before, after.value());
    files.createdFiles = toStrings(diff.createdFiles);
    files.modifiedFiles = toStrings(diff.modifiedFiles);
    files.deletedFiles = toStrings(diff.deletedFiles);
    QList<QByteArray> written = diff.createdFiles + diff.modifiedFiles;
    std::sort(written.begin(), written.end());
    for (const QByteArray& path : std::as_const(written)) {
        if (files.outputs.size() >= kMaxOutputs)
            break;
        if (auto output = hash(fs, path))
            files.outputs.append(*output);
    }
    return files;
}

std::optional<store::ExecutionOutput> BrokerOutputs::hash(const workspace::WorkspaceFs& fs,
                                                          const QByteArray& path) {
    const auto relative = workspace::WorkspacePath::fromPlain(path);
    if (!relative.ok() || relative.value().isRoot())
        return std::nullopt;
    auto handle = fs.openForRead(relative.value());
    if (!handle.ok())
        return std::nullopt; // a link, a FIFO, or gone since the snapshot
    QCryptographicHash sha256(QCryptographicHash::Sha256);
    std::vector<char> buffer(kReadBytes);
    qint64 offset = 0;
    for (;;) {
        const qint64 n = handle.value().readAt(offset, buffer.data(), kReadBytes);
        if (n < 0)
            return std::nullopt;
        if (n == 0)
            break;
        sha256.addData(QByteArrayView(buffer.data(), n));
        offset += n;
    }
    return store::ExecutionOutput{QString::fromUtf8(path), offset,
                                  QString::fromLatin1(sha256.result().toHex())};
}

} // namespace runbox::npu
