#include "cli/CliOptions.h"

#include "shared/ApiClient.h"
#include "shared/FleetFile.h"
#include "shared/PoolHostToken.h"
#include "shared/PoolSecret.h"
#include "shared/PrivateFile.h"
#include "shared/TlsPin.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QTextStream>

#include <unistd.h>

namespace runbox::cli {

QString takeGlobalOption(QStringList* args, const QString& name, QString* error) {
    const qsizetype dash = args->indexOf(QStringLiteral("--"));
    const qsizetype end = dash < 0 ? args->size() : dash;
    for (qsizetype i = 0; i < end; ++i) {
        const QString& arg = args->at(i);
        if (arg.startsWith(name + QLatin1Char('='))) {
            const QString value = arg.mid(name.size() + 1);
            args->removeAt(i);
            return value;
        }
        if (arg != name)
            continue;
        if (i + 1 >= end) {
            *error = QStringLiteral("%1 needs a value").arg(name);
            return {};
        }
        const QString value = args->at(i + 1);
        args->remove(i, 2);
        return value;
    }
    return {};
}

namespace {

QByteArray readTrimmed(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed() : QByteArray();
}

} // namespace

bool ParsedArgs::parse(const QStringList& args, const QList<OptionSpec>& options, QString* error) {
    auto find = [&options](const QString& arg) -> const OptionSpec* {
        for (const OptionSpec& o : options)
            if (arg == o.name || (!o.alias.isEmpty() && arg == o.alias))
                return &o;
        return nullptr;
    };
    positional.clear();
    rest.clear();
    dashDash = false;
    m_values.clear();
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& arg = args.at(i);
        if (arg == QLatin1String("--")) {
            dashDash = true;
            rest = args.mid(i + 1);
            return true;
        }
        if (!arg.startsWith(QLatin1Char('-')) || arg == QLatin1String("-")) {
            positional << arg;
            continue;
        }
        const qsizetype eq = arg.startsWith(QLatin1String("--")) ? arg.indexOf('=') : -1;
        const OptionSpec* spec = find(eq > 0 ? arg.left(eq) : arg);
        if (!spec) {
            *error = QStringLiteral("unknown option \"%1\"").arg(eq > 0 ? arg.left(eq) : arg);
            return false;
        }
        if (!spec->takesValue) {
            if (eq > 0) {
                *error = QStringLiteral("%1 takes no value").arg(spec->name);
                return false;
            }
            m_values[spec->name] = QStringList{QString()};
            continue;
        }
        if (eq > 0) {
            m_values[spec->name] << arg.mid(eq + 1);
            continue;
        }
        if (i + 1 >= args.size() || args.at(i + 1) == QLatin1String("--") || find(args.at(i + 1))) {
            *error = QStringLiteral("%1 needs a value").arg(spec->name);
            return false;
        }
        m_values[spec->name] << args.at(++i);
    }
    return true;
}

QString ParsedArgs::value(const QString& name) const {
    const QStringList v = m_values.value(name);
    return v.isEmpty() ? QString() : v.last();
}

bool parseCommandArgs(const char* command, const QStringList& args,
                      const QList<OptionSpec>& options, const char* usage, ParsedArgs* out) {
    QString error;
    if (out->parse(args, options, &error))
        return true;
    usageError(command, error, usage);
    return false;
}

int usageError(const char* command, const QString& message, const char* usage) {
    QTextStream err(stderr);
    err << "runbox " << command << ": " << message << Qt::endl;
    if (usage && *usage)
        err << "usage: " << usage << Qt::endl;
    return kExitUsage;
}

int failureExit(const ApiResponse& response) {
    return response.status == 0 ? kExitConnection : kExitApiError;
}

int reportFailure(const char* command, const ApiResponse& response) {
    QTextStream err(stderr);
    if (response.status == 0)
        err << "runbox " << command << ": cannot reach the agent: " << response.networkError
            << Qt::endl;
    else
        err << "runbox " << command << ": " << response.status << ' ' << response.errorCode()
            << ": " << response.errorMessage() << Qt::endl;
    return failureExit(response);
}

int printJsonResponse(const char* command, const ApiResponse& response) {
    if (!response.ok())
        return reportFailure(command, response);
    QTextStream(stdout) << QJsonDocument::fromJson(response.body).toJson(QJsonDocument::Indented);
    return kExitOk;
}

