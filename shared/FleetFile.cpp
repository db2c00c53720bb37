#include "shared/FleetFile.h"

#include "shared/PoolSecret.h"
#include "shared/PrivateFile.h"
#include "shared/TlsPin.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

#include <sys/stat.h>

#include <cmath>

namespace runbox {

namespace {

const QStringList kAgentMembers{QStringLiteral("name"),     QStringLiteral("url"),
                                QStringLiteral("ssh"),      QStringLiteral("tokenFile"),
                                QStringLiteral("keychain"), QStringLiteral("fingerprint"),
                                QStringLiteral("pool")};
const QStringList kSshMembers{QStringLiteral("host"), QStringLiteral("user"),
                              QStringLiteral("port"), QStringLiteral("remote")};

/// Whether @p value could reach ssh as an option or split into two arguments.
bool unsafeSshWord(const QString& value) {
    static const QRegularExpression kSpace(QStringLiteral("[\\s\\x00-\\x1f]"));
    return value.startsWith(u'-') || value.contains(kSpace);
}

/// Reads an agent's "ssh" object into @p ssh; empty, or why not (docs/contracts.md "Fleet file").
QString parseSsh(const QJsonValue& value, FleetSsh* ssh) {
    if (!value.isObject())
        return QStringLiteral("\"ssh\" must be an object {\"host\",\"user\",\"port\",\"remote\"}");
    const QJsonObject o = value.toObject();
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!kSshMembers.contains(it.key()))
            return QStringLiteral("unknown member \"ssh.%1\"").arg(it.key());
        if (it.key() == QLatin1String("port") ? !it.value().isDouble() : !it.value().isString())
            return QStringLiteral("\"ssh.%1\" must be a %2")
                .arg(it.key(), it.key() == QLatin1String("port") ? QStringLiteral("number")
                                                                 : QStringLiteral("string"));
    }
    ssh->host = o.value(QLatin1String("host")).toString();
    ssh->user = o.value(QLatin1String("user")).toString();
    ssh->remote = o.value(QLatin1String("remote")).toString();
    const double port = o.value(QLatin1String("port")).toDouble(0);
    if (ssh->host.isEmpty() || unsafeSshWord(ssh->host))
        return QStringLiteral("\"ssh.host\" must be a host name or address (not an option)");
    if (unsafeSshWord(ssh->user))
        return QStringLiteral("\"ssh.user\" must be a user name (not an option)");
    if (o.contains(QLatin1String("port")) && (port != std::floor(port) || port < 1 || port > 65535))
        return QStringLiteral("\"ssh.port\" must be 1-65535");
    ssh->port = int(port);
    static const QRegularExpression kHostPort(QStringLiteral("^[^\\s/:-][^\\s/]*:[0-9]{1,5}$"));
    if (!ssh->remote.isEmpty() && !ssh->remote.startsWith(u'/') &&
        !kHostPort.match(ssh->remote).hasMatch())
        return QStringLiteral("\"ssh.remote\" must be an absolute unix socket path or host:port");
    if (ssh->remote.contains(QRegularExpression(QStringLiteral("[\\x00-\\x1f]"))))
        return QStringLiteral("\"ssh.remote\" must not hold control characters");
    return {};
}

/// Reads one entry of "agents" (not yet its uniqueness) into @p a; empty, or why not.
QString parseAgent(const QJsonObject& o, const QDir& base, FleetAgent* a) {
    if (o.contains(QLatin1String("token")))
        return QStringLiteral("a token is never stored in the fleet file; name a 0600 "
                              "\"tokenFile\" or a \"keychain\" entry");
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!kAgentMembers.contains(it.key()))
            return QStringLiteral("unknown member \"%1\"").arg(it.key());
        if (it.key() != QLatin1String("ssh") && !it.value().isString())
            return QStringLiteral("\"%1\" must be a string").arg(it.key());
    }
    a->name = o.value(QLatin1String("name")).toString();
    a->url = o.value(QLatin1String("url")).toString();
    a->tokenFileAsWritten = o.value(QLatin1String("tokenFile")).toString();
    a->keychain = o.value(QLatin1String("keychain")).toString();
    a->fingerprint = o.value(QLatin1String("fingerprint")).toString();
    if (!FleetFile::validName(a->name))
        return QStringLiteral("name \"%1\" must be 1-64 of A-Z a-z 0-9 _ -").arg(a->name);
    if (o.contains(QLatin1String("ssh")) == o.contains(QLatin1String("url")))
        return QStringLiteral("give one of \"url\" and \"ssh\"");
    if (o.contains(QLatin1String("ssh"))) {
        if (const QString e = parseSsh(o.value(QLatin1String("ssh")), &a->ssh); !e.isEmpty())
            return e;
    } else {
        const QUrl url(a->url);
        if (!url.isValid() || url.host().isEmpty() ||
            (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
            return QStringLiteral("url \"%1\" is not http(s)://HOST:PORT").arg(a->url);
    }
    if (!a->fingerprint.isEmpty()) {
        const std::optional<QByteArray> pin = tls::parseFingerprint(a->fingerprint);
        if (!pin)
            return QStringLiteral("fingerprint \"%1\" is not a SHA-256 fingerprint (AB:CD:… as "
                                  "runbox-agent --print-fingerprint prints it)")
                .arg(a->fingerprint.left(200));
        if (QUrl(a->url).scheme() != QLatin1String("https"))
            return QStringLiteral("a fingerprint pins a TLS certificate: the url must be https://");
        a->pin = *pin;
    }
    a->pool = o.value(QLatin1String("pool")).toString();
    if (int(!a->tokenFileAsWritten.isEmpty()) + int(!a->keychain.isEmpty()) +
            int(!a->pool.isEmpty()) !=
        1)
        return QStringLiteral("give one of \"tokenFile\", \"keychain\" and \"pool\"");
    if (!a->pool.isEmpty() && !FleetFile::validName(a->pool))
        return QStringLiteral("pool \"%1\" must be 1-64 of A-Z a-z 0-9 _ -").arg(a->pool);
    if (!a->pool.isEmpty() && a->viaSsh())
        return QStringLiteral("a pool entry is reached by its url: give \"url\", not \"ssh\"");
    if (!a->tokenFileAsWritten.isEmpty())
        a->tokenFile = QDir::cleanPath(base.absoluteFilePath(a->tokenFileAsWritten));
    return {};
}

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
        FleetAgent a;
        if (const QString e = parseAgent(list[i].toObject(), base, &a); !e.isEmpty())
            return where + QStringLiteral(": ") + e;
        for (const FleetAgent& other : agents)
            if (other.name == a.name)
                return where + QStringLiteral(": name \"%1\" is listed twice").arg(a.name);
        agents << a;
    }
    m_agents = agents;
    return {};
}

