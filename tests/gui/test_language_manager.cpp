// LanguageManager and the translations: every language offered is embedded and loads, the
// console's strings come out translated, English plurals read right, and the .ts files kept
// with lupdate have no unfinished entry and keep every placeholder.
#include "console/core/LanguageManager.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>

using runbox::console::LanguageManager;

namespace {
QString translated(const char* context, const char* text, int n = -1) {
    return QCoreApplication::translate(context, text, nullptr, n);
}

void removeTranslators() {
    for (QTranslator* t : qApp->findChildren<QTranslator*>()) {
        QCoreApplication::removeTranslator(t);
        delete t;
    }
}

QStringList placeholders(const QString& text) {
    static const QRegularExpression re(QStringLiteral("%(\\d|n)"));
    QStringList out;
    for (auto it = re.globalMatch(text); it.hasNext();)
        out << it.next().captured(0);
    out.sort();
    out.removeDuplicates();
    return out;
}
} // namespace

class TestLanguageManager final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanup() { removeTranslators(); }

    void testEveryOfferedLanguageIsEmbedded() {
        for (const auto& [code, name] : LanguageManager::languages()) {
            QVERIFY(!name.isEmpty());
            if (code.isEmpty())
                continue;
            QVERIFY2(QFile::exists(QStringLiteral(":/i18n/runbox_console_%1.qm").arg(code)),
                     qPrintable(code));
        }
    }

    void testStringsComeOutTranslated_data() {
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("overview");
        QTest::addColumn<QString>("environments");
        QTest::newRow("zh_CN") << "zh_CN" << QStringLiteral("概览") << QStringLiteral("环境");
        QTest::newRow("es") << "es" << QStringLiteral("Resumen") << QStringLiteral("Entornos");
        QTest::newRow("vi") << "vi" << QStringLiteral("Tổng quan") << QStringLiteral("Môi trường");
    }
    void testStringsComeOutTranslated() {
        QFETCH(QString, code);
        QFETCH(QString, overview);
        QFETCH(QString, environments);
        QCOMPARE(translated("runbox::console::OverviewPage", "Overview"),
                 QStringLiteral("Overview"));
        QCOMPARE(LanguageManager::install(qApp, code), code);
        QCOMPARE(translated("runbox::console::OverviewPage", "Overview"), overview);
        QCOMPARE(translated("runbox::console::EnvironmentsPage", "Environments"), environments);
        // The shared grammar's messages are translated too.
        QVERIFY(translated("runbox::NetworkPolicyGrammar", "empty entry") !=
                QStringLiteral("empty entry"));
    }

    void testEnglishPlurals() {
        LanguageManager::install(qApp, QStringLiteral("en"));
        QCOMPARE(translated("runbox::console::HealthReport", "Sound, with %n warning(s)", 1),
                 QStringLiteral("Sound, with 1 warning"));
        QCOMPARE(translated("runbox::console::HealthReport", "Sound, with %n warning(s)", 3),
                 QStringLiteral("Sound, with 3 warnings"));
    }

    void testTranslationFilesAreCompleteAndKeepPlaceholders() {
        const QDir dir(QStringLiteral(RUNBOX_SOURCE_DIR "/translations"));
        int checked = 0;
        for (const char* lang : {"zh_CN", "es", "vi"}) {
            const QString code = QString::fromLatin1(lang);
            QFile file(dir.filePath(QStringLiteral("runbox_console_%1.ts").arg(code)));
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
            QXmlStreamReader xml(&file);
            QString source;
            while (!xml.atEnd()) {
                xml.readNext();
                if (!xml.isStartElement())
                    continue;
                if (xml.name() == QLatin1String("source")) {
                    source = xml.readElementText();
                } else if (xml.name() == QLatin1String("translation")) {
                    const bool unfinished = xml.attributes().value(QLatin1String("type")) ==
                                            QLatin1String("unfinished");
                    QVERIFY2(!unfinished, qPrintable(code + QStringLiteral(": ") + source));
                    const QString text =
                        xml.readElementText(QXmlStreamReader::IncludeChildElements);
                    QVERIFY2(!text.isEmpty(), qPrintable(code + QStringLiteral(": ") + source));
                    QCOMPARE(placeholders(text), placeholders(source));
                    ++checked;
                }
            }
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        }
        QVERIFY(checked > 300);
    }
};

QTEST_MAIN(TestLanguageManager)
#include "test_language_manager.moc"
