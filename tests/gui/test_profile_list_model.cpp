// ProfileListModel: profiles added, renamed and removed; the decoration follows the state of the
// profile's connection.
#include "console/connection/ConnectionManager.h"
#include "console/connection/TokenVault.h"
#include "console/models/ProfileListModel.h"

#include <QAbstractItemModelTester>
#include <QTcpServer>
#include <QTest>

using namespace runbox::console;

class TestProfileListModel final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testProfilesAreListedAndFollowTheirConnection() {
        TokenVault vault(QStringLiteral("runbox-console-test"), TokenVault::Backend::SessionOnly);
        ConnectionManager manager(&vault);
        ProfileListModel model(&manager);
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // A port nobody listens on: the connection keeps retrying.
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost));
        const quint16 port = probe.serverPort();
        probe.close();
        const AgentProfile a{AgentProfile::newId(), QStringLiteral("alpha"),
                             QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port))};
        const AgentProfile b{AgentProfile::newId(), QStringLiteral("beta"),
                             QUrl(QStringLiteral("http://127.0.0.1:1"))};
        model.upsert(a);
        model.upsert(b);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.rowOf(b.id), 1);
        QCOMPARE(model.index(0).data().toString(), QStringLiteral("alpha"));
        QVERIFY(!model.index(0).data(ProfileListModel::ConnectedRole).toBool());
        const QString before = model.index(0).data(ProfileListModel::StateTextRole).toString();

        manager.connectProfile(a, QByteArray(64, 'a'));
        QTRY_VERIFY(model.index(0).data(ProfileListModel::ConnectedRole).toBool());
        QTRY_VERIFY(manager.connection(a.id)->state() == AgentConnection::State::Reconnecting);
        QVERIFY(model.index(0).data(ProfileListModel::StateTextRole).toString() != before);
        QVERIFY(model.index(0).data(Qt::ToolTipRole).toString().contains(a.url.toString()));

        AgentProfile renamed = a;
        renamed.name = QStringLiteral("alpha-2");
        model.upsert(renamed);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0).data().toString(), QStringLiteral("alpha-2"));
        manager.disconnectProfile(a.id);
        model.remove(a.id);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.profileAt(0).id, b.id);
    }

    void testProfileValidation() {
        AgentProfile p{AgentProfile::newId(), QStringLiteral("n"),
                       QUrl(QStringLiteral("http://127.0.0.1:4311"))};
        QVERIFY(p.validationError().isEmpty());
        QCOMPARE(p.displayName(), QStringLiteral("n (127.0.0.1:4311)"));
        p.url = QUrl(QStringLiteral("ftp://x"));
        QVERIFY(!p.validationError().isEmpty());
        p.url = QUrl(QStringLiteral("unix:/run/runbox.sock"));
        QVERIFY(p.validationError().contains(QStringLiteral("through SSH")));
        p.url = QUrl(QStringLiteral("https://node3:4312/api"));
        QVERIFY(!p.validationError().isEmpty());
        p.url = QUrl(QStringLiteral("https://node3"));
        QCOMPARE(p.hostAndPort(), QStringLiteral("node3:443"));
        p.name.clear();
        QVERIFY(!p.validationError().isEmpty());
    }
};

QTEST_MAIN(TestProfileListModel)
#include "test_profile_list_model.moc"
