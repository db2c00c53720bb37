#include "shared/SlurmHosts.h"

#include "shared/ApiClient.h"
#include "shared/PoolSecret.h"
#include "shared/PrivateFile.h"
#include "shared/SlurmPoolDefinition.h"
#include "shared/TlsPin.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QThread>
#include <QUrl>

namespace runbox {

namespace {

const QRegularExpression kJobId(QStringLiteral("^[0-9]{1,20}$"));
constexpr int kCommandTimeoutMs = 60000;

/// Runs Slurm command @p program with @p args; its stdout in @p out. False with @p error set.
bool runCommand(const QString& program, const QStringList& args, QByteArray* out, QString* error) {
    const QString path = QStandardPaths::findExecutable(program);
    if (path.isEmpty()) {
        *error = QStringLiteral("%1 not found on PATH (Slurm's client commands, Debian package "
                                "slurm-client)")
                     .arg(program);
        return false;
    }
    QProcess p;
    p.start(path, args);
    if (!p.waitForStarted() || !p.waitForFinished(kCommandTimeoutMs)) {
        p.kill();
        p.waitForFinished();
        *error = QStringLiteral("%1 did not finish: %2").arg(program, p.errorString());
        return false;
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        *error = QStringLiteral("%1 failed (exit %2): %3")
                     .arg(program)
                     .arg(p.exitCode())
                     .arg(QString::fromLocal8Bit(p.readAllStandardError()).trimmed());
        return false;
    }
    *out = p.readAllStandardOutput();
    return true;
}

} // namespace

SlurmHosts::SlurmHosts(QString pool, QString hostsDir)
    : m_pool(std::move(pool)), m_hostsDir(std::move(hostsDir)) {}

QString SlurmHosts::jobName(const QString& pool) {
    return QStringLiteral("runbox-pool-") + pool;
}

QString SlurmHosts::defaultHostsDir(const QString& pool) {
    const QString xdg = qEnvironmentVariable("XDG_CACHE_HOME");
    return (xdg.isEmpty() ? QDir::homePath() + QStringLiteral("/.cache") : xdg) +
           QStringLiteral("/runbox/pools/") + pool + QStringLiteral("/hosts");
}

QString SlurmHosts::hostName(const QString& pool, const QString& jobId) {
    return pool + QLatin1Char('-') + jobId;
}

bool SlurmHosts::splitHostName(const QString& host, QString* pool, QString* jobId) {
    const qsizetype dash = host.lastIndexOf(QLatin1Char('-'));
    if (dash <= 0 || !kJobId.match(host.mid(dash + 1)).hasMatch())
        return false;
    *pool = host.left(dash);
    *jobId = host.mid(dash + 1);
    return FleetFile::validName(*pool);
}

bool SlurmHosts::jobs(QList<SlurmJob>* out, QString* error) const {
    QByteArray text;
    if (!runCommand(QStringLiteral("squeue"),
                    {QStringLiteral("--me"), QStringLiteral("--noheader"), QStringLiteral("--name"),
                     jobName(m_pool), QStringLiteral("--format"), QStringLiteral("%i %T %N")},
                    &text, error))
        return false;
    out->clear();
    for (const QByteArray& line : text.split('\n')) {
        const QStringList f = QString::fromUtf8(line).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (f.size() >= 2 && kJobId.match(f[0]).hasMatch())
            out->append({f[0], f[1], f.value(2)});
    }
    return true;
}

bool SlurmHosts::published(const QString& jobId, FleetAgent* out, QByteArray* hostNonce,
                           QString* error) const {
    // Its URL, pin and nonce decide where the host's token goes: read only a file this user
    // wrote (the job runs as the submitting user and writes it 0600), never a FIFO, a device or
    // another user's file (shared/PrivateFile).
    const QString path = QDir(m_hostsDir).filePath(jobId + QStringLiteral(".json"));
    QByteArray bytes;
    QString why;
    if (!QFileInfo::exists(path)) {
        *error = QStringLiteral("not published yet (%1)").arg(path);
        return false;
    }
    if (!PrivateFile::read(path, &bytes, &why)) {
        *error = QStringLiteral("not believed: %1").arg(why);
        return false;
    }
    const QJsonObject o = QJsonDocument::fromJson(bytes).object();
    const QString url = o.value(QLatin1String("url")).toString();
    const QString fingerprint = o.value(QLatin1String("fingerprint")).toString();
    const QByteArray nonce = o.value(QLatin1String("hostNonce")).toString().toLatin1();
    const auto pin = tls::parseFingerprint(fingerprint);
    const QUrl parsed(url, QUrl::StrictMode);
    if (o.value(QLatin1String("jobId")).toString() != jobId ||
        o.value(QLatin1String("pool")).toString() != m_pool) {
        *error = QStringLiteral("%1 names another job or pool").arg(path);
        return false;
    }
    if (!parsed.isValid() || parsed.scheme() != QLatin1String("https") || !pin ||
        !PoolSecret::validHostNonce(nonce)) {
        *error = QStringLiteral("%1 lacks an https url, a fingerprint or a host nonce").arg(path);
        return false;
    }
    *out = FleetAgent{};
    out->name = hostName(m_pool, jobId);
    out->url = url;
    out->pool = m_pool;
    out->fingerprint = fingerprint;
    out->pin = *pin;
    *hostNonce = nonce;
    return true;
}

bool SlurmHosts::discover(QList<FleetAgent>* hosts, QStringList* notReady, QString* error) const {
    QList<SlurmJob> list;
    if (!jobs(&list, error))
        return false;
    hosts->clear();
    for (const SlurmJob& job : list) {
        FleetAgent agent;
        QByteArray nonce;
        QString why;
        if (job.state != QLatin1String("RUNNING"))
            notReady->append(QStringLiteral("%1: %2").arg(job.jobId, job.state));
        else if (!published(job.jobId, &agent, &nonce, &why))
            notReady->append(QStringLiteral("%1: %2").arg(job.jobId, why));
        else
            hosts->append(agent);
    }
    return true;
}

bool SlurmHosts::answers(const FleetAgent& host, const QByteArray& hostNonce, QString* error,
                         int timeoutMs) {
    ApiClient client{QUrl(host.url), QByteArray()}; // GET /health is unsigned
    client.setPinnedSha256(host.pin);
    const ApiResponse health = client.call("GET", "/health", {}, timeoutMs);
    const QByteArray shown = health.json()
                                 .value(QLatin1String("pool"))
                                 .toObject()
                                 .value(QLatin1String("hostNonce"))
                                 .toString()
                                 .toLatin1();
    if (health.status == 200 && shown == hostNonce)
        return true;
    *error =
        health.status == 200
            ? QStringLiteral("%1 shows another host nonce than its job published").arg(host.url)
            : QStringLiteral("%1/health: %2")
                  .arg(host.url,
                       health.status == 0 ? health.networkError : QString::number(health.status));
    return false;
}

bool SlurmHosts::submit(const SlurmPoolDefinition& def, QString* jobId, QString* error) const {
    if (const QString e = def.validate(); !e.isEmpty()) {
        *error = e;
        return false;
    }
    if (m_hostsDir.contains(QLatin1Char(',')) || m_hostsDir.contains(QLatin1Char('='))) {
        // sbatch --export splits at ',' (sbatch(1)); the pool name and numbers cannot hold one.
        *error = QStringLiteral("the hosts directory %1 holds ',' or '=', which sbatch --export "
                                "cannot pass")
                     .arg(m_hostsDir);
        return false;
    }
    QStringList args{QStringLiteral("--parsable"), QStringLiteral("--job-name"), jobName(m_pool),
                     QStringLiteral("--partition"), def.partition};
    if (!def.gres.isEmpty())
        args << QStringLiteral("--gres") << def.gres;
    args << QStringLiteral("--export")
         << QStringLiteral("ALL,RUNBOX_POOL=%1,RUNBOX_POOL_CAPACITY=%2,RUNBOX_EXIT_WHEN_IDLE_S=%3,"
                           "RUNBOX_POOL_HOSTS_DIR=%4")
                .arg(m_pool)
                .arg(def.perHost)
                .arg(def.idleTimeoutS)
                .arg(m_hostsDir)
         << def.script;
    QByteArray out;
    if (!runCommand(QStringLiteral("sbatch"), args, &out, error))
        return false;
    // --parsable: "JOBID" or "JOBID;CLUSTER" (sbatch(1)).
    *jobId = QString::fromUtf8(out).trimmed().section(QLatin1Char(';'), 0, 0);
    if (!kJobId.match(*jobId).hasMatch()) {
        *error = QStringLiteral("sbatch printed no job id: %1").arg(QString::fromUtf8(out));
        return false;
    }
    return true;
}

bool SlurmHosts::waitReady(const QString& jobId, int timeoutMs, FleetAgent* host,
                           QString* error) const {
    const QDeadlineTimer deadline(timeoutMs);
    QString why = QStringLiteral("not started");
    int polls = 0;
    while (!deadline.hasExpired()) {
        QByteArray nonce;
        if (published(jobId, host, &nonce, &why) && answers(*host, nonce, &why, 5000))
            return true;
        if (++polls % 8 == 0) { // every 2 s: has the job ended without publishing?
            QList<SlurmJob> list;
            QString e;
            if (jobs(&list, &e) && std::none_of(list.begin(), list.end(), [&](const SlurmJob& j) {
                    return j.jobId == jobId;
                })) {
                *error =
                    QStringLiteral("job %1 ended before its host was ready (%2)").arg(jobId, why);
                return false;
            }
        }
        QThread::msleep(250);
    }
    QString e;
    cancel({jobId}, &e);
    *error = QStringLiteral("job %1's host was not ready within %2 s (%3); cancelled")
                 .arg(jobId)
                 .arg(timeoutMs / 1000)
                 .arg(why);
    return false;
}

bool SlurmHosts::cancel(const QStringList& jobIds, QString* error) const {
    QStringList args;
    for (const QString& id : jobIds)
        if (kJobId.match(id).hasMatch())
            args << id;
    if (args.isEmpty())
        return true;
    QByteArray out;
    return runCommand(QStringLiteral("scancel"), args, &out, error);
}

} // namespace runbox
