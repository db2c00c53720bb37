#include "console/api/EnvironmentInfo.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>

namespace runbox::console {

namespace {
QDateTime timeOf(const QJsonValue& v) {
    if (!v.isString())
        return {};
    const QDateTime t = QDateTime::fromString(v.toString(), Qt::ISODateWithMs);
    return t.isValid() ? t.toUTC() : QDateTime();
}

QString text(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key)).toString();
}

bool isOperatorChar(QChar c) {
    return c == u'=' || c == u'<' || c == u'>' || c == u'!' || c == u'~' || c == u',';
}

constexpr int kMaxPackages = 200;
constexpr int kMaxPackageChars = 160;
} // namespace

EnvironmentRevision EnvironmentRevision::fromJson(const QJsonObject& o) {
    EnvironmentRevision r;
    r.id = text(o, "id");
    r.environmentId = text(o, "environmentId");
    r.seq = o.value(QLatin1String("seq")).toInt();
    r.status = text(o, "status");
    const QJsonObject spec = o.value(QLatin1String("spec")).toObject();
    r.provisioner = text(spec, "provisioner");
    for (const QJsonValue& p : spec.value(QLatin1String("packages")).toArray())
        r.packages.append(p.toString());
    r.executionId = text(o, "executionId");
    r.statusReason = text(o, "statusReason");
    r.snapshotSha256 = text(o, "snapshotSha256");
    r.createdAt = timeOf(o.value(QLatin1String("createdAt")));
    r.finishedAt = timeOf(o.value(QLatin1String("finishedAt")));
    r.prefixRemovedAt = timeOf(o.value(QLatin1String("prefixRemovedAt")));
    return r;
}

QList<EnvironmentRevision> EnvironmentRevision::listFromJson(const QJsonObject& answer) {
    QList<EnvironmentRevision> out;
    for (const QJsonValue& v : answer.value(QLatin1String("revisions")).toArray())
        out.append(fromJson(v.toObject()));
    std::stable_sort(
        out.begin(), out.end(),
        [](const EnvironmentRevision& a, const EnvironmentRevision& b) { return a.seq > b.seq; });
    return out;
}

PackageSnapshot PackageSnapshot::fromJson(const QJsonObject& o) {
    PackageSnapshot s;
    s.revisionId = text(o, "revisionId");
    s.environmentId = text(o, "environmentId");
    s.sha256 = text(o, "sha256");
    for (const QJsonValue& v : o.value(QLatin1String("packages")).toArray()) {
        const QJsonObject p = v.toObject();
        s.packages.append({text(p, "name"), text(p, "version")});
    }
    return s;
}

EnvironmentBuild EnvironmentBuild::fromJson(const QJsonObject& o) {
    EnvironmentBuild b;
    // A create answers with the environment itself (its "id") plus the build's executionId.
    b.environmentId =
        o.contains(QLatin1String("environmentId")) ? text(o, "environmentId") : text(o, "id");
    b.revisionId = text(o, "revisionId");
    b.executionId = text(o, "executionId");
    b.status = text(o, "status");
    return b;
}

EnvironmentInfo EnvironmentInfo::fromJson(const QJsonObject& o) {
    EnvironmentInfo e;
    e.raw = o;
    e.id = text(o, "id");
    e.name = text(o, "name");
    e.language = text(o, "language");
    e.provisioner = text(o, "provisioner");
    e.status = text(o, "status");
    e.currentRevisionId = text(o, "currentRevisionId");
    e.revisionCount = o.value(QLatin1String("revisionCount")).toInt();
    e.lastBuildFailure = text(o, "lastBuildFailure");
    e.createdAt = timeOf(o.value(QLatin1String("createdAt")));
    return e;
}

QList<EnvironmentInfo> EnvironmentInfo::listFromJson(const QJsonObject& answer) {
    QList<EnvironmentInfo> out;
    for (const QJsonValue& v : answer.value(QLatin1String("environments")).toArray())
        out.append(fromJson(v.toObject()));
    return out;
}

QString EnvironmentInfo::statusLabel(const QString& status) {
    if (status == QLatin1String("building"))
        return tr("Building");
    if (status == QLatin1String("ready"))
        return tr("Ready");
    if (status == QLatin1String("failed"))
        return tr("Build failed");
    return status.isEmpty() ? tr("Unknown") : status;
}

QString EnvironmentInfo::languageLabel(const QString& language) {
    if (language == QLatin1String("python"))
        return tr("Python");
    if (language == QLatin1String("r"))
        return tr("R");
    return language;
}

QString EnvironmentInfo::statusIcon(const QString& status) {
    if (status == QLatin1String("building"))
        return QStringLiteral(":/icons/state-running.svg");
    if (status == QLatin1String("ready"))
        return QStringLiteral(":/icons/state-completed.svg");
    return QStringLiteral(":/icons/state-failed.svg");
}

QStringList EnvironmentInfo::parsePackages(const QString& input) {
    QStringList out;
    for (QString line : input.split(u'\n')) {
        if (const qsizetype hash = line.indexOf(u'#'); hash >= 0)
            line.truncate(hash);
        // Space-separated names, but "pandas >= 2, <3" is one requirement: a part that starts
        // with a comparison or comma, or follows one, joins the part before it.
        static const QRegularExpression space(QStringLiteral("\\s+"));
        bool joinNext = false;
        const qsizetype lineStart = out.size();
        for (const QString& part : line.split(space, Qt::SkipEmptyParts)) {
            if (out.size() > lineStart && (joinNext || isOperatorChar(part.front())))
                out.last() += part;
            else
                out.append(part);
            joinNext = isOperatorChar(part.back());
        }
    }
    return out;
}

QStringList EnvironmentInfo::packageProblems(const QStringList& packages) {
    static const QRegularExpression pattern(
        QStringLiteral("^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])"
                       "(\\[[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*\\])?"
                       "( *(===|==|!=|<=|>=|~=|<|>) *[A-Za-z0-9.*+!_-]+"
                       "( *, *(===|==|!=|<=|>=|~=|<|>) *[A-Za-z0-9.*+!_-]+)*)?$"));
    QStringList problems;
    if (packages.isEmpty())
        problems << tr("Name at least one package.");
    if (packages.size() > kMaxPackages)
        problems << tr("At most %1 packages at once.").arg(kMaxPackages);
    for (const QString& p : packages) {
        if (p.size() > kMaxPackageChars)
            problems << tr("\"%1\" is longer than %2 characters.")
                            .arg(p.left(40), QString::number(kMaxPackageChars));
        else if (p.startsWith(u'-'))
            problems << tr("\"%1\": pip options are not allowed.").arg(p);
        else if (p.contains(QLatin1String("..")) || p.contains(u'/') || p.contains(u'\\') ||
                 p.contains(u':') || p.contains(u'@'))
            problems << tr("\"%1\" looks like a path or a URL: only package names and version "
                           "constraints are allowed.")
                            .arg(p);
        else if (!pattern.match(p).hasMatch())
            problems << tr("\"%1\" is not a package name with optional version constraints "
                           "(e.g. numpy, pandas>=2,<3).")
                            .arg(p);
    }
    return problems;
}

QString EnvironmentInfo::nameProblem(const QString& name) {
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9 ._-]*$"));
    if (name.isEmpty())
        return tr("Give the environment a name.");
    if (name.size() > 80 || !pattern.match(name).hasMatch())
        return tr("A name is 1–80 letters, digits, spaces, '.', '_' or '-', starting with a "
                  "letter or digit.");
    return {};
}

} // namespace runbox::console
