#include "console/models/ExecutionTableModel.h"

#include "console/api/HealthReport.h"

#include <QIcon>
#include <QLocale>
#include <QPointer>

namespace runbox::console {

ExecutionTableModel::ExecutionTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ExecutionTableModel::setFetcher(PageFetcher fetcher) {
    m_fetcher = std::move(fetcher);
    reload();
}

void ExecutionTableModel::reload() {
    ++m_generation; // answers to earlier requests are ignored from now on
    beginResetModel();
    m_rows.clear();
    m_nextCursor.clear();
    m_atEnd = !m_fetcher;
    m_routeMissing = false;
    m_lastError.clear();
    m_headInFlight = false;
    setLoading(false);
    endResetModel();
    fetchMore({}); // a no-op when a view already asked for the first page during the reset
}

void ExecutionTableModel::refreshHead() {
    if (!m_fetcher || m_headInFlight || m_routeMissing)
        return;
    if (m_rows.isEmpty() && !m_loading && m_atEnd)
        m_atEnd = false; // an empty table that ended: look again from the start
    m_headInFlight = true;
    const quint64 generation = m_generation;
    const QPointer<ExecutionTableModel> self(this);
    m_fetcher({}, [self, generation](const Page& page) {
        if (self)
            self->onPage(generation, true, page);
    });
}

bool ExecutionTableModel::canFetchMore(const QModelIndex& parent) const {
    return !parent.isValid() && m_fetcher && !m_atEnd && !m_loading && !m_routeMissing;
}

void ExecutionTableModel::fetchMore(const QModelIndex& parent) {
    if (!canFetchMore(parent))
        return;
    setLoading(true);
    const quint64 generation = m_generation;
    const QPointer<ExecutionTableModel> self(this);
    m_fetcher(m_nextCursor, [self, generation](const Page& page) {
        if (self)
            self->onPage(generation, false, page);
    });
}

void ExecutionTableModel::onPage(quint64 generation, bool head, const Page& page) {
    if (generation != m_generation)
        return; // an answer for a model state that no longer exists
    if (!page.error.isEmpty() || page.routeMissing) {
        m_lastError = page.error;
        m_routeMissing = page.routeMissing;
        if (head)
            m_headInFlight = false;
        else
            m_atEnd = true; // do not hammer a failing route from fetchMore(); reload() retries
        setLoading(false);
        Q_EMIT loadFailed(page.error, page.routeMissing);
        return;
    }
    m_lastError.clear();
    if (head) {
        const bool wasEmpty = m_rows.isEmpty() && m_nextCursor.isEmpty();
        if (wasEmpty) {
            m_nextCursor = page.nextCursor;
            m_atEnd = page.nextCursor.isEmpty();
        }
        mergeHead(page.items);
        m_headInFlight = false;
    } else {
        // The cursor moves before the rows appear: a view reacting to the insertion asks for
        // the next page, never this one again. Loading ends after the insertion for the same
        // reason.
        m_nextCursor = page.nextCursor;
        m_atEnd = page.nextCursor.isEmpty();
        QList<ExecutionInfo> fresh;
        for (const ExecutionInfo& e : page.items)
            if (rowOf(e.id) < 0)
                fresh.append(e);
        if (!fresh.isEmpty()) {
            const int first = int(m_rows.size());
            beginInsertRows({}, first, first + int(fresh.size()) - 1);
            m_rows.append(fresh);
            endInsertRows();
        }
        setLoading(false);
    }
    Q_EMIT pageLoaded();
}

void ExecutionTableModel::mergeHead(const QList<ExecutionInfo>& items) {
    QList<ExecutionInfo> fresh;
    for (const ExecutionInfo& e : items) {
        const int row = rowOf(e.id);
        if (row >= 0) {
            m_rows[row] = e;
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        } else {
            fresh.append(e);
        }
    }
    if (fresh.isEmpty())
        return;
    beginInsertRows({}, 0, int(fresh.size()) - 1);
    for (qsizetype i = fresh.size() - 1; i >= 0; --i)
        m_rows.prepend(fresh.at(i));
    endInsertRows();
}

void ExecutionTableModel::upsert(const ExecutionInfo& execution) {
    mergeHead({execution});
}

void ExecutionTableModel::setLoading(bool loading) {
    if (m_loading == loading)
        return;
    m_loading = loading;
    Q_EMIT loadingChanged(loading);
}

int ExecutionTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ExecutionTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

ExecutionInfo ExecutionTableModel::executionAt(int row) const {
    return row >= 0 && row < m_rows.size() ? m_rows.at(row) : ExecutionInfo();
}

int ExecutionTableModel::rowOf(const QString& executionId) const {
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows.at(i).id == executionId)
            return i;
    return -1;
}

QVariant ExecutionTableModel::displayData(const ExecutionInfo& e, int column) const {
    switch (column) {
    case IdColumn:
        return e.id;
    case WorkspaceColumn:
        return e.workspace;
    case KindColumn:
        return e.kind;
    case StateColumn:
        if (e.state == QLatin1String("queued") && e.queuePosition)
            return tr("%1 (#%2)").arg(ExecutionInfo::stateLabel(e.state)).arg(*e.queuePosition + 1);
        return ExecutionInfo::stateLabel(e.state);
    case StartedColumn: {
        const QDateTime t = e.startedAt.isValid() ? e.startedAt : e.createdAt;
        return t.isValid() ? QLocale().toString(t.toLocalTime(), QLocale::ShortFormat) : QString();
    }
    case DurationColumn: {
        const auto d = e.effectiveDurationMs(QDateTime::currentDateTimeUtc());
        return d ? formatDurationMs(*d) : QString();
    }
    case ExitCodeColumn:
        if (e.exitCode)
            return QString::number(*e.exitCode);
        return e.signal.isEmpty() ? QString() : e.signal;
    case ChipsColumn: {
        QStringList chips;
        for (int c : e.npuDevices)
            chips << QString::number(c);
        return chips.join(QStringLiteral(", "));
    }
    default:
        return {};
    }
}

QVariant ExecutionTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ExecutionInfo& e = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return displayData(e, index.column());
    case Qt::ToolTipRole:
        if (index.column() == StateColumn && !e.statusReason.isEmpty())
            return e.statusReason;
        return displayData(e, index.column());
    case Qt::DecorationRole:
        if (index.column() == StateColumn)
            return QIcon(ExecutionInfo::stateIcon(e.state));
        return {};
    case Qt::ForegroundRole:
        if (index.column() == StateColumn)
            return ExecutionInfo::stateColor(e.state);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == ExitCodeColumn || index.column() == DurationColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case ExecutionIdRole:
        return e.id;
    case StateRole:
        return e.state;
    case RecordRole:
        return e.raw;
    default:
        return {};
    }
}

QVariant ExecutionTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn:
        return tr("Execution");
    case WorkspaceColumn:
        return tr("Workspace");
    case KindColumn:
        return tr("Kind");
    case StateColumn:
        return tr("State");
    case StartedColumn:
        return tr("Started");
    case DurationColumn:
        return tr("Duration");
    case ExitCodeColumn:
        return tr("Exit code");
    case ChipsColumn:
        return tr("Chips");
    default:
        return {};
    }
}

} // namespace runbox::console
