#include "cli/SlurmPoolCommand.h"

#include "cli/CliOptions.h"
#include "shared/ApiClient.h"
#include "shared/PoolCache.h"
#include "shared/PoolClient.h"
#include "shared/PoolHostToken.h"
#include "shared/PoolSecret.h"
#include "shared/SlurmHosts.h"
#include "shared/SlurmPoolDefinition.h"
#include "shared/SlurmPoolGrowth.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <memory>
#include <vector>

namespace runbox::cli {

namespace {

constexpr int kReadyTimeoutMs = 180000; // a job may wait for its node a while

int refuse(const QString& message) {
    QTextStream(stderr) << "runbox pool create: " << message << Qt::endl;
    return kExitUsage;
}

SlurmHosts slurmOf(const QString& pool) {
    return SlurmHosts(pool, SlurmHosts::defaultHostsDir(pool));
}

} // namespace

int runSlurmPoolCreate(const ParsedArgs& parsed, const QString& pool, int perHost) {
    SlurmPoolDefinition def;
    def.pool = pool;
    def.partition = parsed.value(QStringLiteral("--slurm"));
    def.perHost = perHost;
    bool ok = true;
    if (parsed.has(QStringLiteral("--max-hosts")))
        def.maxHosts = parsed.value(QStringLiteral("--max-hosts")).toInt(&ok);
    if (ok && parsed.has(QStringLiteral("--exit-when-idle")))
        def.idleTimeoutS = parsed.value(QStringLiteral("--exit-when-idle")).toInt(&ok);
    def.gres = parsed.value(QStringLiteral("--gres"));
    def.script = parsed.has(QStringLiteral("--sbatch-script"))
                     ? QFileInfo(parsed.value(QStringLiteral("--sbatch-script"))).absoluteFilePath()
                     : SlurmPoolDefinition::installedScript();
    if (!ok)
        return refuse(QStringLiteral("--max-hosts and --exit-when-idle take whole numbers"));
    if (def.script.isEmpty() || !QFileInfo(def.script).isFile())
        return refuse(QStringLiteral("no batch script: give --sbatch-script FILE (installed as "
                                     "share/runbox/slurm/runbox-pool-host.sbatch)"));
    if (const QString e = def.validate(); !e.isEmpty())
        return refuse(e);
    const QString secretPath = PoolSecret::defaultPath(pool);
    const bool secretExisted = QFileInfo::exists(secretPath);
    QString error;
    if (PoolSecret::readOrCreate(secretPath, &error).isEmpty())
        return refuse(error);
    const QString path = SlurmPoolDefinition::defaultPath(pool);
    if (const QString e = def.save(path); !e.isEmpty())
        return refuse(e);
    if (parsed.has(QStringLiteral("--json"))) {
        QTextStream(stdout) << QJsonDocument(QJsonObject{{"pool", pool},
                                                         {"perHost", perHost},
                                                         {"secretFile", secretPath},
                                                         {"secretCreated", !secretExisted},
                                                         {"slurm", path},
                                                         {"partition", def.partition},
                                                         {"maxHosts", def.maxHosts},
                                                         {"exitWhenIdleS", def.idleTimeoutS},
                                                         {"script", def.script},
                                                         {"gres", def.gres}})
                                   .toJson(QJsonDocument::Indented);
        return kExitOk;
    }
    QTextStream(stdout) << "pool " << pool << ": secret " << secretPath
                        << (secretExisted ? " (kept)" : " (made)") << ", Slurm partition "
                        << def.partition << ", up to " << def.maxHosts << " hosts of " << perHost
                        << (def.gres.isEmpty() ? QString()
                                               : QStringLiteral(" with gres ") + def.gres)
                        << " (" << path << "); runbox pool add boots them\n";
    return kExitOk;
}

SlurmPoolSide::SlurmPoolSide(const QString& pool) : m_pool(pool) {
    const QString path = SlurmPoolDefinition::defaultPath(pool);
    if (pool.isEmpty() || !QFileInfo::exists(path))
        return;
    m_isSlurm = true;
    SlurmPoolDefinition def;
    m_error = def.load(path, pool);
}

QStringList SlurmPoolSide::definedPools() {
    static const QLatin1String kSuffix(".slurm.json");
    const QFileInfo any(SlurmPoolDefinition::defaultPath(QStringLiteral("x")));
    QStringList pools;
    for (const QString& file :
         any.dir().entryList({QStringLiteral("*.slurm.json")}, QDir::Files, QDir::Name)) {
        const QString pool = file.chopped(kSuffix.size());
        if (FleetFile::validName(pool))
            pools << pool;
    }
    return pools;
}

bool SlurmPoolSide::hosts(QList<FleetAgent>* out, QStringList* notReady, QString* error) const {
    return slurmOf(m_pool).discover(out, notReady, error);
}

bool SlurmPoolSide::growFor(int count, QStringList* booted, QString* error) const {
    SlurmPoolDefinition def;
    if (const QString e = def.load(SlurmPoolDefinition::defaultPath(m_pool), m_pool);
        !e.isEmpty()) {
        *error = e;
        return false;
    }
    const QString pool = m_pool;
    auto freeSlots = [pool](const QList<FleetAgent>& agents) -> qint64 {
        std::vector<std::unique_ptr<ApiClient>> clients;
        QList<PoolHostHandle> handles;
        for (const FleetAgent& agent : agents) {
            QString why;
            const QByteArray token = PoolHostToken::forFleetAgent(agent, &why);
            if (token.isEmpty())
                continue;
            clients.push_back(std::make_unique<ApiClient>(QUrl(agent.url), token));
            clients.back()->setPinnedSha256(agent.pin);
            handles << PoolHostHandle{agent.name, clients.back().get()};
        }
        // This survey refreshes the pool's cache, so the placement after it need not ask the
        // same hosts again (docs/contracts.md "Pool cache").
        PoolCache cache(pool, PoolCache::defaultPath(pool));
        cache.load();
        PoolClient client(handles);
        client.setCache(&cache);
        qint64 free = 0;
        for (const PoolHostStatus& s : client.survey())
            if (s.reachable && s.pool == pool)
                free += s.free < 0 ? 1000000 : s.free;
        return free;
    };
    QList<FleetAgent> hosts;
    return SlurmPoolGrowth::growFor(def, slurmOf(m_pool), count, freeSlots, kReadyTimeoutMs, &hosts,
                                    booted, error);
}

bool SlurmPoolSide::jobs(QJsonArray* out, QString* error) const {
    QList<SlurmJob> list;
    if (!slurmOf(m_pool).jobs(&list, error))
        return false;
    for (const SlurmJob& j : list)
        out->append(QJsonObject{
            {"pool", m_pool}, {"jobId", j.jobId}, {"state", j.state}, {"nodes", j.nodes}});
    return true;
}

bool SlurmPoolSide::cancelAll(QStringList* cancelled, QString* error) const {
    const SlurmHosts slurm = slurmOf(m_pool);
    QList<SlurmJob> list;
    if (!slurm.jobs(&list, error))
        return false;
    for (const SlurmJob& j : list)
        *cancelled << j.jobId;
    return slurm.cancel(*cancelled, error);
}

} // namespace runbox::cli
