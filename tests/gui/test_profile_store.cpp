// The console's agent profiles live in the fleet file (docs/contracts.md "Fleet file"), the one
// list the CLI and the Python client read too: an earlier console's profiles move there from its
// settings (ids, hence keychain entries, kept), the CLI reads what the console writes, a fleet
// file that cannot be read is never overwritten, entries others added are kept, and an entry
// with a token file connects with that file's token (a 0644 one refused) against a real agent.
#include "AgentFixture.h"
#include "console/app/AgentListActions.h"
#include "console/app/MainWindow.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"
#include "console/core/ProfileStore.h"
#include "console/models/ProfileListModel.h"
#include "shared/FleetFile.h"
#include "shared/PoolSecret.h"
#include "support/AgentProcess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace runbox;
using namespace runbox::console;

namespace {

const char kOldId1[] = "0d9b1a52-0c7e-4a55-9b3e-6f1f4c1a0001";
const char kOldId2[] = "0d9b1a52-0c7e-4a55-9b3e-6f1f4c1a0002";
const char kOldId3[] = "0d9b1a52-0c7e-4a55-9b3e-6f1f4c1a0003";
const char kPin[] = "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:"
                    "CD:EF:01:23:45:67:89";

/// Settings as the console before the fleet file wrote them (array agents/profiles).
void writeOldSettings(const QString& iniPath) {
    QSettings old(iniPath, QSettings::IniFormat);
    old.beginWriteArray(QStringLiteral("agents/profiles"), 3);
    old.setArrayIndex(0);
    old.setValue("id", kOldId1);
    old.setValue("name", "GPU node 3"); // not a fleet name: becomes GPU-node-3
    old.setValue("url", "https://10.0.0.3:4312");
    old.setValue("fingerprint", kPin);
    old.setArrayIndex(1);
    old.setValue("id", kOldId2);
    old.setValue("name", "GPU node 3"); // the same label twice: GPU-node-3-2
    old.setValue("url", "http://127.0.0.1:4311");
    old.setArrayIndex(2);
    old.setValue("id", kOldId3);
    old.setValue("name", "via-ssh");
    old.setValue("url", "");
    old.setValue("viaSsh", true);
    old.setValue("sshHost", "node3");
    old.setValue("sshUser", "ops");
    old.setValue("sshPort", 2222);
    old.setValue("sshRemote", "/run/runbox/agent.sock");
    old.endArray();
    old.setValue("ui/language", "vi");
    old.sync();
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// `runbox --fleet FILE ARGS…`: exit code and stdout+stderr.
std::pair<int, QString> runCli(const QString& fleet, const QStringList& args) {
    QProcess cli;
    cli.setProcessChannelMode(QProcess::MergedChannels);
    cli.start(QStringLiteral(RUNBOX_BINARY_DIR "/cli/runbox"),
              QStringList{QStringLiteral("--fleet"), fleet} + args);
    cli.waitForFinished(60000);
    return {cli.exitCode(), QString::fromUtf8(cli.readAll())};
}

} // namespace

class TestProfileStore final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    /// A console started on an earlier console's settings shows the same agents, now in the
    /// fleet file, and the settings no longer hold them.
    void testEarlierProfilesMoveIntoTheFleetFile() {
        QTemporaryDir dir;
        const QString ini = dir.filePath("console.ini");
        writeOldSettings(ini);
        ConsoleSettings settings(ini);
        TokenVault vault(QStringLiteral("runbox-console-test"), TokenVault::Backend::SessionOnly);
        ConnectionManager manager(&vault);
        {
            MainWindow window(&settings, &manager);
            const QList<AgentProfile> shown = window.profileModel()->profiles();
            QCOMPARE(shown.size(), 3);
            // The ids stay: the keychain entries an earlier console stored are found again.
            QCOMPARE(shown[0].id, QString::fromLatin1(kOldId1));
            QCOMPARE(shown[1].id, QString::fromLatin1(kOldId2));
            QCOMPARE(shown[0].name, QStringLiteral("GPU-node-3"));
            QCOMPARE(shown[1].name, QStringLiteral("GPU-node-3-2"));
            QCOMPARE(shown[0].fingerprint, QString::fromLatin1(kPin));
            QVERIFY(shown[2].viaSsh);
            QCOMPARE(shown[2].sshPort, 2222);
        }
        QVERIFY(settings.legacyProfiles().isEmpty());
        QCOMPARE(settings.language(), QStringLiteral("vi")); // the rest of the settings stay

        FleetFile fleet;
        QCOMPARE(fleet.load(dir.filePath("fleet.json")), QString());
        QCOMPARE(fleet.agents().size(), 3);
        QCOMPARE(fleet.agents()[0].keychain, QString::fromLatin1(kOldId1));
        QCOMPARE(fleet.agents()[0].pin.size(), 32);
        QCOMPARE(fleet.agents()[2].ssh,
                 (FleetSsh{"node3", "ops", 2222, QStringLiteral("/run/runbox/agent.sock")}));

        // The CLI reads the same file: keychain entries are listed as ones it cannot use, and a
        // command on the SSH one says why instead of connecting anywhere.
        const auto [code, out] =
            runCli(dir.filePath("fleet.json"), {QStringLiteral("pool"), QStringLiteral("ls")});
        QVERIFY2(out.contains(QLatin1String("GPU-node-3-2")) && out.contains("keychain"),
                 qPrintable(out));
        QVERIFY2(out.contains(QLatin1String("through ssh")), qPrintable(out));
        Q_UNUSED(code);
        const auto [execCode, execOut] =
            runCli(dir.filePath("fleet.json"),
                   {QStringLiteral("exec"), QStringLiteral("--workspace"),
                    QStringLiteral("via-ssh.w1"), QStringLiteral("--"), QStringLiteral("true")});
        QVERIFY(execCode != 0);
        QVERIFY2(execOut.contains(QLatin1String("reached through ssh")), qPrintable(execOut));

        // A second start migrates nothing twice.
        MainWindow again(&settings, &manager);
        QCOMPARE(again.profileModel()->profiles().size(), 3);
    }

