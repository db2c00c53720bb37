#include "agent/workspace/WorkspaceRegistry.h"

#include "agent/workspace/WorkspaceRemoval.h"
#include "agent/workspace/WorkspaceTreeWalker.h"
#include "shared/Crypto.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::workspace {

namespace {

/// The row that keeps @p ws across restarts (store::WorkspaceRepository).
store::WorkspaceRecord recordOf(const Workspace& ws, const QString& ownerTokenId) {
    store::WorkspaceRecord row;
    row.id = ws.id;
    row.isolation = ws.isolation;
    row.createdMs = ws.createdAt.toMSecsSinceEpoch();
    row.rootPath = ws.directory;
    row.ownerTokenId = ownerTokenId;
    row.tokenNonce = QString::fromLatin1(ws.tokenNonce);
    if (ws.uid)
        row.uid = int(*ws.uid);
    return row;
}
/// The file layer on @p dir; what it creates is owned by @p uid when given.
std::shared_ptr<const WorkspaceFs> openFs(const QString& dir, std::optional<uid_t> uid) {
    Result<WorkspaceFs> fs = WorkspaceFs::open(dir);
    if (!fs.ok())
        return nullptr;
    if (uid)
        fs.value().setOwner(WorkspaceOwner{*uid, *uid});
    return std::make_shared<const WorkspaceFs>(std::move(fs.value()));
}

/// Chowns the directory @p dirFd and everything under it to @p uid, through descriptors
/// (WorkspaceTreeWalker: bounded descriptors, no symbolic link followed; a link itself is
/// chowned with AT_SYMLINK_NOFOLLOW). False when part of it lies deeper than the walk enters.
bool chownTree(int dirFd, uid_t uid) {
    bool ok = ::fchown(dirFd, uid, uid) == 0;
    const Status walked = WorkspaceTreeWalker::walk(
        dirFd, WorkspaceTreeWalker::Options{}, [&](const WorkspaceTreeWalker::Entry& e) {
            ok = ::fchownat(e.parentFd, e.name, uid, uid, AT_SYMLINK_NOFOLLOW) == 0 && ok &&
                 !e.beyondDepthLimit;
            return WorkspaceTreeWalker::Action::Continue;
        });
    return walked.ok() && ok;
}
} // namespace

