#pragma once

#include "console/api/ExecutionInfo.h"

#include <QAbstractTableModel>

#include <functional>

namespace runbox::console {

/// Executions, newest first, loaded lazily page by page (`GET /v1/executions` cursor pages)
/// through fetchMore(), and refreshed live by merging the first page again.
///
/// The model does no I/O itself: a PageFetcher (set by the page, or a fake in tests) loads one
/// page asynchronously. Answers that arrive after a reset (new filter, new agent) are ignored.
class ExecutionTableModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecutionTableModel)
public:
    enum Column {
        IdColumn,
        WorkspaceColumn,
        KindColumn,
        StateColumn,
        StartedColumn,
        DurationColumn,
        ExitCodeColumn,
        ChipsColumn,
        ColumnCount
    };
    enum Role {
        ExecutionIdRole = Qt::UserRole + 1, ///< QString
        StateRole,                          ///< QString wire state
        RecordRole,                         ///< QJsonObject as received
    };

    /// One page as loaded: the executions, the cursor of the next page (empty: last page),
    /// or an error (routeMissing: the agent has no executions route).
    struct Page {
        QList<ExecutionInfo> items;
        QString nextCursor;
        QString error;
        bool routeMissing = false;
    };
    /// Loads the page after @p cursor (empty: the first) and calls @p done once, later.
    using PageFetcher =
        std::function<void(const QString& cursor, std::function<void(const Page&)> done)>;

    explicit ExecutionTableModel(QObject* parent = nullptr);

    /// Sets the page source and reloads from the first page (nullptr fetcher: empty model).
    void setFetcher(PageFetcher fetcher);
    /// Drops every row and loads the first page again.
    void reload();
    /// Loads the first page again and merges it: new executions appear on top, known ones are
    /// updated in place (state, duration, exit code). Nothing is removed.
    void refreshHead();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex& parent) const override;
    void fetchMore(const QModelIndex& parent) override;

    ExecutionInfo executionAt(int row) const;
    /// Row of @p executionId, or -1.
    int rowOf(const QString& executionId) const;
    /// Inserts or updates one execution (e.g. one just started from this console).
    void upsert(const ExecutionInfo& execution);
    bool isLoading() const { return m_loading; }
    bool routeMissing() const { return m_routeMissing; }
    QString lastError() const { return m_lastError; }

Q_SIGNALS:
    void loadingChanged(bool loading);
    /// A page could not be loaded: @p routeMissing when the agent has no executions route.
    void loadFailed(const QString& message, bool routeMissing);
    /// A page arrived (first page after reload(), or a further one).
    void pageLoaded();

private:
    void setLoading(bool loading);
    void onPage(quint64 generation, bool head, const Page& page);
    void mergeHead(const QList<ExecutionInfo>& items);
    QVariant displayData(const ExecutionInfo& e, int column) const;

    PageFetcher m_fetcher;
    QList<ExecutionInfo> m_rows;
    QString m_nextCursor;
    bool m_atEnd = true;
    bool m_loading = false;
    bool m_headInFlight = false;
    bool m_routeMissing = false;
    QString m_lastError;
    quint64 m_generation = 0;
};

} // namespace runbox::console
