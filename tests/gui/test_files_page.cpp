// The Files page against a real runbox-agent (support/AgentProcess: unprivileged when the test
// runs as root), offscreen, on one strong workspace reached from the Workspaces page's "Open
// files": a folder listed page by page (pages of 2), a folder made, a few MiB uploaded
// (chunk-signed, the progress reaching 100 %) and downloaded back byte for byte, an upload
// cancelled midway (the agent publishes nothing), a small text file previewed and a large one
// not, a move, a delete through the confirmation, and links made by `ln -s` inside the
// workspace shown as links and never followed (not opened, previewed nor downloaded); the same
// transfers through an https:// connection pinned to the agent's certificate.
#include "console/app/MainWindow.h"
#include "console/connection/AgentConnection.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/FileTransfer.h"
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"
#include "console/models/FileListModel.h"
#include "console/pages/FilesPage.h"
#include "console/pages/WorkspacesPage.h"
#include "console/widgets/FilePreview.h"
#include "console/widgets/TransferPanel.h"
#include "shared/ApiClient.h"
#include "shared/TlsPin.h"
#include "support/AgentProcess.h"

#include <QAbstractItemModelTester>
#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMessageBox>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace runbox::console;

class TestFilesPage final : public QObject {
    Q_OBJECT

private:
    runbox::testsupport::AgentProcess m_agent;
    QTemporaryDir m_dir; // settings and local files
    std::unique_ptr<ConsoleSettings> m_settings;
    std::unique_ptr<TokenVault> m_vault;
    std::unique_ptr<ConnectionManager> m_manager;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<runbox::ApiClient> m_client; // the test's own view of the agent
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    QString m_workspace;

    FilesPage* page() const { return m_window->filesPage(); }

    QByteArray route(const QString& path) const { return FileTransfer::route(m_workspace, path); }

    /// The agent's own `stat` of @p path: its status and entry.
    runbox::ApiResponse stat(const QString& path) const {
        return m_client->call("GET", route(path) + "?stat=true");
    }

    /// Writes @p bytes to a local file @p name; its path.
    QString localFile(const QString& name, const QByteArray& bytes) {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            return {};
        return path;
    }

    static QByteArray randomBytes(qint64 size) {
        QByteArray bytes(qsizetype(size), Qt::Uninitialized);
        QRandomGenerator::global()->fillRange(reinterpret_cast<quint32*>(bytes.data()),
                                              bytes.size() / 4);
        return bytes;
    }

    /// Opens @p path and waits until every page is in.
    void listAll(const QString& path) {
        QSignalSpy loaded(page(), &FilesPage::pageLoaded);
        page()->openDirectory(path);
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 10000);
        while (page()->model()->canFetchMore({})) {
            const int before = int(loaded.count());
            page()->model()->fetchMore({});
            QTRY_VERIFY_WITH_TIMEOUT(loaded.count() > before, 10000);
        }
    }

    int rowNamed(const QString& name) const {
        for (int row = 0; row < page()->model()->rowCount(); ++row)
            if (page()->model()->entryAt(row).name == name)
                return row;
        return -1;
    }

    /// Runs @p code in the workspace as a managed execution; false (with QSKIP's reason in
    /// @p why) when this host runs no sandbox.
    bool runInWorkspace(const QString& code, QString* why) {
        const runbox::ApiResponse run =
            m_client->call("POST", "/v1/executions",
                           {{"workspace", m_workspace}, {"kind", "shell"}, {"code", code}});
        if (run.status != 202) {
            *why = run.errorMessage();
            return false;
        }
        const QByteArray id = run.json().value("executionId").toString().toUtf8();
        QJsonObject record;
        if (!QTest::qWaitFor(
                [&] {
                    record = m_client->call("GET", "/v1/executions/" + id).json();
                    const QString state = record.value("state").toString();
                    return state != "queued" && state != "running";
                },
                60000)) {
            *why = QStringLiteral("the execution did not end");
            return false;
        }
        *why = QString::fromUtf8(QJsonDocument(record).toJson());
        return record.value("state").toString() == "succeeded" ||
               record.value("exitCode").toInt(-1) == 0;
    }

