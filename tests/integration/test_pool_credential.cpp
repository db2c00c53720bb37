// The pool credential (docs/contracts.md "Pool credential"): two agents on loopback, hosts of
// one pool started with --pool-secret-file and a TLS listener, their agent tokens derived from
// the pool's secret and each host's public nonce. The CLI, run with nothing but the pool's
// secret and a fleet file (or just a host's https URL and fingerprint) in an otherwise empty
// HOME, reaches pooled ids on them; tampered ids and another pool's secret are refused; a fake
// host on a plain-HTTP port showing a real host's nonce gets nothing (a pool host token goes
// over TLS only); a secret readable by others is refused before anything is sent.
#include "FakePoolHost.h"
#include "shared/ApiClient.h"
#include "shared/Crypto.h"
#include "support/AgentProcess.h"
#include "support/CliRun.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <memory>

#include <sys/stat.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

const char* const kPool = "pc";
constexpr int kHosts = 2;

QByteArray hostToken(const QByteArray& secret, const QByteArray& nonce) {
    return crypto::hmacSha256(secret, "runbox-pool-host:" + nonce).toHex();
}

bool writeFile(const QString& path, const QByteArray& data, int mode) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(data) != data.size())
        return false;
    f.close();
    return ::chmod(QFile::encodeName(path).constData(), mode_t(mode)) == 0;
}

} // namespace

class PoolCredentialTest : public QObject {
    Q_OBJECT
private:
    std::unique_ptr<AgentProcess> m_agents[kHosts];
    QTemporaryDir m_secretDir; ///< the agents' copy of the secret (theirs to read)
    QTemporaryDir m_home;      ///< the fresh client's HOME: only the secret and the fleet file
    QByteArray m_secret;
    std::unique_ptr<FakePoolHost> m_fake;

    QString secretPath() const { return m_home.filePath("config/runbox/pools/pc.secret"); }
    QString fleetPath() const { return m_home.filePath("config/runbox/fleet.json"); }
    QString hostName(int i) const { return QStringLiteral("h%1").arg(i + 1); }

    AgentOptions options(int i) const {
        AgentOptions o;
        o.extraArgs = {"--pool", kPool, "--pool-secret-file", m_secretDir.filePath("pool.secret")};
        o.tls = true; // a pool host is reached over TLS only
        // This test's own uid ranges (other agents run on this machine at the same time).
        o.extraEnv = {{"RUNBOX_STRONG_UID_FIRST", QString::number(1892000000LL + i * 2048)},
                      {"RUNBOX_STRONG_UID_COUNT", "2048"},
                      {"RUNBOX_LIGHT_UID_FIRST", QString::number(58200 + i * 32)},
                      {"RUNBOX_LIGHT_UID_COUNT", "32"}};
        return o;
    }

