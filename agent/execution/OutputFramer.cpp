#include "agent/execution/OutputFramer.h"

#include <cstring>

namespace runbox::execution {

namespace {
int sequenceLength(unsigned char lead) {
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF)
        return 2;
    if (lead >= 0xE0 && lead <= 0xEF)
        return 3;
    if (lead >= 0xF0 && lead <= 0xF4)
        return 4;
    return 0;
}
bool isContinuation(unsigned char c) {
    return (c & 0xC0) == 0x80;
}
} // namespace

bool isValidUtf8(const char* data, qsizetype size) {
    const auto* s = reinterpret_cast<const unsigned char*>(data);
    qsizetype i = 0;
    while (i < size) {
        // ASCII runs eight bytes at a time.
        while (i + 8 <= size) {
            quint64 word;
            std::memcpy(&word, s + i, 8);
            if (word & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= size)
            break;
        const unsigned char c = s[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        const int len = sequenceLength(c);
        if (len == 0 || i + len > size)
            return false;
        for (int k = 1; k < len; ++k)
            if (!isContinuation(s[i + k]))
                return false;
        const unsigned char c1 = s[i + 1];
        if (c == 0xE0 && c1 < 0xA0)
            return false; // overlong
        if (c == 0xED && c1 > 0x9F)
            return false; // surrogates
        if (c == 0xF0 && c1 < 0x90)
            return false; // overlong
        if (c == 0xF4 && c1 > 0x8F)
            return false; // > U+10FFFF
        i += len;
    }
    return true;
}

qsizetype incompleteUtf8Tail(const QByteArray& data) {
    const auto* s = reinterpret_cast<const unsigned char*>(data.constData());
    const qsizetype n = data.size();
    for (qsizetype back = 1; back <= 3 && back <= n; ++back) {
        const unsigned char c = s[n - back];
        if (isContinuation(c))
            continue;
        const int len = sequenceLength(c);
        return (len > back) ? back : 0;
    }
    return 0;
}

namespace {
/// Control characters JSON can only write as `\u00XX` (RFC 8259 §7).
bool needsUnicodeEscape(unsigned char c) {
    return c < 0x20 && c != '\b' && c != '\f' && c != '\n' && c != '\r' && c != '\t';
}
} // namespace

bool OutputFrame::sendsAsText() const {
    // Control characters first: binary output (zeros…) is decided within its first few KiB.
    const qsizetype allowed = bytes.size() / 16;
    qsizetype escaped = 0;
    for (const char c : bytes)
        if (needsUnicodeEscape(static_cast<unsigned char>(c)) && ++escaped > allowed)
            return false;
    return isValidUtf8(bytes.constData(), bytes.size());
}

QJsonObject OutputFrame::toEvent() const {
    QJsonObject ev{{"type", stream == OutputStream::Stdout ? "stdout" : "stderr"},
                   {"offset", offset}};
    if (sendsAsText())
        ev.insert(QStringLiteral("data"), QString::fromUtf8(bytes));
    else
        ev.insert(QStringLiteral("dataBase64"), QString::fromLatin1(bytes.toBase64()));
    return ev;
}

QByteArray OutputFrame::toJsonLine() const {
    static const char hex[] = "0123456789abcdef";
    const bool text = sendsAsText();
    QByteArray line;
    line.reserve(text ? bytes.size() + bytes.size() / 8 + 64 : bytes.size() * 4 / 3 + 64);
    line += text ? "{\"data\":\"" : "{\"dataBase64\":\"";
    if (!text) {
        line += bytes.toBase64();
    } else {
        for (const char ch : bytes) {
            const auto c = static_cast<unsigned char>(ch);
            if (c >= 0x20 && c != '"' && c != '\\') {
                line += ch; // UTF-8 passes through as is (it was validated)
                continue;
            }
            line += '\\';
            switch (c) {
            case '"':
            case '\\':
                line += ch;
                break;
            case '\b':
                line += 'b';
                break;
            case '\f':
                line += 'f';
                break;
            case '\n':
                line += 'n';
                break;
            case '\r':
                line += 'r';
                break;
            case '\t':
                line += 't';
                break;
            default:
                line += "u00";
                line += hex[c >> 4];
                line += hex[c & 0xf];
            }
        }
    }
    line += "\",\"offset\":" + QByteArray::number(offset) + ",\"type\":\"" +
            (stream == OutputStream::Stdout ? "stdout" : "stderr") + "\"}\n";
    return line;
}

void OutputFramer::cut(OutputStream stream, const QByteArray& bytes, qint64 offset,
                       QList<OutputFrame>* out) {
    qsizetype pos = 0;
    while (pos < bytes.size()) {
        qsizetype len = std::min(m_maxFrame, bytes.size() - pos);
        if (pos + len < bytes.size()) {
            // Do not cut inside a character when a cut at its start is possible.
            const qsizetype tail = incompleteUtf8Tail(bytes.mid(pos, len));
            if (tail > 0 && tail < len)
                len -= tail;
        }
        out->append(OutputFrame{stream, bytes.mid(pos, len), offset + pos});
        pos += len;
    }
}

QList<OutputFrame> OutputFramer::feed(OutputStream stream, const QByteArray& bytes) {
    QList<OutputFrame> out;
    if (bytes.isEmpty())
        return out;
    if (!m_carry.isEmpty() && m_carryStream != stream)
        out += flush();
    const qint64 start = m_carry.isEmpty() ? m_offset : m_carryOffset;
    QByteArray data = m_carry + bytes;
    m_carry.clear();
    m_offset += bytes.size();
    m_fed[int(stream)] += bytes.size();
    const qsizetype tail = incompleteUtf8Tail(data);
    if (tail > 0) {
        m_carry = data.right(tail);
        m_carryStream = stream;
        m_carryOffset = start + data.size() - tail;
        data.chop(tail);
    }
    cut(stream, data, start, &out);
    return out;
}

QList<OutputFrame> OutputFramer::flush() {
    QList<OutputFrame> out;
    if (!m_carry.isEmpty()) {
        cut(m_carryStream, m_carry, m_carryOffset, &out);
        m_carry.clear();
    }
    return out;
}

void OutputFramer::skipTo(qint64 offset) {
    if (offset > m_offset)
        m_offset = offset;
}

} // namespace runbox::execution
