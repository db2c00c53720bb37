// The Environments page's dialogs and its state without an agent: a new environment's name is
// checked as the agent checks it and a language whose provisioner the agent lacks is greyed with
// its reason; the packages dialog splits what was typed and refuses what pip would read as an
// option, path or URL; the page without a connection says so and offers no action. The page
// against a real agent is in test_console_against_agent.
#include "console/connection/AgentConnection.h"
#include "console/models/EnvironmentTableModel.h"
#include "console/pages/EnvironmentDialogs.h"
#include "console/pages/EnvironmentsPage.h"

#include <QComboBox>
#include <QJsonObject>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTest>

using namespace runbox::console;

class TestEnvironmentDialogs final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testNewEnvironmentDialog() {
        const QJsonObject health{
            {"scientificEnvs",
             QJsonObject{{"provisioners",
                          QJsonObject{{"venv", QJsonObject{{"available", true}, {"reason", ""}}},
                                      {"r-lib", QJsonObject{{"available", false},
                                                            {"reason", "not built yet"}}}}}}}};
        NewEnvironmentDialog dialog(health);
        auto* name = dialog.findChild<QLineEdit*>(QStringLiteral("environmentName"));
        auto* language = dialog.findChild<QComboBox*>(QStringLiteral("environmentLanguage"));
        QVERIFY(name && language);
        QVERIFY(!dialog.createButton()->isEnabled()); // no name yet
        QTest::keyClicks(name, QStringLiteral("-bad"));
        QVERIFY(!dialog.problems().isEmpty());
        QVERIFY(!dialog.createButton()->isEnabled());
        name->clear();
        QTest::keyClicks(name, QStringLiteral("analysis 1"));
        QVERIFY(dialog.problems().isEmpty());
        QVERIFY(dialog.createButton()->isEnabled());
        QCOMPARE(dialog.name(), QStringLiteral("analysis 1"));
        QCOMPARE(dialog.language(), QStringLiteral("python"));
        auto* model = qobject_cast<QStandardItemModel*>(language->model());
        const QStandardItem* r = model->item(language->findData(QStringLiteral("r")));
        QVERIFY(!r->isEnabled());
        QVERIFY2(r->toolTip().contains(QStringLiteral("not built yet")), qPrintable(r->toolTip()));
        QVERIFY(model->item(language->findData(QStringLiteral("python")))->isEnabled());
        // An agent that says nothing about provisioners: both offered, the agent decides.
        NewEnvironmentDialog plain{QJsonObject{}};
        auto* plainLanguage = plain.findChild<QComboBox*>(QStringLiteral("environmentLanguage"));
        auto* plainModel = qobject_cast<QStandardItemModel*>(plainLanguage->model());
        QVERIFY(plainModel->item(plainLanguage->findData(QStringLiteral("r")))->isEnabled());
    }

    void testPackagesDialog() {
        PackagesDialog dialog(PackagesDialog::Mode::Install, QStringLiteral("analysis"), {});
        QVERIFY(dialog.windowTitle().contains(QStringLiteral("analysis")));
        QVERIFY(!dialog.submitButton()->isEnabled());
        dialog.setText(QStringLiteral("numpy\npandas >= 2, <3  scipy"));
        QCOMPARE(dialog.packages(), (QStringList{"numpy", "pandas>=2,<3", "scipy"}));
        QVERIFY(dialog.submitButton()->isEnabled());
        dialog.setText(QStringLiteral("numpy --extra-index-url=https://evil.example"));
        QVERIFY(!dialog.submitButton()->isEnabled());
        QVERIFY2(dialog.problems().join(u'\n').contains(QStringLiteral("--extra-index-url")),
                 qPrintable(dialog.problems().join(u'\n')));

        PackagesDialog remove(PackagesDialog::Mode::Uninstall, QStringLiteral("analysis"),
                              {QStringLiteral("pkga"), QStringLiteral("pkgb")});
        QCOMPARE(remove.submitButton()->text(), QStringLiteral("&Uninstall"));
        auto* text = remove.findChild<QPlainTextEdit*>(QStringLiteral("environmentPackages"));
        QVERIFY(text);
        QTest::keyClicks(text, QStringLiteral("pkgb"));
        QCOMPARE(remove.packages(), QStringList{"pkgb"});
        QVERIFY(remove.submitButton()->isEnabled());
    }

    void testPageWithoutAgent() {
        EnvironmentsPage page;
        page.setConnection(nullptr);
        QVERIFY(!page.placeholderText().isEmpty());
        QCOMPARE(page.model()->rowCount(), 0);
        QVERIFY(page.selectedEnvironmentId().isEmpty());
        QVERIFY(page.revisionRows().isEmpty());
        for (QPushButton* b : page.findChildren<QPushButton*>())
            if (b->text() != QStringLiteral("Re&fresh"))
                QVERIFY2(!b->isEnabled(), qPrintable(b->text()));
        page.installPackages(); // nothing selected: no dialog, no crash
        page.deleteSelected();
        QVERIFY(page.findChildren<QDialog*>().isEmpty());
    }
};

QTEST_MAIN(TestEnvironmentDialogs)
#include "test_environment_dialogs.moc"
