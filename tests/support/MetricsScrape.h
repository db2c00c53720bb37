#pragma once

#include "support/RawHttp.h"

#include <QByteArray>
#include <QMap>
#include <QString>

namespace runbox::testsupport {

/// `GET /metrics` on the agent at 127.0.0.1:@p port with `Authorization: Bearer @p bearer`
/// (no such header when @p bearer is empty), on a fresh connection.
RawHttpResponse scrapeMetrics(quint16 port, const QByteArray& bearer);

/// The samples of a text exposition (docs/metrics.md), keyed by the sample's name and label
/// set exactly as written (`runbox_executions_total{tier="strong",kind="shell",state="failed"}`);
/// comment lines are skipped.
QMap<QString, double> parseExposition(const QByteArray& text);

/// The token of `<stateDir>/metrics.token` (trimmed), empty when it cannot be read.
QByteArray readMetricsToken(const QString& stateDir);

} // namespace runbox::testsupport