QString removeTree(const QString& path) {
    const QFileInfo info(path);
    const UniqueFd parent(
        ::open(QFile::encodeName(info.path()).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (parent.get() < 0)
        return errno == ENOENT ? QString() : QString::fromLocal8Bit(strerror(errno));
    // Descriptor by descriptor (any depth; modes sandboxed code set are overridden).
    const QByteArray name = QFile::encodeName(info.fileName());
    const Status removed = WorkspaceRemoval::removeEntry(parent.get(), name, true, name);
    if (!removed.ok() && removed.error().code != QLatin1String("not_found"))
        return removed.error().message;
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
    : m_dir(std::move(workspacesDir)), m_repository(repository), m_lightRows(repository),
      m_trash(m_dir) {}

void WorkspaceRegistry::setSandboxUids(sandbox::UidRange range, std::function<bool(uid_t)> sweep) {
    m_uids = range;
    m_sweep = std::move(sweep);
}

std::optional<uid_t> WorkspaceRegistry::takeUid() {
    if (!m_uids)
        return std::nullopt;
    for (quint64 id = m_uids->first + 1; id < m_uids->end(); ++id)
        if (!m_heldUids.contains(uid_t(id))) {
            m_heldUids.insert(uid_t(id));
            return uid_t(id);
        }
    return std::nullopt;
}

int WorkspaceRegistry::load() {
    QList<store::WorkspaceRecord> rows;
    // Light workspaces do not outlive the agent: the light host removes their homes at start.
    if (!m_repository->listLive(QStringLiteral("light"), &rows))
        for (const store::WorkspaceRecord& row : rows)
            m_repository->markDeleted(row.id, 0);
    rows.clear();
    if (m_repository->listLive(QStringLiteral("strong"), &rows))
        return 0;
    // Directories in the trash were being deleted when the agent stopped: their rows, if the
    // stop came before they were marked, are marked now, and the removals resume.
    const QStringList leftovers = m_trash.leftovers();
    for (auto it = rows.begin(); it != rows.end();) {
        if (leftovers.contains(it->id)) {
            m_repository->markDeleted(it->id, 0);
            it = rows.erase(it);
        } else {
            ++it;
        }
    }
    m_trash.resume();
    // Two passes: the uids already held are known before any workspace is given a new one.
    QList<Workspace> loaded;
    for (const store::WorkspaceRecord& row : rows) {
        Workspace ws;
        ws.id = row.id;
        ws.isolation = row.isolation;
        ws.tokenNonce = row.tokenNonce.toLatin1();
        ws.createdAt = QDateTime::fromMSecsSinceEpoch(row.createdMs, Qt::UTC);
        // Always <workspaces dir>/<id>: the recorded root_path names where the state directory
        // was when the workspace was made, and a state directory moved or restored elsewhere
        // (a backup, a hand-run agent's state moved to the service's) keeps its workspaces.
        ws.directory = m_dir + '/' + ws.id;
        if (m_uids && row.uid && m_uids->contains(quint64(*row.uid)) && *row.uid > 0 &&
            quint64(*row.uid) != m_uids->first && !m_heldUids.contains(uid_t(*row.uid))) {
            ws.uid = uid_t(*row.uid);
            m_heldUids.insert(*ws.uid);
        }
        loaded.append(ws);
    }
    // Workspaces of a rootless or older agent get their uid now, their tree chowned once.
    for (Workspace& ws : loaded) {
        if (m_uids && !ws.uid) {
            ws.uid = takeUid();
            const UniqueFd fd(::open(QFile::encodeName(ws.directory).constData(),
                                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!ws.uid || fd.get() < 0 || !chownTree(fd.get(), *ws.uid) ||
                m_repository->setUid(ws.id, int(*ws.uid))) {
                qWarning("workspace %s could not be given a sandbox uid: it stays unavailable",
                         qPrintable(ws.id));
                continue;
            }
        }
        ws.fs = openFs(ws.directory, ws.uid);
        if (!ws.fs) {
            qWarning("workspace %s is unavailable: its directory %s cannot be opened",
                     qPrintable(ws.id), qPrintable(ws.directory));
            continue;
        }
        if (ws.uid && m_quotaHooks.attach)
            if (auto err = m_quotaHooks.attach(ws))
                qWarning("warning: workspace %s has no disk quota, its executions are refused: %s",
                         qPrintable(ws.id), qPrintable(err->message));
        m_workspaces.insert(ws.id, ws);
    }
    return int(m_workspaces.size());
}

std::optional<Error> WorkspaceRegistry::create(const QString& ownerTokenId, Workspace* out) {
    Workspace ws;
    ws.id = QStringLiteral("w") + QString::fromLatin1(crypto::randomBytes(8).toHex());
    ws.isolation = QStringLiteral("strong");
    ws.tokenNonce = crypto::randomBytes(16).toHex();
    ws.createdAt = QDateTime::currentDateTimeUtc();
    ws.directory = m_dir + '/' + ws.id;
    if (m_uids) {
        ws.uid = takeUid();
        if (!ws.uid)
            return Error{ErrorKind::Unavailable, QStringLiteral("workspace_uids_exhausted"),
                         QStringLiteral("every sandbox uid of %1 is held by a workspace: "
                                        "delete workspaces or widen RUNBOX_STRONG_UID_COUNT")
                             .arg(m_uids->toString())};
    }
    const QByteArray path = QFile::encodeName(ws.directory);
    const auto giveBack = [&] {
        if (ws.uid)
            m_heldUids.remove(*ws.uid);
    };
    if (::mkdir(path.constData(), 0700) != 0 ||
        (ws.uid && ::lchown(path.constData(), *ws.uid, *ws.uid) != 0)) {
        const QString reason = QString::fromLocal8Bit(strerror(errno));
        ::rmdir(path.constData());
        giveBack();
        return Error{ErrorKind::Internal, QStringLiteral("workspace_create_failed"),
                     QStringLiteral("cannot create workspace directory: %1").arg(reason)};
    }
    ws.fs = openFs(ws.directory, ws.uid);
    const store::WorkspaceRecord row = recordOf(ws, ownerTokenId);
    std::optional<Error> err;
    if (!ws.fs)
        err = Error{ErrorKind::Internal, QStringLiteral("workspace_create_failed"),
                    QStringLiteral("cannot open the new workspace directory")};
    else if (ws.uid && m_quotaHooks.attach)
        err = m_quotaHooks.attach(ws);
    if (!err)
        err = m_repository->insert({row});
    if (err) {
        if (ws.uid && m_quotaHooks.detach)
            m_quotaHooks.detach(ws);
        ::rmdir(path.constData());
        giveBack();
        return err;
    }
    m_workspaces.insert(ws.id, ws);
    *out = ws;
    return std::nullopt;
}

std::optional<Error> WorkspaceRegistry::addLight(const QList<Workspace>& workspaces,
                                                 const QString& ownerTokenId) {
    for (const Workspace& ws : workspaces) {
        store::WorkspaceRecord row = recordOf(ws, ownerTokenId);
        row.isolation = QStringLiteral("light");
        m_lightRows.created(std::move(row));
        m_workspaces.insert(ws.id, ws);
        m_lightIds.insert(ws.id);
    }
    return std::nullopt;
}

std::optional<Error> WorkspaceRegistry::flushLightRows(const QString& id) {
    return m_lightRows.flushFor(id);
}

QStringList WorkspaceRegistry::lightIds() const {
    QStringList ids(m_lightIds.cbegin(), m_lightIds.cend());
    ids.sort();
    return ids;
}

std::optional<Error> WorkspaceRegistry::forgetLight(const QString& id) {
    if (!m_lightIds.remove(id))
        return Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
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

std::optional<Error> WorkspaceRegistry::remove(const QString& id, RemoveDone done) {
    const Workspace* found = find(id);
    if (!found)
        return Error{ErrorKind::NotFound, QStringLiteral("workspace_not_found"),
                     QStringLiteral("no workspace %1").arg(id)};
    if (m_lightIds.contains(id))
        return Error{ErrorKind::Conflict, QStringLiteral("workspace_is_light"),
                     QStringLiteral("workspace %1 is a light workspace").arg(id)};
    // Moved aside before the row is marked: an agent stopped in between finds the directory in
    // the trash at its next start and marks the row then (load()).
    QString trashPath;
    if (const QString error = m_trash.moveIn(id, &trashPath); !error.isEmpty())
        return Error{ErrorKind::Internal, QStringLiteral("workspace_delete_failed"), error};
    if (auto err = m_repository->markDeleted(id, 0)) {
        if (!m_trash.moveBack(trashPath, id))
            qWarning("warning: workspace %s stays unavailable: its directory could not be moved "
                     "back from %s",
                     qPrintable(id), qPrintable(trashPath));
        return *err;
    }
    const Workspace ws = *found;
    m_workspaces.remove(id);
    m_trash.removeLater(trashPath, [this, ws, done = std::move(done)](const QString& error) {
        if (ws.uid && m_quotaHooks.detach)
            m_quotaHooks.detach(ws);
        // The uid is free again only once nothing of the workspace is left (no file, no
        // process).
        if (ws.uid && error.isEmpty() && m_sweep && m_sweep(*ws.uid))
            m_heldUids.remove(*ws.uid);
        if (!done)
            return;
        if (!error.isEmpty())
            return done(
                Error{ErrorKind::Internal, QStringLiteral("workspace_delete_failed"), error});
        done(std::nullopt);
    });
    return std::nullopt;
}

} // namespace runbox::workspace
