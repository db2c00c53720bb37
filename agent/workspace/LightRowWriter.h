#pragma once

#include "agent/Error.h"
#include "agent/store/WorkspaceRepository.h"

#include <QHash>
#include <QList>
#include <QPair>
#include <QString>
#include <QTimer>

#include <optional>

namespace runbox::workspace {

/// Group commit of the light workspaces' rows. Those rows are an audit trail and what execution
/// rows refer to; light workspaces themselves never outlive the agent. Creates and deletes are
/// queued in memory and written in one transaction at most kFlushDelayMs later, or at once by
/// flush(): before an execution row refers to a light workspace (foreign key), and when this is
/// destroyed. One transaction per burst instead of one per request keeps SQLite's parsing,
/// locking and WAL writes off the request path. A crash loses at most the last kFlushDelayMs of
/// rows (a restart marks every light row deleted anyway). Main thread only. Errors are the
/// store's.
class LightRowWriter final {
public:
    static constexpr int kFlushDelayMs = 20;
    static constexpr int kRetryDelayMs = 200; ///< after the database stayed busy (Unavailable)

    explicit LightRowWriter(store::WorkspaceRepository* repository);
    /// Writes what is still queued.
    ~LightRowWriter();
    LightRowWriter(const LightRowWriter&) = delete;
    LightRowWriter& operator=(const LightRowWriter&) = delete;

    /// Queues the row of a light workspace just made.
    void created(store::WorkspaceRecord row);
    /// Queues the deletion mark of light workspace @p id at @p deletedMs (ms since the epoch).
    void deleted(const QString& id, qint64 deletedMs);
    /// Writes everything queued in one transaction and returns the first error. A busy database
    /// (Unavailable, 503 store_busy) keeps it all queued for a retry kRetryDelayMs later. Any
    /// other failure retries each row alone, so one bad row (409, 400) costs only itself; a row
    /// that still fails is dropped (audit only: a managed execution on that workspace then
    /// answers 404).
    std::optional<Error> flush();
    /// flush(), answering only for light workspace @p id: Unavailable (503) when the database
    /// stayed busy (its row is still queued), the error of its own row when that one could not
    /// be written, nothing when it is written. Before an execution row refers to @p id.
    std::optional<Error> flushFor(const QString& id);

private:
    void schedule();
    std::optional<Error> write(QHash<QString, Error>* failedRows);

    store::WorkspaceRepository* m_repository;
    QTimer m_timer;
    QList<store::WorkspaceRecord> m_created;
    QList<QPair<QString, qint64>> m_deleted;
};

} // namespace runbox::workspace
