#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QThreadPool;

namespace runbox::execution {
class ExecutionManager;
}

namespace runbox::files {

/// Runs file-API work off the event loop (a recursive delete, an fsync of a large upload or a
/// usage walk must not stall other clients) and, for writes, under the workspace lease
/// (docs/contracts.md "Workspace file API"; ExecutionManager::scheduleFileWrite).
///
/// @p work runs on @p pool and must not touch @p owner (or anything of the event-loop thread but
/// what it was given); @p done then runs on the event-loop thread, only if @p owner still exists.
class FileWork final {
public:
    static void run(QThreadPool* pool, QObject* owner, std::function<void()> work,
                    std::function<void()> done);

    /// Waits for @p workspaceId's lease, runs @p work on @p pool holding it, releases it (whether
    /// or not @p owner still exists), then calls @p done. If @p owner is destroyed while the job
    /// still waits for the lease, the job is dropped and @p work never runs.
    static void runLeased(execution::ExecutionManager* manager, const QString& workspaceId,
                          QThreadPool* pool, QObject* owner, std::function<void()> work,
                          std::function<void()> done);

    /// A quota check before a write: @p walk (a workspace usage walk, seconds on a large tree)
    /// runs on @p walkPool, then, when it returns true, @p work on @p pool; @p done as above.
    /// The walk never holds a thread of @p pool, so walks of large workspaces cannot hold other
    /// workspaces' file operations (docs/contracts.md "Workspace file API"). With @p leased,
    /// both steps hold @p workspaceId's lease (as runLeased), so the check and the write are
    /// one step for other writers of the workspace. An empty @p walk goes straight to @p work.
    static void runAfterWalk(execution::ExecutionManager* manager, const QString& workspaceId,
                             bool leased, QThreadPool* walkPool, std::function<bool()> walk,
                             QThreadPool* pool, QObject* owner, std::function<void()> work,
                             std::function<void()> done);
};

} // namespace runbox::files
