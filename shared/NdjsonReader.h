#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>

namespace runbox {

/// Splits an NDJSON byte stream (one JSON object per '\n'-terminated line) into objects.
/// Feed it whatever arrives; it keeps an incomplete last line for the next call.
class NdjsonReader final {
public:
    /// Appends @p bytes and returns every complete object. A line that is not a JSON object is
    /// returned as `{"type":"invalid_line","raw":…}` so that nothing is silently dropped.
    QList<QJsonObject> feed(const QByteArray& bytes);
    /// Bytes of the incomplete line kept so far.
    qsizetype pendingBytes() const { return m_buffer.size(); }

private:
    QByteArray m_buffer;
};

} // namespace runbox
