// The network policy setting: stored canonical under `network.policy`, audited, reloaded.
#include "agent/egress/NetworkPolicyStore.h"
#include "agent/http/ErrorStatus.h"
#include "agent/store/Database.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::egress;

namespace {

QJsonObject allowlist(const QJsonArray& domains, const QJsonArray& cidrs = {}) {
    return {
        {"mode", "domain-allowlist"}, {"allowedDomains", domains}, {"allowPrivateCidrs", cidrs}};
}

QList<store::AuditEntry> audit(const store::Database& db) {
    QList<store::AuditEntry> entries;
    store::SettingsRepository(db).audit(QStringLiteral("network."), 0, 1000, &entries);
    return entries;
}

} // namespace

class TestNetworkPolicyStore final : public QObject {
    Q_OBJECT
    QTemporaryDir m_root;
    QString m_state;
    std::unique_ptr<store::Database> m_db;

    void reopen() {
        m_db.reset();
        QString error;
        m_db = store::Database::open(m_state, &error);
        QVERIFY2(m_db, qPrintable(error));
    }

private Q_SLOTS:
    void init() {
        m_state = m_root.filePath(QString::fromLatin1(QTest::currentTestFunction()));
        reopen();
    }
    void cleanup() { m_db.reset(); }

    void testNothingStoredIsModeNone() {
        NetworkPolicyStore policies(*m_db);
        QVERIFY(!policies.initialize());
        QCOMPARE(policies.current().mode(), NetworkPolicy::Mode::None);
        QCOMPARE(policies.current().revision(), QStringLiteral("none"));
        std::optional<store::AuditEntry> last;
        QVERIFY(!policies.lastChange(&last));
        QVERIFY(!last);
    }

    void testUpdateStoresTheCanonicalPolicyWithOneAuditRow() {
        NetworkPolicyStore policies(*m_db);
        QVERIFY(!policies.initialize());
        NetworkPolicy applied;
        QVERIFY(!policies.update(allowlist({" PyPI.org. ", "*.pythonhosted.org", "pypi.org"}),
                                 QStringLiteral("agent"), 1000, &applied));
        QCOMPARE(applied.toJson().value("allowedDomains").toArray(),
                 (QJsonArray{"*.pythonhosted.org", "pypi.org"}));
        QCOMPARE(policies.current().revision(), applied.revision());
        QCOMPARE(applied.revision().size(), 64);
        const QList<store::AuditEntry> entries = audit(*m_db);
        QCOMPARE(entries.size(), 1);
        QCOMPARE(entries.first().key, QStringLiteral("network.policy"));
        QCOMPARE(entries.first().tokenId, QStringLiteral("agent"));
        QVERIFY(entries.first().before.isNull());
        QCOMPARE(entries.first().after.toObject().value("mode").toString(),
                 QStringLiteral("domain-allowlist"));
        QVERIFY(!entries.first().after.toObject().contains("revision")); // derived, not stored
    }

    void testTheSamePolicyAgainWritesNoAuditRow() {
        NetworkPolicyStore policies(*m_db);
        QVERIFY(!policies.initialize());
        QVERIFY(!policies.update(allowlist({"pypi.org"}), "agent", 0, nullptr));
        QVERIFY(!policies.update(allowlist({"PYPI.ORG"}), "agent", 0, nullptr)); // same, canonical
        QCOMPARE(audit(*m_db).size(), 1);
        QVERIFY(!policies.update(QJsonObject{{"mode", "none"}}, "ws:w1", 0, nullptr));
        const QList<store::AuditEntry> entries = audit(*m_db);
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.first().tokenId, QStringLiteral("ws:w1")); // newest first
        QCOMPARE(entries.first().before.toObject().value("mode").toString(),
                 QStringLiteral("domain-allowlist"));
    }

    void testModeNoneWhileNothingIsStoredLeavesNoRow() {
        NetworkPolicyStore policies(*m_db);
        QVERIFY(!policies.initialize());
        QVERIFY(!policies.update(QJsonObject{{"mode", "none"}}, "agent", 0, nullptr));
        QCOMPARE(audit(*m_db).size(), 0);
    }

    void testInvalidPolicyIsRefusedAndNothingChanges() {
        NetworkPolicyStore policies(*m_db);
        QVERIFY(!policies.initialize());
        QVERIFY(!policies.update(allowlist({"pypi.org"}), "agent", 0, nullptr));
        const QString before = policies.current().revision();
        const auto error =
            policies.update(allowlist({"pypi.org", "10.0.0.1"}), "agent", 0, nullptr);
        QVERIFY(error);
        QCOMPARE(http::httpStatus(error->kind), 400);
        QCOMPARE(error->code, QStringLiteral("invalid_network_policy"));
        QVERIFY2(error->message.contains("10.0.0.1"), qPrintable(error->message));
        QCOMPARE(policies.current().revision(), before);
        QCOMPARE(audit(*m_db).size(), 1);
    }

    void testStoredPolicyIsLoadedAfterARestart() {
        QString revision;
        {
            NetworkPolicyStore policies(*m_db);
            QVERIFY(!policies.initialize());
            NetworkPolicy applied;
            QVERIFY(!policies.update(allowlist({"mirror.test"}, {"10.1.2.0/24"}), "agent", 0,
                                     &applied));
            revision = applied.revision();
        }
        reopen();
        NetworkPolicyStore reloaded(*m_db);
        QCOMPARE(reloaded.current().mode(), NetworkPolicy::Mode::None); // before initialize()
        QVERIFY(!reloaded.initialize());
        QCOMPARE(reloaded.current().revision(), revision);
        QVERIFY(reloaded.current().allows(QStringLiteral("mirror.test"), 443));
    }

    void testCorruptStoredPolicyRefusesToLoad() {
        QVERIFY(!store::SettingsRepository(*m_db).set(
            {store::SettingChange{QStringLiteral("network.policy"),
                                  QJsonObject{{"mode", "domain-allowlist"},
                                              {"allowedDomains", QJsonArray{"127.0.0.1"}}}}},
            "test", 0));
        NetworkPolicyStore policies(*m_db);
        const auto error = policies.initialize();
        QVERIFY(error);
        QCOMPARE(error->code, QStringLiteral("store_error"));
        QCOMPARE(policies.current().mode(), NetworkPolicy::Mode::None);
    }
};

QTEST_GUILESS_MAIN(TestNetworkPolicyStore)
#include "test_network_policy_store.moc"
