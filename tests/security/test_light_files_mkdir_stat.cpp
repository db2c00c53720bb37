// `POST …/files:mkdir` and `GET …/files/{path}?stat=true` on both tiers of a root agent
// (docs/contracts.md "Workspace file API", "Sandbox uids"): directories made through the API
// belong to the workspace uid (a light home's, a strong workspace's); a link the workspace's own
// code plants towards the host is shown by stat as a link and never followed by mkdir. Every
// refusal follows a positive control. The strong tier under an unprivileged agent, and the
// refusals that do not depend on the tier: tests/integration/test_file_mkdir_stat.cpp.
#include "LightAgentFixture.h"
#include "LightTestSupport.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace lightagent;

namespace {

uid_t ownerOf(const QString& path) {
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_uid : uid_t(-1);
}

} // namespace

class TestLightFilesMkdirStat final : public QObject {
    Q_OBJECT

    Agent m_agent;
    Workspace m_light, m_spare, m_strong;

    static ApiResponse mkdir(ApiClient& c, const Workspace& ws, const QJsonObject& body) {
        return c.call("POST", "/v1/workspaces/" + ws.id.toUtf8() + "/files:mkdir", body);
    }
    static ApiResponse stat(ApiClient& c, const Workspace& ws, const QByteArray& path) {
        return c.call("GET", "/v1/workspaces/" + ws.id.toUtf8() + "/files/" + path + "?stat=true");
    }
    QList<Workspace> bothTiers() const { return {m_light, m_strong}; }

private Q_SLOTS:
    void initTestCase() {
        if (::geteuid() != 0)
            QSKIP("light workspaces need root (setuid/chown); run this test as root");
        // This test's own uid ranges (light and strong), so it can run beside the other root
        // agents' tests.
        QString error;
        QVERIFY2(m_agent.start({{QStringLiteral("RUNBOX_LIGHT_UID_FIRST"), "1882200000"},
                                {QStringLiteral("RUNBOX_LIGHT_UID_COUNT"), "64"},
                                {QStringLiteral("RUNBOX_STRONG_UID_FIRST"), "1882250000"},
                                {QStringLiteral("RUNBOX_STRONG_UID_COUNT"), "64"}},
                               &error),
                 qPrintable(error));
        const QJsonObject light =
            m_agent.client().call("GET", "/v1/health").json().value("light").toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable(QStringLiteral("light tier unavailable here: %1")
                                 .arg(light.value("reason").toString())));
        m_light = m_agent.createOne();
        m_spare = m_agent.createOne();
        QVERIFY2(!m_light.id.isEmpty() && !m_spare.id.isEmpty(), qPrintable(m_agent.log()));
        const ApiResponse created =
            m_agent.client().call("POST", "/v1/workspaces", {{"isolation", "strong"}});
        QCOMPARE(created.status, 201);
        const QJsonObject item = created.json().value("workspaces").toArray().first().toObject();
        m_strong.id = item.value("id").toString();
        m_strong.token = item.value("token").toString().toUtf8();
        m_strong.home = m_agent.stateDir() + QStringLiteral("/workspaces/") + m_strong.id;
        m_strong.uid = ownerOf(m_strong.home);
        QVERIFY2(m_strong.uid != 0 && m_strong.uid != uid_t(-1),
                 "a root agent's strong workspace belongs to a workspace uid");
    }

    void testDirectoriesMadeBelongToTheWorkspaceUid() {
        for (const Workspace& ws : bothTiers()) {
            ApiClient c(m_agent.url(), ws.token);
            const ApiResponse made = mkdir(c, ws, {{"path", "made/deep"}, {"parents", true}});
            QCOMPARE(made.status, 201);
            QCOMPARE(made.json().value("type").toString(), QStringLiteral("directory"));
            QCOMPARE(ownerOf(ws.home + "/made"), ws.uid);
            QCOMPARE(ownerOf(ws.home + "/made/deep"), ws.uid);
            // The workspace's code owns it: it writes there.
            const Outcome used =
                sh(c, ws.id, QStringLiteral("echo hi > made/deep/f && cat made/deep/f"));
            QCOMPARE(used.out, QByteArray("hi\n"));
            const ApiResponse file = stat(c, ws, "made/deep/f");
            QCOMPARE(file.status, 200);
            QCOMPARE(file.json().value("type").toString(), QStringLiteral("file"));
            QCOMPARE(file.json().value("size").toInteger(), 3);
            QCOMPARE(mkdir(c, ws, {{"path", "made"}}).status, 409);
        }
    }

    void testPlantedLinkToTheHostIsShownAndNotFollowed() {
        QTemporaryDir outside; // writable by anyone: only the link check stands in the way
        QVERIFY(outside.isValid());
        QVERIFY(::chmod(QFile::encodeName(outside.path()).constData(), 0777) == 0);
        const QByteArray through = "out/" + outside.path().mid(1).toUtf8() + "/made";
        for (const Workspace& ws : bothTiers()) {
            ApiClient c(m_agent.url(), ws.token);
            const Outcome planted =
                sh(c, ws.id, QStringLiteral("mkdir -p real && ln -sfn / out && echo ok"));
            QCOMPARE(planted.out, QByteArray("ok\n"));
            QCOMPARE(mkdir(c, ws, {{"path", "real/sub"}}).status, 201); // positive control
            const ApiResponse link = stat(c, ws, "out");
            QCOMPARE(link.status, 200);
            QCOMPARE(link.json().value("type").toString(), QStringLiteral("symlink"));
            QCOMPARE(link.json().value("linkTarget").toString(), QStringLiteral("/"));
            for (const bool parents : {false, true}) {
                const ApiResponse refused =
                    mkdir(c, ws, {{"path", QString::fromUtf8(through)}, {"parents", parents}});
                QCOMPARE(refused.status, 400);
                QCOMPARE(refused.errorCode(), QStringLiteral("symlink_not_followed"));
            }
            QCOMPARE(stat(c, ws, through).errorCode(), QStringLiteral("symlink_not_followed"));
        }
        QVERIFY(QDir(outside.path()).isEmpty());
    }

    void testAnotherWorkspacesTokenReachesNothing() {
        ApiClient spare(m_agent.url(), m_spare.token);
        QCOMPARE(mkdir(spare, m_spare, {{"path", "own"}}).status, 201); // positive control
        for (const Workspace& ws : bothTiers()) {
            QCOMPARE(mkdir(spare, ws, {{"path", "theirs"}}).status, 404);
            QCOMPARE(stat(spare, ws, "").status, 404);
            QVERIFY(!QFileInfo::exists(ws.home + "/theirs"));
        }
    }
};

QTEST_GUILESS_MAIN(TestLightFilesMkdirStat)
#include "test_light_files_mkdir_stat.moc"
