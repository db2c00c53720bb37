#include "agent/workspace/WorkspacePath.h"

namespace runbox::workspace {

namespace {

Error invalidPath(const QString& why) {
    return makeError(ErrorKind::InvalidArgument, "invalid_path",
                     QStringLiteral("invalid path: %1").arg(why));
}

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/// Percent-decodes @p raw once; false on a malformed escape.
bool percentDecodeOnce(QByteArrayView raw, QByteArray* out) {
    out->clear();
    out->reserve(raw.size());
    for (qsizetype i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c != '%') {
            out->append(c);
            continue;
        }
        if (i + 2 >= raw.size())
            return false;
        const int hi = hexValue(raw[i + 1]);
        const int lo = hexValue(raw[i + 2]);
        if (hi < 0 || lo < 0)
            return false;
        out->append(char(hi * 16 + lo));
        i += 2;
    }
    return true;
}

bool containsPercentEscape(QByteArrayView s) {
    for (qsizetype i = 0; i + 2 < s.size(); ++i) {
        if (s[i] == '%' && hexValue(s[i + 1]) >= 0 && hexValue(s[i + 2]) >= 0)
            return true;
    }
    return false;
}

} // namespace

Status WorkspacePath::validateSegment(QByteArrayView segment) {
    if (segment.isEmpty())
        return invalidPath(QStringLiteral("empty segment (absolute path, '//' or trailing '/')"));
    if (segment == "." || segment == "..")
        return invalidPath(QStringLiteral("'.' and '..' segments are not allowed"));
    if (segment.size() > kMaxNameBytes)
        return invalidPath(QStringLiteral("a name is longer than %1 bytes").arg(kMaxNameBytes));
    for (const char c : segment) {
        if (c == '\0')
            return invalidPath(QStringLiteral("NUL byte in a name"));
        if (c == '/' || c == '\\')
            return invalidPath(QStringLiteral("encoded '/' or a '\\' inside a name"));
    }
    if (containsPercentEscape(segment))
        return invalidPath(QStringLiteral("a name still contains a percent escape after one "
                                          "decode (double encoding)"));
    return Status::success();
}

Result<WorkspacePath> WorkspacePath::fromSegments(QList<QByteArray> segments) {
    qsizetype total = 0;
    for (const QByteArray& s : segments) {
        const Status st = validateSegment(s);
        if (!st)
            return st.error();
        total += s.size() + 1;
    }
    if (total - 1 > kMaxPathBytes)
        return invalidPath(QStringLiteral("longer than %1 bytes").arg(kMaxPathBytes));
    WorkspacePath p;
    p.m_segments = std::move(segments);
    return p;
}

Result<WorkspacePath> WorkspacePath::fromUrlTail(QByteArrayView rawTail) {
    if (rawTail.isEmpty())
        return WorkspacePath();
    // Cheap bound before any work: every decoded byte takes at most three raw bytes.
    if (rawTail.size() > 3 * (kMaxPathBytes + 1))
        return invalidPath(QStringLiteral("longer than %1 bytes").arg(kMaxPathBytes));
    if (rawTail.contains('\\'))
        return invalidPath(QStringLiteral("'\\' is not a separator and not allowed"));
    if (rawTail.contains('?') || rawTail.contains('#'))
        return invalidPath(QStringLiteral("query or fragment inside the path"));
    QList<QByteArray> segments;
    qsizetype start = 0;
    while (true) {
        const qsizetype slash = rawTail.indexOf('/', start);
        const QByteArrayView raw =
            rawTail.sliced(start, (slash < 0 ? rawTail.size() : slash) - start);
        QByteArray decoded;
        if (!percentDecodeOnce(raw, &decoded))
            return invalidPath(QStringLiteral("malformed percent escape"));
        segments.append(std::move(decoded));
        if (slash < 0)
            break;
        start = slash + 1;
    }
    return fromSegments(std::move(segments));
}

Result<WorkspacePath> WorkspacePath::fromPlain(QByteArrayView utf8) {
    if (utf8.isEmpty())
        return WorkspacePath();
    if (utf8.size() > kMaxPathBytes)
        return invalidPath(QStringLiteral("longer than %1 bytes").arg(kMaxPathBytes));
    QList<QByteArray> segments;
    qsizetype start = 0;
    while (true) {
        const qsizetype slash = utf8.indexOf('/', start);
        segments.append(
            utf8.sliced(start, (slash < 0 ? utf8.size() : slash) - start).toByteArray());
        if (slash < 0)
            break;
        start = slash + 1;
    }
    return fromSegments(std::move(segments));
}

WorkspacePath WorkspacePath::parent() const {
    WorkspacePath p = *this;
    if (!p.m_segments.isEmpty())
        p.m_segments.removeLast();
    return p;
}

WorkspacePath WorkspacePath::child(const QByteArray& segment) const {
    WorkspacePath p = *this;
    p.m_segments.append(segment);
    return p;
}

QByteArray WorkspacePath::toRelative() const {
    return m_segments.join('/');
}

} // namespace runbox::workspace
