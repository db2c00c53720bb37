// runbox-console: the operators' desktop console (console/README.md). A thin main over
// runbox_console_core.
#include "console/app/MainWindow.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"
#include "console/core/LanguageManager.h"

#include <QApplication>
#include <QCommandLineParser>

#include <memory>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Runbox"));
    QApplication::setApplicationName(QStringLiteral("runbox-console"));
    QApplication::setApplicationDisplayName(QStringLiteral("Runbox Console"));
    QApplication::setApplicationVersion(QStringLiteral(RUNBOX_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("runbox-console"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Runbox operators' console"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption settingsFile(QStringLiteral("settings"),
                                          QStringLiteral("Use the INI settings file FILE."),
                                          QStringLiteral("FILE"));
    const QCommandLineOption language(QStringLiteral("language"),
                                      QStringLiteral("Use LANG (en, zh_CN, es, vi) this time."),
                                      QStringLiteral("LANG"));
    const QCommandLineOption fleetFile(
        QStringLiteral("fleet"),
        QStringLiteral("Keep the agents in the fleet file FILE (default: the CLI's, or fleet.json "
                       "beside --settings)."),
        QStringLiteral("FILE"));
    parser.addOptions({settingsFile, language, fleetFile});
    parser.process(app);

    using namespace runbox::console;
    const auto settings = parser.isSet(settingsFile)
                              ? std::make_unique<ConsoleSettings>(parser.value(settingsFile))
                              : std::make_unique<ConsoleSettings>();
    if (parser.isSet(fleetFile))
        settings->setFleetPath(parser.value(fleetFile));
    LanguageManager::install(&app, parser.isSet(language) ? parser.value(language)
                                                          : settings->language());
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/runbox.svg")));

    TokenVault vault;
    ConnectionManager manager(&vault);
    manager.setSshProgram(settings->value(ConsoleSettings::Key::SshProgram).toString());
    MainWindow window(settings.get(), &manager);
    window.show();
    return app.exec();
}