private Q_SLOTS:
    void initTestCase() {
        runbox::testsupport::AgentOptions options;
        options.tls = true; // also https://, for the pinned transfers
        QVERIFY2(m_agent.start(options), qPrintable(m_agent.errorString() + u'\n' + m_agent.log()));
        m_client = std::make_unique<runbox::ApiClient>(m_agent.baseUrl(), m_agent.token());
        const runbox::ApiResponse made =
            m_client->call("POST", "/v1/workspaces", {{"isolation", "strong"}});
        QVERIFY2(made.ok(), qPrintable(made.errorMessage()));
        m_workspace = made.json().value("id").toString();
        if (m_workspace.isEmpty()) // a batch answer
            m_workspace =
                made.json().value("workspaces").toArray().at(0).toObject().value("id").toString();
        QVERIFY2(!m_workspace.isEmpty(), made.body.constData());

        m_settings = std::make_unique<ConsoleSettings>(m_dir.filePath("console.ini"));
        m_vault = std::make_unique<TokenVault>(QStringLiteral("runbox-console-test"),
                                               TokenVault::Backend::SessionOnly);
        m_manager = std::make_unique<ConnectionManager>(m_vault.get());
        m_window = std::make_unique<MainWindow>(m_settings.get(), m_manager.get());
        m_window->resize(1100, 700);
        m_window->show();
        m_tester = std::make_unique<QAbstractItemModelTester>(
            page()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const AgentProfile profile{AgentProfile::newId(), QStringLiteral("test-agent"),
                                   m_agent.baseUrl()};
        m_window->addAndConnect(profile, m_agent.token());
        QTRY_VERIFY_WITH_TIMEOUT(m_window->currentConnection() &&
                                     m_window->currentConnection()->state() ==
                                         AgentConnection::State::Connected,
                                 20000);

        // Reached from the Workspaces page: select the workspace, press Open files.
        WorkspacesPage* workspaces = m_window->workspacesPage();
        m_window->tabs()->setCurrentWidget(workspaces);
        QSignalSpy loaded(workspaces, &WorkspacesPage::loaded);
        workspaces->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 10000);
        workspaces->selectWorkspaces({m_workspace});
        auto* open = workspaces->findChild<QPushButton*>(QStringLiteral("openFiles"));
        QVERIFY(open && open->isEnabled());
        QSignalSpy pages(page(), &FilesPage::pageLoaded);
        open->click();
        QCOMPARE(m_window->tabs()->currentWidget(), page());
        QCOMPARE(page()->workspaceId(), m_workspace);
        QTRY_VERIFY_WITH_TIMEOUT(pages.count() >= 1, 10000);
        QCOMPARE(page()->directory(), QString());
    }

    void cleanupTestCase() {
        m_tester.reset();
        m_window.reset();
        m_manager.reset();
    }

    void testListingInPages() {
        for (const char* name : {"d1", "d2", "d3", "d4", "d5"}) {
            const runbox::ApiResponse r =
                m_client->call("POST", "/v1/workspaces/" + m_workspace.toUtf8() + "/files:mkdir",
                               {{"path", QStringLiteral("paged/%1").arg(name)}, {"parents", true}});
            QVERIFY2(r.ok(), qPrintable(r.errorMessage()));
        }
        page()->setPageSize(2);
        QSignalSpy loaded(page(), &FilesPage::pageLoaded);
        listAll(QStringLiteral("paged"));
        page()->setPageSize(200);
        QCOMPARE(loaded.count(), 3); // 2 + 2 + 1
        QCOMPARE(page()->model()->rowCount(), 5);
        QCOMPARE(page()->model()->total(), 5);
        for (int i = 0; i < 5; ++i) {
            const FileEntry e = page()->model()->entryAt(i);
            QCOMPARE(e.name, QStringLiteral("d%1").arg(i + 1));
            QVERIFY(e.isDirectory());
        }
        // Up goes back to the root.
        QSignalSpy root(page(), &FilesPage::pageLoaded);
        page()->goUp();
        QTRY_VERIFY_WITH_TIMEOUT(root.count() >= 1, 10000);
        QCOMPARE(page()->directory(), QString());
        QVERIFY(rowNamed(QStringLiteral("paged")) >= 0);
        // A folder opens by activation.
        QSignalSpy opened(page(), &FilesPage::pageLoaded);
        page()->activateRow(rowNamed(QStringLiteral("paged")));
        QTRY_VERIFY_WITH_TIMEOUT(opened.count() >= 1, 10000);
        QCOMPARE(page()->directory(), QStringLiteral("paged"));
    }

    void testMakeDirectory() {
        listAll({});
        QSignalSpy done(page(), &FilesPage::operationFinished);
        QSignalSpy loaded(page(), &FilesPage::pageLoaded);
        page()->makeDirectory(QStringLiteral("made"));
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 10000);
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(page()->errorText()));
        QCOMPARE(stat("made").json().value("type").toString(), QStringLiteral("directory"));
        QTRY_VERIFY_WITH_TIMEOUT(rowNamed(QStringLiteral("made")) >= 0, 10000);
        // Again: the agent's refusal (409 file_exists) is shown.
        done.clear();
        page()->makeDirectory(QStringLiteral("made"));
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 10000);
        QVERIFY(!done.at(0).at(0).toBool());
        QVERIFY2(page()->errorText().contains(QStringLiteral("made")),
                 qPrintable(page()->errorText()));
    }

    void testUploadAndDownload() {
        listAll(QStringLiteral("made"));
        const QByteArray bytes = randomBytes(3 * 1024 * 1024 + 12345);
        const QString local = localFile(QStringLiteral("big.bin"), bytes);
        QVERIFY(!local.isEmpty());
        QSignalSpy finished(page(), &FilesPage::transferFinished);
        FileTransfer* up = page()->uploadFile(local);
        QVERIFY(up);
        QSignalSpy progress(up, &FileTransfer::progress);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(up->state(), FileTransfer::State::Done);
        QCOMPARE(up->remotePath(), QStringLiteral("made/big.bin"));
        QVERIFY(!progress.isEmpty());
        QCOMPARE(progress.last().at(0).toLongLong(), qint64(bytes.size()));
        QCOMPARE(progress.last().at(1).toLongLong(), qint64(bytes.size()));
        QProgressBar* bar = page()->transfers()->progressBar(up);
        QVERIFY(bar);
        QCOMPARE(bar->value(), bar->maximum());
        QCOMPARE(bar->maximum(), bytes.size());
        QCOMPARE(page()->transfers()->outcomeText(up), QStringLiteral("Done"));
        // The agent holds exactly these bytes; the listing shows the file.
        const runbox::ApiResponse held = m_client->call("GET", route("made/big.bin"));
        QCOMPARE(held.status, 200);
        QVERIFY(held.body == bytes);
        QTRY_VERIFY_WITH_TIMEOUT(rowNamed(QStringLiteral("big.bin")) >= 0, 10000);
        QCOMPARE(page()->model()->entryAt(rowNamed(QStringLiteral("big.bin"))).size,
                 qint64(bytes.size()));

        // Download it back.
        const QString back = m_dir.filePath(QStringLiteral("back.bin"));
        FileTransfer* down = page()->downloadFile(QStringLiteral("made/big.bin"), back);
        QVERIFY(down);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 60000);
        QCOMPARE(down->state(), FileTransfer::State::Done);
        QCOMPARE(down->bytesDone(), qint64(bytes.size()));
        QFile f(back);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256),
                 QCryptographicHash::hash(bytes, QCryptographicHash::Sha256));
        QCOMPARE(page()->transfers()->progressBar(down)->value(),
                 page()->transfers()->progressBar(down)->maximum());

        // A missing file: the download fails with the agent's message and leaves no file.
        const QString none = m_dir.filePath(QStringLiteral("none.bin"));
        FileTransfer* missing = page()->downloadFile(QStringLiteral("made/none.bin"), none);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 3, 30000);
        QCOMPARE(missing->state(), FileTransfer::State::Failed);
        QVERIFY(!QFile::exists(none));
    }

    void testCancelledUploadLeavesNothing() {
        listAll(QStringLiteral("made"));
        const qint64 size = 96 * 1024 * 1024;
        const QString local =
            localFile(QStringLiteral("huge.bin"), QByteArray(qsizetype(size), 'x'));
        QVERIFY(!local.isEmpty());
        QSignalSpy finished(page(), &FilesPage::transferFinished);
        FileTransfer* up = page()->uploadFile(local);
        QVERIFY(up);
        qint64 cancelledAt = -1;
        // Cancel from the panel's button as soon as some, not all, of the file went.
        connect(up, &FileTransfer::progress, this, [&](qint64 done, qint64 total) {
            if (cancelledAt < 0 && done > 0 && done < total) {
                cancelledAt = done;
                page()->transfers()->cancelButton(up)->click();
            }
        });
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY2(cancelledAt > 0, "no progress was reported before the end");
        QCOMPARE(up->state(), FileTransfer::State::Cancelled);
        QCOMPARE(page()->transfers()->outcomeText(up), QStringLiteral("Cancelled"));
        QVERIFY(up->bytesDone() < size);
        // docs/upload-integrity.md: nothing is published before the final chunk verified.
        QTest::qWait(500);
        const runbox::ApiResponse r = stat("made/huge.bin");
        QCOMPARE(r.status, 404);
        listAll(QStringLiteral("made"));
        QCOMPARE(rowNamed(QStringLiteral("huge.bin")), -1);
        QFile::remove(local);
    }

    void testPreview() {
        const QByteArray text = "first line\nsecond line — ünïcode\n";
        QSignalSpy finished(page(), &FilesPage::transferFinished);
        listAll(QStringLiteral("made"));
        page()->uploadFile(localFile(QStringLiteral("note.txt"), text));
        page()->uploadFile(localFile(QStringLiteral("large.txt"), QByteArray(70000, 'a')));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 30000);
        listAll(QStringLiteral("made"));

        QSignalSpy ready(page()->preview(), &FilePreview::ready);
        QVERIFY(page()->selectName(QStringLiteral("note.txt")));
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
        QCOMPARE(ready.at(0).at(0).toString(), QStringLiteral("made/note.txt"));
        QVERIFY2(ready.at(0).at(1).toBool(), qPrintable(page()->preview()->statusText()));
        QCOMPARE(page()->preview()->text(), QString::fromUtf8(text));

        ready.clear();
        QVERIFY(page()->selectName(QStringLiteral("large.txt")));
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
        QVERIFY(!ready.at(0).at(1).toBool());
        QVERIFY(page()->preview()->text().isEmpty());
        QVERIFY2(page()->preview()->statusText().contains(QStringLiteral("larger than")),
                 qPrintable(page()->preview()->statusText()));

        ready.clear();
        QVERIFY(page()->selectName(QStringLiteral("big.bin"))); // 3 MiB: not read
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 10000);
        QVERIFY(!ready.at(0).at(1).toBool());
    }

    void testMoveAndDelete() {
        listAll(QStringLiteral("made"));
        QSignalSpy done(page(), &FilesPage::operationFinished);
        page()->moveEntry(QStringLiteral("made/note.txt"), QStringLiteral("made/renamed.txt"));
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 10000);
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(page()->errorText()));
        QCOMPARE(stat("made/note.txt").status, 404);
        QCOMPARE(stat("made/renamed.txt").status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(rowNamed(QStringLiteral("renamed.txt")) >= 0, 10000);
        QCOMPARE(rowNamed(QStringLiteral("note.txt")), -1);

        // Delete through the confirmation: Cancel keeps it, Yes deletes it.
        for (const QMessageBox::StandardButton button : {QMessageBox::Cancel, QMessageBox::Yes}) {
            QTRY_VERIFY(page()->selectName(QStringLiteral("renamed.txt")));
            QCOMPARE(page()->selectedPaths(), QStringList{QStringLiteral("made/renamed.txt")});
            done.clear();
            page()->deleteSelected();
            QMessageBox* box = nullptr;
            QTRY_VERIFY(
                (box = page()->findChild<QMessageBox*>(QStringLiteral("confirmDeleteFiles"))) &&
                box->isVisible());
            QVERIFY2(box->text().contains(QStringLiteral("made/renamed.txt")),
                     qPrintable(box->text()));
            box->button(button)->click();
            QTRY_VERIFY(!page()->findChild<QMessageBox*>(QStringLiteral("confirmDeleteFiles")));
            if (button == QMessageBox::Cancel) {
                QTest::qWait(200);
                QCOMPARE(done.count(), 0);
                QCOMPARE(stat("made/renamed.txt").status, 200);
            }
        }
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 10000);
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(page()->errorText()));
        QCOMPARE(stat("made/renamed.txt").status, 404);
        QTRY_COMPARE_WITH_TIMEOUT(rowNamed(QStringLiteral("renamed.txt")), -1, 10000);

        // A folder with files in it goes whole.
        done.clear();
        page()->deletePaths({QStringLiteral("paged")});
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 10000);
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(page()->errorText()));
        QCOMPARE(stat("paged").status, 404);
    }

    void testTransfersOverPinnedTls() {
        // The same chunk-signed upload and streamed download through an https:// connection
        // pinned to the agent's certificate (docs/contracts.md "TLS and pinning").
        QProcess print;
        print.start(QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent"),
                    {"--print-fingerprint", "--state-dir", m_agent.stateDir()});
        QVERIFY(print.waitForFinished(30000));
        const QString fingerprint = QString::fromLatin1(print.readAllStandardOutput()).trimmed();
        QVERIFY2(runbox::tls::parseFingerprint(fingerprint), qPrintable(fingerprint));
        AgentProfile profile{AgentProfile::newId(), QStringLiteral("tls"), m_agent.tlsUrl()};
        profile.fingerprint = fingerprint;
        AgentConnection tls(profile, m_agent.token());
        tls.open();
        QTRY_VERIFY_WITH_TIMEOUT(tls.state() == AgentConnection::State::Connected, 20000);

        const QByteArray bytes = randomBytes(2 * 1024 * 1024 + 777);
        const QString local = localFile(QStringLiteral("tls.bin"), bytes);
        std::unique_ptr<FileTransfer> up(FileTransfer::upload(
            tls.client(), m_workspace, local, QStringLiteral("made/tls.bin"), false));
        QSignalSpy upDone(up.get(), &FileTransfer::finished);
        up->start();
        QTRY_COMPARE_WITH_TIMEOUT(upDone.count(), 1, 60000);
        QVERIFY2(up->state() == FileTransfer::State::Done, qPrintable(up->errorText()));
        QVERIFY(m_client->call("GET", route("made/tls.bin")).body == bytes);

        const QString back = m_dir.filePath(QStringLiteral("tls-back.bin"));
        std::unique_ptr<FileTransfer> down(FileTransfer::download(
            tls.client(), m_workspace, QStringLiteral("made/tls.bin"), back));
        QSignalSpy downDone(down.get(), &FileTransfer::finished);
        down->start();
        QTRY_COMPARE_WITH_TIMEOUT(downDone.count(), 1, 60000);
        QVERIFY2(down->state() == FileTransfer::State::Done, qPrintable(down->errorText()));
        QFile f(back);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll() == bytes);
        tls.close();
    }

    void testConnectionGoneFailsTheTransfer() {
        // The connection (its client and the replies with it) is deleted mid-upload: the
        // transfer ends Failed, saying so, and the agent publishes nothing.
        auto connection = std::make_unique<AgentConnection>(
            AgentProfile{AgentProfile::newId(), QStringLiteral("plain"), m_agent.baseUrl()},
            m_agent.token());
        connection->open();
        QTRY_VERIFY_WITH_TIMEOUT(connection->state() == AgentConnection::State::Connected, 20000);
        const qint64 size = 96 * 1024 * 1024;
        const QString local =
            localFile(QStringLiteral("gone.bin"), QByteArray(qsizetype(size), 'y'));
        std::unique_ptr<FileTransfer> up(FileTransfer::upload(
            connection->client(), m_workspace, local, QStringLiteral("made/gone.bin"), false));
        bool dropped = false;
        connect(up.get(), &FileTransfer::progress, this, [&](qint64 done, qint64 total) {
            if (!dropped && done > 0 && done < total) {
                dropped = true;
                QTimer::singleShot(0, this, [&] { connection.reset(); });
            }
        });
        QSignalSpy finished(up.get(), &FileTransfer::finished);
        up->start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(dropped);
        QVERIFY(!connection);
        QCOMPARE(up->state(), FileTransfer::State::Failed);
        QVERIFY2(up->errorText().contains(QStringLiteral("closed")), qPrintable(up->errorText()));
        QTest::qWait(500);
        QCOMPARE(stat("made/gone.bin").status, 404);
        QFile::remove(local);
    }

    void testLinksAreShownAndNeverFollowed() {
        QString why;
        if (!runInWorkspace(QStringLiteral("cd /workspace && ln -s /etc/passwd passwd-link && "
                                           "ln -s made made-link"),
                            &why))
            QSKIP(qPrintable("no sandboxed execution here: " + why));
        listAll({});
        const int link = rowNamed(QStringLiteral("passwd-link"));
        const int dirLink = rowNamed(QStringLiteral("made-link"));
        QVERIFY(link >= 0 && dirLink >= 0);
        const FileEntry e = page()->model()->entryAt(link);
        QVERIFY(e.isLink());
        QCOMPARE(e.linkTarget, QStringLiteral("/etc/passwd"));
        QCOMPARE(page()->model()->index(link, FileListModel::NameColumn).data().toString(),
                 QStringLiteral("passwd-link → /etc/passwd"));
        QVERIFY(page()->model()->entryAt(dirLink).isLink());

        // A link to a folder is not opened; a link to a file is not read.
        page()->activateRow(dirLink);
        QTest::qWait(300);
        QCOMPARE(page()->directory(), QString());
        QSignalSpy ready(page()->preview(), &FilePreview::ready);
        page()->activateRow(link);
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 5000);
        QVERIFY(!ready.at(0).at(1).toBool());
        QVERIFY(page()->preview()->text().isEmpty());
        QVERIFY2(page()->preview()->statusText().contains(QStringLiteral("never follows")),
                 qPrintable(page()->preview()->statusText()));
        // Even asked directly, the download of a link is refused by the agent; no file is left.
        QSignalSpy finished(page(), &FilesPage::transferFinished);
        const QString local = m_dir.filePath(QStringLiteral("passwd"));
        FileTransfer* down = page()->downloadFile(QStringLiteral("passwd-link"), local);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
        QCOMPARE(down->state(), FileTransfer::State::Failed);
        QVERIFY(!QFile::exists(local));
    }
};

QTEST_MAIN(TestFilesPage)
#include "test_files_page.moc"
