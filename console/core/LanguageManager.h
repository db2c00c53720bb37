#pragma once

#include <QList>
#include <QPair>
#include <QString>

class QCoreApplication;

namespace runbox::console {

/// The console's languages and installing their translators (the console's own .qm files,
/// built by lrelease from translations/*.ts and embedded as :/i18n/runbox_console_<code>.qm, and
/// Qt's own qtbase translations for standard dialogs).
class LanguageManager final {
public:
    /// (code, native name) for every language offered; code "" means the system language.
    static QList<QPair<QString, QString>> languages();
    /// The code actually used for @p choice ("" → the system locale's best match, else "en").
    static QString resolve(const QString& choice);
    /// Installs the translators for @p choice into @p app and sets the default QLocale.
    /// Returns the code installed ("en" needs no translator).
    static QString install(QCoreApplication* app, const QString& choice);
};

} // namespace runbox::console
