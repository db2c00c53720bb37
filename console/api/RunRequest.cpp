#include "console/api/RunRequest.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace runbox::console {

QJsonObject RunRequest::toExecBody() const {
    QJsonObject body{{"kind", kind}, {"code", code}};
    if (!cwd.trimmed().isEmpty())
        body.insert(QStringLiteral("cwd"), cwd.trimmed());
    if (!env.isEmpty()) {
        QJsonObject e;
        for (const auto& [name, value] : env)
            e.insert(name, value);
        body.insert(QStringLiteral("env"), e);
    }
    if (timeoutMs > 0)
        body.insert(QStringLiteral("executionTimeoutMs"), double(timeoutMs));
    if (!npuDevices.isEmpty()) {
        QJsonArray chips;
        for (int id : npuDevices)
            chips.append(id);
        body.insert(QStringLiteral("npuDevices"), chips);
    }
    if (!environmentId.isEmpty())
        body.insert(QStringLiteral("environmentId"), environmentId);
    return body;
}

QJsonObject RunRequest::toManagedBody(const QString& workspace) const {
    QJsonObject body = toExecBody();
    body.insert(QStringLiteral("workspace"), workspace);
    return body;
}

bool RunRequest::isValidEnvName(const QString& name) {
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return pattern.match(name).hasMatch();
}

QString RunRequest::cwdProblem(const QString& cwdText) {
    const QString cwd = cwdText.trimmed();
    if (cwd.isEmpty())
        return {};
    if (cwd.startsWith(u'/'))
        return tr("The working directory is relative to the workspace: remove the leading '/'.");
    if (cwd.contains(QChar(0)) || cwd.contains(u'\\'))
        return tr("The working directory may not contain NUL or '\\'.");
    if (cwd.toUtf8().size() > 4096)
        return tr("The working directory is longer than 4096 bytes.");
    QString path = cwd;
    if (path.endsWith(u'/'))
        path.chop(1);
    for (const QString& seg : path.split(u'/'))
        if (seg.isEmpty() || seg == QLatin1String(".") || seg == QLatin1String(".."))
            return tr("The working directory may not contain '.', '..' or empty segments.");
    return {};
}

QStringList RunRequest::validate() const {
    QStringList problems;
    if (kind != QLatin1String("shell") && kind != QLatin1String("python") &&
        kind != QLatin1String("r"))
        problems << tr("Choose shell, Python or R.");
    if (code.trimmed().isEmpty())
        problems << tr("The script is empty.");
    if (const QString p = cwdProblem(cwd); !p.isEmpty())
        problems << p;
    QSet<QString> seen;
    for (const auto& [name, value] : env) {
        Q_UNUSED(value);
        if (!isValidEnvName(name))
            problems << tr("\"%1\" is not a valid environment variable name.").arg(name);
        else if (seen.contains(name))
            problems << tr("The variable %1 is set twice.").arg(name);
        seen.insert(name);
    }
    if (timeoutMs < 0)
        problems << tr("The timeout cannot be negative.");
    return problems;
}

QList<int> RunRequest::parseChipList(const QString& text, bool* ok) {
    *ok = true;
    QList<int> out;
    static const QRegularExpression sep(QStringLiteral("[,\\s]+"));
    for (const QString& part : text.split(sep, Qt::SkipEmptyParts)) {
        bool isInt = false;
        const int id = part.toInt(&isInt);
        if (!isInt || id < 0 || id > 4095) {
            *ok = false;
            return {};
        }
        if (!out.contains(id))
            out.append(id);
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace runbox::console
