// runbox-console-screenshots: renders every page of the console to PNG files for the README
// (driven by scripts/screenshots, which starts a real agent and the simulated one).
//
//   runbox-console-screenshots --out DIR --real URL TOKEN --sim URL TOKEN [--language LANG]
#include "console/app/MainWindow.h"
#include "console/connection/ConnectionManager.h"
#include "console/connection/ExecutionFollower.h"
#include "console/connection/TokenVault.h"
#include "console/core/ConsoleSettings.h"
#include "console/core/LanguageManager.h"
#include "console/fleet/FleetHost.h"
#include "console/fleet/FleetHostModel.h"
#include "console/fleet/FleetPage.h"
#include "console/models/EntryListModel.h"
#include "console/models/ExecutionTableModel.h"
#include "console/models/NpuChipModel.h"
#include "console/models/ProfileListModel.h"
#include "console/models/WorkspaceTableModel.h"
#include "console/pages/ExecutionWindow.h"
#include "console/pages/ExecutionsPage.h"
#include "console/pages/FilesPage.h"
#include "console/pages/NetworkPolicyPage.h"
#include "console/pages/NpuPage.h"
#include "console/pages/OverviewPage.h"
#include "console/pages/QuotasPage.h"
#include "console/pages/RunDialog.h"
#include "console/pages/WorkspacesPage.h"
#include "console/widgets/LogView.h"
#include "console/widgets/QuotaEditor.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QListView>
#include <QTabWidget>
#include <QTableView>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <functional>

using namespace runbox::console;

namespace {

void waitMs(int ms) {
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

bool waitFor(const std::function<bool()>& done, int timeoutMs) {
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > timeoutMs)
            return false;
        waitMs(50);
    }
    return true;
}

