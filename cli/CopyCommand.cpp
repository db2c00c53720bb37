#include "cli/CopyCommand.h"

#include "cli/CliOptions.h"
#include "cli/HttpDownload.h"
#include "cli/HttpUpload.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QTemporaryFile>
#include <QTextStream>
#include <QUrl>

#include <cstdio>

namespace runbox::cli {

namespace {

int fail(const QString& message, int code = 1) {
    QTextStream(stderr) << "runbox cp: " << message << Qt::endl;
    return code;
}

/// An upload to an https:// agent: cli/HttpUpload writes to a plain socket's descriptor, so
/// over TLS the same chained-chunk body (docs/upload-integrity.md) goes through
/// ApiClient::sendChunkSigned, read from the file chunk by chunk as the TLS socket takes it: one
/// pass over the file, nothing held whole in memory.
UploadResult uploadOverTls(ApiClient& client, const QByteArray& pathAndQuery, QFile* file) {
    UploadResult r;
    QNetworkReply* reply = client.sendChunkSigned("PUT", pathAndQuery, file, file->size());
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    if (!reply->isFinished())
        loop.exec();
    const ApiResponse response = ApiClient::responseOf(reply, reply->readAll());
    r.status = response.status;
    r.body = response.body;
    r.transportError = response.networkError;
    if (r.status == 0 && ApiClient::tlsRefusal(reply).isEmpty() &&
        file->error() != QFileDevice::NoError)
        r.sourceError = file->errorString();
    reply->deleteLater();
    return r;
}

int upload(ApiClient& client, const QString& local, RemotePath remote, const QString& query,
           bool json) {
    QFileInfo info(local);
    if (info.isDir())
        return fail(QStringLiteral("%1 is a directory (only files are copied)").arg(local));
    QFile file(local);
    if (!file.open(QIODevice::ReadOnly))
        return fail(QStringLiteral("cannot read %1: %2").arg(local, file.errorString()));
    if (file.isSequential())
        return fail(QStringLiteral("%1 is not a regular file (its size must be known)").arg(local));
    if (remote.path.isEmpty() || remote.path.endsWith('/'))
        remote.path += info.fileName();
    const QByteArray target = remote.apiPath() + query.toUtf8();
    const UploadResult r = client.baseUrl().scheme() == QLatin1String("https")
                               ? uploadOverTls(client, target, &file)
                               : uploadFrom(client.baseUrl(), client.token(),
                                            client.clockOffsetMs(), target, &file, file.size());
    if (!r.sourceError.isEmpty())
        return fail(QStringLiteral("cannot read %1: %2").arg(local, r.sourceError));
    if (!r.transportError.isEmpty())
        return fail(r.transportError, kExitConnection);
    if (r.status != 200 && r.status != 201) {
        ApiResponse response;
        response.status = r.status;
        response.body = r.body;
        return fail(QStringLiteral("%1 %2: %3")
                        .arg(r.status)
                        .arg(response.errorCode(), response.errorMessage()));
    }
    if (json)
        QTextStream(stdout) << QJsonDocument::fromJson(r.body).toJson(QJsonDocument::Indented);
    return 0;
}

int download(ApiClient& client, const RemotePath& remote, QString local) {
    const bool toStdout = local == QLatin1String("-");
    if (!toStdout && QFileInfo(local).isDir()) {
        const QString name = remote.path.section('/', -1, -1, QString::SectionSkipEmpty);
        if (name.isEmpty())
            return fail(QStringLiteral("name a local file to download the workspace root to"));
        local = QDir(local).filePath(name);
    }
    // A temporary file next to LOCAL, renamed over it once complete (like cp, no fsync).
    QTemporaryFile partFile(local + QStringLiteral(".runbox-part-XXXXXX"));
    QFile out;
    QIODevice* sink = &partFile;
    if (toStdout) {
        if (!out.open(stdout, QIODevice::WriteOnly))
            return fail(QStringLiteral("cannot write to stdout"));
        sink = &out;
    } else if (!partFile.open()) {
        return fail(QStringLiteral("cannot write %1: %2").arg(local, partFile.errorString()));
    }
    const DownloadResult r = downloadTo(client.baseUrl(), client.token(), client.pinnedSha256(),
                                        client.clockOffsetMs(), remote.apiPath(), sink);
    if (r.status == 200 && r.entryType == "directory")
        return fail(QStringLiteral("%1:%2 is a directory (only files are copied)")
                        .arg(remote.workspaceId, remote.path));
    if (!r.transportError.isEmpty())
        return fail(r.transportError, kExitConnection);
    if (r.status != 200) {
        ApiResponse response;
        response.status = r.status;
        response.body = r.errorBody;
        return fail(QStringLiteral("%1 %2: %3")
                        .arg(r.status)
                        .arg(response.errorCode(), response.errorMessage()));
    }
    if (!r.sinkError.isEmpty())
        return fail(QStringLiteral("cannot write %1: %2").arg(local, r.sinkError));
    if (!toStdout) {
        partFile.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                QFileDevice::ReadGroup | QFileDevice::ReadOther);
        if (!partFile.flush() || std::rename(QFile::encodeName(partFile.fileName()).constData(),
                                             QFile::encodeName(local).constData()) != 0)
            return fail(QStringLiteral("cannot write %1: %2").arg(local, partFile.errorString()));
        partFile.setAutoRemove(false);
    }
    return 0;
}

} // namespace

