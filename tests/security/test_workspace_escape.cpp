// Attacks on the host-side workspace file API (docs/contracts.md "Workspace file API"):
// links planted inside the workspace towards /etc/passwd, / and .., encoded traversal, special
// files, and a directory swapped for a symlink while the API is hammered. Each check starts
// with a positive control so a broken setup cannot pass a refusal.
#include "SwapRace.h"
#include "agent/http/ErrorStatus.h"
#include "agent/workspace/WorkspaceFs.h"
#include "shared/Crypto.h"
#include "support/TestFiles.h"

#include <QDir>
#include <QFile>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::workspace;
using runbox::testsupport::readFile;
using runbox::testsupport::writeFile;

namespace {

WorkspacePath P(const char* url) {
    auto p = WorkspacePath::fromUrlTail(url);
    if (!p)
        qFatal("bad test path %s", url);
    return p.value();
}

QByteArray readAll(const ReadHandle& h) {
    QByteArray out(h.info.size, Qt::Uninitialized);
    const qint64 n = h.readAt(0, out.data(), out.size());
    out.truncate(n < 0 ? 0 : n);
    return out;
}

QStringList entries(const QString& dir) {
    QStringList l =
        QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    l.sort();
    return l;
}

bool isSymlink(const QString& path) {
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISLNK(st.st_mode);
}

} // namespace

class TestWorkspaceEscape final : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_base, m_ws, m_outside;
    QByteArray m_passwdHash;
    QByteArray m_rootCanary; // a name that must never appear in /
    std::optional<WorkspaceFs> m_fs;

    QString ws(const QString& rel) const { return m_ws + '/' + rel; }

    /// The outside directory as the setup left it, byte for byte.
    void verifyOutsideUntouched() {
        QCOMPARE(entries(m_outside), (QStringList{"only-outside", "victim", "x"}));
        QCOMPARE(readFile(m_outside + "/x"), QByteArray("CANARY"));
        QCOMPARE(readFile(m_outside + "/victim"), QByteArray("VICTIM"));
        QCOMPARE(readFile(m_outside + "/only-outside"), QByteArray("OUT"));
        QCOMPARE(crypto::sha256Hex(readFile("/etc/passwd")), m_passwdHash);
        QVERIFY(!QFileInfo::exists("/" + QString::fromLatin1(m_rootCanary)));
        QVERIFY(QFileInfo(m_base).isDir());
    }

    Result<FileInfo> upload(const WorkspacePath& path, const QByteArray& content,
                            ConflictPolicy conflict, bool createParents = false) {
        UploadOptions o;
        o.conflict = conflict;
        o.createParents = createParents;
        o.durable = false;
        auto up = m_fs->beginUpload(path, o);
        if (!up)
            return up.error();
        const Status w = up->write(content);
        if (!w)
            return w.error();
        return up->commit(crypto::sha256Hex(content));
    }

