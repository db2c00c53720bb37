#include "agent/workspace/WorkspaceRegistry.h"

#include "shared/Crypto.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>

#include <cerrno>
#include <cstring>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::workspace {

namespace {
std::shared_ptr<const WorkspaceFs> openFs(const QString& dir) {
    Result<WorkspaceFs> fs = WorkspaceFs::open(dir);
    return fs.ok() ? std::make_shared<const WorkspaceFs>(std::move(fs.value())) : nullptr;
}

int removeEntry(const char* path, const struct stat*, int type, struct FTW*) {
    return type == FTW_DP ? ::rmdir(path) : ::unlink(path);
}
} // namespace

QString removeTree(const QString& path) {
    const QByteArray p = QFile::encodeName(path);
    struct stat st {};
    if (::lstat(p.constData(), &st) != 0)
        return errno == ENOENT ? QString() : QString::fromLocal8Bit(strerror(errno));
    // Sandboxed code may have left directories without write or search permission.
    ::nftw(
        p.constData(),
        [](const char* f, const struct stat* s, int type, struct FTW*) {
            if (type == FTW_D || type == FTW_DNR)
                ::chmod(f, (s->st_mode & 07777) | S_IRWXU);
            return 0;
        },
        64, FTW_PHYS);
    if (::nftw(p.constData(), removeEntry, 64, FTW_PHYS | FTW_DEPTH) != 0)
        return QString::fromLocal8Bit(strerror(errno));
    return {};
}

QJsonObject Workspace::toJson() const {
    QJsonObject json{
        {"id", id}, {"isolation", isolation}, {"createdAt", createdAt.toString(Qt::ISODateWithMs)}};
    if (uid)
        json.insert(QStringLiteral("uid"), double(*uid));
    return json;
}

WorkspaceRegistry::WorkspaceRegistry(QString workspacesDir, store::WorkspaceRepository* repository)
    : m_dir(std::move(workspacesDir)), m_repository(repository), m_lightRows(repository) {}

int WorkspaceRegistry::load() {
    QList<store::WorkspaceRecord> rows;
    // Light workspaces do not outlive the agent: the light host removes their homes at start.
    if (!m_repository->listLive(QStringLiteral("light"), &rows))
        for (const store::WorkspaceRecord& row : rows)
            m_repository->markDeleted(row.id, 0);
    rows.clear();
    if (m_repository->listLive(QStringLiteral("strong"), &rows))
        return 0;
    for (const store::WorkspaceRecord& row : rows) {
        Workspace ws;
        ws.id = row.id;
        ws.isolation = row.isolation;
        ws.tokenNonce = row.tokenNonce.toLatin1();
        ws.createdAt = QDateTime::fromMSecsSinceEpoch(row.createdMs, Qt::UTC);
        ws.directory = row.rootPath;
        ws.fs = openFs(ws.directory);
        if (ws.fs)
            m_workspaces.insert(ws.id, ws);
    }
    return int(m_workspaces.size());
}

std::optional<ApiError> WorkspaceRegistry::create(const QString& ownerTokenId, Workspace* out) {
    Workspace ws;
    ws.id = QStringLiteral("w") + QString::fromLatin1(crypto::randomBytes(8).toHex());
    ws.isolation = QStringLiteral("strong");
    ws.tokenNonce = crypto::randomBytes(16).toHex();
    ws.createdAt = QDateTime::currentDateTimeUtc();
    ws.directory = m_dir + '/' + ws.id;
    const QByteArray path = QFile::encodeName(ws.directory);
    if (::mkdir(path.constData(), 0700) != 0)
        return ApiError{500, QStringLiteral("workspace_create_failed"),
                        QStringLiteral("cannot create workspace directory: %1")
                            .arg(QString::fromLocal8Bit(strerror(errno)))};
    ws.fs = openFs(ws.directory);
    store::WorkspaceRecord row;
    row.id = ws.id;
    row.isolation = ws.isolation;
    row.createdMs = ws.createdAt.toMSecsSinceEpoch();
    row.rootPath = ws.directory;
    row.ownerTokenId = ownerTokenId;
    row.tokenNonce = QString::fromLatin1(ws.tokenNonce);
    std::optional<ApiError> err;
    if (!ws.fs)
        err = ApiError{500, QStringLiteral("workspace_create_failed"),
                       QStringLiteral("cannot open the new workspace directory")};
    else
        err = m_repository->insert({row});
    if (err) {
        ::rmdir(path.constData());
        return err;
    }
    m_workspaces.insert(ws.id, ws);
    *out = ws;
    return std::nullopt;
}

std::optional<ApiError> WorkspaceRegistry::addLight(const QList<Workspace>& workspaces,
                                                    const QString& ownerTokenId) {
    for (const Workspace& ws : workspaces) {
        store::WorkspaceRecord row;
        row.id = ws.id;
        row.isolation = QStringLiteral("light");
        row.createdMs = ws.createdAt.toMSecsSinceEpoch();
        row.rootPath = ws.directory;
        row.ownerTokenId = ownerTokenId;
        row.tokenNonce = QString::fromLatin1(ws.tokenNonce);
        if (ws.uid)
            row.uid = int(*ws.uid);
        m_lightRows.created(std::move(row));
        m_workspaces.insert(ws.id, ws);
    }
    return std::nullopt;
}

std::optional<ApiError> WorkspaceRegistry::flushLightRows(const QString& id) {
    return m_lightRows.flushFor(id);
}

std::optional<ApiError> WorkspaceRegistry::forgetLight(const QString& id) {
    const Workspace* ws = find(id);
    if (!ws || !ws->isLight())
        return ApiError{404, QStringLiteral("workspace_not_found"),
                        QStringLiteral("no light workspace %1").arg(id)};
    m_workspaces.remove(id);
    m_lightRows.deleted(id, QDateTime::currentMSecsSinceEpoch());
    return std::nullopt;
}

const Workspace* WorkspaceRegistry::find(const QString& id) const {
    auto it = m_workspaces.constFind(id);
    return it == m_workspaces.constEnd() ? nullptr : &it.value();
}

QList<Workspace> WorkspaceRegistry::list() const {
    return m_workspaces.values();
}

std::optional<ApiError> WorkspaceRegistry::remove(const QString& id) {
    const Workspace* ws = find(id);
    if (!ws)
        return ApiError{404, QStringLiteral("workspace_not_found"),
                        QStringLiteral("no workspace %1").arg(id)};
    if (ws->isLight())
        return ApiError{409, QStringLiteral("workspace_is_light"),
                        QStringLiteral("workspace %1 is a light workspace").arg(id)};
    if (auto err = m_repository->markDeleted(id, 0))
        return err;
    const QString error = removeTree(ws->directory);
    m_workspaces.remove(id);
    if (!error.isEmpty())
        return ApiError{500, QStringLiteral("workspace_delete_failed"), error};
    return std::nullopt;
}

} // namespace runbox::workspace
