#pragma once

#include "agent/files/UploadLimits.h"
#include "agent/http/HttpExchange.h"
#include "agent/store/QuotaSettings.h"
#include "agent/workspace/WorkspaceFs.h"

#include <QObject>
#include <QPointer>

#include <memory>
#include <optional>

class QThreadPool;

namespace runbox::execution {
class ExecutionManager;
}

namespace runbox::files {

class UploadStream;

/// One `PUT /v1/workspaces/{id}/files/{path}`, as FileRoutes parsed it.
struct UploadRequest {
    QString workspaceId;
    std::shared_ptr<const workspace::WorkspaceFs> fs;
    workspace::WorkspacePath path;
    workspace::UploadOptions options; ///< conflict, mode, createParents (maxBytes is set here)
    QByteArray declaredSha256;        ///< X-Runbox-Content-SHA256, lowercase hex (single-shot)
    qint64 contentLength = -1;        ///< bytes; -1 for a chunked body
    store::QuotaSettings quotas;      ///< in force when the request arrived

    /// A chunk-signed body (docs/upload-integrity.md): the token that verified the head and
    /// its X-Runbox-Signature, the first link of the chain.
    struct ChunkSigning {
        QByteArray key;
        QByteArray seedSignature;
    };
    std::optional<ChunkSigning> chunkSigning; ///< absent: single-shot hash
    qint64 decodedLength = -1;                ///< X-Runbox-Decoded-Length (chunk-signed)

    /// The file's size as the head declares it (bytes; -1 when unknown: a chunked single-shot
    /// body): X-Runbox-Decoded-Length for a chunk-signed body, else Content-Length.
    qint64 declaredFileBytes() const { return chunkSigning ? decodedLength : contentLength; }
};

/// The life of one upload (docs/ARCHITECTURE.md "How the file API flows",
/// docs/upload-integrity.md). The request's signature was verified on its head with the declared
/// body hash (or the chunk-signing scheme's literal) before this runs. Sizes below are the file's
/// (decoded) bytes: UploadRequest::declaredFileBytes() on the head, bytes written while streaming.
///
/// Errors are runbox::Error (docs/contracts.md "Errors"), the workspace layer's included,
/// answered with their kind's status (http::httpStatus).
///
/// 1. Before any body byte is read: 413 `upload_too_large` when the declared size exceeds
///    uploadMaxFileBytes or uploadMaxRequestBytes; then, off the event loop, the workspace's
///    usage (WorkspaceUsage, allocated bytes) plus the declared size against maxWorkspaceBytes
///    (413 `workspace_quota_exceeded`; a file being overwritten counts as freed), and
///    WorkspaceFs::beginUpload (an invisible O_TMPFILE in the target directory). With
///    `parents=true` this step holds the workspace lease, as it may create directories; they
///    belong to the upload until it commits, and any failure (bad hash, quota, limits, client
///    gone) removes the ones it made and that are still empty (WorkspaceUpload::abort).
/// 2. The body is accepted and handed to an UploadStream, which decodes, verifies and writes it
///    into the temporary file on a pool thread, so the event loop only moves bytes
///    (backpressure: the connection reads no faster than the stream writes). A body crossing a
///    limit stops at once with 413; a chunk-signed body that fails its chain stops with 400
///    (`chunk_signature_mismatch`, `invalid_chunk`, `decoded_length_mismatch`); the client
///    leaving or the body breaking aborts the upload.
/// 3. Once complete, under the workspace lease and off the event loop: the quota again (usage +
///    bytes written, so concurrent uploads cannot overrun it together), then
///    WorkspaceUpload::commit, which checks the SHA-256 of a single-shot body (400
///    `checksum_mismatch`, nothing left) and publishes the file atomically. 201 (created) or 200
///    (replaced) with the FileInfo JSON plus `"path"`, and the new `ETag`.
/// Deletes itself at the end.
class FileUpload final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FileUpload)
public:
    /// @p pool runs the short blocking steps (beginUpload, commit), @p walkPool the quota's
    /// usage walks before them (FileWork::runAfterWalk), @p streamPool the body's UploadStream
    /// jobs.
    FileUpload(http::HttpExchange* exchange, execution::ExecutionManager* manager,
               QThreadPool* pool, QThreadPool* walkPool, QThreadPool* streamPool,
               UploadRequest request, QObject* parent = nullptr);
    ~FileUpload() override;

    void start();

private:
    struct Shared;
    void onPrepared();
    /// Moves body bytes from the exchange to the stream while it has room; ends its input once
    /// the whole body was moved.
    void pumpBody();
    void onStreamFinished();
    void onCommitted();
    void fail(const Error& error);
    void finish();

    QPointer<http::HttpExchange> m_exchange;
    execution::ExecutionManager* m_manager;
    QThreadPool* m_pool;
    QThreadPool* m_walkPool;
    QThreadPool* m_streamPool;
    UploadRequest m_request;
    std::shared_ptr<Shared> m_shared;
    UploadLimits m_limits;
    UploadStream* m_stream = nullptr; ///< child; while the body streams
    bool m_bodyComplete = false;
    bool m_inputEnded = false;
    bool m_committing = false;
    bool m_finished = false;
};

} // namespace runbox::files
