#include "support/MetricsScrape.h"

#include <QFile>

namespace runbox::testsupport {

RawHttpResponse scrapeMetrics(quint16 port, const QByteArray& bearer) {
    RawHttpConnection c;
    if (!c.connectTo(port))
        return {};
    HeaderList headers;
    if (!bearer.isEmpty())
        headers.append({"Authorization", "Bearer " + bearer});
    if (!c.send(buildRequest("GET", "/metrics", headers)))
        return {};
    return c.readResponse(30000);
}

QMap<QString, double> parseExposition(const QByteArray& text) {
    QMap<QString, double> samples;
    for (const QByteArray& line : text.split('\n')) {
        if (line.isEmpty() || line.startsWith('#'))
            continue;
        const qsizetype space = line.lastIndexOf(' ');
        if (space <= 0)
            continue;
        const QByteArray value = line.mid(space + 1);
        samples.insert(QString::fromUtf8(line.left(space)),
                       value == "+Inf" ? qInf() : value.toDouble());
    }
    return samples;
}

QByteArray readMetricsToken(const QString& stateDir) {
    QFile f(stateDir + QStringLiteral("/metrics.token"));
    return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed() : QByteArray();
}

} // namespace runbox::testsupport
