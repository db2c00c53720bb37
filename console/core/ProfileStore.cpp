#include "console/core/ProfileStore.h"

#include "console/core/ConsoleSettings.h"

#include <QFileInfo>
#include <QRegularExpression>

namespace runbox::console {

namespace {
const QString kFilePrefix = QStringLiteral("file:");

/// One entry as the fleet file writes it: what tells whether the console changed it.
QByteArray entryJson(const FleetAgent& agent) {
    FleetFile one;
    one.setAgents({agent});
    return one.toJson();
}
const QString kPoolPrefix = QStringLiteral("pool:");
} // namespace

ProfileStore::ProfileStore(QString fleetPath) : m_path(std::move(fleetPath)) {}

AgentProfile ProfileStore::fromFleet(const FleetAgent& agent) {
    AgentProfile p;
    p.id = !agent.keychain.isEmpty() ? agent.keychain
           : !agent.pool.isEmpty()   ? kPoolPrefix + agent.name
                                     : kFilePrefix + agent.name;
    p.name = agent.name;
    p.tokenFile = agent.tokenFile;
    p.pool = agent.pool;
    p.fingerprint = agent.fingerprint;
    if (agent.viaSsh()) {
        p.viaSsh = true;
        p.sshHost = agent.ssh.host;
        p.sshUser = agent.ssh.user;
        p.sshPort = agent.ssh.port;
        p.sshRemote = agent.ssh.remote;
    } else {
        p.url = QUrl(agent.url);
    }
    return p;
}

FleetAgent ProfileStore::toFleet(const AgentProfile& profile) {
    FleetAgent a;
    a.name = profile.name;
    if (profile.viaSsh)
        a.ssh = FleetSsh{profile.sshHost.trimmed(), profile.sshUser.trimmed(), profile.sshPort,
                         profile.sshRemote.trimmed()};
    else
        a.url = profile.url.toString(QUrl::StripTrailingSlash);
    if (!profile.pool.isEmpty())
        a.pool = profile.pool;
    else if (!profile.tokenFile.isEmpty())
        a.tokenFile = profile.tokenFile;
    else
        a.keychain = profile.id;
    a.fingerprint = profile.fingerprint;
    return a;
}

QString ProfileStore::fleetName(const QString& name, const QSet<QString>& taken) {
    static const QRegularExpression kOther(QStringLiteral("[^A-Za-z0-9_-]+"));
    QString base = name.trimmed().replace(kOther, QStringLiteral("-")).left(64);
    while (base.startsWith(u'-') && base.size() > 1)
        base.remove(0, 1);
    if (base.isEmpty() || base == QLatin1String("-"))
        base = QStringLiteral("agent");
    QString candidate = base;
    for (int n = 2; taken.contains(candidate); ++n) {
        const QString suffix = QStringLiteral("-%1").arg(n);
        candidate = base.left(64 - int(suffix.size())) + suffix;
    }
    return candidate;
}

QString ProfileStore::load(QList<AgentProfile>* profiles) {
    profiles->clear();
    m_loaded = false;
    m_seen.clear();
    if (!QFileInfo::exists(m_path)) {
        m_loaded = true;
        return {};
    }
    FleetFile file;
    if (const QString error = file.load(m_path); !error.isEmpty())
        return error;
    for (const FleetAgent& agent : file.agents()) {
        profiles->append(fromFleet(agent));
        m_seen.insert(agent.name, entryJson(agent));
        if (!agent.tokenFile.isEmpty())
            m_tokenFilesAsWritten.insert(agent.tokenFile, agent.tokenFileAsWritten);
    }
    m_loaded = true;
    return {};
}

QString ProfileStore::migrate(ConsoleSettings* settings, QList<AgentProfile>* profiles) {
    const QList<AgentProfile> legacy = settings->legacyProfiles();
    if (legacy.isEmpty())
        return {};
    if (!m_loaded)
        return QStringLiteral("the agents saved in the console's settings stay there until the "
                              "fleet file %1 can be read")
            .arg(m_path);
    QList<AgentProfile> merged = *profiles;
    QSet<QString> names;
    QSet<QString> ids;
    for (const AgentProfile& p : merged) {
        names.insert(p.name);
        ids.insert(p.id);
    }
    for (AgentProfile p : legacy) {
        if (ids.contains(p.id))
            continue; // already moved (a console that stopped before clearing its settings)
        p.name = fleetName(p.name, names);
        names.insert(p.name);
        ids.insert(p.id);
        merged.append(p);
    }
    if (const QString error = save(merged); !error.isEmpty())
        return error;
    settings->clearLegacyProfiles();
    settings->sync();
    *profiles = merged;
    return {};
}

QString ProfileStore::save(const QList<AgentProfile>& profiles) {
    if (!m_loaded)
        return QStringLiteral("the fleet file %1 could not be read, so it is left as it is; "
                              "mend it and restart the console")
            .arg(m_path);
    // What the file holds now: another program (runbox pool create, an editor) may have added,
    // changed or removed entries since load().
    QHash<QString, FleetAgent> now;
    QList<FleetAgent> nowInOrder;
    if (QFileInfo::exists(m_path)) {
        FleetFile current;
        if (const QString error = current.load(m_path); !error.isEmpty())
            return error + QStringLiteral(" (not overwritten)");
        nowInOrder = current.agents();
        for (const FleetAgent& agent : nowInOrder)
            now.insert(agent.name, agent);
    }
    QList<FleetAgent> agents;
    QSet<QString> names;
    for (const AgentProfile& p : profiles) {
        FleetAgent agent = toFleet(p);
        agent.tokenFileAsWritten = m_tokenFilesAsWritten.value(agent.tokenFile);
        const bool unchangedHere = m_seen.value(p.name) == entryJson(agent);
        if (unchangedHere && !now.contains(p.name))
            continue; // removed by another program, untouched here: stays removed
        agents.append(unchangedHere ? now.value(p.name) : agent); // others' edits kept
        names.insert(p.name);
    }
    // Agents another program added since load() are kept, after the console's own.
    for (const FleetAgent& agent : std::as_const(nowInOrder))
        if (!m_seen.contains(agent.name) && !names.contains(agent.name)) {
            agents.append(agent);
            names.insert(agent.name);
        }
    FleetFile file;
    file.setAgents(agents);
    // What the CLI and the Python client would refuse is never written.
    if (const QString error = FleetFile().parse(file.toJson(), m_path); !error.isEmpty())
        return error + QStringLiteral(" (not written)");
    if (const QString error = file.save(m_path); !error.isEmpty())
        return error;
    m_seen.clear();
    for (const FleetAgent& agent : std::as_const(agents))
        m_seen.insert(agent.name, entryJson(agent));
    return {};
}

} // namespace runbox::console