QByteArray FleetFile::toJson() const {
    QJsonArray list;
    for (const FleetAgent& a : m_agents) {
        QJsonObject o{{QStringLiteral("name"), a.name}};
        if (a.viaSsh()) {
            QJsonObject ssh{{QStringLiteral("host"), a.ssh.host}};
            if (!a.ssh.user.isEmpty())
                ssh.insert(QStringLiteral("user"), a.ssh.user);
            if (a.ssh.port > 0)
                ssh.insert(QStringLiteral("port"), a.ssh.port);
            if (!a.ssh.remote.isEmpty())
                ssh.insert(QStringLiteral("remote"), a.ssh.remote);
            o.insert(QStringLiteral("ssh"), ssh);
        } else {
            o.insert(QStringLiteral("url"), a.url);
        }
        if (!a.keychain.isEmpty())
            o.insert(QStringLiteral("keychain"), a.keychain);
        else if (!a.pool.isEmpty())
            o.insert(QStringLiteral("pool"), a.pool);
        else
            o.insert(QStringLiteral("tokenFile"),
                     a.tokenFileAsWritten.isEmpty() ? a.tokenFile : a.tokenFileAsWritten);
        if (!a.fingerprint.isEmpty())
            o.insert(QStringLiteral("fingerprint"), a.fingerprint);
        list.append(o);
    }
    return QJsonDocument(QJsonObject{{QStringLiteral("agents"), list}})
        .toJson(QJsonDocument::Indented);
}

QString FleetFile::save(const QString& path) const {
    const QFileInfo info(path);
    if (!QDir().mkpath(info.absolutePath()))
        return QStringLiteral("cannot make the directory of the fleet file %1").arg(path);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QStringLiteral("cannot write the fleet file %1: %2").arg(path, file.errorString());
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(toJson());
    if (!file.commit())
        return QStringLiteral("cannot write the fleet file %1: %2").arg(path, file.errorString());
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
    // A pool's secret is never sent, not even through a fleet entry that names it.
    const QString secrets =
        QFileInfo(QFileInfo(PoolSecret::defaultPath(QStringLiteral("x"))).path())
            .canonicalFilePath();
    const QString canonical = QFileInfo(agent.tokenFile).canonicalFilePath();
    if (!secrets.isEmpty() && canonical.startsWith(secrets + u'/')) {
        *error = QStringLiteral("agent %1: token file %2 is a pool's secret, which is never sent "
                                "(give the pool entry \"pool\" instead)")
                     .arg(agent.name, agent.tokenFile);
        return {};
    }
    // One open, checked on its descriptor: a regular file of this user's, 0600 (PrivateFile).
    QByteArray contents;
    QString why;
    if (!PrivateFile::read(agent.tokenFile, &contents, &why, PrivateFile::Owner::ThisUserOrAny)) {
        *error = QStringLiteral("agent %1: %2").arg(agent.name, why);
        return {};
    }
    const QByteArray token = contents.trimmed();
    if (token.isEmpty()) {
        *error =
            QStringLiteral("agent %1: token file %2 is empty").arg(agent.name, agent.tokenFile);
        return {};
    }
    // Only a token is sent as one: whatever else a fleet entry names (a key, another secret) is
    // refused rather than handed to the entry's URL.
    static const QRegularExpression kToken(QStringLiteral(
        "^([0-9a-f]{64}|ws1\\.[A-Za-z0-9][A-Za-z0-9_-]*\\.[0-9a-f]{32}\\.[0-9a-f]{64})$"));
    if (!kToken.match(QString::fromLatin1(token)).hasMatch()) {
        *error = QStringLiteral("agent %1: token file %2 does not hold an agent token (64 hex "
                                "characters) or a workspace token (ws1.…); it is not sent")
                     .arg(agent.name, agent.tokenFile);
        return {};
    }
    return token;
}

} // namespace runbox
