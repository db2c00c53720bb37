#include "agent/api/JsonDuplicateKeys.h"

#include <QSet>

#include <vector>

namespace runbox::api {

namespace {

/// One open object or array of the scan.
struct Container {
    bool isObject = false;
    bool expectName = false; ///< the next string of this object is a member name
    QSet<QString> names;     ///< the member names seen so far (objects only)
};

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/// Reads the string whose opening quote is at json[*pos] and leaves *pos after its closing
/// quote. With @p out, the unescaped text is stored there as UTF-16 (a \uXXXX escape is one
/// code unit, so an escaped surrogate pair equals the same character written in UTF-8).
void readString(QByteArrayView json, qsizetype* pos, QString* out) {
    qsizetype i = *pos + 1;
    qsizetype runStart = i; // start of the bytes not yet appended to *out
    const auto flush = [&](qsizetype end) {
        if (out && end > runStart)
            out->append(QString::fromUtf8(json.sliced(runStart, end - runStart)));
    };
    while (i < json.size()) {
        const char c = json[i];
        if (c == '"') {
            flush(i);
            *pos = i + 1;
            return;
        }
        if (c != '\\') {
            ++i;
            continue;
        }
        flush(i);
        if (i + 1 >= json.size())
            break;
        const char e = json[i + 1];
        i += 2;
        if (e == 'u') {
            char16_t unit = 0;
            for (int k = 0; k < 4 && i < json.size(); ++k, ++i)
                unit = char16_t(unit * 16 + qMax(0, hexValue(json[i])));
            if (out)
                out->append(QChar(unit));
        } else if (out) {
            switch (e) {
            case 'b':
                out->append(QChar(u'\b'));
                break;
            case 'f':
                out->append(QChar(u'\f'));
                break;
            case 'n':
                out->append(QChar(u'\n'));
                break;
            case 'r':
                out->append(QChar(u'\r'));
                break;
            case 't':
                out->append(QChar(u'\t'));
                break;
            default:
                out->append(QLatin1Char(e));
                break; // '"', '\\', '/'
            }
        }
        runStart = i;
    }
    *pos = json.size(); // unterminated: cannot happen after QJsonDocument accepted the text
}

} // namespace

std::optional<QString> findDuplicateJsonKey(QByteArrayView json) {
    std::vector<Container> open;
    qsizetype i = 0;
    while (i < json.size()) {
        switch (json[i]) {
        case '{':
            open.push_back(Container{true, true, {}});
            ++i;
            break;
        case '[':
            open.push_back(Container{});
            ++i;
            break;
        case '}':
        case ']':
            if (!open.empty())
                open.pop_back();
            ++i;
            break;
        case ',':
            if (!open.empty() && open.back().isObject)
                open.back().expectName = true;
            ++i;
            break;
        case '"': {
            if (open.empty() || !open.back().isObject || !open.back().expectName) {
                readString(json, &i, nullptr); // a value
                break;
            }
            QString name;
            readString(json, &i, &name);
            Container& object = open.back();
            object.expectName = false;
            if (object.names.contains(name))
                return name;
            object.names.insert(name);
            break;
        }
        default: // whitespace, ':', numbers, true, false, null, a UTF-8 BOM
            ++i;
            break;
        }
    }
    return std::nullopt;
}

} // namespace runbox::api