    /// Runs the CLI as a fresh machine would: HOME and the XDG directories in m_home (empty but
    /// for what the test put in config/runbox), no RUNBOX_* variable, a state dir with nothing
    /// in it. The event loop runs meanwhile, so the fake host answers.
    CliResult cli(const QStringList& args, int timeoutMs = 120000) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const QString& key : env.keys())
            if (key.startsWith("RUNBOX_") || key.startsWith("XDG_"))
                env.remove(key);
        env.insert("HOME", m_home.filePath("home"));
        env.insert("XDG_CONFIG_HOME", m_home.filePath("config"));
        env.insert("XDG_CACHE_HOME", m_home.filePath("cache"));
        env.insert("XDG_STATE_HOME", m_home.filePath("state"));
        env.insert("RUNBOX_STATE_DIR", m_home.filePath("state"));
        QProcess p;
        p.setProcessEnvironment(env);
        QEventLoop loop;
        QObject::connect(&p, &QProcess::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
        p.start(AgentProcess::cliPath(), args);
        loop.exec();
        CliResult r;
        if (p.state() != QProcess::NotRunning) {
            p.kill();
            p.waitForFinished();
            return r;
        }
        r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        return r;
    }

    void writeFleet(bool withFake) {
        QJsonArray agents;
        for (int i = 0; i < kHosts; ++i)
            agents.append(QJsonObject{{"name", hostName(i)},
                                      {"url", m_agents[i]->tlsUrl().toString()},
                                      {"fingerprint", m_agents[i]->tlsFingerprint()},
                                      {"pool", kPool}});
        if (withFake)
            agents.append(QJsonObject{{"name", "fk"}, {"url", m_fake->url()}, {"pool", kPool}});
        QVERIFY(
            writeFile(fleetPath(), QJsonDocument(QJsonObject{{"agents", agents}}).toJson(), 0644));
    }

    QByteArray publicNonce(int i) {
        const ApiResponse r = m_agents[i]->client()->call("GET", "/health");
        return r.json().value("pool").toObject().value("hostNonce").toString().toLatin1();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_secretDir.isValid() && m_home.isValid());
        for (const char* dir : {"home", "config/runbox/pools", "cache", "state"})
            QVERIFY(QDir().mkpath(m_home.filePath(dir)));
        m_secret = crypto::randomBytes(32).toHex();
        QVERIFY(writeFile(secretPath(), m_secret + '\n', 0600));
        // The agents' copy: theirs alone (they run as nobody when the test runs as root).
        QVERIFY(writeFile(m_secretDir.filePath("pool.secret"), m_secret + '\n', 0600));
        if (AgentProcess::runningAsRoot())
            for (const QString& p : {m_secretDir.path(), m_secretDir.filePath("pool.secret")})
                QVERIFY(::chown(QFile::encodeName(p).constData(), 65534, 65534) == 0);
        for (int i = 0; i < kHosts; ++i) {
            m_agents[i] = std::make_unique<AgentProcess>();
            QVERIFY2(m_agents[i]->start(options(i)), qPrintable(m_agents[i]->errorString()));
        }
        // The fake shows a live host's nonce, as an impostor on a squatted port would.
        m_fake = std::make_unique<FakePoolHost>(publicNonce(0));
        QVERIFY(m_fake->listen());
        writeFleet(false);
    }

    void testHealthShowsTheNonceNotTheToken() {
        for (int i = 0; i < kHosts; ++i) {
            const QByteArray nonce = publicNonce(i);
            QVERIFY2(crypto::isLowerHex(nonce, 32), nonce.constData());
            // The agent signs with the token derived from the secret and that nonce.
            QCOMPARE(m_agents[i]->token(), hostToken(m_secret, nonce));
            const ApiResponse full = m_agents[i]->client()->call("GET", "/v1/health");
            QCOMPARE(full.status, 200);
            QCOMPARE(full.json().value("pool").toObject().value("hostNonce").toString().toLatin1(),
                     nonce);
            const ApiResponse open = m_agents[i]->client()->call("GET", "/health");
            for (const QByteArray& body : {open.body, full.body}) {
                QVERIFY(!body.contains(m_secret));
                QVERIFY(!body.contains(m_agents[i]->token()));
            }
            const QString log = m_agents[i]->log();
            QVERIFY(!log.contains(QString::fromLatin1(m_secret)));
            QVERIFY(!log.contains(QString::fromLatin1(m_agents[i]->token())));
        }
        QVERIFY(publicNonce(0) != publicNonce(1));
    }

    void testRestartKeepsTheNonceAndTheToken() {
        const QByteArray nonce = publicNonce(0);
        const QByteArray token = m_agents[0]->token();
        QVERIFY(m_agents[0]->stop());
        QVERIFY2(m_agents[0]->start(options(0)), qPrintable(m_agents[0]->errorString()));
        QCOMPARE(publicNonce(0), nonce);
        QCOMPARE(m_agents[0]->token(), token);
        writeFleet(false); // the port is new
    }

    void testTheListingShowsTheWorkspaceNonceToTheAgentToken() {
        QByteArray wsToken;
        const QString id = m_agents[0]->createWorkspace(&wsToken);
        QVERIFY(!id.isEmpty());
        const ApiResponse list = m_agents[0]->client()->call("GET", "/v1/workspaces");
        QByteArray nonce;
        for (const QJsonValue& w : list.json().value("workspaces").toArray())
            if (w.toObject().value("id").toString() == id)
                nonce = w.toObject().value("tokenNonce").toString().toLatin1();
        QVERIFY2(crypto::isLowerHex(nonce, 32), list.body.constData());
        // Enough to re-derive the workspace's token with the host token alone.
        QCOMPARE(wsToken, "ws1." + id.toLatin1() + '.' + nonce + '.' +
                              crypto::hmacSha256(m_agents[0]->token(),
                                                 "runbox-workspace:" + id.toLatin1() + ':' + nonce)
                                  .toHex());
        ApiClient scoped(m_agents[0]->baseUrl(), wsToken);
        const ApiResponse own = scoped.call("GET", "/v1/workspaces");
        QCOMPARE(own.status, 200);
        QVERIFY2(!own.body.contains("tokenNonce"), own.body.constData());
        QCOMPARE(m_agents[0]->client()->call("DELETE", "/v1/workspaces/" + id.toLatin1()).status,
                 200);
    }

    void testReconnectFromAFreshProcess() {
        const QString id = m_agents[1]->createWorkspace();
        QVERIFY(!id.isEmpty());
        const QString pooled = "h2." + id;
        CliResult r = cli({"exec", "--workspace", pooled, "--", "sh", "-c",
                           "echo made > made.txt && cat made.txt"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out, QByteArray("made\n"));

        const QString local = m_home.filePath("home/up.bin");
        const QByteArray bytes = crypto::randomBytes(70000);
        QVERIFY(writeFile(local, bytes, 0600));
        r = cli({"cp", local, pooled + ":up.bin"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = cli({"cp", pooled + ":up.bin", "-"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out, bytes);
        r = cli({"files", "ls", "--json", pooled + ":"});
        QVERIFY2(r.exitCode == 0 && r.out.contains("made.txt"), r.err.constData());

        // A managed execution, followed to its end.
        r = cli({"run", "--follow", "--workspace", pooled, "--", "sh", "-c", "exit 7"});
        QVERIFY2(r.exitCode == 7, r.err.constData());
        // One started on a pooled workspace is named HOST.EXECUTION_ID, which logs and cancel
        // take from any process with the fleet file (its agent found again by the host part).
        r = cli({"run", "--workspace", pooled, "--", "sh", "-c", "echo before; sleep 60"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString execution = QString::fromUtf8(r.out.trimmed());
        QVERIFY2(execution.startsWith("h2."), r.out.constData());
        QTRY_VERIFY_WITH_TIMEOUT(cli({"logs", execution}).out == "before\n", 30000);
        r = cli({"cancel", execution});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        r = cli({"ps", "-l", "--workspace", pooled, "--json"});
        QVERIFY2(r.out.contains("\"cancelled\""), r.out.constData());
        r = cli({"logs", "h1." + execution.mid(3)}); // the same id on another host: not there
        QVERIFY(r.exitCode != 0);
        // With an agent named by --url, the id is that agent's as it is (a client may choose
        // ids with a '.'): h2's execution is neither shown nor cancelled through h1's URL.
        r = cli({"--url", m_agents[0]->tlsUrl().toString(), "--fingerprint",
                 m_agents[0]->tlsFingerprint(), "--token", QString::fromUtf8(m_agents[0]->token()),
                 "logs", execution});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("not_found"), r.err.constData());

        // Just the host's URL and the pool's name, no fleet file: an exec, and a managed
        // execution's log by its id (which names no host).
        QVERIFY(QFile::rename(fleetPath(), fleetPath() + ".away"));
        const QStringList byUrl{"--url",         m_agents[1]->tlsUrl().toString(),
                                "--fingerprint", m_agents[1]->tlsFingerprint(),
                                "--pool",        kPool};
        r = cli(byUrl + QStringList{"exec", "--workspace", pooled, "--", "cat", "made.txt"});
        const CliResult started =
            cli(byUrl + QStringList{"run", "--workspace", pooled, "--", "echo", "managed"});
        const CliResult logs = cli(byUrl + QStringList{"logs", "-f", started.out.trimmed()});
        QVERIFY(QFile::rename(fleetPath() + ".away", fleetPath()));
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.out, QByteArray("made\n"));
        QVERIFY2(started.exitCode == 0, started.err.constData());
        QVERIFY2(logs.exitCode == 0, logs.err.constData());
        QCOMPARE(logs.out, QByteArray("managed\n"));

        r = cli({"workspace", "rm", pooled});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(m_agents[1]->workspaceCount(), 0);
    }

    void testTamperedIdsAndAnotherPoolsSecretAreRefused() {
        const QString id = m_agents[0]->createWorkspace();
        QVERIFY(!id.isEmpty());
        // Positive control: the genuine pooled id works.
        CliResult r = cli({"exec", "--workspace", "h1." + id, "--", "true"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // Another host's prefix: that host's own token, and no such workspace there.
        r = cli({"exec", "--workspace", "h2." + id, "--", "true"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("404") && r.err.contains("workspace_not_found"), r.err.constData());
        // A modified local id.
        QString changed = id;
        changed[changed.size() - 1] = changed.back() == QChar('0') ? QChar('1') : QChar('0');
        r = cli({"exec", "--workspace", "h1." + changed, "--", "true"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("404"), r.err.constData());
        r = cli({"workspace", "rm", "h1." + changed});
        QCOMPARE(r.exitCode, 1);
        // The secret of another pool: a token the host does not know.
        QVERIFY(writeFile(secretPath(), crypto::randomBytes(32).toHex() + '\n', 0600));
        r = cli({"exec", "--workspace", "h1." + id, "--", "true"});
        QVERIFY(writeFile(secretPath(), m_secret + '\n', 0600));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("401"), r.err.constData());
        QCOMPARE(m_agents[0]->workspaceCount(), 1); // nothing was deleted by the tampered rm
        r = cli({"workspace", "rm", "h1." + id});
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }

    /// The attack: a fake host on a plain-HTTP port listed in the fleet (a stopped host's port,
    /// squatted) shows a live host's nonce. A pool host token is derived for https:// only, so
    /// it hears nothing at all, and the live host's token goes nowhere else.
    void testAFakeHostShowingALiveHostsNonceGetsNothing() {
        writeFleet(true);
        m_fake->clear();
        const QString id = m_agents[0]->createWorkspace();
        QVERIFY(!id.isEmpty());
        // Positive control: commands on the real hosts work.
        CliResult r = cli({"exec", "--workspace", "h1." + id, "--", "true"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        // Its own pooled ids, one with a real host's local id, the pool survey (which talks to
        // every host) and the same fake by --url: refused, naming https, before any request.
        r = cli({"exec", "--workspace", "fk." + id, "--", "true"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("only over https://"), r.err.constData());
        r = cli({"cp", "fk." + id + ":x", "-"});
        QVERIFY(r.exitCode != 0);
        r = cli({"pool", "ls", kPool, "--json"});
        QVERIFY2(r.out.contains("\"h1\"") && r.out.contains("\"fk\"") &&
                     r.out.contains("only over https://"),
                 r.out.constData());
        r = cli({"--url", m_fake->url(), "--pool", kPool, "exec", "--workspace", "fk." + id, "--",
                 "true"});
        QVERIFY(r.exitCode != 0);
        // With --pool, a host the fleet does not list and no --url: the default plain URL is
        // refused the same way, never sent a token.
        r = cli({"--pool", kPool, "exec", "--workspace", "h11." + id, "--", "true"});
        QVERIFY2(r.exitCode != 0 && r.err.contains("only over https://"), r.err.constData());
        QVERIFY2(m_fake->heads().isEmpty(), m_fake->heads().join("\n---\n").constData());
        writeFleet(false);
        QCOMPARE(m_agents[0]->client()->call("DELETE", "/v1/workspaces/" + id.toLatin1()).status,
                 200);
    }

    void testPoolCreateDefinesAPoolItsHostsCarry() {
        const QString fleet = m_home.filePath("config/runbox/pz-fleet.json");
        const QString secret = m_home.filePath("config/runbox/pools/pz.secret");
        // A plain-HTTP host is refused, nothing made.
        CliResult r = cli({"--fleet", fleet, "pool", "create", "pz", "--per-host", "2", "--host",
                           "plain=http://127.0.0.1:9"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("HOST=https://"), r.err.constData());
        QVERIFY(!QFile::exists(secret) && !QFile::exists(fleet));
        r = cli({"--fleet", fleet, "pool", "create", "pz", "--per-host", "2", "--host",
                 "gone=https://127.0.0.1:9", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(r.json()["secretCreated"].toBool(), true);
        QStringList agentArgs;
        for (const QJsonValue& a : r.json()["agentArgs"].toArray())
            agentArgs << a.toString();
        QCOMPARE(agentArgs, QStringList({"--pool", "pz", "--pool-capacity", "2",
                                         "--pool-secret-file", "FILE"}));
        struct stat st {};
        QVERIFY(::stat(QFile::encodeName(secret).constData(), &st) == 0);
        QCOMPARE(st.st_mode & 0777, mode_t(0600));
        QFile secretFile(secret);
        QVERIFY(secretFile.open(QIODevice::ReadOnly));
        const QByteArray made = secretFile.readAll().trimmed();
        QVERIFY(crypto::isLowerHex(made, 64));

        // A host started as it says, with a copy of that secret.
        QTemporaryDir own;
        QVERIFY(writeFile(own.filePath("pz.secret"), made + '\n', 0600));
        if (AgentProcess::runningAsRoot())
            for (const QString& p : {own.path(), own.filePath("pz.secret")})
                QVERIFY(::chown(QFile::encodeName(p).constData(), 65534, 65534) == 0);
        AgentProcess host;
        AgentOptions o = options(0);
        o.extraArgs = QStringList{"--pool",
                                  "pz",
                                  "--pool-capacity",
                                  "2",
                                  "--pool-secret-file",
                                  own.filePath("pz.secret")};
        o.tls = true;
        o.extraEnv["RUNBOX_STRONG_UID_FIRST"] = QString::number(1892000000LL + 3072);
        o.extraEnv["RUNBOX_STRONG_UID_COUNT"] = "1024";
        QVERIFY2(host.start(o), qPrintable(host.errorString()));
        r = cli({"--fleet", fleet, "pool", "create", "pz", "--per-host", "2", "--host",
                 "gone=https://127.0.0.1:9", "--host",
                 "hz=" + host.tlsUrl().toString() + "," + host.tlsFingerprint()});
        QVERIFY2(r.exitCode == 0 && r.out.contains("(kept)"), r.err.constData());
        secretFile.seek(0);
        QCOMPARE(secretFile.readAll().trimmed(), made); // kept, not replaced

        // The pool works from that state alone: placed on the live host, run, deleted.
        r = cli({"--fleet", fleet, "pool", "add", "pz", "2", "--strong", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonArray placed = r.json()["workspaces"].toArray();
        QCOMPARE(placed.size(), 2);
        QCOMPARE(host.workspaceCount(), 2);
        const QString pooled = placed[0].toObject().value("id").toString();
        QVERIFY2(pooled.startsWith("hz."), qPrintable(pooled));
        r = cli({"--fleet", fleet, "exec", "--workspace", pooled, "--", "echo", "pz"});
        QVERIFY2(r.exitCode == 0 && r.out == "pz\n", r.err.constData());
        r = cli({"--fleet", fleet, "pool", "rm", "pz"});
        QCOMPARE(host.workspaceCount(), 0);

        // A host listed otherwise is refused and nothing is written.
        QFile before(fleet);
        QVERIFY(before.open(QIODevice::ReadOnly));
        const QByteArray listed = before.readAll();
        r = cli({"--fleet", fleet, "pool", "create", "pz", "--per-host", "2", "--host",
                 "hz=https://127.0.0.1:10"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("already in"), r.err.constData());
        before.seek(0);
        QCOMPARE(before.readAll(), listed);
        // So is a secret others may read.
        QVERIFY(::chmod(QFile::encodeName(secret).constData(), 0644) == 0);
        r = cli({"--fleet", fleet, "pool", "create", "pz", "--per-host", "2", "--host",
                 "new=https://127.0.0.1:11"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("chmod 600"), r.err.constData());
        before.seek(0);
        QCOMPARE(before.readAll(), listed);
    }

    void testASecretOthersMayReadIsRefused() {
        writeFleet(true);
        m_fake->clear();
        const QString id = m_agents[0]->createWorkspace();
        QVERIFY(!id.isEmpty());
        // Positive control: with a 0600 secret a real host is reached.
        CliResult r = cli({"exec", "--workspace", "h1." + id, "--", "true"});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(::chmod(QFile::encodeName(secretPath()).constData(), 0644) == 0);
        r = cli({"exec", "--workspace", "h1." + id, "--", "true"});
        const CliResult byUrl = cli({"--url", m_agents[0]->tlsUrl().toString(), "--fingerprint",
                                     m_agents[0]->tlsFingerprint(), "--pool", kPool, "exec",
                                     "--workspace", "h1." + id, "--", "true"});
        QVERIFY(::chmod(QFile::encodeName(secretPath()).constData(), 0600) == 0);
        for (const CliResult& refused : {r, byUrl}) {
            QCOMPARE(refused.exitCode, 2);
            QVERIFY2(refused.err.contains("chmod 600"), refused.err.constData());
        }
        QVERIFY(m_fake->heads().isEmpty());
        writeFleet(false);
        QCOMPARE(m_agents[0]->client()->call("DELETE", "/v1/workspaces/" + id.toLatin1()).status,
                 200);

        // The agent refuses such a secret too, before it listens.
        QTemporaryDir dir;
        QVERIFY(writeFile(dir.filePath("open.secret"), m_secret + '\n', 0644));
        if (AgentProcess::runningAsRoot())
            for (const QString& p : {dir.path(), dir.filePath("open.secret")})
                QVERIFY(::chown(QFile::encodeName(p).constData(), 65534, 65534) == 0);
        AgentProcess agent;
        AgentOptions o = options(1);
        o.extraArgs = {"--pool", kPool, "--pool-secret-file", dir.filePath("open.secret")};
        o.startTimeoutMs = 10000;
        QVERIFY(!agent.start(o));
        QVERIFY2(agent.log().contains("chmod 600"), qPrintable(agent.log()));
    }
};

QTEST_GUILESS_MAIN(PoolCredentialTest)
#include "test_pool_credential.moc"
