#include "agent/workspace/LightRowWriter.h"

namespace runbox::workspace {

LightRowWriter::LightRowWriter(store::WorkspaceRepository* repository) : m_repository(repository) {
    m_timer.setSingleShot(true);
    m_timer.setInterval(kFlushDelayMs);
    QObject::connect(&m_timer, &QTimer::timeout, [this] {
        if (const auto error = flush())
            qWarning("store: light workspace rows not recorded: %s", qPrintable(error->message));
    });
}

LightRowWriter::~LightRowWriter() {
    m_timer.stop();
    if (const auto error = flush())
        qWarning("store: light workspace rows not recorded: %s", qPrintable(error->message));
}

void LightRowWriter::created(store::WorkspaceRecord row) {
    m_created.append(std::move(row));
    schedule();
}

void LightRowWriter::deleted(const QString& id, qint64 deletedMs) {
    m_deleted.append({id, deletedMs});
    schedule();
}

std::optional<ApiError> LightRowWriter::flush() {
    m_timer.stop();
    if (m_created.isEmpty() && m_deleted.isEmpty())
        return std::nullopt;
    const QList<store::WorkspaceRecord> created = std::exchange(m_created, {});
    const QList<QPair<QString, qint64>> deleted = std::exchange(m_deleted, {});
    return m_repository->writeBatch(created, deleted);
}

void LightRowWriter::schedule() {
    if (!m_timer.isActive())
        m_timer.start();
}

} // namespace runbox::workspace
