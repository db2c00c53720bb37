#include "cli/CliOptions.h"

#include <QDir>
#include <QFile>
#include <QProcessEnvironment>

#include <unistd.h>

namespace runbox::cli {

QString takeOption(QStringList* args, const QString& name, QString* error) {
    const qsizetype i = args->indexOf(name);
    if (i < 0 ||
        (args->indexOf(QStringLiteral("--")) >= 0 && i > args->indexOf(QStringLiteral("--"))))
        return {};
    if (i + 1 >= args->size()) {
        *error = QStringLiteral("%1 needs a value").arg(name);
        return {};
    }
    const QString value = args->at(i + 1);
    args->remove(i, 2);
    return value;
}

QStringList takeRepeatedOption(QStringList* args, const QString& name, QString* error) {
    QStringList values;
    for (;;) {
        const QString v = takeOption(args, name, error);
        if (v.isEmpty())
            return values;
        values << v;
    }
}

bool takeFlag(QStringList* args, const QString& name) {
    const qsizetype dash = args->indexOf(QStringLiteral("--"));
    const qsizetype i = args->indexOf(name);
    if (i < 0 || (dash >= 0 && i > dash))
        return false;
    args->removeAt(i);
    return true;
}

static QByteArray readTrimmed(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed() : QByteArray();
}

QString Connection::parse(QStringList* args) {
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QString error;
    QString stateDir = takeOption(args, QStringLiteral("--state-dir"), &error);
    QString urlText = takeOption(args, QStringLiteral("--url"), &error);
    QString tokenText = takeOption(args, QStringLiteral("--token"), &error);
    const QString tokenFile = takeOption(args, QStringLiteral("--token-file"), &error);
    if (!error.isEmpty())
        return error;
    if (stateDir.isEmpty())
        stateDir =
            env.value(QStringLiteral("RUNBOX_STATE_DIR"),
                      ::geteuid() == 0 ? QStringLiteral("/var/lib/runbox") // as the agent's default
                                       : QDir::homePath() + QStringLiteral("/.local/state/runbox"));
    if (urlText.isEmpty())
        urlText = env.value(QStringLiteral("RUNBOX_URL"));
    if (urlText.isEmpty())
        urlText = QString::fromUtf8(readTrimmed(stateDir + QStringLiteral("/agent.url")));
    if (urlText.isEmpty())
        urlText = QStringLiteral("http://127.0.0.1:4311");
    if (tokenText.isEmpty())
        tokenText = env.value(QStringLiteral("RUNBOX_TOKEN"));
    token = tokenText.toUtf8();
    if (token.isEmpty())
        token = readTrimmed(tokenFile.isEmpty() ? stateDir + QStringLiteral("/agent.token")
                                                : tokenFile);
    url = QUrl(urlText);
    if (!url.isValid() || url.scheme() != QLatin1String("http"))
        return QStringLiteral("agent URL \"%1\" is not an http:// URL").arg(urlText);
    if (token.isEmpty())
        return QStringLiteral("no token: give --token, RUNBOX_TOKEN or --token-file (the agent "
                              "writes it to <state-dir>/agent.token)");
    return {};
}

} // namespace runbox::cli
