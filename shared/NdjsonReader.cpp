#include "shared/NdjsonReader.h"

#include <QJsonDocument>

namespace runbox {

QList<QJsonObject> NdjsonReader::feed(const QByteArray& bytes) {
    m_buffer += bytes;
    QList<QJsonObject> out;
    qsizetype start = 0;
    for (;;) {
        const qsizetype nl = m_buffer.indexOf('\n', start);
        if (nl < 0)
            break;
        const QByteArray line = m_buffer.mid(start, nl - start);
        start = nl + 1;
        if (line.trimmed().isEmpty())
            continue;
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
        if (err.error == QJsonParseError::NoError && doc.isObject())
            out.append(doc.object());
        else
            out.append(QJsonObject{{"type", "invalid_line"}, {"raw", QString::fromUtf8(line)}});
    }
    m_buffer.remove(0, start);
    return out;
}

} // namespace runbox