    /// A fleet file that is not one is left byte for byte, the settings' profiles stay where
    /// they are, and nothing is saved over it.
    void testAnUnreadableFleetFileIsNeverOverwritten() {
        QTemporaryDir dir;
        const QString ini = dir.filePath("console.ini");
        writeOldSettings(ini);
        const QByteArray broken = "{\"agents\": [{\"name\": \"h\", \"url\": \"http://a:1\"";
        QFile f(dir.filePath("fleet.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(broken);
        f.close();
        ConsoleSettings settings(ini);
        ProfileStore store(settings.fleetPath());
        QList<AgentProfile> profiles;
        QVERIFY(!store.load(&profiles).isEmpty());
        QVERIFY(!store.migrate(&settings, &profiles).isEmpty());
        AgentProfile added{AgentProfile::newId(), QStringLiteral("h2"),
                           QUrl(QStringLiteral("http://127.0.0.1:4311"))};
        QVERIFY(!store.save({added}).isEmpty());
        QCOMPARE(readAll(dir.filePath("fleet.json")), broken);
        QCOMPARE(settings.legacyProfiles().size(), 3);
    }

    /// Agents another program added after the console read the file survive the console's save;
    /// one the console removed is gone; a relative token file stays relative.
    void testSaveKeepsWhatOthersAdded() {
        QTemporaryDir dir;
        const QString path = dir.filePath("fleet.json");
        FleetFile first;
        QVERIFY(
            first
                .parse("{\"agents\":[{\"name\":\"a\",\"url\":\"http://"
                       "10.0.0.1:4311\",\"tokenFile\":\"t/a\"},"
                       "            "
                       "{\"name\":\"b\",\"url\":\"http://10.0.0.2:4311\",\"keychain\":\"kb\"}]}",
                       path)
                .isEmpty());
        QCOMPARE(first.save(path), QString());
        ProfileStore store(path);
        QList<AgentProfile> profiles;
        QCOMPARE(store.load(&profiles), QString());
        QCOMPARE(profiles.size(), 2);
        QCOMPARE(profiles[0].tokenFile, dir.filePath("t/a"));

        FleetFile other; // e.g. runbox pool create, meanwhile
        QCOMPARE(other.load(path), QString());
        QList<FleetAgent> agents = other.agents();
        FleetAgent c;
        c.name = "c";
        c.url = "http://10.0.0.3:4311";
        c.keychain = "kc";
        agents << c;
        other.setAgents(agents);
        QCOMPARE(other.save(path), QString());

        profiles.removeAt(1); // the console removes b
        QCOMPARE(store.save(profiles), QString());
        FleetFile now;
        QCOMPARE(now.load(path), QString());
        QStringList names;
        for (const FleetAgent& a : now.agents())
            names << a.name;
        QCOMPARE(names, (QStringList{"a", "c"}));
        QVERIFY(readAll(path).contains("\"t/a\""));
    }

    /// Another program's edit of an entry the console holds but did not change (a rotated pin)
    /// and its removal of one survive the console's save; an entry the console changed is the
    /// console's.
    void testSaveKeepsOthersEditsToUntouchedEntries() {
        QTemporaryDir dir;
        const QString path = dir.filePath("fleet.json");
        const QString pinA = QStringLiteral("sha256:") + QString(64, u'a');
        const QString pinB = QStringLiteral("sha256:") + QString(64, u'b');
        FleetFile first;
        QVERIFY(first
                    .parse(QStringLiteral("{\"agents\":[{\"name\":\"a\",\"url\":\"https://h1:1\","
                                          "\"keychain\":\"ka\",\"fingerprint\":\"%1\"},"
                                          "{\"name\":\"b\",\"url\":\"http://h2:1\",\"keychain\":"
                                          "\"kb\"},{\"name\":\"c\",\"url\":\"http://h3:1\","
                                          "\"keychain\":\"kc\"}]}")
                               .arg(pinA)
                               .toUtf8(),
                           path)
                    .isEmpty());
        QCOMPARE(first.save(path), QString());
        ProfileStore store(path);
        QList<AgentProfile> profiles;
        QCOMPARE(store.load(&profiles), QString());

        FleetFile other; // meanwhile: a's pin rotated, b removed
        QCOMPARE(other.load(path), QString());
        QList<FleetAgent> agents = other.agents();
        agents[0].fingerprint = pinB;
        agents.removeAt(1);
        other.setAgents(agents);
        QCOMPARE(other.save(path), QString());

        profiles[2].url = QUrl(QStringLiteral("http://h3-renamed:1")); // the console edits c
        QCOMPARE(store.save(profiles), QString());
        FleetFile now;
        QCOMPARE(now.load(path), QString());
        QCOMPARE(now.agents().size(), 2);
        QCOMPARE(now.find("a")->fingerprint, pinB); // the rotation kept
        QVERIFY(!now.find("b"));                    // the removal kept
        QCOMPARE(now.find("c")->url, QStringLiteral("http://h3-renamed:1"));
    }

    /// What the CLI would refuse is never written: a profile name that is not a fleet name.
    void testRefusesToWriteWhatTheCliCannotRead() {
        QTemporaryDir dir;
        ProfileStore store(dir.filePath("fleet.json"));
        QList<AgentProfile> none;
        QCOMPARE(store.load(&none), QString());
        AgentProfile bad{AgentProfile::newId(), QStringLiteral("has space"),
                         QUrl(QStringLiteral("http://127.0.0.1:4311"))};
        QVERIFY(!bad.validationError().isEmpty()); // the dialog says so first
        QVERIFY(!store.save({bad}).isEmpty());
        QVERIFY(!QFile::exists(dir.filePath("fleet.json")));
    }

    /// A fleet entry with a token file connects with that file's token against a real agent;
    /// made readable by others, it is refused with the reason and no connection is made.
    void testTokenFileEntryConnects() {
        AgentFixture agent;
        QString error;
        QVERIFY2(agent.start(&error), qPrintable(error));
        QTemporaryDir dir;
        QFile token(dir.filePath("agent.token"));
        QVERIFY(token.open(QIODevice::WriteOnly));
        token.write(agent.token + '\n');
        token.close();
        QVERIFY(token.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
        const QString path = dir.filePath("fleet.json");
        QFile fleet(path);
        QVERIFY(fleet.open(QIODevice::WriteOnly));
        fleet.write(
            QJsonDocument(
                QJsonObject{{"agents", QJsonArray{QJsonObject{{"name", "local"},
                                                              {"url", agent.url.toString()},
                                                              {"tokenFile", "agent.token"}}}}})
                .toJson());
        fleet.close();

        ProfileStore store(path);
        QList<AgentProfile> profiles;
        QCOMPARE(store.load(&profiles), QString());
        TokenVault vault(QStringLiteral("runbox-console-test"), TokenVault::Backend::SessionOnly);
        ConnectionManager manager(&vault);
        QSignalSpy needed(&manager, &ConnectionManager::tokenNeeded);

        QVERIFY(token.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadOther));
        manager.connectProfile(profiles.first());
        QCOMPARE(needed.size(), 1);
        QVERIFY2(needed.first().at(1).toString().contains("chmod 600"),
                 qPrintable(needed.first().at(1).toString()));
        QVERIFY(!manager.connection(profiles.first().id));

        QVERIFY(token.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
        manager.connectProfile(profiles.first());
        AgentConnection* c = manager.connection(profiles.first().id);
        QVERIFY(c);
        QTRY_COMPARE_WITH_TIMEOUT(c->state(), AgentConnection::State::Connected, 20000);
    }

    /// A fleet entry {"pool"} (written by runbox pool create) connects with the token the pool's
    /// secret derives from the nonce the host shows, survives the console's save as a pool
    /// entry, and a secret others may read is refused with the reason before anything is sent.
    void testPoolEntryConnectsWithTheDerivedToken() {
        QTemporaryDir home;
        QVERIFY(QDir().mkpath(home.filePath("config/runbox/pools")));
        const QByteArray previous = qgetenv("XDG_CONFIG_HOME");
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(home.filePath("config")));
        QString error;
        const QString secretPath = PoolSecret::defaultPath(QStringLiteral("team-a"));
        QVERIFY2(secretPath.startsWith(home.path()), qPrintable(secretPath));
        const QByteArray secret = PoolSecret::readOrCreate(secretPath, &error);
        QVERIFY2(!secret.isEmpty(), qPrintable(error));
        // The host's own copy (it runs as nobody when the test runs as root).
        QTemporaryDir hostDir;
        QFile copy(hostDir.filePath("pool.secret"));
        QVERIFY(copy.open(QIODevice::WriteOnly));
        copy.write(secret + '\n');
        copy.close();
        QVERIFY(copy.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
        if (testsupport::AgentProcess::runningAsRoot())
            for (const QString& p : {hostDir.path(), copy.fileName()})
                QVERIFY(::chown(QFile::encodeName(p).constData(), 65534, 65534) == 0);
        testsupport::AgentProcess host;
        testsupport::AgentOptions options;
        options.extraArgs = {"--pool", "team-a", "--pool-secret-file", copy.fileName()};
        options.tls = true; // a pool host is reached over TLS only
        QVERIFY2(host.start(options), qPrintable(host.errorString() + host.log()));

        const QString path = home.filePath("fleet.json");
        QFile fleet(path);
        QVERIFY(fleet.open(QIODevice::WriteOnly));
        fleet.write(QJsonDocument(
                        QJsonObject{{"agents",
                                     QJsonArray{QJsonObject{{"name", "pool-1"},
                                                            {"url", host.tlsUrl().toString()},
                                                            {"fingerprint", host.tlsFingerprint()},
                                                            {"pool", "team-a"}},
                                                QJsonObject{{"name", "plain"},
                                                            {"url", host.baseUrl().toString()},
                                                            {"pool", "team-a"}}}}})
                        .toJson());
        fleet.close();
        ProfileStore store(path);
        QList<AgentProfile> profiles;
        QCOMPARE(store.load(&profiles), QString());
        QCOMPARE(profiles.first().pool, QStringLiteral("team-a"));
        TokenVault vault(QStringLiteral("runbox-console-test"), TokenVault::Backend::SessionOnly);
        ConnectionManager manager(&vault);
        QSignalSpy needed(&manager, &ConnectionManager::tokenNeeded);
        QSignalSpy said(&manager, &ConnectionManager::statusMessage);
        // A pool entry over plain HTTP: refused before anything is sent (TLS proves the host).
        manager.connectProfile(profiles.at(1));
        QVERIFY(!manager.connection(profiles.at(1).id));
        QVERIFY(!said.isEmpty() && said.last().at(0).toString().contains("only over https://"));

        QFile secretFile(secretPath);
        QVERIFY(secretFile.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup));
        manager.connectProfile(profiles.first());
        QCOMPARE(needed.size(), 1);
        QVERIFY2(needed.first().at(1).toString().contains("chmod 600"),
                 qPrintable(needed.first().at(1).toString()));
        QVERIFY(!manager.connection(profiles.first().id));

        QVERIFY(secretFile.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
        manager.connectProfile(profiles.first());
        QTRY_VERIFY_WITH_TIMEOUT(manager.connection(profiles.first().id) &&
                                     manager.connection(profiles.first().id)->state() ==
                                         AgentConnection::State::Connected,
                                 20000);
        QCOMPARE(manager.connection(profiles.first().id)->client()->token(), host.token());
        QCOMPARE(store.save(profiles), QString());
        QVERIFY2(readAll(path).contains("\"pool\": \"team-a\""), readAll(path).constData());
        qputenv("XDG_CONFIG_HOME", previous);
    }
};

QTEST_MAIN(TestProfileStore)
#include "test_profile_store.moc"
