#include "agent/egress/HostsFileResolver.h"

#include <QFile>
#include <QRegularExpression>
#include <QTimer>

namespace runbox::egress {

namespace {

QString canonicalName(QString name) {
    name = name.trimmed().toLower();
    if (name.endsWith(QLatin1Char('.')))
        name.chop(1);
    return name;
}

} // namespace

ResolveResult HostsFileResolver::answer(const QByteArray& fileText, const QString& host,
                                        int lookupIndex) {
    const QString wanted = canonicalName(host);
    QList<QStringList> answers;
    for (QByteArray line : fileText.split('\n')) {
        if (const qsizetype hash = line.indexOf('#'); hash >= 0)
            line.truncate(hash);
        const QStringList fields = QString::fromUtf8(line).split(
            QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts);
        if (fields.size() >= 2 && canonicalName(fields.first()) == wanted)
            answers.append(fields.mid(1));
    }
    ResolveResult result;
    if (answers.isEmpty()) {
        result.error = QStringLiteral("Host %1 not found (test resolver)").arg(host);
        return result;
    }
    for (const QString& text : answers.at(qMin(lookupIndex, int(answers.size()) - 1))) {
        const QHostAddress address(text);
        if (address.isNull()) {
            result.addresses.clear();
            result.error = QStringLiteral("test resolver: bad address %1 for %2").arg(text, host);
            return result;
        }
        result.addresses.append(address);
    }
    return result;
}

void HostsFileResolver::resolve(const QString& host, QObject* context, Callback done) {
    QFile file(m_path);
    ResolveResult result;
    if (!file.open(QIODevice::ReadOnly)) {
        result.error = QStringLiteral("test resolver: cannot read %1").arg(m_path);
    } else {
        int& count = m_lookups[canonicalName(host)];
        result = answer(file.readAll(), host, count);
        ++count;
    }
    // Asynchronous, like the system resolver: the caller never sees its callback re-entrantly.
    QTimer::singleShot(0, context, [done = std::move(done), result] { done(result); });
}

} // namespace runbox::egress