QString Connection::parse(QStringList* args) {
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QString error;
    QString stateDir = takeGlobalOption(args, QStringLiteral("--state-dir"), &error);
    QString urlText = takeGlobalOption(args, QStringLiteral("--url"), &error);
    QString tokenText = takeGlobalOption(args, QStringLiteral("--token"), &error);
    const QString tokenFile = takeGlobalOption(args, QStringLiteral("--token-file"), &error);
    QString fingerprint = takeGlobalOption(args, QStringLiteral("--fingerprint"), &error);
    poolName = takeGlobalOption(args, QStringLiteral("--pool"), &error);
    if (!error.isEmpty())
        return error;
    if (!poolName.isEmpty()) {
        if (!FleetFile::validName(poolName))
            return QStringLiteral("--pool \"%1\" must be 1-64 of A-Z a-z 0-9 _ -").arg(poolName);
        if (!tokenText.isEmpty() || !tokenFile.isEmpty())
            return QStringLiteral("--pool derives the token from the pool's secret: give no "
                                  "--token or --token-file with it");
    }
    if (stateDir.isEmpty())
        stateDir =
            env.value(QStringLiteral("RUNBOX_STATE_DIR"),
                      ::geteuid() == 0 ? QStringLiteral("/var/lib/runbox") // as the agent's default
                                       : QDir::homePath() + QStringLiteral("/.local/state/runbox"));
    if (urlText.isEmpty())
        urlText = env.value(QStringLiteral("RUNBOX_URL"));
    urlGiven = !urlText.isEmpty();
    if (urlText.isEmpty())
        urlText = QString::fromUtf8(readTrimmed(stateDir + QStringLiteral("/agent.url")));
    if (urlText.isEmpty())
        urlText = QStringLiteral("http://127.0.0.1:4311");
    if (tokenText.isEmpty() && poolName.isEmpty())
        tokenText = env.value(QStringLiteral("RUNBOX_TOKEN"));
    token = tokenText.toUtf8();
    if (token.isEmpty() && poolName.isEmpty() && !tokenFile.isEmpty()) {
        // The operator's own token file: read under shared/PrivateFile's rules (a regular file
        // of this user, 0600), as the agent reads its own (docs/contracts.md "Processes and
        // start-up"); a FIFO is refused at once instead of hanging.
        QByteArray contents;
        QString reason;
        if (!PrivateFile::read(tokenFile, &contents, &reason))
            return QStringLiteral("--token-file: %1").arg(reason);
        token = contents.trimmed();
    } else if (token.isEmpty() && poolName.isEmpty()) {
        token = readTrimmed(stateDir + QStringLiteral("/agent.token"));
    }
    url = QUrl(urlText);
    const bool https = url.scheme() == QLatin1String("https");
    if (!url.isValid() || (url.scheme() != QLatin1String("http") && !https))
        return QStringLiteral("agent URL \"%1\" is not an http:// or https:// URL").arg(urlText);
    if (fingerprint.isEmpty())
        fingerprint = env.value(QStringLiteral("RUNBOX_FINGERPRINT"));
    if (!fingerprint.isEmpty()) {
        const auto sha256 = tls::parseFingerprint(fingerprint);
        if (!sha256)
            return QStringLiteral("fingerprint \"%1\" is not a SHA-256 fingerprint (AB:CD:… as "
                                  "runbox-agent --print-fingerprint prints it, or sha256:<64 hex>)")
                .arg(fingerprint.left(200));
        if (!https)
            return QStringLiteral("--fingerprint (RUNBOX_FINGERPRINT) pins a TLS certificate: the "
                                  "agent URL must be https://, not %1")
                .arg(urlText);
        pin = *sha256;
    }
    if (token.isEmpty() && poolName.isEmpty())
        return QStringLiteral("no token: give --token, RUNBOX_TOKEN or --token-file (the agent "
                              "writes it to <state-dir>/agent.token)");
    return {};
}

QString Connection::derivePoolToken() {
    QString error;
    const QByteArray secret = PoolSecret::read(PoolSecret::defaultPath(poolName), &error);
    if (secret.isEmpty())
        return error;
    token = PoolHostToken::derive(url, pin, secret, &error);
    return error;
}

} // namespace runbox::cli
