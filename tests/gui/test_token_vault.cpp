// TokenVault: a token goes to the OS keychain when one is reachable, otherwise it is kept for the
// session only and the vault says so — and in no case does it land in a plain file.
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"

#include <QDirIterator>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using runbox::console::TokenVault;

namespace {
// Every file under @p root that contains @p needle.
QStringList filesContaining(const QString& root, const QByteArray& needle) {
    QStringList hits;
    QDirIterator it(root, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly) && f.readAll().contains(needle))
            hits << f.fileName();
    }
    return hits;
}
} // namespace

class TestTokenVault final : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_home;

private Q_SLOTS:
    void initTestCase() {
        // Keep whatever a fallback might write inside a directory the test can search.
        qputenv("HOME", m_home.path().toUtf8());
        qputenv("XDG_CONFIG_HOME", m_home.filePath(".config").toUtf8());
        qputenv("XDG_DATA_HOME", m_home.filePath(".local/share").toUtf8());
        QStandardPaths::setTestModeEnabled(true);
    }

    void testTheFileScanFindsAPlainTextSecret() {
        // Positive control for the scan used below: a secret written to a settings file is found.
        runbox::console::ConsoleSettings settings(m_home.filePath(".config/control.ini"));
        settings.setLanguage(QStringLiteral("control-secret-0123"));
        settings.sync();
        QCOMPARE(filesContaining(m_home.path(), "control-secret-0123").size(), 1);
    }

    void testSessionOnlyKeepsTheTokenInMemory() {
        TokenVault vault(QStringLiteral("runbox-console-test"), TokenVault::Backend::SessionOnly);
        QVERIFY(!vault.keychainAvailable());
        bool stored = false, persistent = true;
        vault.store(QStringLiteral("p1"), "secret-1", [&](const TokenVault::StoreResult& r) {
            stored = true;
            persistent = r.persistent;
        });
        QTRY_VERIFY(stored);
        QVERIFY(!persistent);
        QByteArray loaded;
        vault.load(QStringLiteral("p1"),
                   [&](const TokenVault::LoadResult& r) { loaded = r.token; });
        QTRY_COMPARE(loaded, QByteArray("secret-1"));
        vault.forget(QStringLiteral("p1"));
        bool found = true, answered = false;
        vault.load(QStringLiteral("p1"), [&](const TokenVault::LoadResult& r) {
            found = r.found;
            answered = true;
        });
        QTRY_VERIFY(answered);
        QVERIFY(!found);
    }

    void testKeychainOrSessionNeverAPlainFile() {
        const QString service =
            QStringLiteral("runbox-console-test-") + QUuid::createUuid().toString(QUuid::Id128);
        const QByteArray token = QUuid::createUuid().toByteArray(QUuid::Id128) + "-token";
        TokenVault vault(service, TokenVault::Backend::Keychain);
        QSignalSpy unavailable(&vault, &TokenVault::keychainUnavailable);
        bool done = false;
        TokenVault::StoreResult result;
        vault.store(QStringLiteral("profile"), token, [&](const TokenVault::StoreResult& r) {
            result = r;
            done = true;
        });
        QTRY_VERIFY_WITH_TIMEOUT(done, 30000);
        if (result.persistent) {
            // A keychain is reachable: a fresh vault (no session memory) reads it back.
            TokenVault fresh(service, TokenVault::Backend::Keychain);
            QByteArray loaded;
            fresh.load(QStringLiteral("profile"),
                       [&](const TokenVault::LoadResult& r) { loaded = r.token; });
            QTRY_COMPARE_WITH_TIMEOUT(loaded, token, 30000);
            fresh.forget(QStringLiteral("profile"));
        } else {
            // No keychain: the vault says so plainly and still serves the session.
            QCOMPARE(unavailable.count(), 1);
            QVERIFY(!vault.keychainAvailable());
            QVERIFY(result.message.contains(QStringLiteral("session")));
            QByteArray loaded;
            vault.load(QStringLiteral("profile"),
                       [&](const TokenVault::LoadResult& r) { loaded = r.token; });
            QTRY_COMPARE(loaded, token);
        }
        QTest::qWait(200);
        QCOMPARE(filesContaining(m_home.path(), token), QStringList());
    }
};

QTEST_MAIN(TestTokenVault)
#include "test_token_vault.moc"
