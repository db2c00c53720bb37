#include "shared/SlurmPoolDefinition.h"

#include "shared/FleetFile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStandardPaths>

namespace runbox {

namespace {

const QStringList kMembers{"partition", "perHost", "maxHosts", "idleTimeoutS", "script", "gres"};

QString configDir() {
    const QString xdg = qEnvironmentVariable("XDG_CONFIG_HOME");
    return xdg.isEmpty() ? QDir::homePath() + QStringLiteral("/.config") : xdg;
}

} // namespace

QString SlurmPoolDefinition::defaultPath(const QString& pool) {
    return configDir() + QStringLiteral("/runbox/pools/") + pool + QStringLiteral(".slurm.json");
}

QString SlurmPoolDefinition::installedScript() {
    const QString path =
        QDir(QCoreApplication::applicationDirPath())
            .absoluteFilePath(QStringLiteral("../share/runbox/slurm/runbox-pool-host.sbatch"));
    return QFileInfo::exists(path) ? QDir::cleanPath(path) : QString();
}

QString SlurmPoolDefinition::validate() const {
    static const QRegularExpression partitionRe(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
    if (!FleetFile::validName(pool))
        return QStringLiteral("bad pool name \"%1\"").arg(pool);
    if (!partitionRe.match(partition).hasMatch())
        return QStringLiteral("partition \"%1\" is not 1-64 of A-Za-z0-9_.-").arg(partition);
    if (perHost < 1 || perHost > 1000000)
        return QStringLiteral("perHost must be 1..1000000");
    if (maxHosts < 1 || maxHosts > 10000)
        return QStringLiteral("maxHosts must be 1..10000");
    if (idleTimeoutS < 1 || idleTimeoutS > 604800)
        return QStringLiteral("idleTimeoutS must be 1..604800 s");
    if (!QDir::isAbsolutePath(script))
        return QStringLiteral("script must be an absolute path (the pool host's batch script)");
    // sbatch(1) --gres: "name[[:type]:count]" joined by ','; no '=' (it goes through --export's
    // neighbour on the command line, never through a shell).
    static const QRegularExpression gresRe(QStringLiteral("^[A-Za-z0-9_:,.-]{1,128}$"));
    if (!gres.isEmpty() && !gresRe.match(gres).hasMatch())
        return QStringLiteral("gres \"%1\" is not 1-128 of A-Za-z0-9_:,.- (e.g. npu:2)").arg(gres);
    return {};
}

QString SlurmPoolDefinition::load(const QString& path, const QString& poolName) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("%1: %2").arg(path, f.errorString());
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (!doc.isObject())
        return QStringLiteral("%1: not a JSON object (%2)").arg(path, pe.errorString());
    const QJsonObject o = doc.object();
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!kMembers.contains(it.key()))
            return QStringLiteral("%1: unknown member \"%2\"").arg(path, it.key());
    auto integer = [&](const char* key, int* out) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (!v.isDouble() || v.toDouble() != double(v.toInt()))
            return false;
        *out = v.toInt();
        return true;
    };
    pool = poolName;
    partition = o.value(QLatin1String("partition")).toString();
    script = o.value(QLatin1String("script")).toString();
    const QJsonValue gresValue = o.value(QLatin1String("gres"));
    if (!gresValue.isUndefined() && !gresValue.isString())
        return QStringLiteral("%1: gres must be a string").arg(path);
    gres = gresValue.toString();
    if (!integer("perHost", &perHost) || !integer("maxHosts", &maxHosts) ||
        !integer("idleTimeoutS", &idleTimeoutS))
        return QStringLiteral("%1: perHost, maxHosts and idleTimeoutS must be integers").arg(path);
    if (const QString e = validate(); !e.isEmpty())
        return QStringLiteral("%1: %2").arg(path, e);
    return {};
}

QString SlurmPoolDefinition::save(const QString& path) const {
    if (const QString e = validate(); !e.isEmpty())
        return e;
    const QString dir = QFileInfo(path).absolutePath();
    if (!QDir().exists(dir)) {
        if (!QDir().mkpath(dir))
            return QStringLiteral("cannot make %1").arg(dir);
        QFile::setPermissions(dir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return QStringLiteral("%1: %2").arg(path, f.errorString());
    f.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    QJsonObject o{{"partition", partition},
                  {"perHost", perHost},
                  {"maxHosts", maxHosts},
                  {"idleTimeoutS", idleTimeoutS},
                  {"script", script}};
    if (!gres.isEmpty())
        o.insert(QStringLiteral("gres"), gres);
    f.write(QJsonDocument(o).toJson(QJsonDocument::Indented));
    if (!f.commit())
        return QStringLiteral("%1: %2").arg(path, f.errorString());
    return {};
}

} // namespace runbox
