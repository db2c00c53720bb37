#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace runbox::workspace {

/// Where deleted strong workspaces' directories go, and the threads that remove them
/// (docs/contracts.md "Workspaces and executions"). A deleted workspace's directory is renamed
/// at once into `<workspaces>/.deleting/` (one rename on the same filesystem), then removed off
/// the event loop (WorkspaceRemoval: any depth, no link followed, modes set by sandboxed code
/// overridden): a 50,000-level tree took 6–8 s to remove and froze the agent while it ran on
/// the event loop. What an agent stopped mid-removal left there is removed at the next start
/// (resume()). Lives on the agent's main thread; done callbacks run there.
class WorkspaceTrash final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceTrash)
public:
    /// Removals running at once; more wait their turn.
    static constexpr int kThreads = 2;
    /// The trash directory's name inside the workspaces directory (never a workspace id, which
    /// starts with "w").
    static constexpr const char* kDirName = ".deleting";
    using Done = std::function<void(const QString& error)>;

    /// The trash of @p workspacesDir (made when first used).
    explicit WorkspaceTrash(QString workspacesDir, QObject* parent = nullptr);
    /// Stops the removals under way (what is left stays in the trash for resume()) and waits
    /// for their threads; their done callbacks are not called.
    ~WorkspaceTrash() override;

    /// Renames entry @p name of the workspaces directory into the trash; its path there in
    /// @p trashPath. Where the rename cannot be done (another filesystem, EXDEV) @p trashPath is
    /// the entry's own path, removed in place. Returns an error text, or "" (also when @p name
    /// does not exist: @p trashPath is then empty).
    QString moveIn(const QString& name, QString* trashPath);
    /// Renames @p trashPath (from moveIn) back to entry @p name of the workspaces directory.
    bool moveBack(const QString& trashPath, const QString& name);
    /// Removes @p path (from moveIn) on a thread of the trash, then calls @p done with an error
    /// text or "" on this object's thread. An empty @p path calls @p done("") at once.
    void removeLater(const QString& path, Done done);
    /// The names left in the trash by an agent stopped while it removed them.
    QStringList leftovers() const;
    /// Removes every leftover in the background (at start-up); failures are logged.
    void resume();

private:
    struct Job {
        QString path;
        Done done;
    };
    void work();

    QString m_dir;   ///< the workspaces directory
    QString m_trash; ///< m_dir + "/" + kDirName
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<Job> m_jobs;
    std::atomic<bool> m_stop{false};
    std::vector<std::thread> m_threads; ///< started with the first job
};

} // namespace runbox::workspace
