#include "agent/api/FileUpload.h"

#include "agent/api/FileWork.h"
#include "agent/workspace/WorkspaceUsage.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <optional>

namespace runbox::api {

using workspace::FileInfo;
using workspace::WorkspaceUpload;

/// What the event loop and the pool work hand each other, one at a time.
struct FileUpload::Shared {
    std::optional<WorkspaceUpload> upload;
    std::optional<ApiError> error;
    qint64 room = -1; ///< see FileUpload::m_room
    FileInfo committed;
    bool replaced = false;
};

namespace {

qint64 minLimit(qint64 a, qint64 b) {
    if (a <= 0)
        return b;
    if (b <= 0)
        return a;
    return std::min(a, b);
}

ApiError quotaExceeded(const QByteArray& path, qint64 maxWorkspaceBytes) {
    return workspace::makeError(413, "workspace_quota_exceeded",
                                QStringLiteral("%1: the upload would take the workspace over "
                                               "maxWorkspaceBytes (%2 bytes)")
                                    .arg(QString::fromUtf8(path))
                                    .arg(maxWorkspaceBytes));
}

ApiError uploadTooLarge(const QByteArray& path, qint64 limit) {
    return workspace::makeError(
        413, "upload_too_large",
        QStringLiteral("%1: the upload exceeds %2 bytes (uploadMaxFileBytes / "
                       "uploadMaxRequestBytes)")
            .arg(QString::fromUtf8(path))
            .arg(limit));
}

/// Allocated bytes of the regular file at @p path (freed when it is overwritten), else 0.
qint64 replacedBytes(const workspace::WorkspaceFs& fs, const workspace::WorkspacePath& path) {
    auto info = fs.stat(path);
    return info && info->type == workspace::FileType::File ? info->allocatedBytes : 0;
}

/// Workspace usage as the quota counts it, minus what overwriting @p path frees; nullopt with
/// @p error set when the walk failed. Stops early once over @p maxBytes.
std::optional<qint64> usedBytes(const UploadRequest& r, std::optional<ApiError>* error) {
    workspace::WorkspaceUsage::Options opts;
    opts.budgetBytes = r.quotas.maxWorkspaceBytes;
    auto usage = workspace::WorkspaceUsage::measure(r.fs->rootFd(), opts);
    if (!usage) {
        *error = usage.error();
        return std::nullopt;
    }
    const qint64 freed = r.options.conflict == workspace::ConflictPolicy::Overwrite
                             ? replacedBytes(*r.fs, r.path)
                             : 0;
    return usage->over ? usage->allocatedBytes : usage->allocatedBytes - freed;
}

} // namespace

FileUpload::FileUpload(http::HttpExchange* exchange, execution::ExecutionManager* manager,
                       QThreadPool* pool, UploadRequest request, QObject* parent)
    : QObject(parent), m_exchange(exchange), m_manager(manager), m_pool(pool),
      m_request(std::move(request)), m_shared(std::make_shared<Shared>()) {
    // Whatever happens to the client, an uncommitted upload is aborted with this object (the
    // pool work keeps its own reference while it runs).
    connect(exchange, &http::HttpExchange::clientGone, this, &FileUpload::finish);
    connect(exchange, &http::HttpExchange::bodyFailed, this, &FileUpload::finish);
    connect(exchange, &QObject::destroyed, this, &FileUpload::finish);
}

FileUpload::~FileUpload() = default;

void FileUpload::start() {
    const store::QuotaSettings& q = m_request.quotas;
    const QByteArray rel = m_request.path.toRelative();
    m_fileLimit = minLimit(q.uploadMaxFileBytes, q.uploadMaxRequestBytes);
    if (m_request.contentLength >= 0 && m_fileLimit > 0 && m_request.contentLength > m_fileLimit)
        return fail(uploadTooLarge(rel, m_fileLimit));

    auto work = [shared = m_shared, r = m_request, fileLimit = m_fileLimit, rel]() mutable {
        if (r.quotas.maxWorkspaceBytes > 0) {
            const std::optional<qint64> used = usedBytes(r, &shared->error);
            if (!used)
                return;
            const qint64 incoming = std::max<qint64>(0, r.contentLength);
            shared->room = r.quotas.maxWorkspaceBytes - *used;
            if (incoming > shared->room || (shared->room <= 0 && r.contentLength != 0)) {
                shared->error = quotaExceeded(rel, r.quotas.maxWorkspaceBytes);
                return;
            }
        }
        r.options.maxBytes = minLimit(fileLimit, shared->room);
        auto upload = r.fs->beginUpload(r.path, r.options);
        if (!upload) {
            shared->error = upload.error();
            return;
        }
        shared->upload.emplace(std::move(upload.value()));
    };
    if (m_request.options.createParents)
        FileWork::runLeased(m_manager, m_request.workspaceId, m_pool, this, std::move(work),
                            [this] { onPrepared(); });
    else
        FileWork::run(m_pool, this, std::move(work), [this] { onPrepared(); });
}

void FileUpload::onPrepared() {
    if (m_finished)
        return;
    if (!m_exchange)
        return finish();
    if (m_shared->error)
        return fail(*m_shared->error);
    m_room = m_shared->room;
    connect(m_exchange, &http::HttpExchange::bodyReadyRead, this, &FileUpload::onBodyReadyRead);
    connect(m_exchange, &http::HttpExchange::bodyComplete, this, &FileUpload::onBodyComplete);
    m_exchange->acceptBody();
}

void FileUpload::onBodyReadyRead() {
    if (m_finished || !m_exchange || m_committing || !m_shared->upload)
        return;
    const QByteArray data = m_exchange->readBody();
    if (data.isEmpty())
        return;
    const QByteArray rel = m_request.path.toRelative();
    if (m_fileLimit > 0 && m_written + data.size() > m_fileLimit)
        return fail(uploadTooLarge(rel, m_fileLimit));
    if (m_room >= 0 && m_written + data.size() > m_room)
        return fail(quotaExceeded(rel, m_request.quotas.maxWorkspaceBytes));
    const workspace::Status st = m_shared->upload->write(data);
    if (!st)
        return fail(st.error());
    m_written += data.size();
}

void FileUpload::onBodyComplete() {
    onBodyReadyRead(); // whatever is still unread
    if (m_finished || !m_exchange || m_committing || !m_shared->upload)
        return;
    m_committing = true;
    auto work = [shared = m_shared, r = m_request, written = m_written] {
        const QByteArray rel = r.path.toRelative();
        if (r.quotas.maxWorkspaceBytes > 0) {
            // Again under the lease: other uploads may have landed since the first check.
            const std::optional<qint64> used = usedBytes(r, &shared->error);
            if (!used)
                return;
            if (*used + written > r.quotas.maxWorkspaceBytes) {
                shared->upload.reset();
                shared->error = quotaExceeded(rel, r.quotas.maxWorkspaceBytes);
                return;
            }
        }
        shared->replaced = r.fs->stat(r.path).ok();
        auto committed = shared->upload->commit(r.declaredSha256);
        shared->upload.reset();
        if (!committed) {
            shared->error = committed.error();
            return;
        }
        shared->committed = committed.value();
    };
    FileWork::runLeased(m_manager, m_request.workspaceId, m_pool, this, std::move(work),
                        [this] { onCommitted(); });
}

void FileUpload::onCommitted() {
    if (m_finished)
        return;
    if (m_shared->error)
        return fail(*m_shared->error);
    if (m_exchange) {
        QJsonObject body = m_shared->committed.toJson();
        body.insert(QStringLiteral("path"), QString::fromUtf8(m_request.path.toRelative()));
        const QByteArray json = QJsonDocument(body).toJson(QJsonDocument::Compact) + '\n';
        m_exchange->reply(m_shared->replaced ? 200 : 201, json, "application/json; charset=utf-8",
                          {{"ETag", m_shared->committed.etag()}});
    }
    finish();
}

void FileUpload::fail(const ApiError& error) {
    if (m_finished)
        return;
    if (m_exchange)
        m_exchange->replyError(error);
    finish();
}

void FileUpload::finish() {
    if (m_finished)
        return;
    m_finished = true;
    if (m_exchange)
        m_exchange->disconnect(this);
    m_shared.reset(); // aborts an uncommitted upload unless pool work still holds it
    deleteLater();
}

} // namespace runbox::api
