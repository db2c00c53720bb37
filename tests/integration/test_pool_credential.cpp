// The pool credential (docs/contracts.md "Pool credential"): two agents on loopback, hosts of
// one pool started with --pool-secret-file, their agent tokens derived from the pool's secret
// and each host's public nonce, which they show (and keep across a restart) while the secret
// and the token stay unseen; a secret readable by others stops the agent.
#include "shared/ApiClient.h"
#include "shared/Crypto.h"
#include "support/AgentProcess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
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
    QByteArray m_secret;

    AgentOptions options(int i) const {
        AgentOptions o;
        o.extraArgs = {"--pool", kPool, "--pool-secret-file", m_secretDir.filePath("pool.secret")};
        // This test's own uid ranges (other agents run on this machine at the same time).
        o.extraEnv = {{"RUNBOX_STRONG_UID_FIRST", QString::number(1892000000LL + i * 2048)},
                      {"RUNBOX_STRONG_UID_COUNT", "2048"},
                      {"RUNBOX_LIGHT_UID_FIRST", QString::number(58200 + i * 32)},
                      {"RUNBOX_LIGHT_UID_COUNT", "32"}};
        return o;
    }

    QByteArray publicNonce(int i) {
        const ApiResponse r = m_agents[i]->client()->call("GET", "/health");
        return r.json().value("pool").toObject().value("hostNonce").toString().toLatin1();
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_secretDir.isValid());
        m_secret = crypto::randomBytes(32).toHex();
        // The agents' copy: theirs alone (they run as nobody when the test runs as root).
        QVERIFY(writeFile(m_secretDir.filePath("pool.secret"), m_secret + '\n', 0600));
        if (AgentProcess::runningAsRoot())
            for (const QString& p : {m_secretDir.path(), m_secretDir.filePath("pool.secret")})
                QVERIFY(::chown(QFile::encodeName(p).constData(), 65534, 65534) == 0);
        for (int i = 0; i < kHosts; ++i) {
            m_agents[i] = std::make_unique<AgentProcess>();
            QVERIFY2(m_agents[i]->start(options(i)), qPrintable(m_agents[i]->errorString()));
        }
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

    void testASecretOthersMayReadIsRefused() {
        // Positive control: the same secret at 0600 starts agents (initTestCase).
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
