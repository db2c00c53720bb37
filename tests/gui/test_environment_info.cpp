// EnvironmentInfo and friends: the agent's environment, revision, snapshot and build answers
// (docs/environments.md "API and CLI") become typed values; package lists typed by an operator
// are split and checked as the agent checks them; an execution record names its environment;
// EnvironmentTableModel shows the list and keeps rows in place on a refresh.
#include "console/api/EnvironmentInfo.h"
#include "console/api/ExecutionInfo.h"
#include "console/models/EnvironmentTableModel.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

using namespace runbox::console;

namespace {
QJsonObject environment(const QString& id, const QString& status, const QJsonValue& current,
                        const QString& failure = {}) {
    QJsonObject o{{"id", id},
                  {"name", "analysis " + id.right(2)},
                  {"language", "python"},
                  {"provisioner", "venv"},
                  {"status", status},
                  {"currentRevisionId", current},
                  {"revisionCount", 2},
                  {"createdAt", "2026-12-03T10:00:00.000Z"}};
    if (!failure.isEmpty())
        o.insert("lastBuildFailure", failure);
    return o;
}
} // namespace

class TestEnvironmentInfo final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testEnvironmentList() {
        const QJsonObject answer{
            {"environments",
             QJsonArray{environment("e00000000000000a1", "ready", "r00000000000000b1"),
                        environment("e00000000000000a2", "building", QJsonValue::Null),
                        environment("e00000000000000a3", "failed", "r00000000000000b3",
                                    "pip exited with status 1")}}};
        const QList<EnvironmentInfo> list = EnvironmentInfo::listFromJson(answer);
        QCOMPARE(list.size(), 3);
        const EnvironmentInfo& ready = list.at(0);
        QCOMPARE(ready.id, QStringLiteral("e00000000000000a1"));
        QCOMPARE(ready.name, QStringLiteral("analysis a1"));
        QCOMPARE(ready.language, QStringLiteral("python"));
        QCOMPARE(ready.provisioner, QStringLiteral("venv"));
        QCOMPARE(ready.currentRevisionId, QStringLiteral("r00000000000000b1"));
        QCOMPARE(ready.revisionCount, 2);
        QCOMPARE(ready.createdAt, QDateTime(QDate(2026, 12, 3), QTime(10, 0), Qt::UTC));
        QVERIFY(ready.isUsable());
        QVERIFY(ready.lastBuildFailure.isEmpty());
        QVERIFY(!list.at(1).isUsable()); // null current revision: nothing ready yet
        QVERIFY(list.at(1).currentRevisionId.isEmpty());
        // A failed latest build keeps the environment usable at its current revision.
        QVERIFY(list.at(2).isUsable());
        QCOMPARE(list.at(2).lastBuildFailure, QStringLiteral("pip exited with status 1"));
        QCOMPARE(EnvironmentInfo::statusLabel(QStringLiteral("failed")),
                 QStringLiteral("Build failed"));
        QCOMPARE(EnvironmentInfo::languageLabel(QStringLiteral("r")), QStringLiteral("R"));
    }

    void testRevisionsNewestFirst() {
        const QJsonObject answer{
            {"revisions",
             QJsonArray{QJsonObject{{"id", "r1"},
                                    {"environmentId", "e1"},
                                    {"seq", 1},
                                    {"status", "ready"},
                                    {"spec", QJsonObject{{"provisioner", "venv"},
                                                         {"packages", QJsonArray{}},
                                                         {"wheelhouse", QJsonValue::Null}}},
                                    {"executionId", "x1"},
                                    {"statusReason", ""},
                                    {"snapshotSha256", "ab12"},
                                    {"createdAt", "2026-12-03T10:00:00.000Z"},
                                    {"finishedAt", "2026-12-03T10:00:04.000Z"},
                                    {"prefixRemovedAt", "2026-12-04T10:00:04.000Z"}},
                        QJsonObject{{"id", "r2"},
                                    {"environmentId", "e1"},
                                    {"seq", 2},
                                    {"status", "failed"},
                                    {"spec", QJsonObject{{"packages", QJsonArray{"pkga==2.0"}}}},
                                    {"executionId", "x2"},
                                    {"statusReason", "no matching distribution"},
                                    {"snapshotSha256", QJsonValue::Null},
                                    {"finishedAt", QJsonValue::Null},
                                    {"prefixRemovedAt", QJsonValue::Null}}}}};
        const QList<EnvironmentRevision> revs = EnvironmentRevision::listFromJson(answer);
        QCOMPARE(revs.size(), 2);
        QCOMPARE(revs.at(0).id, QStringLiteral("r2"));
        QCOMPARE(revs.at(0).packages, QStringList{"pkga==2.0"});
        QCOMPARE(revs.at(0).statusReason, QStringLiteral("no matching distribution"));
        QVERIFY(!revs.at(0).finishedAt.isValid());
        QVERIFY(revs.at(0).snapshotSha256.isEmpty());
        const EnvironmentRevision& first = revs.at(1);
        QCOMPARE(first.seq, 1);
        QCOMPARE(first.provisioner, QStringLiteral("venv"));
        QVERIFY(first.packages.isEmpty());
        QCOMPARE(first.executionId, QStringLiteral("x1"));
        QCOMPARE(first.snapshotSha256, QStringLiteral("ab12"));
        QVERIFY(first.finishedAt.isValid());
        QVERIFY(first.prefixRemovedAt.isValid());
    }

    void testSnapshotAndBuildAnswers() {
        const PackageSnapshot s = PackageSnapshot::fromJson(
            {{"revisionId", "r1"},
             {"environmentId", "e1"},
             {"sha256", "ff00"},
             {"packages", QJsonArray{QJsonObject{{"name", "pip"}, {"version", "23.0.1"}},
                                     QJsonObject{{"name", "pkga"}, {"version", "1.0"}}}}});
        QCOMPARE(s.revisionId, QStringLiteral("r1"));
        QCOMPARE(s.environmentId, QStringLiteral("e1"));
        QCOMPARE(s.sha256, QStringLiteral("ff00"));
        QCOMPARE(s.packages, (QList<QPair<QString, QString>>{{"pip", "23.0.1"}, {"pkga", "1.0"}}));

        const EnvironmentBuild install = EnvironmentBuild::fromJson({{"environmentId", "e1"},
                                                                     {"revisionId", "r2"},
                                                                     {"executionId", "x2"},
                                                                     {"status", "building"}});
        QCOMPARE(install.environmentId, QStringLiteral("e1"));
        QCOMPARE(install.revisionId, QStringLiteral("r2"));
        QCOMPARE(install.executionId, QStringLiteral("x2"));
        QCOMPARE(install.status, QStringLiteral("building"));
        // A create answers with the environment (its "id") and the first build's executionId.
        QJsonObject created = environment("e00000000000000a9", "building", QJsonValue::Null);
        created.insert("executionId", "x9");
        const EnvironmentBuild first = EnvironmentBuild::fromJson(created);
        QCOMPARE(first.environmentId, QStringLiteral("e00000000000000a9"));
        QCOMPARE(first.executionId, QStringLiteral("x9"));
    }

    void testPackagesAreSplitAsTyped() {
        QCOMPARE(EnvironmentInfo::parsePackages(QStringLiteral("numpy\n  pandas>=2,<3 scipy\n\n")),
                 (QStringList{"numpy", "pandas>=2,<3", "scipy"}));
        // A constraint written with spaces stays with its name; comments are dropped.
        QCOMPARE(EnvironmentInfo::parsePackages(QStringLiteral("pkga == 1.0 pkgb\tpkgc >=1, <2 "
                                                               "# pinned\n# all comment")),
                 (QStringList{"pkga==1.0", "pkgb", "pkgc>=1,<2"}));
        QVERIFY(EnvironmentInfo::parsePackages(QStringLiteral(" \n ")).isEmpty());
    }

    void testPackageProblems_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<bool>("good");
        QTest::newRow("name") << "numpy" << true;
        QTest::newRow("constraints") << "pandas>=2,<3" << true;
        QTest::newRow("extras") << "requests[socks]==2.31" << true;
        QTest::newRow("option") << "--extra-index-url=https://x" << false;
        QTest::newRow("editable") << "-e" << false;
        QTest::newRow("path") << "./pkg" << false;
        QTest::newRow("url") << "https://example.org/x.whl" << false;
        QTest::newRow("direct reference") << "pkg@file" << false;
        QTest::newRow("marker") << "pkg;python_version<'3'" << false;
        QTest::newRow("too long") << QString(161, u'a') << false;
    }
    void testPackageProblems() {
        QFETCH(QString, spec);
        QFETCH(bool, good);
        const QStringList problems = EnvironmentInfo::packageProblems({spec});
        QVERIFY2(problems.isEmpty() == good, qPrintable(problems.join(u'\n')));
        QVERIFY(!EnvironmentInfo::packageProblems({}).isEmpty());
        QStringList many;
        for (int i = 0; i < 201; ++i)
            many << QStringLiteral("p%1").arg(i);
        QVERIFY(!EnvironmentInfo::packageProblems(many).isEmpty());
    }

    void testNames() {
        QVERIFY(EnvironmentInfo::nameProblem(QStringLiteral("analysis 2026_v1.2-x")).isEmpty());
        QVERIFY(!EnvironmentInfo::nameProblem(QString()).isEmpty());
        QVERIFY(!EnvironmentInfo::nameProblem(QStringLiteral("-lead")).isEmpty());
        QVERIFY(!EnvironmentInfo::nameProblem(QStringLiteral("a/b")).isEmpty());
        QVERIFY(!EnvironmentInfo::nameProblem(QString(81, u'a')).isEmpty());
        QVERIFY(EnvironmentInfo::nameProblem(QString(80, u'a')).isEmpty());
    }

    void testExecutionNamesItsEnvironment() {
        const ExecutionInfo e = ExecutionInfo::fromJson(
            {{"executionId", "x1"},
             {"state", "completed"},
             {"permissionEpoch",
              QJsonObject{{"environmentId", "e1"}, {"environmentRevisionId", "r3"}}}});
        QCOMPARE(e.environmentId, QStringLiteral("e1"));
        QCOMPARE(e.environmentRevisionId, QStringLiteral("r3"));
        const ExecutionInfo plain =
            ExecutionInfo::fromJson({{"executionId", "x2"}, {"permissionEpoch", QJsonObject{}}});
        QVERIFY(plain.environmentId.isEmpty());
        QVERIFY(plain.environmentRevisionId.isEmpty());
    }

    void testTableModel() {
        EnvironmentTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QList<EnvironmentInfo> list{
            EnvironmentInfo::fromJson(
                environment("e00000000000000a1", "building", QJsonValue::Null)),
            EnvironmentInfo::fromJson(environment("e00000000000000a2", "ready", "r2", "bad pin"))};
        model.setEnvironments(list);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(EnvironmentTableModel::ColumnCount));
        QVERIFY(model.anyBuilding());
        QCOMPARE(model.rowOf(QStringLiteral("e00000000000000a2")), 1);
        QCOMPARE(model.rowOf(QStringLiteral("nope")), -1);
        using C = EnvironmentTableModel;
        QCOMPARE(model.index(1, C::NameColumn).data().toString(), QStringLiteral("analysis a2"));
        QCOMPARE(model.index(1, C::LanguageColumn).data().toString(), QStringLiteral("Python"));
        QCOMPARE(model.index(0, C::StatusColumn).data().toString(), QStringLiteral("Building"));
        QCOMPARE(model.index(0, C::RevisionColumn).data().toString(), QStringLiteral("none yet"));
        QCOMPARE(model.index(1, C::RevisionColumn).data().toString(), QStringLiteral("r2"));
        QCOMPARE(model.index(1, C::FailureColumn).data().toString(), QStringLiteral("bad pin"));
        QCOMPARE(model.index(1, 0).data(C::EnvironmentIdRole).toString(),
                 QStringLiteral("e00000000000000a2"));
        QCOMPARE(model.headerData(C::RevisionColumn, Qt::Horizontal).toString(),
                 QStringLiteral("Current revision"));

        // The same environments again: rows change in place (no reset, the selection stays).
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        list[0] = EnvironmentInfo::fromJson(environment("e00000000000000a1", "ready", "r1"));
        model.setEnvironments(list);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(changed.count(), 1);
        QVERIFY(!model.anyBuilding());
        QCOMPARE(model.index(0, C::StatusColumn).data().toString(), QStringLiteral("Ready"));
        // One deleted: a reset.
        model.setEnvironments({list.at(1)});
        QCOMPARE(reset.count(), 1);
        QCOMPARE(model.rowCount(), 1);
        QVERIFY(model.environmentAt(5).id.isEmpty());
    }
};

QTEST_MAIN(TestEnvironmentInfo)
#include "test_environment_info.moc"
