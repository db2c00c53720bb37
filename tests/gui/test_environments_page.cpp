// EnvironmentsPage against a scripted HTTP peer playing the documented routes
// (docs/environments.md "API and CLI"), for what a bare real agent does not show: a failed latest
// build (still usable at its current revision), a build that finishes while the page polls (the
// row changes in place, the selection stays), a failed revision without a snapshot, the bodies
// sent, and the agent's refusals shown as its message (400, 409, a missing /uninstall route, a
// missing /v1/environments). The page against a real agent is in test_console_against_agent.
#include "console/connection/AgentConnection.h"
#include "console/models/EnvironmentTableModel.h"
#include "console/pages/EnvironmentsPage.h"
#include "shared/ProtocolVersion.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTableView>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTreeWidget>

using namespace runbox::console;

namespace {

// Answers one request per connection; every request is recorded with its body.
class ScriptedAgent final : public QObject {
public:
    explicit ScriptedAgent(bool hasEnvironments) : m_hasEnvironments(hasEnvironments) {
        server.listen(QHostAddress::LocalHost);
        connect(&server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket* s = server.nextPendingConnection())
                connect(s, &QTcpSocket::readyRead, this, [this, s] { onData(s); });
        });
    }
    QUrl url() const {
        return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(server.serverPort()));
    }

    QTcpServer server;
    QStringList requests;               ///< "METHOD target"
    QHash<QString, QJsonObject> bodies; ///< last body per "METHOD target"
    int listCalls = 0;

private:
    static QJsonObject env(const char* id, const char* status, const QJsonValue& current,
                           const char* failure = nullptr) {
        QJsonObject o{{"id", id},
                      {"name", QString::fromLatin1(id) + " env"},
                      {"language", "python"},
                      {"provisioner", "venv"},
                      {"status", status},
                      {"currentRevisionId", current},
                      {"revisionCount", 2},
                      {"createdAt", "2026-12-03T10:00:00.000Z"}};
        if (failure)
            o.insert("lastBuildFailure", failure);
        return o;
    }

    static QJsonObject error(const char* code, const char* message) {
        return {{"error", QJsonObject{{"code", code}, {"message", message}}}};
    }

    void answer(QTcpSocket* s, int status, const QJsonObject& body) {
        const QByteArray json = QJsonDocument(body).toJson(QJsonDocument::Compact);
        s->write("HTTP/1.1 " + QByteArray::number(status) +
                 " X\r\nContent-Type: application/json\r\nContent-Length: " +
                 QByteArray::number(json.size()) + "\r\nConnection: close\r\n\r\n" + json);
        s->disconnectFromHost();
    }

    void onData(QTcpSocket* s) {
        QByteArray& buf = m_buffers[s];
        buf += s->readAll();
        const qsizetype end = buf.indexOf("\r\n\r\n");
        if (end < 0)
            return;
        qsizetype length = 0;
        for (const QByteArray& h : buf.left(end).split('\n'))
            if (h.toLower().startsWith("content-length:"))
                length = h.mid(15).trimmed().toLongLong();
        if (buf.size() < end + 4 + length)
            return;
        const QList<QByteArray> first = buf.left(buf.indexOf("\r\n")).split(' ');
        const QString key = QString::fromLatin1(first.value(0) + ' ' + first.value(1));
        const QJsonObject body = QJsonDocument::fromJson(buf.mid(end + 4, length)).object();
        buf.clear();
        requests << key;
        bodies[key] = body;
        route(s, key, body);
    }

    void route(QTcpSocket* s, const QString& key, const QJsonObject& body) {
        if (key == QLatin1String("GET /health"))
            return answer(s, 200, {{"status", "ok"}, {"protocol", runbox::protocol::kVersion}});
        if (key == QLatin1String("GET /v1/health"))
            return answer(s, 200, {{"status", "ok"}, {"version", "0.1.0"}});
        if (!m_hasEnvironments)
            return answer(s, 404, error("not_found", "no such route"));
        if (key == QLatin1String("GET /v1/environments")) {
            // e2's first build finishes after a few polls.
            const bool built = ++listCalls > 3;
            return answer(
                s, 200,
                {{"environments", QJsonArray{env("e1", "failed", "r1", "pip exited with status 1"),
                                             built ? env("e2", "ready", "r3")
                                                   : env("e2", "building", QJsonValue::Null)}}});
        }
        if (key == QLatin1String("GET /v1/environments/e1/revisions"))
            return answer(
                s, 200,
                {{"revisions",
                  QJsonArray{
                      QJsonObject{{"id", "r1"},
                                  {"environmentId", "e1"},
                                  {"seq", 1},
                                  {"status", "ready"},
                                  {"spec", QJsonObject{{"packages", QJsonArray{"pkga"}}}},
                                  {"executionId", "x1"},
                                  {"finishedAt", "2026-12-03T10:00:04.000Z"}},
                      QJsonObject{{"id", "r2"},
                                  {"environmentId", "e1"},
                                  {"seq", 2},
                                  {"status", "failed"},
                                  {"spec", QJsonObject{{"packages", QJsonArray{"pkga", "pkgz"}}}},
                                  {"executionId", "x2"},
                                  {"statusReason", "pip exited with status 1"}}}}});
        if (key == QLatin1String("GET /v1/environments/e2/revisions"))
            return answer(s, 200, {{"revisions", QJsonArray{}}});
        if (key == QLatin1String("GET /v1/environment-revisions/r1/snapshot"))
            return answer(
                s, 200,
                {{"revisionId", "r1"},
                 {"environmentId", "e1"},
                 {"sha256", "0123456789abcdef0123"},
                 {"packages", QJsonArray{QJsonObject{{"name", "pip"}, {"version", "23"}},
                                         QJsonObject{{"name", "pkga"}, {"version", "1.0"}}}}});
        if (key == QLatin1String("POST /v1/environments/e1/install")) {
            if (body.value("packages").toArray().contains(QJsonValue("bad")))
                return answer(s, 400,
                              error("invalid_packages", "packages[0] is not a package name"));
            return answer(s, 202,
                          {{"environmentId", "e1"},
                           {"revisionId", "r4"},
                           {"executionId", "x4"},
                           {"status", "building"}});
        }
        if (key == QLatin1String("DELETE /v1/environments/e1"))
            return answer(s, 409,
                          error("environment_in_use", "revision r1 is held by an execution"));
        answer(s, 404, error("not_found", "no such route")); // /uninstall among them
    }

    bool m_hasEnvironments;
    QHash<QTcpSocket*, QByteArray> m_buffers;
};

