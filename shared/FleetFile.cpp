#include "shared/FleetFile.h"

#include "shared/TlsPin.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStandardPaths>

#include <sys/stat.h>

namespace runbox {

namespace {

const QStringList kAgentMembers{QStringLiteral("name"),        QStringLiteral("url"),
                                QStringLiteral("tokenFile"),   QStringLiteral("keychain"),
                                QStringLiteral("fingerprint"), QStringLiteral("pool")};

} // namespace

QString FleetFile::defaultPath() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
           QStringLiteral("/runbox/fleet.json");
}

bool FleetFile::validName(const QString& name) {
    static const QRegularExpression kName(QStringLiteral("^[A-Za-z0-9_-]{1,64}$"));
    return kName.match(name).hasMatch();
}

QString FleetFile::load(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("cannot read the fleet file %1: %2").arg(path, file.errorString());
    return parse(file.readAll(), path);
}

QString FleetFile::parse(const QByteArray& json, const QString& path) {
    m_agents.clear();
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (!doc.isObject())
        return QStringLiteral("fleet file %1 is not a JSON object: %2")
            .arg(path, parseError.errorString());
    const QJsonObject root = doc.object();
    for (auto it = root.begin(); it != root.end(); ++it)
        if (it.key() != QLatin1String("agents"))
            return QStringLiteral("fleet file %1: unknown member \"%2\"").arg(path, it.key());
    if (!root.value(QLatin1String("agents")).isArray())
        return QStringLiteral("fleet file %1: \"agents\" must be an array").arg(path);
    const QDir base = QFileInfo(path).absoluteDir();
    QList<FleetAgent> agents;
    const QJsonArray list = root.value(QLatin1String("agents")).toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("fleet file %1, agent %2").arg(path).arg(i + 1);
        if (!list[i].isObject())
            return where + QStringLiteral(": not an object");
        const QJsonObject o = list[i].toObject();
        if (o.contains(QLatin1String("token")))
            return where + QStringLiteral(": a token is never stored in the fleet file; name a "
                                          "0600 \"tokenFile\" or a \"keychain\" entry");
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (!kAgentMembers.contains(it.key()))
                return where + QStringLiteral(": unknown member \"%1\"").arg(it.key());
            if (!it.value().isString())
                return where + QStringLiteral(": \"%1\" must be a string").arg(it.key());
        }
        FleetAgent a;
        a.name = o.value(QLatin1String("name")).toString();
        a.url = o.value(QLatin1String("url")).toString();
        a.tokenFile = o.value(QLatin1String("tokenFile")).toString();
        a.keychain = o.value(QLatin1String("keychain")).toString();
        a.fingerprint = o.value(QLatin1String("fingerprint")).toString();
        a.pool = o.value(QLatin1String("pool")).toString();
        if (!validName(a.name))
            return where +
                   QStringLiteral(": name \"%1\" must be 1-64 of A-Z a-z 0-9 _ -").arg(a.name);
        for (const FleetAgent& other : agents)
            if (other.name == a.name)
                return where + QStringLiteral(": name \"%1\" is listed twice").arg(a.name);
        const QUrl url(a.url);
        if (!url.isValid() || url.host().isEmpty() ||
            (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
            return where + QStringLiteral(": url \"%1\" is not http(s)://HOST:PORT").arg(a.url);
        if (!a.fingerprint.isEmpty()) {
            const std::optional<QByteArray> pin = tls::parseFingerprint(a.fingerprint);
            if (!pin)
                return where + QStringLiteral(": fingerprint \"%1\" is not a SHA-256 fingerprint "
                                              "(AB:CD:… as runbox-agent --print-fingerprint "
                                              "prints it)")
                                   .arg(a.fingerprint.left(200));
            if (url.scheme() != QLatin1String("https"))
                return where + QStringLiteral(": a fingerprint pins a TLS certificate: the url "
                                              "must be https://");
            a.pin = *pin;
        }
        if (int(!a.tokenFile.isEmpty()) + int(!a.keychain.isEmpty()) + int(!a.pool.isEmpty()) != 1)
            return where + QStringLiteral(": give one of \"tokenFile\", \"keychain\" and "
                                          "\"pool\"");
        if (!a.pool.isEmpty() && !validName(a.pool))
            return where +
                   QStringLiteral(": pool \"%1\" must be 1-64 of A-Z a-z 0-9 _ -").arg(a.pool);
        if (!a.tokenFile.isEmpty())
            a.tokenFile = QDir::cleanPath(base.absoluteFilePath(a.tokenFile));
        agents << a;
    }
    m_agents = agents;
    return {};
}

const FleetAgent* FleetFile::find(const QString& name) const {
    for (const FleetAgent& a : m_agents)
        if (a.name == name)
            return &a;
    return nullptr;
}

QByteArray FleetFile::readToken(const FleetAgent& agent, QString* error) {
    if (!agent.pool.isEmpty()) {
        *error = QStringLiteral("agent %1: its token is derived from the secret of pool %2 "
                                "(PoolHostToken), not read from a file")
                     .arg(agent.name, agent.pool);
        return {};
    }
    if (!agent.keychain.isEmpty()) {
        *error = QStringLiteral("agent %1: its token is in the keychain entry \"%2\", which only "
                                "the console reads; give it a tokenFile")
                     .arg(agent.name, agent.keychain);
        return {};
    }
    struct stat st {};
    if (::stat(QFile::encodeName(agent.tokenFile).constData(), &st) != 0) {
        *error =
            QStringLiteral("agent %1: cannot read token file %2").arg(agent.name, agent.tokenFile);
        return {};
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        *error = QStringLiteral("agent %1: token file %2 is readable by group or others "
                                "(chmod 600 it)")
                     .arg(agent.name, agent.tokenFile);
        return {};
    }
    QFile file(agent.tokenFile);
    const QByteArray token =
        file.open(QIODevice::ReadOnly) ? file.readAll().trimmed() : QByteArray();
    if (token.isEmpty())
        *error = QStringLiteral("agent %1: token file %2 is empty or unreadable")
                     .arg(agent.name, agent.tokenFile);
    return token;
}

} // namespace runbox
