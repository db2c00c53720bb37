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
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9 ._-]*\\z"));
    const QString text = name.toString();
    if (!name.isString() || text.isEmpty() || text.size() > 80 || !pattern.match(text).hasMatch())
        return invalid("invalid_environment_name",
                       QStringLiteral("name must be 1-80 characters of letters, digits, space, "
                                      "'.', '_' and '-', starting with a letter or digit"));
    return std::nullopt;
}

std::optional<Error> checkLanguage(const QJsonValue& language) {
    if (language.toString() == QLatin1String("python") || language.toString() == QLatin1String("r"))
        return std::nullopt;
    return invalid("invalid_language", QStringLiteral("language must be \"python\" or \"r\""));
}

std::optional<Error> checkProvisioner(const QJsonValue& provisioner, const QString& language,
                                      QString* out) {
    const QString fallback =
        language == QLatin1String("r") ? QStringLiteral("r-lib") : QStringLiteral("venv");
    const QString name =
        provisioner.isUndefined() || provisioner.isNull() ? fallback : provisioner.toString();
    if (name == QLatin1String("micromamba") ||
        (name == QLatin1String("venv") && language == QLatin1String("python")) ||
        (name == QLatin1String("r-lib") && language == QLatin1String("r"))) {
        *out = name;
        return std::nullopt;
    }
    return invalid("invalid_provisioner",
                   QStringLiteral("provisioner must be \"venv\" for python, \"r-lib\" for r, or "
                                  "\"micromamba\" for either"));
}

QString normalisePackage(const QString& spec, QString* why) {
    // PEP 508 names and PEP 440 version specifiers only; anything pip would read as an
    // option, a path, a URL or a marker is refused (docs/environments.md "Validation").
    static const QRegularExpression pattern(
        QStringLiteral("^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])"              // name
                       "(\\[[A-Za-z0-9][A-Za-z0-9._-]*(,[A-Za-z0-9][A-Za-z0-9._-]*)*\\])?" // extras
                       "( *(===|==|!=|<=|>=|~=|<|>) *[A-Za-z0-9.*+!_-]+" // first constraint
                       "( *, *(===|==|!=|<=|>=|~=|<|>) *[A-Za-z0-9.*+!_-]+)*)?\\z")); // more
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
    // pip reads a spec that ends like an archive as a file name in the current directory.
    static const QRegularExpression archive(
        QStringLiteral("\\.(whl|zip|tar|gz|tgz|bz2|tbz|xz|txz|egg)(\\W|\\z)"),
        QRegularExpression::CaseInsensitiveOption);
    if (text.contains(QLatin1String("..")) || text.contains('/') || text.contains('\\') ||
        text.contains(':') || text.contains('@') || archive.match(text).hasMatch()) {
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

QString normaliseRPackage(const QString& spec, QString* why) {
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z][A-Za-z0-9.]*[A-Za-z0-9]\\z"));
    const QString text = spec.trimmed();
    if (text.size() > kMaxPackageSpecChars)
        *why = QStringLiteral("is longer than %1 characters").arg(kMaxPackageSpecChars);
    else if (!pattern.match(text).hasMatch())
        *why = QStringLiteral("is not an R package name (letters, digits and '.', at least two "
                              "characters, starting with a letter, not ending with '.'; no "
                              "version, path or URL)");
    else
        return text;
    return {};
}

QString normaliseCondaPackage(const QString& spec, QString* why) {
    static const QRegularExpression pattern(QStringLiteral(
        "^[A-Za-z0-9_][A-Za-z0-9._-]*"             // name
        "(=[A-Za-z0-9.*+!_]+(=[A-Za-z0-9.*+!_]+)?" // =VERSION[=BUILD]
        "|(==|!=|<=|>=|~=|<|>)[A-Za-z0-9.*+!_]+(,(==|!=|<=|>=|~=|<|>)[A-Za-z0-9.*+!_]+)*)?\\z"));
    const QString text = spec.trimmed();
    if (text.size() > kMaxPackageSpecChars)
        *why = QStringLiteral("is longer than %1 characters").arg(kMaxPackageSpecChars);
    else if (text.startsWith('-'))
        *why = QStringLiteral("starts with '-' (micromamba options are not allowed)");
    else if (text.contains(QLatin1String("::")) || text.contains('/') || text.contains(':'))
        *why = QStringLiteral("names a channel, a path or a URL (the channels are the "
                              "operator's)");
    else if (!pattern.match(text).hasMatch())
        *why = QStringLiteral("is not a conda package spec (e.g. \"numpy\", \"numpy=1.26\", "
                              "\"scipy>=1.11,<2\")");
    else
        return text;
    return {};
}

QString packageName(const QString& spec, Grammar grammar) {
    if (grammar == Grammar::Cran)
        return spec.trimmed();
    if (grammar == Grammar::Conda) {
        static const QRegularExpression name(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9._-]*"));
        return name.match(spec.trimmed()).captured(0).toLower();
    }
    return packageName(spec);
}

QString packageName(const QString& spec) {
    static const QRegularExpression name(QStringLiteral("^[A-Za-z0-9._-]+"));
    static const QRegularExpression separators(QStringLiteral("[-_.]+"));
    return name.match(spec.trimmed())
        .captured(0)
        .toLower()
        .replace(separators, QStringLiteral("-"));
}

QStringList mergePackages(const QStringList& base, const QStringList& added, Grammar grammar) {
    QStringList out = base;
    for (const QString& spec : added) {
        const QString name = packageName(spec, grammar);
        qsizetype at = -1;
        for (qsizetype i = 0; i < out.size() && at < 0; ++i)
            if (packageName(out.at(i), grammar) == name)
                at = i;
        if (at >= 0)
            out[at] = spec;
        else
            out.append(spec);
    }
    return out;
}

std::optional<Error> removePackages(const QStringList& base, const QStringList& names,
                                    Grammar grammar, QStringList* out) {
    QStringList kept = base;
    for (qsizetype i = 0; i < names.size(); ++i) {
        const QString name = packageName(names.at(i), grammar);
        const qsizetype before = kept.size();
        kept.removeIf([&](const QString& spec) { return packageName(spec, grammar) == name; });
        if (kept.size() == before)
            return invalid("package_not_requested",
                           QStringLiteral("packages[%1] \"%2\" is not among the packages this "
                                          "environment was asked for (%3)")
                               .arg(i)
                               .arg(names.at(i), base.isEmpty() ? QStringLiteral("none")
                                                                : base.join(QStringLiteral(", "))));
    }
    *out = kept;
    return std::nullopt;
}

std::optional<Error> checkPackages(const QJsonValue& packages, QStringList* out, Grammar grammar) {
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
        const QString text = list.at(i).toString();
        const QString spec = grammar == Grammar::Cran    ? normaliseRPackage(text, &why)
                             : grammar == Grammar::Conda ? normaliseCondaPackage(text, &why)
                                                         : normalisePackage(text, &why);
        if (spec.isEmpty())
            return invalid("invalid_packages", QStringLiteral("packages[%1] %2").arg(i).arg(why));
        specs.append(spec);
    }
    *out = specs;
    return std::nullopt;
}

} // namespace runbox::environments::EnvironmentSpec
