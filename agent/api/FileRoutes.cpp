#include "agent/api/FileRoutes.h"

#include "agent/api/QueryParams.h"

#include "agent/api/ApiService.h"
#include "agent/api/AuthVerifier.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/files/ByteRange.h"
#include "agent/files/FileDownload.h"
#include "agent/files/FileUpload.h"
#include "agent/files/FileWork.h"
#include "agent/files/UploadLimits.h"
#include "agent/store/QuotaStore.h"
#include "agent/workspace/WorkspaceUsage.h"
#include "shared/UploadChunkSigner.h"

#include <QJsonDocument>
#include <QUrlQuery>

#include <cerrno>

namespace runbox::api {

using files::ByteRange;
using files::EntityTag;
using files::FileDownload;
using files::FileUpload;
using files::FileWork;
using files::UploadRequest;

using workspace::WorkspaceFs;
using workspace::WorkspacePath;

namespace {

constexpr int kFileWorkThreads = 4;
/// Usage walks at once across the agent, on a pool of their own: a walk of a large tree takes
/// seconds, and walks on the file pool let four of them (one workspace token each) hold every
/// other tenant's file operations (docs/contracts.md "Workspaces and executions").
constexpr int kUsageWalkThreads = 2;
/// The quota checks of mkdirs and uploads (a usage walk each, before the write): on a pool of
/// their own, so neither the file pool nor the usage route's walks hold them, nor they those.
constexpr int kQuotaWalkThreads = 2;
/// Uploads whose bodies are decoded, hashed and written at the same time (UploadStream jobs;
/// more wait their turn, their clients held back by TCP).
constexpr int kUploadStreamThreads = 4;
const QByteArray kJson = "application/json; charset=utf-8";
using Headers = QList<QPair<QByteArray, QByteArray>>;

ApiError invalidArgument(const QString& message) {
    return ApiError{400, QStringLiteral("invalid_argument"), message};
}

QByteArray jsonBytes(const QJsonObject& o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace

FileRoutes::FileRoutes(AgentContext* context, QObject* parent)
    : QObject(parent), m_context(context) {
    m_pool.setMaxThreadCount(kFileWorkThreads);
    m_streamPool.setMaxThreadCount(kUploadStreamThreads);
    m_usagePool.setMaxThreadCount(kUsageWalkThreads);
    m_quotaPool.setMaxThreadCount(kQuotaWalkThreads);
}

FileRoutes::~FileRoutes() {
    m_streamPool.waitForDone();
    m_usagePool.waitForDone();
    m_quotaPool.waitForDone();
    m_pool.waitForDone();
}

void FileRoutes::registerRoutes(Router& router) {
    const QString files = QStringLiteral("/v1/workspaces/{id}/files/{path...}");
    router.add("GET", files,
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   handleGet(ex, who, p);
               });
    router.addStreaming("PUT", files,
                        [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                            handlePut(ex, who, p);
                        });
    router.add("DELETE", files,
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   handleDelete(ex, who, p);
               });
    router.add("POST", QStringLiteral("/v1/workspaces/{id}/files:move"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   handleMove(ex, who, p);
               });
    router.add("POST", QStringLiteral("/v1/workspaces/{id}/files:mkdir"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   handleMkdir(ex, who, p);
               });
    router.add("GET", QStringLiteral("/v1/workspaces/{id}/usage"),
               [this](http::HttpExchange* ex, const Principal& who, const PathParams& p) {
                   handleUsage(ex, who, p);
               });
}

namespace {

/// The workspace's file view, or null after answering 404 (unknown, or not the caller's).
std::shared_ptr<const WorkspaceFs> workspaceFs(AgentContext* ctx, http::HttpExchange* ex,
                                               const Principal& who, const QString& id) {
    const workspace::Workspace* ws = ctx->workspaces->find(id);
    if (!ws || !who.mayUseWorkspace(id) || !ws->fs) {
        ex->replyError(404, QStringLiteral("workspace_not_found"),
                       QStringLiteral("no workspace %1").arg(id));
        return nullptr;
    }
    return ws->fs;
}

/// The `{path...}` tail, decoded once by the file layer; null after answering its error.
std::optional<WorkspacePath> tailPath(http::HttpExchange* ex, const PathParams& p) {
    auto path = WorkspacePath::fromUrlTail(p.value(QStringLiteral("path")).toLatin1());
    if (!path) {
        ex->replyError(path.error());
        return std::nullopt;
    }
    return path.value();
}

} // namespace

void FileRoutes::handleGet(http::HttpExchange* ex, const Principal& who, const PathParams& p) {
    const http::HttpRequest& req = ex->request();
    if (auto err = QueryParams::checkNames(
            req, {QStringLiteral("offset"), QStringLiteral("limit"), QStringLiteral("stat")}))
        return ex->replyError(*err);
    bool statOnly = false;
    if (auto err = QueryParams::boolean(req, QStringLiteral("stat"), false, &statOnly))
        return ex->replyError(*err);
    bool hasOffset = false, hasLimit = false;
    req.queryValue(QStringLiteral("offset"), &hasOffset);
    req.queryValue(QStringLiteral("limit"), &hasLimit);
    if (statOnly && (hasOffset || hasLimit))
        return ex->replyError(
            invalidArgument(QStringLiteral("stat=true takes neither offset nor limit")));
    auto fs = workspaceFs(m_context, ex, who, p.value(QStringLiteral("id")));
    if (!fs)
        return;
    const std::optional<WorkspacePath> path = tailPath(ex, p);
    if (!path)
        return;
    auto info = fs->stat(*path); // lstat: a link is the link, never its target
    if (!info)
        return ex->replyError(info.error());
    if (statOnly)
        return ex->reply(
            200, jsonBytes(info->toEntryJson(path->toRelative())), kJson,
            {{"X-Runbox-Entry-Type", workspace::FileInfo::typeName(info->type).toLatin1()}});
    if (info->type != workspace::FileType::Directory)
        return sendFile(ex, fs, *path); // openForRead refuses links and special files itself
    qint64 offset = 0, limit = 0;
    if (auto err = QueryParams::wholeNumber(req, QStringLiteral("offset"), &offset))
        return ex->replyError(*err);
    if (auto err = QueryParams::wholeNumber(req, QStringLiteral("limit"), &limit))
        return ex->replyError(*err);
    auto listing = fs->list(*path, offset, limit);
    if (!listing)
        return ex->replyError(listing.error());
    ex->reply(200, jsonBytes(listing->toJson()), kJson, {{"X-Runbox-Entry-Type", "directory"}});
}

void FileRoutes::sendFile(http::HttpExchange* ex, std::shared_ptr<const WorkspaceFs> fs,
                          const WorkspacePath& path) {
    const http::HttpRequest& req = ex->request();
    auto handle = fs->openForRead(path);
    if (!handle)
        return ex->replyError(handle.error());
    const qint64 size = handle->info.size;
    Headers headers{
        {"ETag", handle->etag}, {"Accept-Ranges", "bytes"}, {"X-Runbox-Entry-Type", "file"}};
    // RFC 9110 §13.2.2: If-None-Match is evaluated before Range.
    const QByteArray noneMatch = req.header("if-none-match");
    if (!noneMatch.isEmpty() && EntityTag::noneMatchHits(noneMatch, handle->etag))
        return ex->reply(304, {}, {}, headers);
    ByteRange range;
    range.length = size;
    const QByteArray rangeHeader = req.header("range");
    const QByteArray ifRange = req.header("if-range");
    if (!rangeHeader.isEmpty() &&
        (ifRange.isEmpty() || EntityTag::ifRangeMatches(ifRange, handle->etag)))
        range = ByteRange::parse(rangeHeader, size);
    if (range.kind == ByteRange::Kind::Unsatisfiable) {
        headers.append({"Content-Range", range.contentRange(size)});
        const ApiError err{416, QStringLiteral("range_not_satisfiable"),
                           QStringLiteral("the range is outside the file's %1 bytes").arg(size)};
        return ex->reply(416, err.toJsonBody() + '\n', kJson, headers);
    }
    int status = 200;
    if (range.kind == ByteRange::Kind::Partial) {
        status = 206;
        headers.append({"Content-Range", range.contentRange(size)});
    }
    ex->beginFixed(status, "application/octet-stream", range.length, headers);
    if (req.method == "HEAD" || range.length == 0)
        return ex->endFixed();
    auto* download =
        new FileDownload(ex, std::move(fs), std::move(handle.value()), range.first, range.length);
    download->start();
}

void FileRoutes::handlePut(http::HttpExchange* ex, const Principal& who, const PathParams& p) {
    const http::HttpRequest& req = ex->request();
    if (auto err = QueryParams::checkNames(
            req, {QStringLiteral("conflict"), QStringLiteral("mode"), QStringLiteral("parents")}))
        return ex->replyError(*err);
    UploadRequest up;
    up.workspaceId = p.value(QStringLiteral("id"));
    up.fs = workspaceFs(m_context, ex, who, up.workspaceId);
    if (!up.fs)
        return;
    const std::optional<WorkspacePath> path = tailPath(ex, p);
    if (!path)
        return;
    up.path = *path;
    bool present = false;
    const QString conflict = req.queryValue(QStringLiteral("conflict"), &present);
    if (!present || conflict == QLatin1String("reject"))
        up.options.conflict = workspace::ConflictPolicy::Reject;
    else if (conflict == QLatin1String("overwrite"))
        up.options.conflict = workspace::ConflictPolicy::Overwrite;
    else
        return ex->replyError(
            invalidArgument(QStringLiteral("conflict must be reject or overwrite")));
    const QString mode = req.queryValue(QStringLiteral("mode"), &present);
    if (present) {
        up.options.mode = workspace::UploadOptions::parseMode(mode);
        if (!up.options.mode)
            return ex->replyError(
                400, QStringLiteral("invalid_mode"),
                QStringLiteral("mode must be 1 to 4 octal digits within 0..0777"));
    }
    if (auto err =
            QueryParams::boolean(req, QStringLiteral("parents"), false, &up.options.createParents))
        return ex->replyError(*err);
    // Both shapes were checked by ApiService before it verified the signature over them.
    const QByteArray declared = req.header("x-runbox-content-sha256");
    if (declared == upload_chunks::kScheme) {
        up.chunkSigning = UploadRequest::ChunkSigning{AuthVerifier::bearerToken(req),
                                                      req.header("x-runbox-signature")};
        up.decodedLength = req.header("x-runbox-decoded-length").toLongLong();
    } else {
        up.declaredSha256 = declared.toLower();
    }
    const QByteArray length = req.header("content-length");
    up.contentLength = length.isEmpty() ? -1 : length.toLongLong();
    up.quotas = m_context->quotas->current();
    auto* upload =
        new FileUpload(ex, m_context->manager, &m_pool, &m_quotaPool, &m_streamPool, std::move(up));
    upload->start();
}

void FileRoutes::handleDelete(http::HttpExchange* ex, const Principal& who, const PathParams& p) {
    if (auto err = QueryParams::checkNames(ex->request(), {QStringLiteral("recursive")}))
        return ex->replyError(*err);
    const QString id = p.value(QStringLiteral("id"));
    auto fs = workspaceFs(m_context, ex, who, id);
    if (!fs)
        return;
    const std::optional<WorkspacePath> path = tailPath(ex, p);
    if (!path)
        return;
    bool recursive = false;
    if (auto err =
            QueryParams::boolean(ex->request(), QStringLiteral("recursive"), false, &recursive))
        return ex->replyError(*err);
    auto result = std::make_shared<workspace::Status>();
    FileWork::runLeased(
        m_context->manager, id, &m_pool, ex,
        [fs, path = *path, recursive, result] { *result = fs->remove(path, recursive); },
        [ex, result, rel = path->toRelative()] {
            if (!result->ok())
                return ex->replyError(result->error());
            ex->replyJson(200, {{"deleted", QString::fromUtf8(rel)}});
        });
}

void FileRoutes::handleMove(http::HttpExchange* ex, const Principal& who, const PathParams& p) {
    if (auto err = QueryParams::checkNames(ex->request(), {}))
        return ex->replyError(*err);
    const QString id = p.value(QStringLiteral("id"));
    auto fs = workspaceFs(m_context, ex, who, id);
    if (!fs)
        return;
    QJsonObject body;
    if (auto err = parseJsonObject(ex->request().body, &body))
        return ex->replyError(*err);
    static const QStringList known{QStringLiteral("from"), QStringLiteral("to"),
                                   QStringLiteral("overwrite"), QStringLiteral("parents")};
    for (auto it = body.begin(); it != body.end(); ++it)
        if (!known.contains(it.key()))
            return ex->replyError(invalidArgument(
                QStringLiteral("unknown field \"%1\" (allowed: from, to, overwrite, parents)")
                    .arg(it.key())));
    const QJsonValue fromValue = body.value(QLatin1String("from"));
    const QJsonValue toValue = body.value(QLatin1String("to"));
    if (!fromValue.isString() || !toValue.isString())
        return ex->replyError(invalidArgument(QStringLiteral("from and to must be strings")));
    for (const char* flag : {"overwrite", "parents"}) {
        const QJsonValue v = body.value(QLatin1String(flag));
        if (!v.isUndefined() && !v.isBool())
            return ex->replyError(
                invalidArgument(QStringLiteral("%1 must be a boolean").arg(QLatin1String(flag))));
    }
    auto from = WorkspacePath::fromPlain(fromValue.toString().toUtf8());
    if (!from)
        return ex->replyError(from.error());
    auto to = WorkspacePath::fromPlain(toValue.toString().toUtf8());
    if (!to)
        return ex->replyError(to.error());
    const bool overwrite = body.value(QLatin1String("overwrite")).toBool(false);
    const bool parents = body.value(QLatin1String("parents")).toBool(false);
    auto result = std::make_shared<workspace::Status>();
    FileWork::runLeased(
        m_context->manager, id, &m_pool, ex,
        [fs, from = from.value(), to = to.value(), overwrite, parents, result] {
            *result = fs->move(from, to, overwrite, parents);
        },
        [ex, result, fromRel = from->toRelative(), toRel = to->toRelative()] {
            if (!result->ok())
                return ex->replyError(result->error());
            ex->replyJson(200,
                          {{"from", QString::fromUtf8(fromRel)}, {"to", QString::fromUtf8(toRel)}});
        });
}

namespace {

/// What `files:mkdir` did: the new or existing directory's entry, or the error.
struct MkdirOutcome {
    std::optional<Error> error;
    bool created = false;
    workspace::FileInfo info;
};

/// The workspace's quota before a write into it, on the quota pool: refused (413
/// workspace_quota_exceeded, as uploads) while it uses at least @p maxWorkspaceBytes.
std::optional<Error> quotaRefusal(const WorkspaceFs& fs, const QByteArray& rel,
                                  qint64 maxWorkspaceBytes) {
    workspace::WorkspaceUsage::Options opts;
    opts.budgetBytes = maxWorkspaceBytes;
    auto usage = workspace::WorkspaceUsage::measure(fs.rootFd(), opts);
    if (!usage)
        return usage.error();
    if (usage->over || usage->allocatedBytes >= maxWorkspaceBytes)
        return files::UploadLimits::quotaExceeded(rel, maxWorkspaceBytes);
    return std::nullopt;
}

/// The mkdir itself, on the file pool under the lease (after quotaRefusal): an existing entry
/// is 409 file_exists unless @p parents and it is a directory (then nothing is made).
MkdirOutcome makeDirectory(const WorkspaceFs& fs, const WorkspacePath& path, bool parents) {
    MkdirOutcome out;
    const QByteArray rel = path.toRelative();
    auto before = fs.stat(path);
    if (before) {
        if (!parents || before->type != workspace::FileType::Directory) {
            out.error = workspace::errnoError(EEXIST, QString(), rel);
            return out;
        }
    } else if (before.error().kind != ErrorKind::NotFound) {
        out.error = before.error(); // a link or a file on the way
        return out;
    } else if (auto made = fs.makeDirectory(path, parents); !made.ok()) {
        out.error = made.error();
        return out;
    } else {
        out.created = true;
    }
    auto after = fs.stat(path);
    if (!after)
        out.error = after.error();
    else
        out.info = after.value();
    return out;
}

} // namespace

void FileRoutes::handleMkdir(http::HttpExchange* ex, const Principal& who, const PathParams& p) {
    if (auto err = QueryParams::checkNames(ex->request(), {}))
        return ex->replyError(*err);
    const QString id = p.value(QStringLiteral("id"));
    auto fs = workspaceFs(m_context, ex, who, id);
    if (!fs)
        return;
    QJsonObject body;
    if (auto err = parseJsonObject(ex->request().body, &body))
        return ex->replyError(*err);
    for (auto it = body.begin(); it != body.end(); ++it)
        if (it.key() != QLatin1String("path") && it.key() != QLatin1String("parents"))
            return ex->replyError(invalidArgument(
                QStringLiteral("unknown field \"%1\" (allowed: path, parents)").arg(it.key())));
    const QJsonValue pathValue = body.value(QLatin1String("path"));
    if (!pathValue.isString())
        return ex->replyError(invalidArgument(QStringLiteral("path must be a string")));
    const QJsonValue parentsValue = body.value(QLatin1String("parents"));
    if (!parentsValue.isUndefined() && !parentsValue.isBool())
        return ex->replyError(invalidArgument(QStringLiteral("parents must be a boolean")));
    auto path = WorkspacePath::fromPlain(pathValue.toString().toUtf8());
    if (!path)
        return ex->replyError(path.error());
    const bool parents = parentsValue.toBool(false);
    const qint64 maxWorkspaceBytes = m_context->quotas->current().maxWorkspaceBytes;
    auto result = std::make_shared<MkdirOutcome>();
    // The quota's walk on the quota pool, the mkdir on the file pool, both under the lease.
    std::function<bool()> quotaCheck;
    if (maxWorkspaceBytes > 0)
        quotaCheck = [fs, rel = path->toRelative(), maxWorkspaceBytes, result] {
            result->error = quotaRefusal(*fs, rel, maxWorkspaceBytes);
            return !result->error;
        };
    FileWork::runAfterWalk(
        m_context->manager, id, true, &m_quotaPool, std::move(quotaCheck), &m_pool, ex,
        [fs, path = path.value(), parents, result] { *result = makeDirectory(*fs, path, parents); },
        [ex, result, rel = path->toRelative()] {
            if (result->error)
                return ex->replyError(*result->error);
            ex->reply(result->created ? 201 : 200, jsonBytes(result->info.toEntryJson(rel)), kJson);
        });
}

void FileRoutes::handleUsage(http::HttpExchange* ex, const Principal& who, const PathParams& p) {
    if (auto err = QueryParams::checkNames(ex->request(), {}))
        return ex->replyError(*err);
    const QString id = p.value(QStringLiteral("id"));
    auto fs = workspaceFs(m_context, ex, who, id);
    if (!fs)
        return;
    // One walk per workspace at a time: requests meanwhile get its figure, so a client asking in
    // a loop holds at most one file-pool thread.
    auto waiting = m_usageWaiters.find(id);
    if (waiting != m_usageWaiters.end())
        return waiting->append(QPointer<http::HttpExchange>(ex));
    m_usageWaiters.insert(id, {QPointer<http::HttpExchange>(ex)});
    const qint64 maxWorkspaceBytes = m_context->quotas->current().maxWorkspaceBytes;
    auto usage =
        std::make_shared<workspace::Result<workspace::UsageReport>>(workspace::UsageReport{});
    // A walk, not a lease: it reads while executions may write (a moment's figure). On the usage
    // pool: walks beyond its threads wait in its queue, holding no file-pool thread.
    FileWork::run(
        &m_usagePool, this,
        [fs, usage] {
            workspace::WorkspaceUsage::Options options;
            options.maxEntries = kUsageMaxEntries;
            *usage = workspace::WorkspaceUsage::measure(fs->rootFd(), options);
        },
        [this, id, usage, maxWorkspaceBytes] {
            const QJsonObject answer =
                *usage ? QJsonObject{{"allocatedBytes", double(usage->value().allocatedBytes)},
                                     {"apparentBytes", double(usage->value().apparentBytes)},
                                     {"entries", double(usage->value().entries)},
                                     {"complete", usage->value().complete},
                                     {"maxWorkspaceBytes", double(maxWorkspaceBytes)}}
                       : QJsonObject();
            for (const QPointer<http::HttpExchange>& waiter : m_usageWaiters.take(id)) {
                if (!waiter)
                    continue;
                if (!*usage)
                    waiter->replyError(usage->error());
                else
                    waiter->replyJson(200, answer);
            }
        });
}

} // namespace runbox::api
