#pragma once

#include "agent/AgentContext.h"
#include "agent/api/Router.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QThreadPool>

namespace runbox::api {

/// The workspace file API (docs/contracts.md "Workspace file API"), over
/// workspace::WorkspaceFs — the only way it touches files: every path is decoded once by
/// WorkspacePath::fromUrlTail (the raw `{path...}` tail of the URL; never decoded elsewhere) or
/// WorkspacePath::fromPlain (JSON bodies) and resolved by the kernel beneath the workspace's
/// directory descriptor, never following a symlink. Errors are the file layer's runbox::Error
/// answered with their kind's status (replyError); the routes' own checks of query parameters
/// and the 416 of a Range header are ApiError (HTTP by nature). A workspace token reaches only its
/// own workspace (others: 404 workspace_not_found).
///
/// - `GET|HEAD /v1/workspaces/{id}/files/{path...}` — a regular file: its raw bytes
///   (`application/octet-stream`, `ETag`, `Accept-Ranges: bytes`), streamed by FileDownload;
///   `If-None-Match` matching → 304; one `Range` (RFC 9110 §14, see ByteRange; `If-Range` with
///   the strong ETag) → 206 + `Content-Range`, unsatisfiable → 416 `range_not_satisfiable` with
///   `Content-Range: bytes */SIZE`. A directory (the root: an empty path): the Listing JSON
///   (`?offset=N&limit=N`, WorkspaceFs::list). `X-Runbox-Entry-Type: file|directory` says which.
/// - `PUT …/files/{path...}?conflict=reject|overwrite&mode=755&parents=true` — a streamed body
///   (Content-Length or chunked) with `X-Runbox-Content-SHA256`; see FileUpload.
///   201 created / 200 replaced, `{FileInfo…, "path"}`.
/// - `DELETE …/files/{path...}?recursive=true` — under the workspace lease → 200
///   `{"deleted": path}`.
/// - `POST /v1/workspaces/{id}/files:move` `{"from": str, "to": str, "overwrite"?: bool,
///   "parents"?: bool}` — renameat2, a symlink moves as a link; under the lease → 200
///   `{"from", "to"}`.
/// - `GET …/files/{path...}?stat=true` — one JSON entry of @p path itself by lstat (a link is
///   reported, never followed): FileInfo::toEntryJson, `{"path", "name", "type":
///   "file"|"directory"|"symlink"|"other", "size", "allocatedBytes", "mode", "mtime", "mtimeMs",
///   "linkTarget" (links only)}`; with offset/limit 400 invalid_argument.
/// - `POST /v1/workspaces/{id}/files:mkdir` `{"path": str, "parents"?: bool}` — under the lease,
///   mode 0755 (owner: the file layer's), through WorkspaceFs::makeDirectory → 201 with the
///   entry; with `parents` an existing directory is 200 with its entry. 409 file_exists (an
///   entry is there: without parents any, with parents one that is not a directory), 404
///   not_found (a parent is missing, without parents), 400 symlink_not_followed /
///   not_a_directory (on the way), 413 workspace_quota_exceeded (the workspace already uses its
///   maxWorkspaceBytes).
/// Unknown query parameters and body fields are 400 `invalid_argument`. Blocking work (commits
/// with fsync, recursive deletes, moves) runs on a small pool of its own, usage walks on
/// another, the quota checks of mkdirs and uploads (a walk each) on a third.
class FileRoutes final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FileRoutes)
public:
    explicit FileRoutes(AgentContext* context, QObject* parent = nullptr);
    ~FileRoutes() override;
    void registerRoutes(Router& router);

private:
    void handleGet(http::HttpExchange* ex, const Principal& who, const PathParams& params);
    void handlePut(http::HttpExchange* ex, const Principal& who, const PathParams& params);
    void handleDelete(http::HttpExchange* ex, const Principal& who, const PathParams& params);
    void handleMove(http::HttpExchange* ex, const Principal& who, const PathParams& params);
    void handleMkdir(http::HttpExchange* ex, const Principal& who, const PathParams& params);
    /// `GET /v1/workspaces/{id}/usage`: the workspace's disk usage as the quota counts it
    /// (workspace::WorkspaceUsage), walked on the usage pool (at most two walks at once
    /// across the agent, the others queued; never on the file pool), at most kUsageMaxEntries
    /// entries (then `complete` false) → `{"allocatedBytes","apparentBytes","entries","complete",
    /// "maxWorkspaceBytes"}` (0 = no quota). Requests that come while a walk of the same
    /// workspace runs get its figure (one walk per workspace at a time).
    void handleUsage(http::HttpExchange* ex, const Principal& who, const PathParams& params);
    static constexpr qint64 kUsageMaxEntries = 1000000;
    void sendFile(http::HttpExchange* ex, std::shared_ptr<const workspace::WorkspaceFs> fs,
                  const workspace::WorkspacePath& path);

    AgentContext* m_context;
    QThreadPool m_pool;       ///< commits, deletes, moves, mkdirs
    QThreadPool m_usagePool;  ///< usage walks (handleUsage), apart from file operations
    QThreadPool m_quotaPool;  ///< quota walks before mkdirs and uploads (FileWork::runAfterWalk)
    QThreadPool m_streamPool; ///< upload bodies (UploadStream)
    /// Usage requests by workspace id while its one walk runs (handleUsage).
    QHash<QString, QList<QPointer<http::HttpExchange>>> m_usageWaiters;
};

} // namespace runbox::api
