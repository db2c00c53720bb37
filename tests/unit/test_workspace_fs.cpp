#include "agent/http/ErrorStatus.h"
#include "agent/workspace/WorkspaceFs.h"
#include "agent/workspace/WorkspaceRemoval.h"
#include "shared/Crypto.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace runbox;
using namespace runbox::workspace;

namespace {

WorkspacePath P(const char* url) {
    auto p = WorkspacePath::fromUrlTail(url);
    if (!p)
        qFatal("bad test path %s", url);
    return p.value();
}

bool writeFile(const QString& path, const QByteArray& content) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(content) == content.size();
}

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<unreadable>");
}

QByteArray readAll(const ReadHandle& h) {
    QByteArray out(h.info.size, Qt::Uninitialized);
    const qint64 n = h.readAt(0, out.data(), out.size());
    out.truncate(n < 0 ? 0 : n);
    return out;
}

quint32 modeOf(const QString& path) {
    struct stat st {};
    ::lstat(QFile::encodeName(path).constData(), &st);
    return st.st_mode & 07777;
}

} // namespace

class TestWorkspaceFs final : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;
    QString m_root;
    std::optional<WorkspaceFs> m_fs;

    QString at(const QString& rel) const { return m_root + '/' + rel; }

    Result<FileInfo> upload(const char* url, const QByteArray& content,
                            UploadOptions options = {}) {
        auto up = m_fs->beginUpload(P(url), options);
        if (!up)
            return up.error();
        const Status w = up->write(content);
        if (!w)
            return w.error();
        return up->commit(crypto::sha256Hex(content));
    }

