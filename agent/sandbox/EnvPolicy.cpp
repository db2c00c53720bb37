#include "agent/sandbox/EnvPolicy.h"

#include <QJsonObject>
#include <QRegularExpression>

namespace runbox::sandbox {

namespace {
constexpr qsizetype kMaxValueBytes = 128 * 1024;
constexpr qsizetype kMaxTotalBytes = 1024 * 1024;

const char* const kReservedNames[] = {"HOME",
                                      "PYTHONNOUSERSITE",
                                      "HTTP_PROXY",
                                      "HTTPS_PROXY",
                                      "http_proxy",
                                      "https_proxy",
                                      "NO_PROXY",
                                      "no_proxy",
                                      "ALL_PROXY",
                                      "all_proxy",
                                      "FTP_PROXY",
                                      "ftp_proxy",
                                      "ASCEND_VISIBLE_DEVICES",
                                      "ASCEND_RT_VISIBLE_DEVICES"};
const char* const kDangerousNames[] = {"BASH_ENV",
                                       "ENV",
                                       "PYTHONHOME",
                                       "PYTHONSTARTUP",
                                       "PYTHONINSPECT",
                                       "PYTHONBREAKPOINT",
                                       "PERL5OPT",
                                       "PERL5LIB",
                                       "PERLLIB",
                                       "RUBYOPT",
                                       "NODE_OPTIONS",
                                       "GCONV_PATH",
                                       "GLIBC_TUNABLES",
                                       "IFS",
                                       "PS4",
                                       "SHELLOPTS",
                                       "BASHOPTS",
                                       "PROMPT_COMMAND",
                                       "R_PROFILE",
                                       "R_PROFILE_USER",
                                       "R_ENVIRON",
                                       "R_ENVIRON_USER",
                                       "JAVA_TOOL_OPTIONS",
                                       "MALLOC_CHECK_"};
const char* const kDangerousPrefixes[] = {"LD_", "BASH_FUNC_", "RUNBOX_", "MALLOC_"};
} // namespace

QString EnvPolicy::refusalReason(const QString& name) {
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    if (!valid.match(name).hasMatch())
        return QStringLiteral("environment variable name \"%1\" is not a valid name "
                              "(must match ^[A-Za-z_][A-Za-z0-9_]*$)")
            .arg(name.left(80));
    for (const char* reserved : kReservedNames)
        if (name == QLatin1String(reserved))
            return QStringLiteral("environment variable %1 is set by the agent and cannot be "
                                  "overridden")
                .arg(name);
    for (const char* dangerous : kDangerousNames)
        if (name == QLatin1String(dangerous))
            return QStringLiteral("environment variable %1 changes how programs start and is "
                                  "not allowed")
                .arg(name);
    for (const char* prefix : kDangerousPrefixes)
        if (name.startsWith(QLatin1String(prefix)))
            return QStringLiteral("environment variables starting with %1 are not allowed (%2)")
                .arg(QLatin1String(prefix), name);
    return {};
}

std::optional<Error> EnvPolicy::parse(const QJsonValue& env, QMap<QString, QString>* out) {
    out->clear();
    if (env.isUndefined() || env.isNull())
        return std::nullopt;
    auto fail = [](const QString& msg) {
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_env"), msg};
    };
    if (!env.isObject())
        return fail(QStringLiteral("env must be an object of strings"));
    qsizetype total = 0;
    const QJsonObject obj = env.toObject();
    for (auto it = obj.begin(); it != obj.end(); ++it) {
        const QString reason = refusalReason(it.key());
        if (!reason.isEmpty())
            return fail(reason);
        if (!it.value().isString())
            return fail(QStringLiteral("env.%1 must be a string").arg(it.key()));
        const QString value = it.value().toString();
        if (value.contains(QChar(0)))
            return fail(QStringLiteral("env.%1 contains a NUL character").arg(it.key()));
        const qsizetype bytes = value.toUtf8().size();
        if (bytes > kMaxValueBytes)
            return fail(
                QStringLiteral("env.%1 is longer than %2 bytes").arg(it.key()).arg(kMaxValueBytes));
        total += bytes + it.key().size();
        if (total > kMaxTotalBytes)
            return fail(QStringLiteral("env is larger than %1 bytes in all").arg(kMaxTotalBytes));
        out->insert(it.key(), value);
    }
    return std::nullopt;
}

} // namespace runbox::sandbox
