// ConsoleSettings: the one typed facade over QSettings — defaults and layouts survive a reload;
// nothing but what the facade declares is written. (Agent profiles live in the fleet file:
// test_profile_store.)
#include "console/core/ConsoleSettings.h"

#include <QTemporaryDir>
#include <QTest>

using runbox::console::AgentProfile;
using runbox::console::ConsoleSettings;

class TestConsoleSettings final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testDefaults() {
        QTemporaryDir dir;
        ConsoleSettings s(dir.filePath("c.ini"));
        QCOMPARE(s.language(), QString());
        QCOMPARE(s.value(ConsoleSettings::Key::LiveRefresh).toBool(), true);
        QCOMPARE(s.value(ConsoleSettings::Key::LogViewMaxChars).toInt(), 4 * 1024 * 1024);
        QVERIFY(s.legacyProfiles().isEmpty());
        QCOMPARE(s.fleetPath(), dir.filePath("fleet.json")); // beside an INI settings file
        s.setFleetPath(dir.filePath("elsewhere.json"));
        QCOMPARE(s.fleetPath(), dir.filePath("elsewhere.json"));
        QVERIFY(s.windowGeometry(QStringLiteral("main")).isEmpty());
    }

    void testValuesSurviveAReload() {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.ini");
        const QString id = AgentProfile::newId();
        {
            ConsoleSettings s(path);
            s.setLanguage(QStringLiteral("vi"));
            s.setWindowGeometry(QStringLiteral("main"), QByteArray("geometry"));
            s.setTableState(QStringLiteral("executions/odd name"), QByteArray("header"));
            s.setValue(ConsoleSettings::Key::ConnectedProfiles, QStringList{id});
            s.sync();
        }
        ConsoleSettings s(path);
        QCOMPARE(s.language(), QStringLiteral("vi"));
        QCOMPARE(s.windowGeometry(QStringLiteral("main")), QByteArray("geometry"));
        QCOMPARE(s.tableState(QStringLiteral("executions/odd name")), QByteArray("header"));
        QCOMPARE(s.value(ConsoleSettings::Key::ConnectedProfiles).toStringList(), QStringList{id});
    }
};

QTEST_MAIN(TestConsoleSettings)
#include "test_console_settings.moc"