bool shoot(QWidget* widget, const QString& dir, const QString& name) {
    waitMs(400); // let layouts and icons settle
    const QString path = QDir(dir).filePath(name + QStringLiteral(".png"));
    const bool ok = widget->grab().save(path);
    std::printf("%s %s\n", ok ? "wrote" : "FAILED", qPrintable(path));
    std::fflush(stdout);
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("runbox-console"));
    QStringList args = QApplication::arguments();
    QString out, realUrl, realToken, simUrl, simToken, language;
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--out") && i + 1 < args.size())
            out = args[++i];
        else if (args[i] == QLatin1String("--real") && i + 2 < args.size())
            realUrl = args[++i], realToken = args[++i];
        else if (args[i] == QLatin1String("--sim") && i + 2 < args.size())
            simUrl = args[++i], simToken = args[++i];
        else if (args[i] == QLatin1String("--language") && i + 1 < args.size())
            language = args[++i];
    }
    if (out.isEmpty() || realUrl.isEmpty() || simUrl.isEmpty()) {
        std::fprintf(stderr,
                     "usage: %s --out DIR --real URL TOKEN --sim URL TOKEN "
                     "[--language LANG]\n",
                     argv[0]);
        return 2;
    }
    QDir().mkpath(out);
    LanguageManager::install(&app, language.isEmpty() ? QStringLiteral("en") : language);
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/runbox.svg")));

    QTemporaryDir tmp;
    ConsoleSettings settings(tmp.filePath(QStringLiteral("console.ini")));
    TokenVault vault(QStringLiteral("runbox-console-screenshots"),
                     TokenVault::Backend::SessionOnly);
    ConnectionManager manager(&vault);
    MainWindow window(&settings, &manager);
    window.resize(1280, 820);
    window.show();

    const AgentProfile sim{AgentProfile::newId(), QStringLiteral("gpu-node-3"), QUrl(simUrl)};
    const AgentProfile real{AgentProfile::newId(), QStringLiteral("localhost"), QUrl(realUrl)};
    window.addAndConnect(real, realToken.toUtf8());
    window.addAndConnect(sim, simToken.toUtf8());
    auto connected = [&](const AgentProfile& p) {
        AgentConnection* c = manager.connection(p.id);
        return c && c->state() == AgentConnection::State::Connected;
    };
    if (!waitFor([&] { return connected(sim) && connected(real); }, 20000)) {
        std::fprintf(stderr, "could not connect to both agents\n");
        return 1;
    }
    int failures = 0;
    auto page = [&](QWidget* p, const QString& name) {
        window.tabs()->setCurrentWidget(p);
        waitMs(1200);
        failures += shoot(&window, out, name) ? 0 : 1;
    };

    // The simulated host: every route of the issues lit up.
    window.selectProfile(sim.id);
    page(window.overviewPage(), QStringLiteral("overview"));
    page(window.executionsPage(), QStringLiteral("executions"));
    waitFor([&] { return window.quotasPage()->editor(QStringLiteral("maxOutputBytes")); }, 5000);
    if (QuotaEditor* e = window.quotasPage()->editor(QStringLiteral("maxOutputBytes")))
        e->setDisplayNumber(2.5);
    page(window.quotasPage(), QStringLiteral("quotas"));
    NetworkPolicyPage* policy = window.networkPolicyPage();
    window.tabs()->setCurrentWidget(policy);
    waitMs(800);
    policy->domainModel()->addEntry(QStringLiteral("10.0.0.5"));
    policy->checkHost(QStringLiteral("files.pythonhosted.org:443"));
    page(policy, QStringLiteral("network-policy"));
    NpuPage* npu = window.npuPage();
    window.tabs()->setCurrentWidget(npu);
    waitMs(800);
    npu->model()->setCheckedChips({1, 2, 4});
    if (auto* board = npu->findChild<QListView*>(QStringLiteral("chipBoard")))
        board->setCurrentIndex(npu->model()->index(3));
    page(npu, QStringLiteral("npu-chips"));

    // The Fleet board: both agents and a host that does not answer (added for this shot only).
    {
        QTcpServer closed; // a port nothing listens on once closed
        closed.listen(QHostAddress::LocalHost);
        const AgentProfile offline{
            AgentProfile::newId(), QStringLiteral("gpu-node-7"),
            QUrl(QStringLiteral("http://127.0.0.1:%1").arg(closed.serverPort()))};
        closed.close();
        window.addAndConnect(offline, QByteArrayLiteral("offline-token"));
        window.selectProfile(sim.id);
        FleetPage* fleet = window.fleetPage();
        window.tabs()->setCurrentWidget(fleet);
        FleetHostModel* hosts = fleet->model();
        waitFor(
            [&] {
                for (int row = 0; row < hosts->rowCount(); ++row)
                    if (hosts->hostAt(row)->status() == FleetHost::Status::Loading ||
                        hosts->hostAt(row)->status() == FleetHost::Status::Connecting)
                        return false;
                return hosts->rowCount() == 3;
            },
            10000);
        if (FleetHost* host = hosts->hostAt(hosts->rowOf(sim.id)))
            host->chips()->setCheckedChips({1, 2});
        page(fleet, QStringLiteral("fleet"));
        manager.disconnectProfile(offline.id);
        window.profileModel()->remove(offline.id);
        window.selectProfile(sim.id);
    }

    ExecutionTableModel* executions = window.executionsPage()->model();
    window.tabs()->setCurrentWidget(window.executionsPage());
    waitFor([&] { return executions->rowCount() > 0; }, 5000);
    if (executions->rowCount() > 0) {
        ExecutionWindow* w = window.openExecution(executions->executionAt(0));
        if (w) {
            w->resize(1000, 680);
            waitMs(5000);
            failures += shoot(w, out, QStringLiteral("execution-managed")) ? 0 : 1;
            if (auto* tabs = w->findChild<QTabWidget*>()) {
                tabs->setCurrentIndex(1);
                failures += shoot(w, out, QStringLiteral("execution-details")) ? 0 : 1;
                tabs->setCurrentIndex(2);
                waitMs(800);
                failures += shoot(w, out, QStringLiteral("execution-egress")) ? 0 : 1;
            }
            w->close();
        }
    }

    // The real local agent: its overview, the run dialog, a live sync run, a missing route.
    window.selectProfile(real.id);
    page(window.overviewPage(), QStringLiteral("overview-local"));
    // A route this agent lacks (today: the NPU routes, docs/npu.md).
    page(window.npuPage(), QStringLiteral("not-offered"));
    // Its workspaces: two strong ones created through the page (their tokens kept for the
    // session), the newer one selected.
    WorkspacesPage* workspaces = window.workspacesPage();
    window.tabs()->setCurrentWidget(workspaces);
    int created = 0;
    QObject::connect(workspaces, &WorkspacesPage::created, &window, [&] { ++created; });
    for (int i = 0; i < 2; ++i) {
        workspaces->createWorkspaces({{"isolation", "strong"}});
        waitFor([&] { return created > i; }, 10000);
    }
    // And a batch of light ones where this agent has the light tier.
    if (window.currentConnection() && window.currentConnection()
                                          ->health()
                                          .value(QLatin1String("light"))
                                          .toObject()
                                          .value(QLatin1String("available"))
                                          .toBool()) {
        workspaces->createWorkspaces({{"isolation", "light"}, {"count", 3}});
        waitFor([&] { return created > 2; }, 20000);
    }
    waitFor([&] { return workspaces->model()->rowCount() >= 2; }, 5000);
    page(workspaces, QStringLiteral("workspaces"));
    // The selected workspace's files: a folder made and a small script uploaded and previewed.
    const QStringList shown = workspaces->selectedWorkspaceIds();
    if (!shown.isEmpty()) {
        FilesPage* files = window.filesPage();
        int operations = 0, transfers = 0;
        QObject::connect(files, &FilesPage::operationFinished, &window, [&] { ++operations; });
        QObject::connect(files, &FilesPage::transferFinished, &window, [&] { ++transfers; });
        window.openFiles(shown.first());
        waitMs(800);
        files->makeDirectory(QStringLiteral("data"));
        waitFor([&] { return operations > 0; }, 5000);
        QFile script(tmp.filePath(QStringLiteral("analysis.py")));
        if (script.open(QIODevice::WriteOnly)) {
            script.write("import csv, statistics\n\nwith open('data/samples.csv') as f:\n"
                         "    values = [float(r['value']) for r in csv.DictReader(f)]\n"
                         "print('mean', statistics.mean(values))\n"
                         "print('stdev', statistics.stdev(values))\n");
            script.close();
            files->uploadFile(script.fileName());
            waitFor([&] { return transfers > 0; }, 10000);
        }
        waitFor([&] { return files->selectName(QStringLiteral("analysis.py")); }, 5000);
        page(files, QStringLiteral("files"));
    }
    window.openRunDialog({});
    waitMs(500);
    if (auto* dialog = window.findChild<RunDialog*>()) {
        dialog->setKind(QStringLiteral("python"));
        dialog->setScript(QStringLiteral(
            "import sys, time\nfor i in range(5):\n    print(f\"step {i}\", flush=True)\n"
            "    time.sleep(0.2)\nprint(\"warning: demo\", file=sys.stderr)\n"));
        failures += shoot(dialog, out, QStringLiteral("run-dialog")) ? 0 : 1;
        dialog->reject();
    }
    QObject::connect(&window, &MainWindow::executionWindowOpened, &window,
                     [&](ExecutionWindow* w) { w->resize(1000, 640); });
    ExecutionWindow* live = nullptr;
    QObject::connect(&window, &MainWindow::executionWindowOpened, &window,
                     [&](ExecutionWindow* w) { live = w; });
    RunRequest run;
    run.kind = QStringLiteral("shell");
    run.code =
        QStringLiteral("echo \"sandbox: $(id -u):$(id -g) on $(uname -sr)\"\nls -la /workspace\n"
                       "for i in 1 2 3; do echo \"working… $i\"; sleep 0.3; done\n"
                       "echo 'this goes to stderr' >&2\necho done\n");
    QObject::connect(&window, &MainWindow::runFailed, &window, [](const QString& m) {
        std::fprintf(stderr, "run failed: %s\n", qPrintable(m));
    });
    window.startRun(run);
    if (waitFor([&] { return live && live->follower() && live->follower()->isFinished(); },
                20000)) {
        failures += shoot(live, out, QStringLiteral("execution-live")) ? 0 : 1;
        live->close();
    } else {
        std::fprintf(stderr, "the live run did not finish\n");
        ++failures;
    }
    return failures == 0 ? 0 : 1;
}
