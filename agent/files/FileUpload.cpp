#include "agent/files/FileUpload.h"

#include "agent/files/ChunkedUploadDecoder.h"
#include "agent/files/FileWork.h"
#include "agent/files/UploadStream.h"
#include "agent/workspace/WorkspaceUsage.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <optional>

namespace runbox::files {

using workspace::FileInfo;
using workspace::WorkspaceUpload;

/// What the event loop and the pool work hand each other, one at a time.
struct FileUpload::Shared {
    std::optional<WorkspaceUpload> upload;
    std::optional<Error> error;
    qint64 room = -1; ///< see UploadLimits::room
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

/// Allocated bytes of the regular file at @p path (freed when it is overwritten), else 0.
qint64 replacedBytes(const workspace::WorkspaceFs& fs, const workspace::WorkspacePath& path) {
    auto info = fs.stat(path);
    return info && info->type == workspace::FileType::File ? info->allocatedBytes : 0;
}

/// Workspace usage as the quota counts it, minus what overwriting @p path frees; nullopt with
/// @p error set when the walk failed. Stops early once over @p maxBytes.
std::optional<qint64> usedBytes(const UploadRequest& r, std::optional<Error>* error) {
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
                       QThreadPool* pool, QThreadPool* walkPool, QThreadPool* streamPool,
                       UploadRequest request, QObject* parent)
    : QObject(parent), m_exchange(exchange), m_manager(manager), m_pool(pool), m_walkPool(walkPool),
      m_streamPool(streamPool), m_request(std::move(request)),
      m_shared(std::make_shared<Shared>()) {
    // Whatever happens to the client, an uncommitted upload is aborted with this object (the
    // pool work keeps its own reference while it runs).
    connect(exchange, &http::HttpExchange::clientGone, this, &FileUpload::finish);
    connect(&exchange->body(), &http::HttpRequestBody::failed, this, &FileUpload::finish);
    connect(exchange, &QObject::destroyed, this, &FileUpload::finish);
}

FileUpload::~FileUpload() = default;

void FileUpload::start() {
    const store::QuotaSettings& q = m_request.quotas;
    m_limits.path = m_request.path.toRelative();
    m_limits.fileLimit = minLimit(q.uploadMaxFileBytes, q.uploadMaxRequestBytes);
    m_limits.maxWorkspaceBytes = q.maxWorkspaceBytes;
    const qint64 declared = m_request.declaredFileBytes();
    if (declared >= 0 && m_limits.fileLimit > 0 && declared > m_limits.fileLimit)
        return fail(UploadLimits::tooLarge(m_limits.path, m_limits.fileLimit));

    // The quota's walk on the walk pool, then the upload's file on the file pool.
    std::function<bool()> quotaCheck;
    if (m_request.quotas.maxWorkspaceBytes > 0)
        quotaCheck = [shared = m_shared, r = m_request, limits = m_limits, declared] {
            const std::optional<qint64> used = usedBytes(r, &shared->error);
            if (!used)
                return false;
            const qint64 incoming = std::max<qint64>(0, declared);
            shared->room = r.quotas.maxWorkspaceBytes - *used;
            if (incoming > shared->room || (shared->room <= 0 && declared != 0)) {
                shared->error = UploadLimits::quotaExceeded(limits.path, limits.maxWorkspaceBytes);
                return false;
            }
            return true;
        };
    auto work = [shared = m_shared, r = m_request, limits = m_limits]() mutable {
        r.options.maxBytes = minLimit(limits.fileLimit, shared->room);
        r.options.hashContent = !r.chunkSigning; // the decoder verifies a chunk-signed body
        auto upload = r.fs->beginUpload(r.path, r.options);
        if (!upload) {
            shared->error = upload.error();
            return;
        }
        shared->upload.emplace(std::move(upload.value()));
    };
    FileWork::runAfterWalk(m_manager, m_request.workspaceId, m_request.options.createParents,
                           m_walkPool, std::move(quotaCheck), m_pool, this, std::move(work),
                           [this] { onPrepared(); });
}

void FileUpload::onPrepared() {
    if (m_finished)
        return;
    if (!m_exchange)
        return finish();
    if (m_shared->error)
        return fail(*m_shared->error);
    m_limits.room = m_shared->room;
    std::unique_ptr<ChunkedUploadDecoder> decoder;
    if (m_request.chunkSigning)
        decoder = std::make_unique<ChunkedUploadDecoder>(m_request.chunkSigning->key,
                                                         m_request.chunkSigning->seedSignature,
                                                         m_request.decodedLength);
    m_stream = new UploadStream(m_streamPool, std::move(*m_shared->upload), m_limits,
                                std::move(decoder), this);
    m_shared->upload.reset();
    connect(m_stream, &UploadStream::bodyWanted, this, &FileUpload::pumpBody);
    connect(m_stream, &UploadStream::failed, this, &FileUpload::fail);
    connect(m_stream, &UploadStream::finished, this, &FileUpload::onStreamFinished);
    connect(&m_exchange->body(), &http::HttpRequestBody::readyRead, this, &FileUpload::pumpBody);
    connect(&m_exchange->body(), &http::HttpRequestBody::complete, this, [this] {
        m_bodyComplete = true;
        pumpBody();
    });
    m_exchange->body().accept();
}

void FileUpload::pumpBody() {
    if (m_finished || !m_exchange || !m_stream || m_inputEnded)
        return;
    while (m_stream->hasRoom() && m_exchange->body().bytesAvailable() > 0)
        m_stream->push(m_exchange->body().read());
    if (m_bodyComplete && m_exchange->body().bytesAvailable() == 0) {
        m_inputEnded = true;
        m_stream->endInput();
    }
}

void FileUpload::onStreamFinished() {
    if (m_finished || !m_exchange || m_committing)
        return;
    m_committing = true;
    m_shared->upload = m_stream->takeUpload();
    if (!m_shared->upload)
        return fail(Error{ErrorKind::Internal, QStringLiteral("internal_error"),
                          QStringLiteral("the upload stream ended without its file")});
    // A chunk-signed body was verified chunk by chunk: there is no whole-body hash to check.
    const QByteArray expectedSha256 =
        m_request.chunkSigning ? QByteArray() : m_request.declaredSha256;
    // Again under the lease (other uploads may have landed since the first check), the walk
    // on the walk pool, then the commit on the file pool.
    std::function<bool()> quotaCheck;
    if (m_request.quotas.maxWorkspaceBytes > 0)
        quotaCheck = [shared = m_shared, r = m_request, written = m_stream->bytesWritten(),
                      limits = m_limits] {
            const std::optional<qint64> used = usedBytes(r, &shared->error);
            if (used && *used + written > r.quotas.maxWorkspaceBytes)
                shared->error = UploadLimits::quotaExceeded(limits.path, limits.maxWorkspaceBytes);
            if (!shared->error)
                return true;
            shared->upload.reset();
            return false;
        };
    auto work = [shared = m_shared, r = m_request, expectedSha256] {
        shared->replaced = r.fs->stat(r.path).ok();
        auto committed = shared->upload->commit(expectedSha256);
        shared->upload.reset();
        if (!committed) {
            shared->error = committed.error();
            return;
        }
        shared->committed = committed.value();
    };
    FileWork::runAfterWalk(m_manager, m_request.workspaceId, true, m_walkPool,
                           std::move(quotaCheck), m_pool, this, std::move(work),
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

void FileUpload::fail(const Error& error) {
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
    if (m_stream) { // aborts an upload still streaming (now, or once its running job notices)
        m_stream->disconnect(this);
        m_stream->cancel();
        m_stream->deleteLater(); // not delete: this may run inside one of its signals
        m_stream = nullptr;
    }
    m_shared.reset(); // aborts an uncommitted upload unless pool work still holds it
    deleteLater();
}

} // namespace runbox::files
