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

namespace {

/// Waits for @p workspaceId's lease, then calls @p begin on the event loop with the function
/// that ends the job (call it from any thread, once): it releases the lease and calls @p done on
/// the event loop if @p owner still exists. Dropped, @p begin never called, when @p owner goes
/// away while the job waits for the lease.
void withLease(execution::ExecutionManager* manager, const QString& workspaceId, QObject* owner,
               std::function<void(std::function<void()> end)> begin, std::function<void()> done) {
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
    manager->scheduleFileWrite(jobId, workspaceId,
                               [=, begin = std::move(begin), done = std::move(done)]() mutable {
                                   QObject::disconnect(dropOnDestroy);
                                   if (!guard) { // admitted after its owner left
                                       manager->releaseSync(jobId);
                                       return;
                                   }
                                   begin([=, done = std::move(done)]() mutable {
                                       postToMain([=, done = std::move(done)] {
                                           if (managerGuard)
                                               managerGuard->releaseSync(jobId);
                                           if (guard)
                                               done();
                                       });
                                   });
                               });
}

} // namespace

void FileWork::runLeased(execution::ExecutionManager* manager, const QString& workspaceId,
                         QThreadPool* pool, QObject* owner, std::function<void()> work,
                         std::function<void()> done) {
    withLease(
        manager, workspaceId, owner,
        [pool, work = std::move(work)](std::function<void()> end) mutable {
            pool->start([work = std::move(work), end = std::move(end)] {
                work();
                end();
            });
        },
        std::move(done));
}

void FileWork::runAfterWalk(execution::ExecutionManager* manager, const QString& workspaceId,
                            bool leased, QThreadPool* walkPool, std::function<bool()> walk,
                            QThreadPool* pool, QObject* owner, std::function<void()> work,
                            std::function<void()> done) {
    if (!walk) {
        if (leased)
            return runLeased(manager, workspaceId, pool, owner, std::move(work), std::move(done));
        return run(pool, owner, std::move(work), std::move(done));
    }
    // The walk on its pool, then the work handed over to the file pool (the walk's thread is
    // free again at once); a walk that answered "no" skips the work.
    auto chain = [walkPool, pool, walk = std::move(walk),
                  work = std::move(work)](std::function<void()> end) mutable {
        walkPool->start(
            [pool, walk = std::move(walk), work = std::move(work), end = std::move(end)]() mutable {
                if (!walk())
                    return end();
                pool->start([work = std::move(work), end = std::move(end)] {
                    work();
                    end();
                });
            });
    };
    if (leased)
        return withLease(manager, workspaceId, owner, std::move(chain), std::move(done));
    QPointer<QObject> guard(owner);
    chain([guard, done = std::move(done)]() mutable {
        postToMain([guard, done = std::move(done)] {
            if (guard)
                done();
        });
    });
}

} // namespace runbox::files
