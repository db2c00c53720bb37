#include "agent/environments/EnvironmentSpec.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace runbox::environments::EnvironmentSpec {

namespace {

Error invalid(const char* code, const QString& message) {
    return Error{ErrorKind::InvalidArgument, QLatin1String(code), message};
}

} // namespace

std::optional<Error> checkName(const QJsonValue& name) {
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9 ._-]*$"));
    const QString text = name.toString();
    if (!name.isString() || text.isEmpty() || text.size() > 80 || !pattern.match(text).hasMatch())
        return invalid("invalid_environment_name",
                       QStringLiteral("name must be 1-80 characters of letters, digits, space, "
                                      "'.', '_' and '-', starting with a letter or digit"));
    return std::nullopt;
}

std::optional<Error> checkLanguage(const QJsonValue& language) {
    if (language.toString() == QLatin1String("python"))
        return std::nullopt;
    if (language.toString() == QLatin1String("r"))
        return Error{ErrorKind::NotImplemented, QStringLiteral("provisioner_unavailable"),
                     QStringLiteral("language \"r\" needs the r-lib provisioner, which this agent "
                                    "does not have yet (docs/environments.md \"Not built yet\")")};
    return invalid("invalid_language", QStringLiteral("language must be \"python\" or \"r\""));
}

std::optional<Error> checkProvisioner(const QJsonValue& provisioner, QString* out) {
    if (provisioner.isUndefined() || provisioner.isNull() ||
        provisioner.toString() == QLatin1String("venv")) {
        *out = QStringLiteral("venv");
        return std::nullopt;
    }
    const QString name = provisioner.toString();
    if (name == QLatin1String("r-lib") || name == QLatin1String("micromamba"))
        return Error{ErrorKind::NotImplemented, QStringLiteral("provisioner_unavailable"),
                     QStringLiteral("provisioner \"%1\" is not built yet; use \"venv\" "
                                    "(docs/environments.md \"Not built yet\")")
                         .arg(name)};
    return invalid("invalid_provisioner", QStringLiteral("provisioner must be \"venv\""));
}

QString normalisePackage(const QString& spec, QString* why) {
    // PEP 508 names and PEP 440 version specifiers only; anything pip would read as an
    // option, a path, a URL or a marker is refused (docs/environments.md "Validation").
    static const QRegularExpression pattern(
        QStringLiteral("^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])" // name
                       "(\\[[A-Za-z0-9._-]+(,[A-Za-z0-9._-]+)*\\])?"          // extras
                       "( *(===|==|!=|<=|>=|~=|<|>) *[A-Za-z0-9.*+!_-]+"      // first constraint
                       "( *, *(===|==|!=|<=|>=|~=|<|>) *[A-Za-z0-9.*+!_-]+)*)?$")); // more
    const QString text = spec.trimmed();
    if (text.isEmpty()) {
        *why = QStringLiteral("is empty");
        return {};
    }
    if (text.size() > kMaxPackageSpecChars) {
        *why = QStringLiteral("is longer than %1 characters").arg(kMaxPackageSpecChars);
        return {};
    }
    if (text.startsWith('-')) {
        *why = QStringLiteral("starts with '-' (pip options are not allowed)");
        return {};
    }
    if (text.contains(QLatin1String("..")) || text.contains('/') || text.contains('\\') ||
        text.contains(':') || text.contains('@')) {
        *why = QStringLiteral("looks like a path or a URL (only names and version constraints "
                              "are allowed)");
        return {};
    }
    if (!pattern.match(text).hasMatch()) {
        *why = QStringLiteral("is not a package name with optional version constraints "
                              "(e.g. \"numpy\", \"pandas>=2,<3\")");
        return {};
    }
    return text;
}

QString packageName(const QString& spec) {
    static const QRegularExpression name(QStringLiteral("^[A-Za-z0-9._-]+"));
    static const QRegularExpression separators(QStringLiteral("[-_.]+"));
    return name.match(spec.trimmed())
        .captured(0)
        .toLower()
        .replace(separators, QStringLiteral("-"));
}

QStringList mergePackages(const QStringList& base, const QStringList& added) {
    QStringList out = base;
    for (const QString& spec : added) {
        const QString name = packageName(spec);
        qsizetype at = -1;
        for (qsizetype i = 0; i < out.size() && at < 0; ++i)
            if (packageName(out.at(i)) == name)
                at = i;
        if (at >= 0)
            out[at] = spec;
        else
            out.append(spec);
    }
    return out;
}

std::optional<Error> checkPackages(const QJsonValue& packages, QStringList* out) {
    if (!packages.isArray() || packages.toArray().isEmpty())
        return invalid("invalid_packages",
                       QStringLiteral("packages must be a non-empty array of package specs"));
    const QJsonArray list = packages.toArray();
    if (list.size() > kMaxPackages)
        return invalid("invalid_packages",
                       QStringLiteral("packages may name at most %1 specs").arg(kMaxPackages));
    QStringList specs;
    for (qsizetype i = 0; i < list.size(); ++i) {
        if (!list.at(i).isString())
            return invalid("invalid_packages",
                           QStringLiteral("packages[%1] must be a string").arg(i));
        QString why;
        const QString spec = normalisePackage(list.at(i).toString(), &why);
        if (spec.isEmpty())
            return invalid("invalid_packages", QStringLiteral("packages[%1] %2").arg(i).arg(why));
        specs.append(spec);
    }
    *out = specs;
    return std::nullopt;
}

} // namespace runbox::environments::EnvironmentSpec
