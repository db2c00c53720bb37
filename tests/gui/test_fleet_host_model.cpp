// FleetHostModel over a ConnectionManager with scripted peers (no root needed): one row per
// connection sorted by name, each host's line (chips, no chips and why, route not offered,
// unreachable), chips in use from the answer's `held`, rows following connect/disconnect and
// renames, and a host that goes away keeps no chip shown as usable. QAbstractItemModelTester
// watches the whole time.
#include "console/connection/AgentConnection.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/TokenVault.h"
#include "console/fleet/FleetHost.h"
#include "console/fleet/FleetHostModel.h"
#include "console/models/NpuChipModel.h"
#include "shared/ProtocolVersion.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <functional>
#include <memory>

using namespace runbox::console;

namespace {

/// A scripted agent: /health and /v1/health as this protocol's agent, /v1/npu/chips by
/// @p chips (status, body); one request per connection.
void servePeer(QTcpServer* server, std::function<QPair<int, QJsonObject>()> chips) {
    QObject::connect(server, &QTcpServer::newConnection, server, [server, chips] {
        while (QTcpSocket* s = server->nextPendingConnection())
            QObject::connect(s, &QTcpSocket::readyRead, s, [s, chips] {
                const QByteArray head = s->readAll();
                QPair<int, QJsonObject> a{404, {{"error", QJsonObject{{"code", "not_found"}}}}};
                if (head.startsWith("GET /health "))
                    a = {200, {{"status", "ok"}, {"protocol", runbox::protocol::kVersion}}};
                else if (head.startsWith("GET /v1/health "))
                    a = {200, {{"status", "ok"}, {"version", "0.0.1"}}};
                else if (head.startsWith("GET /v1/npu/chips "))
                    a = chips();
                const QByteArray json = QJsonDocument(a.second).toJson(QJsonDocument::Compact);
                s->write("HTTP/1.1 " + QByteArray::number(a.first) +
                         " X\r\nContent-Type: application/json\r\nContent-Length: " +
                         QByteArray::number(json.size()) + "\r\nConnection: close\r\n\r\n" + json);
                s->disconnectFromHost();
            });
    });
}

QJsonObject chip(int id, bool usable) {
    return {{"logicId", id},
            {"npuId", id},
            {"chipId", 0},
            {"name", "910B3"},
            {"supported", true},
            {"health", "OK"},
            {"probe", QJsonObject{{"usable", usable}, {"reason", usable ? "" : "ret is -8020"}}}};
}

AgentProfile profileOn(const QString& name, quint16 port) {
    return {AgentProfile::newId(), name, QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port))};
}

/// A loopback port nothing listens on.
quint16 closedPort() {
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost);
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}

} // namespace

class TestFleetHostModel final : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<TokenVault> m_vault;
    std::unique_ptr<ConnectionManager> m_manager;

    static QString line(const FleetHostModel& model, const QString& id) {
        return model.index(model.rowOf(id)).data(FleetHostModel::StatusTextRole).toString();
    }
    static FleetHost::Status status(const FleetHostModel& model, const QString& id) {
        return FleetHost::Status(
            model.index(model.rowOf(id)).data(FleetHostModel::StatusRole).toInt());
    }

