#include "agent/files/ByteRange.h"

#include <QList>

#include <limits>

namespace runbox::files {

namespace {

constexpr qint64 kHuge = std::numeric_limits<qint64>::max();

/// Parses 1*DIGIT; saturates at kHuge instead of overflowing. False when empty or not digits.
bool parseDigits(QByteArrayView text, qint64* out) {
    if (text.isEmpty())
        return false;
    qint64 value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return false;
        const int digit = c - '0';
        value = value > (kHuge - digit) / 10 ? kHuge : value * 10 + digit;
    }
    *out = value;
    return true;
}

QByteArrayView trimmed(QByteArrayView v) {
    while (!v.isEmpty() && (v.front() == ' ' || v.front() == '\t'))
        v = v.sliced(1);
    while (!v.isEmpty() && (v.back() == ' ' || v.back() == '\t'))
        v.chop(1);
    return v;
}

QByteArrayView weakless(QByteArrayView tag) {
    return tag.startsWith("W/") ? tag.sliced(2) : tag;
}

} // namespace

ByteRange ByteRange::parse(QByteArrayView header, qint64 size) {
    ByteRange whole;
    whole.length = size;
    header = trimmed(header);
    const qsizetype eq = header.indexOf('=');
    if (eq < 0 || trimmed(header.first(eq)).toByteArray().toLower() != "bytes")
        return whole;
    // ranges-specifier = 1#range-spec; empty list elements are allowed (§5.6.1).
    // The views in `specs` point into `parts`, which must outlive them.
    const QList<QByteArray> parts = header.sliced(eq + 1).toByteArray().split(',');
    QList<QByteArrayView> specs;
    for (const QByteArray& part : parts) {
        const QByteArrayView spec = trimmed(part);
        if (!spec.isEmpty())
            specs.append(spec);
    }
    if (specs.size() != 1)
        return whole; // none (malformed) or several: served whole
    const QByteArray spec = specs.first().toByteArray();
    const qsizetype dash = spec.indexOf('-');
    if (dash < 0)
        return whole;
    ByteRange r;
    if (dash == 0) { // suffix-range: the last N bytes
        qint64 suffix = 0;
        if (!parseDigits(QByteArrayView(spec).sliced(1), &suffix))
            return whole;
        if (suffix == 0 || size <= 0) {
            r.kind = Kind::Unsatisfiable;
            return r;
        }
        r.kind = Kind::Partial;
        r.first = suffix >= size ? 0 : size - suffix;
        r.length = size - r.first;
        return r;
    }
    qint64 first = 0;
    qint64 last = kHuge;
    if (!parseDigits(QByteArrayView(spec).first(dash), &first))
        return whole;
    const QByteArrayView lastText = QByteArrayView(spec).sliced(dash + 1);
    if (!lastText.isEmpty() && (!parseDigits(lastText, &last) || last < first))
        return whole; // an invalid range-spec makes the header invalid: ignored
    if (first >= size) {
        r.kind = Kind::Unsatisfiable;
        return r;
    }
    r.kind = Kind::Partial;
    r.first = first;
    r.length = (last >= size - 1 ? size - 1 : last) - first + 1;
    return r;
}

QByteArray ByteRange::contentRange(qint64 size) const {
    if (kind == Kind::Unsatisfiable)
        return "bytes */" + QByteArray::number(size);
    return "bytes " + QByteArray::number(first) + '-' + QByteArray::number(first + length - 1) +
           '/' + QByteArray::number(size);
}

bool EntityTag::noneMatchHits(QByteArrayView headerList, QByteArrayView etag) {
    const QByteArrayView list = trimmed(headerList);
    if (list == "*")
        return true;
    for (const QByteArray& part : list.toByteArray().split(',')) {
        const QByteArrayView tag = trimmed(part);
        if (!tag.isEmpty() && weakless(tag) == weakless(etag))
            return true;
    }
    return false;
}

bool EntityTag::ifRangeMatches(QByteArrayView header, QByteArrayView etag) {
    const QByteArrayView value = trimmed(header);
    return value.startsWith('"') && !etag.startsWith("W/") && value == etag;
}

} // namespace runbox::files
