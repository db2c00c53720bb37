#include "agent/files/FileWork.h"

#include "agent/execution/ExecutionManager.h"
#include "shared/Crypto.h"

#include <QCoreApplication>
#include <QPointer>
#include <QThreadPool>

namespace runbox::files {

namespace {
/// Posts @p fn to the event-loop thread (the application object outlives every request).
void postToMain(std::function<void()> fn) {
    QMetaObject::invokeMethod(QCoreApplication::instance(), std::move(fn), Qt::QueuedConnection);
}
} // namespace

void FileWork::run(QThreadPool* pool, QObject* owner, std::function<void()> work,
                   std::function<void()> done) {
    QPointer<QObject> guard(owner);
    pool->start([guard, work = std::move(work), done = std::move(done)]() mutable {
        work();
        postToMain([guard, done = std::move(done)] {
            if (guard)
                done();
        });
    });
}

void FileWork::runLeased(execution::ExecutionManager* manager, const QString& workspaceId,
                         QThreadPool* pool, QObject* owner, std::function<void()> work,
                         std::function<void()> done) {
    const QString jobId =
        QStringLiteral("file-") + QString::fromLatin1(crypto::randomBytes(8).toHex());
    QPointer<QObject> guard(owner);
    QPointer<execution::ExecutionManager> managerGuard(manager);
    // Dropped from the queue when the owner goes away first (a client that left).
    const QMetaObject::Connection dropOnDestroy =
        QObject::connect(owner, &QObject::destroyed, manager, [manager, jobId] {
            if (manager->queuePosition(jobId) > 0)
                manager->releaseSync(jobId);
        });
    manager->scheduleFileWrite(
        jobId, workspaceId, [=, work = std::move(work), done = std::move(done)]() mutable {
            QObject::disconnect(dropOnDestroy);
            if (!guard) { // admitted after its owner left
                manager->releaseSync(jobId);
                return;
            }
            pool->start([=, work = std::move(work), done = std::move(done)]() mutable {
                work();
                postToMain([=, done = std::move(done)] {
                    if (managerGuard)
                        managerGuard->releaseSync(jobId);
                    if (guard)
                        done();
                });
            });
        });
}

} // namespace runbox::files
