#include "console/core/LanguageManager.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

namespace runbox::console {

QList<QPair<QString, QString>> LanguageManager::languages() {
    return {
        {QString(),
         QCoreApplication::translate("runbox::console::LanguageManager", "System language")},
        {QStringLiteral("en"), QStringLiteral("English")},
        {QStringLiteral("zh_CN"), QStringLiteral("简体中文")},
        {QStringLiteral("es"), QStringLiteral("Español")},
        {QStringLiteral("vi"), QStringLiteral("Tiếng Việt")},
    };
}

QString LanguageManager::resolve(const QString& choice) {
    if (!choice.isEmpty())
        return choice;
    const QLocale system;
    for (const QString& name : system.uiLanguages()) {
        const QString n = QString(name).replace(u'-', u'_');
        if (n.startsWith(QLatin1String("zh_Hans")) || n == QLatin1String("zh_CN") ||
            n == QLatin1String("zh"))
            return QStringLiteral("zh_CN");
        if (n.startsWith(QLatin1String("es")))
            return QStringLiteral("es");
        if (n.startsWith(QLatin1String("vi")))
            return QStringLiteral("vi");
        if (n.startsWith(QLatin1String("en")))
            return QStringLiteral("en");
    }
    return QStringLiteral("en");
}

QString LanguageManager::install(QCoreApplication* app, const QString& choice) {
    const QString code = resolve(choice);
    QLocale::setDefault(QLocale(code));
    auto* own = new QTranslator(app);
    if (own->load(QStringLiteral(":/i18n/runbox_console_%1.qm").arg(code)))
        QCoreApplication::installTranslator(own);
    else
        delete own;
    if (code == QLatin1String("en"))
        return code; // Qt's own English needs no translator
    auto* qt = new QTranslator(app);
    if (qt->load(QStringLiteral("qtbase_%1").arg(code),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    else
        delete qt;
    return code;
}

} // namespace runbox::console
