#pragma once

#include "agent/http/HttpExchange.h"
#include "agent/store/QuotaSettings.h"
#include "agent/workspace/WorkspaceFs.h"

#include <QObject>
#include <QPointer>

#include <memory>

class QThreadPool;

namespace runbox::execution {
class ExecutionManager;
}

namespace runbox::api {

/// One `PUT /v1/workspaces/{id}/files/{path}`, as FileRoutes parsed it.
struct UploadRequest {
    QString workspaceId;
    std::shared_ptr<const workspace::WorkspaceFs> fs;
    workspace::WorkspacePath path;
    workspace::UploadOptions options; ///< conflict, mode, createParents (maxBytes is set here)
    QByteArray declaredSha256;        ///< X-Runbox-Content-SHA256, lowercase hex
    qint64 contentLength = -1;        ///< bytes; -1 for a chunked body
    store::QuotaSettings quotas;      ///< in force when the request arrived
};

/// The life of one upload (issue 3 "Workspace file API" PUT and "Quotas" uploads). The
/// request's signature was verified on its head with the declared body hash before this runs.
///
/// 1. Before any body byte is read: 413 `upload_too_large` when Content-Length exceeds
///    uploadMaxFileBytes or uploadMaxRequestBytes; then, off the event loop, the workspace's
///    usage (WorkspaceUsage, allocated bytes) plus Content-Length against maxWorkspaceBytes
///    (413 `workspace_quota_exceeded`; a file being overwritten counts as freed), and
///    WorkspaceFs::beginUpload (an invisible O_TMPFILE in the target directory). With
///    `parents=true` this step holds the workspace lease, as it may create directories; they
///    belong to the upload until it commits, and any failure (bad hash, quota, limits, client
///    gone) removes the ones it made and that are still empty (WorkspaceUpload::abort).
/// 2. The body is accepted and streamed into the temporary file as it arrives (backpressure:
///    the connection reads no faster than this writes). A chunked body crossing a limit stops
///    at once with 413; the client leaving or the body breaking aborts the upload.
/// 3. Once complete, under the workspace lease and off the event loop: the quota again (usage +
///    bytes written, so concurrent uploads cannot overrun it together), then
///    WorkspaceUpload::commit, which checks the SHA-256 (400 `checksum_mismatch`, nothing left)
///    and publishes the file atomically. 201 (created) or 200 (replaced) with the FileInfo JSON
///    plus `"path"`, and the new `ETag`.
/// Deletes itself at the end.
class FileUpload final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FileUpload)
public:
    FileUpload(http::HttpExchange* exchange, execution::ExecutionManager* manager,
               QThreadPool* pool, UploadRequest request, QObject* parent = nullptr);
    ~FileUpload() override;

    void start();

private:
    struct Shared;
    void onPrepared();
    void onBodyReadyRead();
    void onBodyComplete();
    void onCommitted();
    void fail(const ApiError& error);
    void finish();

    QPointer<http::HttpExchange> m_exchange;
    execution::ExecutionManager* m_manager;
    QThreadPool* m_pool;
    UploadRequest m_request;
    std::shared_ptr<Shared> m_shared;
    qint64 m_fileLimit = 0; ///< 0 = unlimited
    qint64 m_room = -1;     ///< bytes left under maxWorkspaceBytes; -1 = unlimited
    qint64 m_written = 0;
    bool m_committing = false;
    bool m_finished = false;
};

} // namespace runbox::api