bool RemotePath::parse(const QString& arg, RemotePath* out) {
    static const QRegularExpression remote(QStringLiteral("^([A-Za-z0-9][A-Za-z0-9._-]*):(.*)$"));
    const QRegularExpressionMatch m = remote.match(arg);
    if (!m.hasMatch())
        return false;
    out->workspaceId = m.captured(1);
    // "." segments go: HTTP clients remove them before sending (RFC 3986 §5.2.4), which would
    // no longer be the target the request was signed for.
    const QString raw = m.captured(2);
    QStringList kept;
    for (const QString& segment : raw.split(u'/', Qt::SkipEmptyParts))
        if (segment != QLatin1String("."))
            kept << segment;
    out->path = kept.join(u'/');
    if (raw.endsWith(u'/') && !out->path.isEmpty())
        out->path += u'/';
    return true;
}

QString RemotePath::problem() const {
    for (const QString& segment : path.split(u'/'))
        if (segment == QLatin1String(".."))
            return QStringLiteral("%1:%2: '..' is not allowed in a workspace path")
                .arg(workspaceId, path);
    return {};
}

QByteArray RemotePath::apiPath() const {
    QByteArrayList segments;
    for (const QString& s : path.split('/'))
        segments << QUrl::toPercentEncoding(s);
    return "/v1/workspaces/" + QUrl::toPercentEncoding(workspaceId) + "/files/" +
           segments.join('/');
}

int runCopy(ApiClient& client, const QStringList& rawArgs) {
    static const char kUsage[] = "runbox cp [--overwrite] [--mode MODE] [--parents] [--json] "
                                 "LOCAL WS:PATH  |  runbox cp WS:PATH LOCAL|-";
    ParsedArgs parsed;
    if (!parseCommandArgs("cp", rawArgs,
                          {{QStringLiteral("--overwrite")},
                           {QStringLiteral("--parents")},
                           {QStringLiteral("--json")},
                           {QStringLiteral("--mode"), true}},
                          kUsage, &parsed))
        return kExitUsage;
    const bool overwrite = parsed.has(QStringLiteral("--overwrite"));
    const bool parents = parsed.has(QStringLiteral("--parents"));
    const bool json = parsed.has(QStringLiteral("--json"));
    const QString mode = parsed.value(QStringLiteral("--mode"));
    const QStringList args = parsed.positional + parsed.rest;
    if (args.size() != 2)
        return usageError("cp", QStringLiteral("give a source and a destination"), kUsage);
    RemotePath from, to;
    const bool fromRemote = RemotePath::parse(args[0], &from);
    const bool toRemote = RemotePath::parse(args[1], &to);
    if (fromRemote == toRemote)
        return usageError(
            "cp", QStringLiteral("exactly one side must be WS:PATH (a workspace file)"), kUsage);
    if (const QString problem = (toRemote ? to : from).problem(); !problem.isEmpty())
        return usageError("cp", problem, kUsage);
    if (toRemote) {
        QStringList query;
        if (overwrite)
            query << QStringLiteral("conflict=overwrite");
        if (!mode.isEmpty())
            query << QStringLiteral("mode=") + QString::fromLatin1(QUrl::toPercentEncoding(mode));
        if (parents)
            query << QStringLiteral("parents=true");
        return upload(client, args[0], to, query.isEmpty() ? QString() : '?' + query.join('&'),
                      json);
    }
    if (overwrite || parents || !mode.isEmpty())
        return usageError(
            "cp", QStringLiteral("--overwrite, --mode and --parents apply to uploads"), kUsage);
    return download(client, from, args[1]);
}

} // namespace runbox::cli
