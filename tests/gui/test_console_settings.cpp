// ConsoleSettings: the one typed facade over QSettings — defaults, profiles and layouts survive a
// reload; nothing but what the facade declares is written.
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
        QVERIFY(s.profiles().isEmpty());
        QVERIFY(s.windowGeometry(QStringLiteral("main")).isEmpty());
    }

    void testValuesSurviveAReload() {
        QTemporaryDir dir;
        const QString path = dir.filePath("c.ini");
        const QList<AgentProfile> profiles{
            {AgentProfile::newId(), QStringLiteral("gpu-3"), QUrl("http://10.0.0.3:4311")},
            {AgentProfile::newId(), QStringLiteral("laptop"), QUrl("http://127.0.0.1:4311")}};
        {
            ConsoleSettings s(path);
            s.setLanguage(QStringLiteral("vi"));
            s.setProfiles(profiles);
            s.setWindowGeometry(QStringLiteral("main"), QByteArray("geometry"));
            s.setTableState(QStringLiteral("executions/odd name"), QByteArray("header"));
            s.setValue(ConsoleSettings::Key::ConnectedProfiles, QStringList{profiles[0].id});
            s.sync();
        }
        ConsoleSettings s(path);
        QCOMPARE(s.language(), QStringLiteral("vi"));
        QCOMPARE(s.profiles(), profiles);
        QCOMPARE(s.windowGeometry(QStringLiteral("main")), QByteArray("geometry"));
        QCOMPARE(s.tableState(QStringLiteral("executions/odd name")), QByteArray("header"));
        QCOMPARE(s.value(ConsoleSettings::Key::ConnectedProfiles).toStringList(),
                 QStringList{profiles[0].id});
        // Fewer profiles replace the list, not merge into it.
        s.setProfiles({profiles[1]});
        QCOMPARE(s.profiles(), QList<AgentProfile>{profiles[1]});
    }
};

QTEST_MAIN(TestConsoleSettings)
#include "test_console_settings.moc"
