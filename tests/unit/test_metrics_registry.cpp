// MetricsRegistry (agent/metrics/MetricsRegistry.h): the Prometheus text exposition format 0.0.4
// byte for byte (HELP/TYPE lines, label and HELP escaping, cumulative histogram buckets), label
// sets padded to the family's labels, and the refusals that keep a scrape parseable.
#include "agent/metrics/MetricsRegistry.h"

#include <QTest>

#include <cmath>

using runbox::metrics::GaugeSample;
using runbox::metrics::MetricsRegistry;

class TestMetricsRegistry : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testCounterFamilyExposition() {
        MetricsRegistry r;
        const auto c = r.addCounter(QStringLiteral("runbox_things_total"),
                                    QStringLiteral("Things that happened."),
                                    {QStringLiteral("tier"), QStringLiteral("state")});
        c.inc({QStringLiteral("strong"), QStringLiteral("failed")});
        c.inc({QStringLiteral("strong"), QStringLiteral("completed")}, 2);
        c.inc({QStringLiteral("strong"), QStringLiteral("completed")});
        c.inc({QStringLiteral("strong"), QStringLiteral("completed")}, -5); // never goes down
        QCOMPARE(c.value({QStringLiteral("strong"), QStringLiteral("completed")}), 3.0);
        QCOMPARE(r.exposition(),
                 QByteArray("# HELP runbox_things_total Things that happened.\n"
                            "# TYPE runbox_things_total counter\n"
                            "runbox_things_total{tier=\"strong\",state=\"completed\"} 3\n"
                            "runbox_things_total{tier=\"strong\",state=\"failed\"} 1\n"));
    }

    void testUnlabelledFamilyIsZeroBeforeAnything() {
        MetricsRegistry r;
        r.addCounter(QStringLiteral("runbox_bytes_total"), QStringLiteral("Bytes."));
        QCOMPARE(r.exposition(), QByteArray("# HELP runbox_bytes_total Bytes.\n"
                                            "# TYPE runbox_bytes_total counter\n"
                                            "runbox_bytes_total 0\n"));
    }

    void testLabelValuesAndHelpAreEscaped() {
        MetricsRegistry r;
        const auto g = r.addGauge(QStringLiteral("runbox_g"),
                                  QStringLiteral("a \\ backslash\nand a \"quote\""),
                                  {QStringLiteral("route")});
        g.set({QStringLiteral("a\\b\"c\nd")}, 1.5);
        QCOMPARE(r.exposition(), QByteArray("# HELP runbox_g a \\\\ backslash\\nand a \"quote\"\n"
                                            "# TYPE runbox_g gauge\n"
                                            "runbox_g{route=\"a\\\\b\\\"c\\nd\"} 1.5\n"));
    }

    void testMissingLabelValuesArePadded() {
        MetricsRegistry r;
        const auto c = r.addCounter(QStringLiteral("runbox_x_total"), QStringLiteral("X."),
                                    {QStringLiteral("a"), QStringLiteral("b")});
        c.inc({QStringLiteral("1")});
        c.inc({QStringLiteral("1"), QString(), QStringLiteral("ignored")});
        QVERIFY2(r.exposition().contains("runbox_x_total{a=\"1\",b=\"\"} 2\n"),
                 r.exposition().constData());
    }

    void testHistogramBucketsAreCumulative() {
        MetricsRegistry r;
        const auto h = r.addHistogram(QStringLiteral("runbox_d_seconds"), QStringLiteral("D."),
                                      {QStringLiteral("tier")}, {0.25, 1, 10});
        for (double v : {0.125, 0.25, 0.5, 3.0, 60.0}) // exact in binary: an exact sum
            h.observe({QStringLiteral("strong")}, v);
        QCOMPARE(h.count({QStringLiteral("strong")}), quint64(5));
        QCOMPARE(r.exposition(),
                 QByteArray("# HELP runbox_d_seconds D.\n"
                            "# TYPE runbox_d_seconds histogram\n"
                            "runbox_d_seconds_bucket{tier=\"strong\",le=\"0.25\"} 2\n"
                            "runbox_d_seconds_bucket{tier=\"strong\",le=\"1\"} 3\n"
                            "runbox_d_seconds_bucket{tier=\"strong\",le=\"10\"} 4\n"
                            "runbox_d_seconds_bucket{tier=\"strong\",le=\"+Inf\"} 5\n"
                            "runbox_d_seconds_sum{tier=\"strong\"} 63.875\n"
                            "runbox_d_seconds_count{tier=\"strong\"} 5\n"));
    }

    void testGaugeCallbackIsReadAtEachScrape() {
        MetricsRegistry r;
        int queued = 2;
        r.addGaugeCallback(QStringLiteral("runbox_q"), QStringLiteral("Q."),
                           {QStringLiteral("state")}, [&queued] {
                               return QList<GaugeSample>{{{QStringLiteral("b")}, double(queued)},
                                                         {{QStringLiteral("a")}, 1}};
                           });
        QVERIFY(r.exposition().endsWith("runbox_q{state=\"a\"} 1\nrunbox_q{state=\"b\"} 2\n"));
        queued = 7;
        QVERIFY(r.exposition().endsWith("runbox_q{state=\"b\"} 7\n"));
    }

    void testFamiliesKeepRegistrationOrder() {
        MetricsRegistry r;
        r.addGauge(QStringLiteral("runbox_z"), QStringLiteral("Z."));
        r.addGauge(QStringLiteral("runbox_a"), QStringLiteral("A."));
        const QByteArray text = r.exposition();
        QVERIFY(text.indexOf("runbox_z") < text.indexOf("runbox_a"));
    }

    void testBadNamesAndClashesGiveInertHandles() {
        MetricsRegistry r;
        // Positive control: a good name registers and counts.
        const auto good = r.addCounter(QStringLiteral("runbox_ok_total"), QStringLiteral("Ok."));
        good.inc();
        QCOMPARE(good.value(), 1.0);
        const auto badName = r.addCounter(QStringLiteral("runbox-bad"), QStringLiteral("B."));
        badName.inc();
        QCOMPARE(badName.value(), 0.0);
        const auto badLabel =
            r.addCounter(QStringLiteral("runbox_l_total"), QStringLiteral("L."), {"__x"});
        badLabel.inc({QStringLiteral("v")});
        const auto leLabel = r.addHistogram(QStringLiteral("runbox_h"), QStringLiteral("H."),
                                            {QStringLiteral("le")}, {1});
        leLabel.observe({QStringLiteral("x")}, 0.5);
        const auto unsorted =
            r.addHistogram(QStringLiteral("runbox_u"), QStringLiteral("U."), {}, {2, 1});
        unsorted.observe({}, 1);
        const auto clash = r.addGauge(QStringLiteral("runbox_ok_total"), QStringLiteral("Ok."));
        clash.set({}, 9);
        const auto again = r.addCounter(QStringLiteral("runbox_ok_total"), QStringLiteral("Ok."));
        again.inc();
        QCOMPARE(good.value(), 2.0); // the same family
        QCOMPARE(r.exposition(), QByteArray("# HELP runbox_ok_total Ok.\n"
                                            "# TYPE runbox_ok_total counter\n"
                                            "runbox_ok_total 2\n"));
    }

    void testValueFormatting() {
        QCOMPARE(MetricsRegistry::formatValue(0), QByteArray("0"));
        QCOMPARE(MetricsRegistry::formatValue(1073741824.0), QByteArray("1073741824"));
        QCOMPARE(MetricsRegistry::formatValue(0.005), QByteArray("0.005"));
        QCOMPARE(MetricsRegistry::formatValue(-2.5), QByteArray("-2.5"));
        QCOMPARE(MetricsRegistry::formatValue(INFINITY), QByteArray("+Inf"));
        QCOMPARE(MetricsRegistry::formatValue(-INFINITY), QByteArray("-Inf"));
        QCOMPARE(MetricsRegistry::formatValue(NAN), QByteArray("NaN"));
        QCOMPARE(MetricsRegistry::formatValue(1e300).toDouble(), 1e300);
    }
};

QTEST_GUILESS_MAIN(TestMetricsRegistry)
#include "test_metrics_registry.moc"
