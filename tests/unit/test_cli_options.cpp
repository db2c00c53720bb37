// cli::ParsedArgs, the one parser of every CLI command's options (cli/CliOptions.h): declared
// options only, values present, `--` ends the options.
#include "cli/CliOptions.h"

#include <QTest>

using runbox::cli::OptionSpec;
using runbox::cli::ParsedArgs;

class TestCliOptions final : public QObject {
    Q_OBJECT

    const QList<OptionSpec> m_specs{{QStringLiteral("--json")},
                                    {QStringLiteral("--count"), true},
                                    {QStringLiteral("--env"), true},
                                    {QStringLiteral("--recursive"), false, QStringLiteral("-r")}};

private Q_SLOTS:
    void testDeclaredOptionsInAnyOrder() {
        ParsedArgs p;
        QString error;
        QVERIFY2(p.parse({"a", "--count", "3", "-r", "b", "--env=X=1", "--env", "Y=2", "--json"},
                         m_specs, &error),
                 qPrintable(error));
        QCOMPARE(p.positional, (QStringList{"a", "b"}));
        QCOMPARE(p.value("--count"), QStringLiteral("3"));
        QCOMPARE(p.values("--env"), (QStringList{"X=1", "Y=2"}));
        QVERIFY(p.has("--recursive"));
        QVERIFY(p.has("--json"));
        QVERIFY(!p.dashDash);
    }

    void testValuesThatLookLikeOptionsButAreNot() {
        ParsedArgs p;
        QString error;
        QVERIFY(p.parse({"--count", "-3", "-"}, m_specs, &error));
        QCOMPARE(p.value("--count"), QStringLiteral("-3")); // not an option: the value
        QCOMPARE(p.positional, QStringList{"-"});           // stdin/stdout
    }

    void testDoubleDashEndsTheOptions() {
        ParsedArgs p;
        QString error;
        QVERIFY(p.parse({"--json", "--", "ls", "--bogus", "-r"}, m_specs, &error));
        QVERIFY(p.dashDash);
        QCOMPARE(p.rest, (QStringList{"ls", "--bogus", "-r"}));
        QVERIFY(!p.has("--recursive"));
    }

    void testRefusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::newRow("unknown long")
            << QStringList{"a", "--bogus"} << "unknown option \"--bogus\"";
        QTest::newRow("unknown short") << QStringList{"-x"} << "unknown option \"-x\"";
        QTest::newRow("unknown with value")
            << QStringList{"--bogus=1"} << "unknown option \"--bogus\"";
        QTest::newRow("value at the end") << QStringList{"--count"} << "--count needs a value";
        QTest::newRow("value is an option")
            << QStringList{"--count", "--json"} << "--count needs a value";
        QTest::newRow("value is --")
            << QStringList{"--count", "--", "x"} << "--count needs a value";
        QTest::newRow("flag with a value") << QStringList{"--json=yes"} << "--json takes no value";
    }

    void testRefusals() {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        ParsedArgs p;
        QString got;
        // Positive control: the same parser accepts the arguments without the bad one.
        QVERIFY(p.parse({"a", "--count", "1"}, m_specs, &got));
        QVERIFY(!p.parse(args, m_specs, &got));
        QCOMPARE(got, error);
    }
};

QTEST_GUILESS_MAIN(TestCliOptions)
#include "test_cli_options.moc"
