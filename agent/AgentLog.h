#pragma once

#include <QDateTime>
#include <QString>
#include <QTextStream>

namespace runbox {

/// One line of the agent's log on stderr, prefixed with the UTC time in ISO 8601 with ms (the
/// journal adds its own; docs/contracts.md "Processes and start-up").
inline void logLine(const QString& line) {
    QTextStream(stderr) << QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs) << ' '
                        << line << Qt::endl;
}

} // namespace runbox