private Q_SLOTS:
    void init() {
        m_vault = std::make_unique<TokenVault>(QStringLiteral("runbox-console-test"),
                                               TokenVault::Backend::SessionOnly);
        m_manager = std::make_unique<ConnectionManager>(m_vault.get());
    }
    void cleanup() {
        m_manager.reset();
        m_vault.reset();
    }

    void testHostsTheirLinesAndAHostGoingAway() {
        QJsonArray held{1};
        QTcpServer npu, plain, old;
        servePeer(&npu, [&held] {
            return QPair<int, QJsonObject>{
                200,
                {{"source", "npu-smi"},
                 {"chips", QJsonArray{chip(0, true), chip(1, true), chip(2, false)}},
                 {"held", held}}};
        });
        servePeer(&plain, [] {
            return QPair<int, QJsonObject>{
                200, {{"source", "none"}, {"reason", "no Ascend NPU found"}, {"chips", {}}}};
        });
        servePeer(&old, [] {
            return QPair<int, QJsonObject>{404, {{"error", QJsonObject{{"code", "not_found"}}}}};
        });
        QVERIFY(npu.listen(QHostAddress::LocalHost) && plain.listen(QHostAddress::LocalHost) &&
                old.listen(QHostAddress::LocalHost));

        FleetHostModel model(m_manager.get());
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        const AgentProfile pNpu = profileOn(QStringLiteral("b-npu"), npu.serverPort());
        const AgentProfile pPlain = profileOn(QStringLiteral("c-plain"), plain.serverPort());
        const AgentProfile pOld = profileOn(QStringLiteral("a-old"), old.serverPort());
        const AgentProfile pGone = profileOn(QStringLiteral("d-closed"), closedPort());
        for (const AgentProfile& p : {pNpu, pPlain, pOld, pGone})
            m_manager->connectProfile(p, "token");
        m_manager->connection(pNpu.id)->setPollIntervalMs(200);
        QCOMPARE(model.rowCount(), 4);
        // Opening, not yet refused: no host says unreachable before its connection tried.
        for (const AgentProfile& p : {pNpu, pPlain, pOld, pGone})
            QCOMPARE(status(model, p.id), FleetHost::Status::Connecting);
        QCOMPARE(line(model, pGone.id), QStringLiteral("Connecting…"));
        QStringList order;
        for (int row = 0; row < model.rowCount(); ++row)
            order << model.index(row).data().toString().section(u' ', 0, 0);
        QCOMPARE(order, (QStringList{"a-old", "b-npu", "c-plain", "d-closed"}));

        QTRY_COMPARE_WITH_TIMEOUT(status(model, pNpu.id), FleetHost::Status::Chips, 10000);
        const QModelIndex n = model.index(model.rowOf(pNpu.id));
        QCOMPARE(n.data(FleetHostModel::ChipCountRole).toInt(), 3);
        QCOMPARE(n.data(FleetHostModel::UsableCountRole).toInt(), 2);
        QCOMPARE(n.data(FleetHostModel::HeldCountRole).toInt(), 1);
        QVERIFY2(line(model, pNpu.id).contains(QStringLiteral("2 of 3")),
                 qPrintable(line(model, pNpu.id)));
        QVERIFY(line(model, pNpu.id).contains(QStringLiteral("1 in use")));
        FleetHost* host = model.hostAt(model.rowOf(pNpu.id));
        QVERIFY(host->chips()->index(1).data(NpuChipModel::HeldRole).toBool());
        QVERIFY(!host->chips()->index(0).data(NpuChipModel::HeldRole).toBool());

        QTRY_COMPARE_WITH_TIMEOUT(status(model, pPlain.id), FleetHost::Status::NoChips, 10000);
        QVERIFY2(line(model, pPlain.id).contains(QStringLiteral("no Ascend NPU found")),
                 qPrintable(line(model, pPlain.id)));
        QTRY_COMPARE_WITH_TIMEOUT(status(model, pOld.id), FleetHost::Status::NotOffered, 10000);
        QVERIFY(line(model, pOld.id).contains(QStringLiteral("GET /v1/npu/chips")));
        QTRY_COMPARE_WITH_TIMEOUT(status(model, pGone.id), FleetHost::Status::Unreachable, 10000);
        QVERIFY2(line(model, pGone.id).startsWith(QStringLiteral("Unreachable")),
                 qPrintable(line(model, pGone.id)));
        QCOMPARE(model.index(model.rowOf(pGone.id)).data(FleetHostModel::ChipCountRole).toInt(), 0);

        // A refresh reads `held` again.
        held = QJsonArray{};
        model.refreshAll();
        QTRY_COMPARE(n.data(FleetHostModel::HeldCountRole).toInt(), 0);

        // A rename moves the row where its name belongs.
        AgentProfile renamed = pPlain;
        renamed.name = QStringLiteral("0-plain");
        m_manager->updateProfile(renamed);
        QCOMPARE(model.rowOf(pPlain.id), 0);
        QVERIFY(model.index(0).data().toString().startsWith(QStringLiteral("0-plain ")));

        // The NPU host goes away: no chip of it stays listed, let alone usable or checked.
        host->chips()->setCheckedChips({0});
        QCOMPARE(host->chips()->checkedChips(), QList<int>{0});
        npu.close();
        QTRY_COMPARE_WITH_TIMEOUT(status(model, pNpu.id), FleetHost::Status::Unreachable, 10000);
        QCOMPARE(host->chips()->rowCount(), 0);
        QVERIFY(host->chips()->checkedChips().isEmpty());
        QCOMPARE(model.index(model.rowOf(pNpu.id)).data(FleetHostModel::UsableCountRole).toInt(),
                 0);

        // Disconnected, its row goes (and the connection object after it).
        m_manager->disconnectProfile(pNpu.id);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.rowOf(pNpu.id), -1);
        QTest::qWait(50); // deleteLater of the connection and the host
        model.refreshAll();
        QCOMPARE(model.rowCount(), 3);
    }

    void testHostsAlreadyConnectedAreListed() {
        QTcpServer plain;
        servePeer(&plain, [] {
            return QPair<int, QJsonObject>{200, {{"source", "none"}, {"chips", {}}}};
        });
        QVERIFY(plain.listen(QHostAddress::LocalHost));
        const AgentProfile p = profileOn(QStringLiteral("plain"), plain.serverPort());
        m_manager->connectProfile(p, "token");
        FleetHostModel model(m_manager.get());
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(status(model, p.id), FleetHost::Status::NoChips, 10000);
        QCOMPARE(line(model, p.id), QStringLiteral("No NPU on this host."));
    }
};

QTEST_MAIN(TestFleetHostModel)
#include "test_fleet_host_model.moc"