AgentConnection* connectTo(const ScriptedAgent& agent, QObject* parent) {
    auto* c = new AgentConnection({AgentProfile::newId(), QStringLiteral("scripted"), agent.url()},
                                  QByteArray(64, 'a'), parent);
    c->open();
    return c;
}

} // namespace

class TestEnvironmentsPage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testListRevisionsSnapshotAndRefusals() {
        ScriptedAgent agent(true);
        EnvironmentsPage page;
        page.setPollIntervalMs(100);
        AgentConnection* connection = connectTo(agent, &page);
        QSignalSpy loaded(&page, &EnvironmentsPage::loaded);
        page.setConnection(connection);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 10000);
        EnvironmentTableModel* model = page.model();
        QCOMPARE(model->rowCount(), 2);
        using C = EnvironmentTableModel;
        // A failed latest build: still usable at its current revision, the failure shown.
        QCOMPARE(model->index(0, C::FailureColumn).data().toString(),
                 QStringLiteral("pip exited with status 1"));
        QCOMPARE(model->index(0, C::RevisionColumn).data().toString(), QStringLiteral("r1"));
        QCOMPARE(model->index(1, C::StatusColumn).data().toString(), QStringLiteral("Building"));

        // Selecting e1: its revisions newest first, the current one's snapshot.
        QSignalSpy snapshots(&page, &EnvironmentsPage::snapshotLoaded);
        page.selectEnvironment(QStringLiteral("e1"));
        QTRY_COMPARE_WITH_TIMEOUT(page.snapshotRevisionId(), QStringLiteral("r1"), 10000);
        const QStringList revisions = page.revisionRows();
        QCOMPARE(revisions.size(), 2);
        QVERIFY2(revisions.at(0).startsWith(QStringLiteral("2\tr2\tBuild failed")),
                 qPrintable(revisions.at(0)));
        QVERIFY2(revisions.at(0).endsWith(QStringLiteral("pip exited with status 1")),
                 qPrintable(revisions.at(0)));
        QVERIFY2(revisions.at(1).startsWith(QStringLiteral("1\tr1\tReady (current)\tpkga")),
                 qPrintable(revisions.at(1)));
        QCOMPARE(page.snapshotRows(), (QStringList{"pip\t23", "pkga\t1.0"}));
        // A failed revision has no snapshot.
        auto* tree = page.findChild<QTreeWidget*>(QStringLiteral("environmentRevisions"));
        QVERIFY(tree);
        tree->setCurrentItem(tree->topLevelItem(0));
        QVERIFY(page.snapshotRevisionId().isEmpty());
        QVERIFY(page.snapshotRows().isEmpty());

        // e2's build finishes while the page polls: updated in place, e1 stays selected.
        QTRY_COMPARE_WITH_TIMEOUT(model->index(1, C::StatusColumn).data().toString(),
                                  QStringLiteral("Ready"), 10000);
        QCOMPARE(page.selectedEnvironmentId(), QStringLiteral("e1"));
        const int polls = agent.listCalls;
        QTest::qWait(400);
        QCOMPARE(agent.listCalls, polls); // nothing builds: no more polling

        // An install: the body names the packages; the build is announced for its log.
        QSignalSpy builds(&page, &EnvironmentsPage::buildStarted);
        page.changePackages(QStringLiteral("e1"), PackagesDialog::Mode::Install,
                            {QStringLiteral("numpy"), QStringLiteral("pandas>=2,<3")});
        QTRY_COMPARE_WITH_TIMEOUT(builds.count(), 1, 10000);
        QCOMPARE(builds.at(0).at(0).toString(), QStringLiteral("x4"));
        QCOMPARE(agent.bodies.value(QStringLiteral("POST /v1/environments/e1/install")),
                 (QJsonObject{{"packages", QJsonArray{"numpy", "pandas>=2,<3"}}}));
        QVERIFY(page.errorText().isEmpty());

        // Refusals are shown as the agent's message.
        QSignalSpy failures(&page, &EnvironmentsPage::failed);
        page.changePackages(QStringLiteral("e1"), PackagesDialog::Mode::Install,
                            {QStringLiteral("bad")});
        QTRY_COMPARE_WITH_TIMEOUT(failures.count(), 1, 10000);
        QVERIFY2(page.errorText().contains(QStringLiteral("packages[0] is not a package name")),
                 qPrintable(page.errorText()));
        page.changePackages(QStringLiteral("e1"), PackagesDialog::Mode::Uninstall,
                            {QStringLiteral("pkga")});
        QTRY_COMPARE_WITH_TIMEOUT(failures.count(), 2, 10000);
        QVERIFY(agent.requests.contains(QStringLiteral("POST /v1/environments/e1/uninstall")));
        QCOMPARE(agent.bodies.value(QStringLiteral("POST /v1/environments/e1/uninstall")),
                 (QJsonObject{{"packages", QJsonArray{"pkga"}}}));
        QVERIFY2(page.errorText().contains(QStringLiteral("cannot uninstall packages yet")),
                 qPrintable(page.errorText()));
        page.deleteEnvironment(QStringLiteral("e1"));
        QTRY_COMPARE_WITH_TIMEOUT(failures.count(), 3, 10000);
        QVERIFY2(page.errorText().contains(QStringLiteral("held by an execution")),
                 qPrintable(page.errorText()));
        QCOMPARE(model->rowOf(QStringLiteral("e1")), 0); // still listed
    }

    void testAgentWithoutEnvironments() {
        ScriptedAgent agent(false);
        EnvironmentsPage page;
        page.setConnection(connectTo(agent, &page));
        QTRY_VERIFY_WITH_TIMEOUT(page.isUnavailableShown(), 10000);
        QVERIFY2(page.placeholderText().contains(QStringLiteral("GET /v1/environments")),
                 qPrintable(page.placeholderText()));
    }
};

QTEST_MAIN(TestEnvironmentsPage)
#include "test_environments_page.moc"
