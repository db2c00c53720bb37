#include "agent/workspace/WorkspaceRegistry.h"

#include "agent/config/StateDir.h"
#include "shared/Crypto.h"

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
    return {
        {"id", id}, {"isolation", isolation}, {"createdAt", createdAt.toString(Qt::ISODateWithMs)}};
}

WorkspaceRegistry::WorkspaceRegistry(QString workspacesDir) : m_dir(std::move(workspacesDir)) {}

int WorkspaceRegistry::load() {
    static const QRegularExpression idPattern(QStringLiteral("^w[0-9a-f]{16}$"));
    const QDir dir(m_dir);
    for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files)) {
        QFile f(dir.filePath(name));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        Workspace ws;
        ws.id = o.value(QLatin1String("id")).toString();
        if (!idPattern.match(ws.id).hasMatch() || name != ws.id + QLatin1String(".json"))
            continue;
        ws.isolation = o.value(QLatin1String("isolation")).toString();
        ws.tokenNonce = o.value(QLatin1String("tokenNonce")).toString().toLatin1();
        ws.createdAt = QDateTime::fromString(o.value(QLatin1String("createdAt")).toString(),
                                             Qt::ISODateWithMs);
        ws.directory = dir.filePath(ws.id);
        ws.fs = openFs(ws.directory);
        if (ws.fs && ws.tokenNonce.size() == 32)
            m_workspaces.insert(ws.id, ws);
    }
    return int(m_workspaces.size());
}

std::optional<ApiError> WorkspaceRegistry::create(Workspace* out) {
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
    const QJsonObject meta{{"id", ws.id},
                           {"isolation", ws.isolation},
                           {"tokenNonce", QString::fromLatin1(ws.tokenNonce)},
                           {"createdAt", ws.createdAt.toString(Qt::ISODateWithMs)}};
    QString error;
    if (!config::writeFileAtomically(m_dir + '/' + ws.id + QStringLiteral(".json"),
                                     QJsonDocument(meta).toJson(QJsonDocument::Compact), 0600,
                                     &error)) {
        ::rmdir(path.constData());
        return ApiError{500, QStringLiteral("workspace_create_failed"), error};
    }
    ws.fs = openFs(ws.directory);
    if (!ws.fs)
        return ApiError{500, QStringLiteral("workspace_create_failed"),
                        QStringLiteral("cannot open the new workspace directory")};
    m_workspaces.insert(ws.id, ws);
    *out = ws;
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
    QFile::remove(m_dir + '/' + id + QStringLiteral(".json"));
    const QString error = removeTree(ws->directory);
    m_workspaces.remove(id);
    if (!error.isEmpty())
        return ApiError{500, QStringLiteral("workspace_delete_failed"), error};
    return std::nullopt;
}

} // namespace runbox::workspace
