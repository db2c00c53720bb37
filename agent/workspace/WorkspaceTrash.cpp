#include "agent/workspace/WorkspaceTrash.h"

#include "agent/workspace/WorkspaceFd.h"
#include "agent/workspace/WorkspaceRemoval.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::workspace {

namespace {

QString errnoText(int err) {
    return QString::fromLocal8Bit(std::strerror(err));
}

} // namespace

WorkspaceTrash::WorkspaceTrash(QString workspacesDir, QObject* parent)
    : QObject(parent), m_dir(std::move(workspacesDir)),
      m_trash(m_dir + QLatin1Char('/') + QLatin1String(kDirName)) {}

WorkspaceTrash::~WorkspaceTrash() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
        m_jobs.clear();
    }
    m_wake.notify_all();
    for (std::thread& t : m_threads)
        t.join();
}

QString WorkspaceTrash::moveIn(const QString& name, QString* trashPath) {
    trashPath->clear();
    const QByteArray trash = QFile::encodeName(m_trash);
    if (::mkdir(trash.constData(), 0700) != 0 && errno != EEXIST)
        return QStringLiteral("cannot make %1: %2").arg(m_trash, errnoText(errno));
    const QByteArray from = QFile::encodeName(m_dir + QLatin1Char('/') + name);
    for (int n = 0; n < 100; ++n) {
        const QString target =
            m_trash + QLatin1Char('/') + name + (n ? QStringLiteral("-%1").arg(n) : QString());
        const QByteArray to = QFile::encodeName(target);
        if (::renameat2(AT_FDCWD, from.constData(), AT_FDCWD, to.constData(), RENAME_NOREPLACE) ==
            0) {
            *trashPath = target;
            return {};
        }
        if (errno == ENOENT)
            return {};
        if (errno == EXDEV) { // another filesystem under the workspaces directory: in place
            *trashPath = QFile::decodeName(from);
            return {};
        }
        if (errno != EEXIST)
            return QStringLiteral("cannot move %1 aside: %2").arg(name, errnoText(errno));
    }
    return QStringLiteral("cannot move %1 aside: too many leftovers of that name").arg(name);
}

bool WorkspaceTrash::moveBack(const QString& trashPath, const QString& name) {
    const QByteArray to = QFile::encodeName(m_dir + QLatin1Char('/') + name);
    const QByteArray from = QFile::encodeName(trashPath);
    return from == to ||
           ::renameat2(AT_FDCWD, from.constData(), AT_FDCWD, to.constData(), RENAME_NOREPLACE) == 0;
}

void WorkspaceTrash::removeLater(const QString& path, Done done) {
    if (path.isEmpty()) {
        if (done)
            done(QString());
        return;
    }
    {
        std::lock_guard lock(m_mutex);
        m_jobs.push_back(Job{path, std::move(done)});
        if (m_threads.size() < size_t(kThreads))
            m_threads.emplace_back([this] { work(); });
    }
    m_wake.notify_one();
}

QStringList WorkspaceTrash::leftovers() const {
    return QDir(m_trash).entryList(
        QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
}

void WorkspaceTrash::resume() {
    for (const QString& name : leftovers()) {
        const QString path = m_trash + QLatin1Char('/') + name;
        removeLater(path, [path](const QString& error) {
            if (!error.isEmpty())
                qWarning("warning: %s (a deleted workspace's directory) could not be removed: %s",
                         qPrintable(path), qPrintable(error));
        });
    }
}

void WorkspaceTrash::work() {
    for (;;) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [this] { return m_stop || !m_jobs.empty(); });
            if (m_stop)
                return;
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
        }
        const QFileInfo info(job.path);
        QString error;
        const UniqueFd parent(
            ::open(QFile::encodeName(info.path()).constData(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        if (parent.get() < 0) {
            if (errno != ENOENT)
                error = errnoText(errno);
        } else {
            const QByteArray name = QFile::encodeName(info.fileName());
            const Status removed =
                WorkspaceRemoval::removeEntry(parent.get(), name, true, name, &m_stop);
            if (!removed.ok() && removed.error().code != QLatin1String("not_found"))
                error = removed.error().message;
        }
        if (m_stop)
            return; // the rest stays in the trash: the next start removes it
        if (job.done)
            QMetaObject::invokeMethod(
                this, [done = std::move(job.done), error] { done(error); }, Qt::QueuedConnection);
    }
}

} // namespace runbox::workspace
