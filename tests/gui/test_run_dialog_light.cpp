// The Run dialog's science environment on light workspaces (docs/environments.md "Selection"): a
// light workspace runs the environment it was created with and no other, so the dialog chooses
// it for the user when such a workspace is picked, and keeps Run disabled, saying why, for any
// other choice; a light workspace made without one takes none; a strong workspace takes any.
// Against a scripted peer (the real agent makes light workspaces only as root; the agent's own
// refusal, 409 environment_mismatch, is tested in tests/security/test_light_environments).
#include "ScriptedPeer.h"
#include "console/connection/AgentConnection.h"
#include "console/pages/RunDialog.h"

#include <QApplication>
#include <QComboBox>
#include <QJsonArray>
#include <QPushButton>
#include <QTest>

using namespace runbox::console;
using namespace runbox::testsupport;

namespace {

QJsonObject workspace(const char* id, const char* isolation, const QJsonValue& environmentId) {
    return {{"id", id},
            {"isolation", isolation},
            {"createdAt", "2026-12-07T05:00:00.000Z"},
            {"environmentId", environmentId}};
}

QJsonObject environment(const char* id, const char* name, const char* revision) {
    return {{"id", id},
            {"name", name},
            {"language", "python"},
            {"provisioner", "venv"},
            {"status", "ready"},
            {"currentRevisionId", revision}};
}

} // namespace

class TestRunDialogLight final : public QObject {
    Q_OBJECT

private:
    QTcpServer m_server;
    std::unique_ptr<AgentConnection> m_connection;

    static void choose(QComboBox* box, const QString& data) {
        const int i = box->findData(data);
        QVERIFY2(i >= 0, qPrintable(data));
        box->setCurrentIndex(i);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_server.listen(QHostAddress::LocalHost));
        servePeer(&m_server, [](const QByteArray& request) {
            if (request.startsWith("GET /v1/workspaces "))
                return PeerAnswer{
                    200,
                    {{"workspaces", QJsonArray{workspace("l-sci", "light", "e1"),
                                               workspace("l-plain", "light", QJsonValue::Null),
                                               workspace("s1", "strong", QJsonValue::Null)}}}};
            if (request.startsWith("GET /v1/environments "))
                return PeerAnswer{200,
                                  {{"environments", QJsonArray{environment("e1", "sci", "r1"),
                                                               environment("e2", "other", "r2")}}}};
            return PeerAnswer{404, peerNotFound()};
        });
        m_connection = std::make_unique<AgentConnection>(peerProfile(m_server), "token");
        m_connection->open();
        QTRY_VERIFY_WITH_TIMEOUT(m_connection->state() == AgentConnection::State::Connected, 10000);
    }

    void testALightWorkspaceRunsOnlyItsOwnEnvironment() {
        RunDialog dialog(m_connection.get());
        dialog.show();
        auto* workspaces = dialog.findChild<QComboBox*>(QStringLiteral("runWorkspace"));
        auto* environments = dialog.findChild<QComboBox*>(QStringLiteral("runEnvironment"));
        QVERIFY(workspaces && environments);
        QTRY_VERIFY_WITH_TIMEOUT(workspaces->findData("l-sci") >= 0 &&
                                     dialog.environmentChoices().contains("e2"),
                                 10000);
        dialog.setKind(QStringLiteral("shell"));
        dialog.setScript(QStringLiteral("python3 -V\n"));

        // Positive control: a strong workspace takes any environment, or none.
        choose(workspaces, "s1");
        choose(environments, "e2");
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join('\n')));
        QVERIFY(dialog.runButton()->isEnabled());

        // The light workspace made with e1: e1 is chosen for it, and runs.
        choose(workspaces, "l-sci");
        QCOMPARE(dialog.request().environmentId, QStringLiteral("e1"));
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join('\n')));
        QVERIFY(dialog.runButton()->isEnabled());
        // Another one, or none, is refused with the reason, naming its own.
        for (const char* other : {"e2", ""}) {
            choose(environments, other);
            QVERIFY(!dialog.runButton()->isEnabled());
            QVERIFY2(dialog.problems().join('\n').contains(QStringLiteral("(e1)")),
                     qPrintable(dialog.problems().join('\n')));
        }

        // The light workspace made without one: none runs, an environment is refused.
        choose(workspaces, "l-plain");
        choose(environments, "");
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join('\n')));
        choose(environments, "e1");
        QVERIFY(!dialog.runButton()->isEnabled());
        QVERIFY2(dialog.problems().join('\n').contains(QStringLiteral("without a science")),
                 qPrintable(dialog.problems().join('\n')));
    }
};

QTEST_MAIN(TestRunDialogLight)
#include "test_run_dialog_light.moc"