private Q_SLOTS:
    void initTestCase_data() {
        QTest::addColumn<bool>("fallback");
        QTest::newRow("openat2") << false;
        QTest::newRow("fallbacks (no openat2, no O_TMPFILE)") << true;
    }
    void initTestCase() {
        m_passwdHash = crypto::sha256Hex(readFile("/etc/passwd"));
        QVERIFY(!m_passwdHash.isEmpty());
        m_rootCanary = "runbox-canary-" + crypto::randomBytes(8).toHex();
    }
    void init() {
        QFETCH_GLOBAL(bool, fallback);
        WorkspaceResolver::setForceFallbackForTesting(fallback);
        WorkspaceUpload::setForceNamedTempForTesting(fallback);
        QVERIFY(m_tmp.isValid());
        m_base = m_tmp.path() + "/base";
        QDir(m_base).removeRecursively();
        m_ws = m_base + "/ws";
        m_outside = m_base + "/outside";
        QVERIFY(QDir().mkpath(m_ws + "/d"));
        QVERIFY(QDir().mkpath(m_ws + "/e"));
        QVERIFY(QDir().mkpath(m_outside));
        QVERIFY(writeFile(m_outside + "/x", "CANARY"));
        QVERIFY(writeFile(m_outside + "/victim", "VICTIM"));
        QVERIFY(writeFile(m_outside + "/only-outside", "OUT"));
        QVERIFY(writeFile(ws("normal.txt"), "inside"));
        QVERIFY(writeFile(ws("d/x"), "INSIDE"));
        // What sandboxed code can plant:
        QVERIFY(QFile::link("/etc/passwd", ws("passwd")));
        QVERIFY(QFile::link("/", ws("root")));
        QVERIFY(::symlink("..", QFile::encodeName(ws("up")).constData()) == 0);
        QVERIFY(::symlink("../outside", QFile::encodeName(ws("out")).constData()) == 0);
        QVERIFY(QFile::link(m_outside + "/x", ws("outfile")));
        QVERIFY(::symlink(".", QFile::encodeName(ws("self")).constData()) == 0);
        QVERIFY(QFile::link(m_outside, ws("dswap")));
        QVERIFY(QFile::link("/", ws("eswap")));
        auto fs = WorkspaceFs::open(m_ws);
        QVERIFY(fs.ok());
        m_fs.emplace(std::move(fs.value()));
    }
    void cleanup() {
        m_fs.reset();
        WorkspaceResolver::setForceFallbackForTesting(false);
        WorkspaceUpload::setForceNamedTempForTesting(false);
    }

    void testEncodedTraversalNeverReachesTheFilesystem() {
        // Positive control: a normal encoded path resolves and reads.
        auto ok = WorkspacePath::fromUrlTail("normal%2etxt");
        QVERIFY(ok.ok());
        QCOMPARE(readAll(m_fs->openForRead(ok.value()).value()), QByteArray("inside"));
        for (const char* raw : {"%2e%2e/outside/x", "..%2foutside%2fx", "%252e%252e/outside/x",
                                "..%5coutside%5cx", "normal.txt%00", "//etc/passwd", "/etc/passwd",
                                "d/../../outside/x", "%2e%2e%2f%2e%2e%2fetc"}) {
            const auto p = WorkspacePath::fromUrlTail(raw);
            QVERIFY2(!p.ok(), raw);
            QCOMPARE(http::httpStatus(p.error().kind), 400);
        }
        // Move bodies (JSON paths, not decoded) refuse the same shapes.
        const auto from = WorkspacePath::fromPlain("normal.txt");
        QVERIFY(from.ok());
        for (const char* body : {"../outside/stolen", "/tmp/stolen", "%2e%2e/stolen", "a%2fb",
                                 "a%5cb", "%252e%252e", "//etc/x", "d/../../x"}) {
            const auto to = WorkspacePath::fromPlain(body);
            QVERIFY2(!to.ok(), body);
            QCOMPARE(to.error().code, QStringLiteral("invalid_path"));
        }
        QVERIFY(m_fs->move(from.value(), P("renamed.txt"), false).ok());
        verifyOutsideUntouched();
    }

    void testReadsThroughLinksAreRefused() {
        // Positive controls: the file API reads normal files, and the links do lead outside
        // for anyone who follows them.
        QCOMPARE(readAll(m_fs->openForRead(P("normal.txt")).value()), QByteArray("inside"));
        QCOMPARE(readFile(ws("outfile")), QByteArray("CANARY"));
        QCOMPARE(readFile(ws("out/x")), QByteArray("CANARY"));
        QVERIFY(!readFile(ws("passwd")).isEmpty());
        for (const char* path :
             {"passwd", "outfile", "root/etc/passwd", "up/outside/x", "out/x", "self/normal.txt",
              "self/self/outfile", "dswap/x", "eswap/etc/passwd"}) {
            auto h = m_fs->openForRead(P(path));
            QVERIFY2(!h.ok(), path);
            QCOMPARE(http::httpStatus(h.error().kind), 400);
            QCOMPARE(h.error().code, QStringLiteral("symlink_not_followed"));
        }
        // stat shows links as links, with their target, never what they point to.
        auto st = m_fs->stat(P("passwd"));
        QVERIFY(st.ok());
        QCOMPARE(st->type, FileType::Symlink);
        QCOMPARE(st->symlinkTarget, QByteArray("/etc/passwd"));
        QCOMPARE(m_fs->stat(P("root/etc/passwd")).error().code,
                 QStringLiteral("symlink_not_followed"));
    }

    void testListingShowsLinksAndNeverFollowsThem() {
        auto root = m_fs->list(WorkspacePath(), 0, 0);
        QVERIFY(root.ok());
        QHash<QByteArray, FileInfo> byName;
        for (const FileInfo& e : root->entries)
            byName.insert(e.name, e);
        QCOMPARE(byName.value("normal.txt").type, FileType::File); // positive control
        QCOMPARE(byName.value("d").type, FileType::Directory);
        QCOMPARE(byName.value("root").type, FileType::Symlink);
        QCOMPARE(byName.value("root").symlinkTarget, QByteArray("/"));
        QCOMPARE(byName.value("up").symlinkTarget, QByteArray(".."));
        QCOMPARE(byName.value("out").toJson().value("target").toString(),
                 QStringLiteral("../outside"));
        for (const char* dir : {"root", "up", "out", "self", "dswap", "root/etc", "up/outside"}) {
            auto l = m_fs->list(P(dir), 0, 0);
            QVERIFY2(!l.ok(), dir);
            QCOMPARE(l.error().code, QStringLiteral("symlink_not_followed"));
        }
    }

    void testWritesThroughLinksAreRefused() {
        // Positive control: a normal upload lands.
        QVERIFY(upload(P("d/new.txt"), "ok", ConflictPolicy::Reject).ok());
        QCOMPARE(readFile(ws("d/new.txt")), QByteArray("ok"));
        for (const ConflictPolicy c : {ConflictPolicy::Reject, ConflictPolicy::Overwrite}) {
            for (const char* path : {"passwd", "outfile"}) {
                auto r = upload(P(path), "pwned", c);
                QVERIFY2(!r.ok(), path);
                QCOMPARE(r.error().code, QStringLiteral("symlink_not_followed"));
                QVERIFY(isSymlink(ws(path)));
            }
            for (const char* path :
                 {"out/x", "out/new", "up/outside/new", "root/tmp/new", "self/new", "dswap/x"}) {
                auto r = upload(P(path), "pwned", c, true);
                QVERIFY2(!r.ok(), path);
                QCOMPARE(r.error().code, QStringLiteral("symlink_not_followed"));
            }
            QVERIFY(
                !upload(P(QByteArray("eswap/" + m_rootCanary).constData()), "pwned", c, true).ok());
        }
        QVERIFY(!m_fs->makeDirectory(P("out/newdir"), true).ok());
        QVERIFY(!m_fs->makeDirectory(P("out/newdir"), false).ok());
        verifyOutsideUntouched();
    }

    void testDeleteRemovesTheLinkOnly() {
        // Positive control: deleting a normal file works.
        QVERIFY(m_fs->remove(P("normal.txt"), false).ok());
        QVERIFY(!QFileInfo::exists(ws("normal.txt")));
        // Through a link: refused, the target stays.
        QCOMPARE(m_fs->remove(P("out/victim"), false).error().code,
                 QStringLiteral("symlink_not_followed"));
        QCOMPARE(m_fs->remove(P("up/outside/victim"), true).error().code,
                 QStringLiteral("symlink_not_followed"));
        // The links themselves are removed as links.
        QVERIFY(m_fs->remove(P("passwd"), false).ok());
        QVERIFY(m_fs->remove(P("out"), true).ok());
        QVERIFY(m_fs->remove(P("up"), true).ok());
        QVERIFY(m_fs->remove(P("outfile"), false).ok());
        QVERIFY(!isSymlink(ws("passwd")) && !isSymlink(ws("out")) && !isSymlink(ws("up")));
        verifyOutsideUntouched();
        // A real directory holding links: recursive removal unlinks them, never descends.
        QVERIFY(QDir().mkpath(ws("trap/inner")));
        QVERIFY(QFile::link(m_outside, ws("trap/outlink")));
        QVERIFY(::symlink("../../..", QFile::encodeName(ws("trap/inner/uplink")).constData()) == 0);
        QVERIFY(QFile::link(m_outside + "/victim", ws("trap/inner/victimlink")));
        QVERIFY(m_fs->remove(P("trap"), true).ok());
        QVERIFY(!QFileInfo::exists(ws("trap")));
        verifyOutsideUntouched();
        QVERIFY(QDir().mkpath(ws("trap2")));
        QVERIFY(QFile::link("/", ws("trap2/rootlink")));
        QVERIFY(m_fs->remove(P("trap2"), true).ok());
        QVERIFY(m_fs->remove(P("root"), false).ok());
        QVERIFY(QFileInfo::exists("/etc/passwd"));
        verifyOutsideUntouched();
    }

    void testMoveMovesTheLinkNeverTheTarget() {
        // Positive control: moving a normal file works.
        QVERIFY(m_fs->move(P("normal.txt"), P("d/normal.txt"), false).ok());
        QCOMPARE(readFile(ws("d/normal.txt")), QByteArray("inside"));
        QVERIFY(m_fs->move(P("outfile"), P("d/moved-link"), false).ok());
        QVERIFY(isSymlink(ws("d/moved-link")));
        QCOMPARE(QFile::symLinkTarget(ws("d/moved-link")), m_outside + "/x");
        QVERIFY(m_fs->move(P("out"), P("moved-out"), false).ok());
        QVERIFY(isSymlink(ws("moved-out")));
        QVERIFY(m_fs->move(P("passwd"), P("d/pw"), false).ok());
        QVERIFY(m_fs->move(P("root"), P("d/r"), false).ok());
        // Moving through a link, in either direction, is refused.
        QCOMPARE(m_fs->move(P("moved-out/victim"), P("stolen"), false).error().code,
                 QStringLiteral("symlink_not_followed"));
        QCOMPARE(m_fs->move(P("d/normal.txt"), P("moved-out/planted"), true).error().code,
                 QStringLiteral("symlink_not_followed"));
        QCOMPARE(m_fs->move(P("d/normal.txt"), P("up/planted"), true, true).error().code,
                 QStringLiteral("symlink_not_followed"));
        QVERIFY(!QFileInfo::exists(ws("stolen")));
        verifyOutsideUntouched();
        QCOMPARE(entries(m_base), (QStringList{"outside", "ws"}));
    }

    void testSpecialFilesAreRefused() {
        QVERIFY(::mkfifo(QFile::encodeName(ws("fifo")).constData(), 0644) == 0);
        const int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(sock >= 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        const QByteArray sockPath = QFile::encodeName(ws("sock"));
        QVERIFY(size_t(sockPath.size()) < sizeof addr.sun_path);
        ::memcpy(addr.sun_path, sockPath.constData(), size_t(sockPath.size()));
        QVERIFY(::bind(sock, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
        QVERIFY(::listen(sock, 1) == 0);
        QStringList special{"fifo", "sock"};
        if (::geteuid() == 0) {
            QVERIFY(::mknod(QFile::encodeName(ws("null")).constData(), S_IFCHR | 0666,
                            makedev(1, 3)) == 0);
            special << "null";
        }
        QVERIFY(m_fs->openForRead(P("normal.txt")).ok()); // positive control
        for (const QString& name : special) {
            const QByteArray n = name.toUtf8();
            auto h = m_fs->openForRead(P(n.constData()));
            QVERIFY2(!h.ok(), n.constData());
            QCOMPARE(h.error().code, QStringLiteral("unsupported_file_type"));
            auto st = m_fs->stat(P(n.constData()));
            QCOMPARE(st->type, FileType::Other);
            auto up = upload(P(n.constData()), "x", ConflictPolicy::Overwrite);
            QCOMPARE(up.error().code, QStringLiteral("unsupported_file_type"));
        }
        ::close(sock);
        QVERIFY(m_fs->remove(P("fifo"), false).ok());
        QVERIFY(!QFileInfo::exists(ws("fifo")));
    }

    void testSwappingDirectoryForSymlinkNeverEscapes() {
        // Sandboxed code keeps exchanging d (a real directory) with dswap (-> outside) and
        // e with eswap (-> /) while the API is hammered on d/… and e/….
        securitytest::SwapRace race(m_ws, {{"d", "dswap"}, {"e", "eswap"}});
        QVERIFY(race.isValid());
        // Positive control: the race is live — a path-based reader does get out.
        const bool naiveEscapes = securitytest::SwapRace::pathReaderEscapes(ws("d/x"), "CANARY");

        int readsOk = 0, readsRefused = 0, writesOk = 0, listsOk = 0;
        QByteArray escaped;
        const WorkspacePath canary = P(QByteArray("e/" + m_rootCanary).constData());
        // At least 1500 rounds, and on until both outcomes were seen (a loaded machine may
        // starve the swapper for a while).
        for (int i = 0;
             (i < 1500 || readsOk == 0 || readsRefused == 0) && i < 100000 && escaped.isEmpty();
             ++i) {
            if (auto h = m_fs->openForRead(P("d/x"))) {
                const QByteArray got = readAll(h.value());
                ++readsOk;
                if (got != "INSIDE")
                    escaped = "read d/x gave " + got;
            } else {
                ++readsRefused;
            }
            if (m_fs->openForRead(P("e/etc/passwd")).ok())
                escaped = "read e/etc/passwd";
            if (auto l = m_fs->list(P("d"), 0, 0)) {
                ++listsOk;
                for (const FileInfo& e : l->entries)
                    if (e.name == "only-outside" || e.name == "victim")
                        escaped = "listed outside";
            }
            if (upload(P("d/x"), "INSIDE", ConflictPolicy::Overwrite).ok())
                ++writesOk;
            upload(P("d/y"), "W", ConflictPolicy::Overwrite);
            upload(canary, "pwned", ConflictPolicy::Overwrite);
            if (m_fs->remove(P("d/victim"), false).ok())
                escaped = "removed d/victim";
            if (m_fs->move(P("d/only-outside"), P("stolen"), false).ok())
                escaped = "moved d/only-outside";
            m_fs->remove(P("e/" + m_rootCanary), false);
        }
        race.stop();

        QVERIFY2(escaped.isEmpty(), escaped.constData());
        QVERIFY2(naiveEscapes, "the swap race was not live: the test proves nothing");
        QVERIFY(race.swaps() > 0);
        QVERIFY2(readsOk > 0 && readsRefused > 0,
                 qPrintable(QStringLiteral("ok %1 refused %2").arg(readsOk).arg(readsRefused)));
        QVERIFY(writesOk > 0 && listsOk > 0);
        verifyOutsideUntouched();
        QVERIFY(!QFileInfo::exists(ws("stolen")));
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceEscape)
#include "test_workspace_escape.moc"