private Q_SLOTS:
    void initTestCase_data() {
        // Modern kernel path, and the path for kernels/filesystems without openat2 and
        // O_TMPFILE (per-component O_NOFOLLOW resolution, named temp files).
        QTest::addColumn<bool>("fallback");
        QTest::newRow("openat2+O_TMPFILE") << false;
        QTest::newRow("fallbacks") << true;
    }
    void init() {
        QFETCH_GLOBAL(bool, fallback);
        WorkspaceResolver::setForceFallbackForTesting(fallback);
        WorkspaceUpload::setForceNamedTempForTesting(fallback);
        QVERIFY(m_tmp.isValid());
        m_root = m_tmp.path() + QStringLiteral("/ws");
        QDir(m_root).removeRecursively();
        QVERIFY(QDir().mkpath(m_root + "/dir/sub"));
        QVERIFY(writeFile(at("hello.txt"), "hello"));
        QVERIFY(writeFile(at("dir/a.txt"), "aaa"));
        auto fs = WorkspaceFs::open(m_root);
        QVERIFY(fs.ok());
        m_fs.emplace(std::move(fs.value()));
    }
    void cleanup() {
        m_fs.reset();
        WorkspaceResolver::setForceFallbackForTesting(false);
        WorkspaceUpload::setForceNamedTempForTesting(false);
    }

    void testResolverModeIsTheOneUnderTest() {
        // The first row must really exercise openat2, or it silently repeats the fallback.
        QFETCH_GLOBAL(bool, fallback);
        if (!fallback && !WorkspaceResolver::usingOpenat2())
            QSKIP("openat2 unavailable here (ENOSYS/EPERM): only the fallback is exercised");
        QCOMPARE(WorkspaceResolver::usingOpenat2(), !fallback);
    }

    void testStatReportsTypeSizeMode() {
        auto f = m_fs->stat(P("hello.txt"));
        QVERIFY(f.ok());
        QCOMPARE(f->type, FileType::File);
        QCOMPARE(f->size, 5);
        QCOMPARE(f->name, QByteArray("hello.txt"));
        QCOMPARE(f->mode, modeOf(at("hello.txt")));
        QVERIFY(f->mtimeNs > 0);
        auto d = m_fs->stat(P("dir"));
        QVERIFY(d.ok());
        QCOMPARE(d->type, FileType::Directory);
        QVERIFY(m_fs->stat(WorkspacePath()).ok());
        auto missing = m_fs->stat(P("nope"));
        QCOMPARE(http::httpStatus(missing.error().kind), 404);
        QCOMPARE(missing.error().code, QStringLiteral("not_found"));
        auto underFile = m_fs->stat(P("hello.txt/x"));
        QCOMPARE(underFile.error().code, QStringLiteral("not_a_directory"));
    }

    void testListIsSortedAndPaginated() {
        for (const char* n : {"c", "b", "a", "e", "d"})
            QVERIFY(writeFile(at(QStringLiteral("dir/sub/") + n), n));
        auto page = m_fs->list(P("dir/sub"), 0, 2);
        QVERIFY(page.ok());
        QCOMPARE(page->total, 5);
        QCOMPARE(page->entries.size(), 2);
        QCOMPARE(page->entries[0].name, QByteArray("a"));
        QCOMPARE(page->entries[1].name, QByteArray("b"));
        QCOMPARE(page->nextOffset, 2);
        auto last = m_fs->list(P("dir/sub"), 4, 2);
        QVERIFY(last.ok());
        QCOMPARE(last->entries.size(), 1);
        QCOMPARE(last->entries[0].name, QByteArray("e"));
        QCOMPARE(last->nextOffset, -1);
        const QJsonObject json = last->toJson();
        QVERIFY(json.value("nextOffset").isNull());
        QCOMPARE(json.value("entries").toArray().at(0).toObject().value("type").toString(),
                 QStringLiteral("file"));
        auto root = m_fs->list(WorkspacePath(), 0, 0);
        QVERIFY(root.ok());
        QCOMPARE(root->entries.size(), 2); // dir, hello.txt
        QCOMPARE(root->entries[0].type, FileType::Directory);
        QCOMPARE(m_fs->list(P("dir"), -1, 10).error().code, QStringLiteral("invalid_argument"));
        QCOMPARE(
            http::httpStatus(m_fs->list(P("dir"), 0, WorkspaceFs::kMaxListLimit + 1).error().kind),
            400);
        QCOMPARE(m_fs->list(P("hello.txt"), 0, 10).error().code, QStringLiteral("not_a_directory"));
    }

    void testOpenForReadGivesContentAndEtag() {
        auto h = m_fs->openForRead(P("dir/a.txt"));
        QVERIFY(h.ok());
        QCOMPARE(readAll(h.value()), QByteArray("aaa"));
        QCOMPARE(h->info.size, 3);
        char buf[2];
        QCOMPARE(h->readAt(1, buf, 2), 2);
        QCOMPARE(QByteArray(buf, 2), QByteArray("aa"));
        const QByteArray etag = h->etag;
        QVERIFY(etag.startsWith('"') && etag.endsWith('"'));
        QCOMPARE(m_fs->openForRead(P("dir/a.txt"))->etag, etag); // stable
        QVERIFY(writeFile(at("dir/a.txt"), "aaaa"));
        QVERIFY(m_fs->openForRead(P("dir/a.txt"))->etag != etag);
        QCOMPARE(m_fs->openForRead(P("dir")).error().code, QStringLiteral("is_a_directory"));
        QCOMPARE(http::httpStatus(m_fs->openForRead(WorkspacePath()).error().kind), 409);
    }

    void testUploadCreatesFileAtomically() {
        auto info = upload("dir/new.bin", "payload");
        QVERIFY2(info.ok(), qPrintable(info.error().message));
        QCOMPARE(info->size, 7);
        QCOMPARE(readFile(at("dir/new.bin")), QByteArray("payload"));
        QCOMPARE(modeOf(at("dir/new.bin")), 0644u);
        QCOMPARE(QDir(at("dir")).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                 (QStringList{"a.txt", "new.bin", "sub"}));
    }

    void testFailedUploadRemovesOnlyTheParentsItCreated() {
        UploadOptions parents;
        parents.createParents = true;
        const auto entries = [this](const QString& rel) {
            return QDir(at(rel)).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
        };
        // Positive control: a committed upload keeps the directories it made.
        QVERIFY(upload("dir/made/deeper/ok.bin", "ok", parents).ok());
        QCOMPARE(readFile(at("dir/made/deeper/ok.bin")), QByteArray("ok"));

        // A bad hash: the new directories go, the existing ones ("dir", "dir/sub") stay.
        {
            auto up = m_fs->beginUpload(P("dir/sub/n1/n2/bad.bin"), parents);
            QVERIFY2(up.ok(), qPrintable(up.error().message));
            QVERIFY(QFileInfo(at("dir/sub/n1/n2")).isDir());
            QVERIFY(up->write(QByteArray("content")).ok());
            QCOMPARE(up->commit(crypto::sha256Hex("other")).error().code,
                     QStringLiteral("checksum_mismatch"));
        }
        QCOMPARE(entries("dir/sub"), QStringList());
        QCOMPARE(entries("dir"), (QStringList{"a.txt", "made", "sub"}));

        // Abandoned (client gone): the same. A directory someone filled meanwhile stays, with
        // its parents; only the empty one it made below is removed.
        {
            auto up = m_fs->beginUpload(P("dir/m1/m2/m3/x.bin"), parents);
            QVERIFY(up.ok());
            QVERIFY(writeFile(at("dir/m1/other.txt"), "someone else's"));
        }
        QCOMPARE(entries("dir/m1"), QStringList{"other.txt"});

        // Refused by beginUpload (the target is an existing directory): nothing made, nothing
        // of what exists is touched.
        UploadOptions overwrite = parents;
        overwrite.conflict = ConflictPolicy::Overwrite;
        QCOMPARE(m_fs->beginUpload(P("dir/made/deeper"), overwrite).error().code,
                 QStringLiteral("is_a_directory"));
        QVERIFY(QFileInfo(at("dir/made/deeper/ok.bin")).isFile());
    }

    void testUploadAppliesMode() {
        UploadOptions o;
        o.mode = UploadOptions::parseMode(u"755");
        QVERIFY(upload("run.sh", "#!/bin/sh\n", o).ok());
        QCOMPARE(modeOf(at("run.sh")), 0755u);
        QVERIFY(!UploadOptions::parseMode(u"4755"));
        QVERIFY(!UploadOptions::parseMode(u"8"));
        QVERIFY(!UploadOptions::parseMode(u""));
        QCOMPARE(*UploadOptions::parseMode(u"0600"), 0600u);
    }

    void testConflictRejectGives409() {
        auto up = m_fs->beginUpload(P("hello.txt"), UploadOptions());
        QVERIFY(!up.ok());
        QCOMPARE(http::httpStatus(up.error().kind), 409);
        QCOMPARE(up.error().code, QStringLiteral("file_exists"));
        QCOMPARE(readFile(at("hello.txt")), QByteArray("hello"));
    }

    void testConflictRejectIsCheckedAgainAtCommit() {
        auto up = m_fs->beginUpload(P("late.txt"), UploadOptions());
        QVERIFY(up.ok());
        QVERIFY(up->write(QByteArrayView("mine")).ok());
        QVERIFY(writeFile(at("late.txt"), "theirs")); // appears while uploading
        auto done = up->commit(crypto::sha256Hex("mine"));
        QVERIFY(!done.ok());
        QCOMPARE(done.error().code, QStringLiteral("file_exists"));
        QCOMPARE(readFile(at("late.txt")), QByteArray("theirs"));
        QCOMPARE(QDir(m_root).entryList(QDir::Files | QDir::Hidden).size(), 2);
    }

    void testOverwriteReplacesAndKeepsMode() {
        QVERIFY(::chmod(QFile::encodeName(at("hello.txt")).constData(), 0640) == 0);
        UploadOptions o;
        o.conflict = ConflictPolicy::Overwrite;
        QVERIFY(upload("hello.txt", "new content", o).ok());
        QCOMPARE(readFile(at("hello.txt")), QByteArray("new content"));
        QCOMPARE(modeOf(at("hello.txt")), 0640u);
        QCOMPARE(QDir(m_root).entryList(QDir::Files | QDir::Hidden), QStringList{"hello.txt"});
        QCOMPARE(upload("dir", "x", o).error().code, QStringLiteral("is_a_directory"));
    }

    void testShaMismatchLeavesNothing() {
        for (const ConflictPolicy c : {ConflictPolicy::Reject, ConflictPolicy::Overwrite}) {
            UploadOptions o;
            o.conflict = c;
            auto up = m_fs->beginUpload(P("dir/x.bin"), o);
            QVERIFY(up.ok());
            QVERIFY(up->write(QByteArrayView("actual body")).ok());
            auto done = up->commit(crypto::sha256Hex("declared body"));
            QVERIFY(!done.ok());
            QCOMPARE(http::httpStatus(done.error().kind), 400);
            QCOMPARE(done.error().code, QStringLiteral("checksum_mismatch"));
            QCOMPARE(
                QDir(at("dir")).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
                (QStringList{"a.txt", "sub"}));
        }
        // Positive control: the right hash (any case) commits.
        auto up = m_fs->beginUpload(P("dir/x.bin"), UploadOptions());
        QVERIFY(up->write(QByteArrayView("actual body")).ok());
        QVERIFY(up->commit(crypto::sha256Hex("actual body").toUpper()).ok());
    }

    void testAbortAndDestructionLeaveNothing() {
        {
            auto up = m_fs->beginUpload(P("gone.txt"), UploadOptions());
            QVERIFY(up->write(QByteArrayView("abc")).ok());
            up->abort();
            QVERIFY(!up->isOpen());
            QCOMPARE(up->write(QByteArrayView("x")).error().code, QStringLiteral("upload_closed"));
        }
        {
            auto up = m_fs->beginUpload(P("gone2.txt"), UploadOptions());
            QVERIFY(up->write(QByteArrayView("abc")).ok());
        }
        QCOMPARE(QDir(m_root).entryList(QDir::Files | QDir::Hidden), QStringList{"hello.txt"});
    }

    void testUploadLimitGives413() {
        UploadOptions o;
        o.maxBytes = 4;
        auto up = m_fs->beginUpload(P("big.bin"), o);
        QVERIFY(up->write(QByteArrayView("abcd")).ok());
        const Status s = up->write(QByteArrayView("e"));
        QCOMPARE(http::httpStatus(s.error().kind), 413);
        QCOMPARE(s.error().code, QStringLiteral("upload_too_large"));
        QVERIFY(!QFile::exists(at("big.bin")));
    }

    void testUploadVerifiedElsewhereCommitsWithoutAHash() {
        // Chunk-signed bodies are verified by their decoder: the file is not hashed again.
        UploadOptions o;
        o.hashContent = false;
        auto up = m_fs->beginUpload(P("signed.bin"), o);
        // Across several writeback starts (every kWritebackBytes), the bytes stay intact.
        QByteArray block(1024 * 1024, Qt::Uninitialized);
        QByteArray all;
        for (int i = 0; i < 3 * WorkspaceUpload::kWritebackBytes / block.size() + 1; ++i) {
            block.fill(char('a' + i % 26));
            QVERIFY(up->write(block).ok());
            all += block;
        }
        QVERIFY(up->commit({}).ok());
        QVERIFY(readFile(at("signed.bin")) == all);
        // Asking such an upload to check a hash is a programming error, never a silent pass.
        auto other = m_fs->beginUpload(P("other.bin"), o);
        QVERIFY(other->write(QByteArrayView("x")).ok());
        QCOMPARE(http::httpStatus(other->commit(crypto::sha256Hex("x")).error().kind), 500);
        QVERIFY(!QFile::exists(at("other.bin")));
    }

    void testParentsCreatedOnlyOnRequest() {
        QCOMPARE(upload("p/q/r.txt", "x").error().code, QStringLiteral("not_found"));
        QVERIFY(!QFile::exists(at("p")));
        UploadOptions o;
        o.createParents = true;
        QVERIFY(upload("p/q/r.txt", "x", o).ok());
        QCOMPARE(readFile(at("p/q/r.txt")), QByteArray("x"));
        QCOMPARE(modeOf(at("p/q")), 0755u);
        QCOMPARE(upload("hello.txt/r.txt", "x", o).error().code, QStringLiteral("not_a_directory"));
    }

    void testOwnerIsAppliedWithFchown() {
        if (::geteuid() != 0)
            QSKIP("needs root to chown");
        m_fs->setOwner(WorkspaceOwner{65534, 65534});
        UploadOptions o;
        o.createParents = true;
        QVERIFY(upload("own/f.txt", "x", o).ok());
        QVERIFY(m_fs->makeDirectory(P("own/d"), false).ok());
        for (const char* rel : {"own", "own/f.txt", "own/d"}) {
            struct stat st {};
            QVERIFY(::lstat(QFile::encodeName(at(rel)).constData(), &st) == 0);
            QCOMPARE(st.st_uid, uid_t(65534));
            QCOMPARE(st.st_gid, gid_t(65534));
        }
    }

    void testRemoveFilesAndDirectories() {
        QVERIFY(m_fs->remove(P("hello.txt"), false).ok());
        QVERIFY(!QFile::exists(at("hello.txt")));
        QCOMPARE(http::httpStatus(m_fs->remove(P("hello.txt"), false).error().kind), 404);
        const Status notEmpty = m_fs->remove(P("dir"), false);
        QCOMPARE(notEmpty.error().code, QStringLiteral("directory_not_empty"));
        QVERIFY(QFile::exists(at("dir/a.txt")));
        QVERIFY(m_fs->remove(P("dir/sub"), false).ok()); // empty
        QVERIFY(m_fs->remove(P("dir"), true).ok());
        QVERIFY(!QFile::exists(at("dir")));
        QCOMPARE(m_fs->remove(WorkspacePath(), true).error().code, QStringLiteral("invalid_path"));
        QVERIFY(QDir(m_root).exists());
    }

    void testRecursiveRemovalOfDeepTree() {
        // Deeper than the walker keeps descriptors open: exercises the ".." reopening.
        int fd = ::open(QFile::encodeName(at("dir")).constData(), O_PATH | O_DIRECTORY);
        QVERIFY(fd >= 0);
        for (int i = 0; i < 300; ++i) {
            QVERIFY(::mkdirat(fd, "d", 0755) == 0);
            const int f = ::openat(fd, "leaf", O_CREAT | O_WRONLY, 0644);
            QVERIFY(f >= 0);
            ::close(f);
            const int next = ::openat(fd, "d", O_PATH | O_DIRECTORY);
            ::close(fd);
            fd = next;
            QVERIFY(fd >= 0);
        }
        ::close(fd);
        QVERIFY(m_fs->remove(P("dir"), true).ok());
        QVERIFY(!QFileInfo::exists(at("dir")));
    }

    void testRemovalOfUnreadableTreeAsNonRoot() {
        // Sandboxed code may chmod its directories 000/555; a rootless agent must still be
        // able to delete them. Run as `nobody` in a child so root's DAC override is out.
        const pid_t pid = ::fork();
        QVERIFY(pid >= 0);
        if (pid == 0) {
            if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0))
                ::_exit(10);
            char tmpl[] = "/tmp/runbox-rm-XXXXXX";
            if (!::mkdtemp(tmpl))
                ::_exit(11);
            const int base = ::open(tmpl, O_PATH | O_DIRECTORY);
            if (::mkdirat(base, "t", 0755) || ::mkdirat(base, "t/locked", 0755) ||
                ::mkdirat(base, "t/ro", 0755))
                ::_exit(12);
            ::close(::openat(base, "t/locked/f", O_CREAT | O_WRONLY, 0600));
            ::close(::openat(base, "t/ro/f", O_CREAT | O_WRONLY, 0600));
            ::fchmodat(base, "t/locked", 0, 0);
            ::fchmodat(base, "t/ro", 0555, 0);
            // Positive control: a plain unlink inside the read-only directory is refused.
            if (::unlinkat(base, "t/ro/f", 0) == 0 || errno != EACCES)
                ::_exit(13);
            const Status s = WorkspaceRemoval::removeEntry(base, "t", true, "t");
            const bool gone = ::faccessat(base, "t", F_OK, AT_SYMLINK_NOFOLLOW) != 0;
            ::unlinkat(AT_FDCWD, tmpl, AT_REMOVEDIR);
            ::_exit(s.ok() && gone ? 0 : 14);
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
    }

    void testUploadWorksForANonRootAgent() {
        // A rootless agent cannot linkat(AT_EMPTY_PATH) on every kernel; the /proc/self/fd
        // route must work. Run as `nobody` in a child (exit code = first failed step).
        const pid_t pid = ::fork();
        QVERIFY(pid >= 0);
        if (pid == 0) {
            if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0))
                ::_exit(10);
            char tmpl[] = "/tmp/runbox-up-XXXXXX";
            if (!::mkdtemp(tmpl))
                ::_exit(11);
            int rc = 0;
            {
                auto fs = WorkspaceFs::open(QString::fromLatin1(tmpl));
                if (!fs)
                    ::_exit(12);
                for (const ConflictPolicy c : {ConflictPolicy::Reject, ConflictPolicy::Overwrite}) {
                    UploadOptions o;
                    o.conflict = c;
                    auto up = fs->beginUpload(P("f.txt"), o);
                    if (!up || !up->write(QByteArrayView("v1")).ok() ||
                        !up->commit(crypto::sha256Hex("v1")).ok())
                        rc = c == ConflictPolicy::Reject ? 13 : 14;
                }
                if (rc == 0 && readFile(QString::fromLatin1(tmpl) + "/f.txt") != "v1")
                    rc = 15;
                if (fs && !fs->remove(P("f.txt"), false).ok())
                    rc = rc ? rc : 16;
            }
            ::unlinkat(AT_FDCWD, tmpl, AT_REMOVEDIR);
            ::_exit(rc);
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
    }

    void testMove() {
        QVERIFY(m_fs->move(P("hello.txt"), P("dir/moved.txt"), false).ok());
        QCOMPARE(readFile(at("dir/moved.txt")), QByteArray("hello"));
        QVERIFY(!QFile::exists(at("hello.txt")));
        QCOMPARE(http::httpStatus(m_fs->move(P("hello.txt"), P("x"), false).error().kind), 404);
        QCOMPARE(m_fs->move(P("dir/moved.txt"), P("dir/a.txt"), false).error().code,
                 QStringLiteral("file_exists"));
        QCOMPARE(readFile(at("dir/a.txt")), QByteArray("aaa"));
        QVERIFY(m_fs->move(P("dir/moved.txt"), P("dir/a.txt"), true).ok());
        QCOMPARE(readFile(at("dir/a.txt")), QByteArray("hello"));
        QCOMPARE(m_fs->move(P("dir"), P("dir/sub/inside"), false).error().code,
                 QStringLiteral("invalid_move"));
        QCOMPARE(
            http::httpStatus(m_fs->move(P("dir/a.txt"), P("new/deep/a.txt"), false).error().kind),
            404);
        QVERIFY(m_fs->move(P("dir/a.txt"), P("new/deep/a.txt"), false, true).ok());
        QCOMPARE(readFile(at("new/deep/a.txt")), QByteArray("hello"));
        QCOMPARE(m_fs->move(WorkspacePath(), P("x"), false).error().code,
                 QStringLiteral("invalid_path"));
    }

    void testMakeDirectory() {
        QVERIFY(m_fs->makeDirectory(P("m"), false, 0700).ok());
        QCOMPARE(modeOf(at("m")), 0700u);
        QCOMPARE(m_fs->makeDirectory(P("m"), false).error().code, QStringLiteral("file_exists"));
        QVERIFY(m_fs->makeDirectory(P("m"), true).ok());
        QVERIFY(m_fs->makeDirectory(P("m/n/o"), true).ok());
        QVERIFY(QFileInfo(at("m/n/o")).isDir());
    }
};

QTEST_GUILESS_MAIN(TestWorkspaceFs)
#include "test_workspace_fs.moc"
