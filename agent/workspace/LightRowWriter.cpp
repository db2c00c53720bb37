#include "agent/workspace/LightRowWriter.h"

namespace runbox::workspace {

LightRowWriter::LightRowWriter(store::WorkspaceRepository* repository) : m_repository(repository) {
    m_timer.setSingleShot(true);
    m_timer.setInterval(kFlushDelayMs);
    QObject::connect(&m_timer, &QTimer::timeout, [this] { flush(); }); // flush() reports
}

LightRowWriter::~LightRowWriter() {
    m_timer.stop();
    if (const auto error = flush(); error && error->kind == ErrorKind::Unavailable)
        qWarning("store: light workspace rows not recorded (database busy at shutdown): %s",
                 qPrintable(error->message));
}

void LightRowWriter::created(store::WorkspaceRecord row) {
    m_created.append(std::move(row));
    schedule();
}

void LightRowWriter::deleted(const QString& id, qint64 deletedMs) {
    m_deleted.append({id, deletedMs});
    schedule();
}

std::optional<Error> LightRowWriter::flush() {
    return write(nullptr);
}

std::optional<Error> LightRowWriter::flushFor(const QString& id) {
    QHash<QString, Error> failedRows;
    const auto error = write(&failedRows);
    if (error && error->kind == ErrorKind::Unavailable)
        return error; // nothing was written, this row included: worth a retry
    const auto own = failedRows.constFind(id);
    if (own != failedRows.constEnd())
        return *own;
    return std::nullopt; // written (or written earlier); other rows' failures are logged
}

std::optional<Error> LightRowWriter::write(QHash<QString, Error>* failedRows) {
    m_timer.stop();
    if (m_created.isEmpty() && m_deleted.isEmpty())
        return std::nullopt;
    std::optional<Error> error = m_repository->writeBatch(m_created, m_deleted);
    if (error && error->kind == ErrorKind::Unavailable) {
        // The database was busy past its timeout: keep everything queued and try again later.
        m_timer.start(kRetryDelayMs);
        return error;
    }
    if (error) {
        // One bad row (or a failing disk) must not take the others with it: one at a time.
        error.reset();
        for (const store::WorkspaceRecord& row : std::as_const(m_created)) {
            const std::optional<Error> e = m_repository->writeBatch({row}, {});
            if (e && failedRows)
                failedRows->insert(row.id, *e);
            if (e && !error)
                error = e;
        }
        for (const auto& deletion : std::as_const(m_deleted)) {
            if (auto e = m_repository->writeBatch({}, {deletion}); e && !error)
                error = e;
        }
    }
    if (error)
        qWarning("store: light workspace rows not recorded: %s", qPrintable(error->message));
    m_created.clear();
    m_deleted.clear();
    return error;
}

void LightRowWriter::schedule() {
    if (!m_timer.isActive())
        m_timer.start();
}

} // namespace runbox::workspace
