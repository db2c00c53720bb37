#include "agent/sandbox/BwrapPreflight.h"

#include "agent/sandbox/BwrapInvocation.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStringList>

#include <sys/stat.h>
#include <unistd.h>

namespace runbox::sandbox {
namespace {

constexpr int kHelpTimeoutMs = 15000;

const QStringList& requiredOptions() {
    static const QStringList options{
        QStringLiteral("--cap-drop"),    QStringLiteral("--die-with-parent"),
        QStringLiteral("--new-session"), QStringLiteral("--seccomp"),
        QStringLiteral("--unshare-all"), QStringLiteral("--unshare-user"),
    };
    return options;
}

bool isExecutableFile(const QString& path) {
    struct stat st {};
    const QByteArray native = QFile::encodeName(path);
    return ::stat(native.constData(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(native.constData(), X_OK) == 0;
}

/// The directories execvp(3) searches: $PATH, or the C library's default (confstr _CS_PATH)
/// when PATH is unset; an empty entry means the current directory.
QStringList searchPath() {
    QByteArray path = qgetenv("PATH");
    if (!qEnvironmentVariableIsSet("PATH")) {
        const size_t n = ::confstr(_CS_PATH, nullptr, 0);
        if (n > 0) {
            path.resize(qsizetype(n));
            ::confstr(_CS_PATH, path.data(), n);
            path.chop(1); // trailing NUL
        } else {
            path = "/bin:/usr/bin";
        }
    }
    QStringList dirs;
    for (const QByteArray& dir : path.split(':'))
        dirs << (dir.isEmpty() ? QStringLiteral(".") : QFile::decodeName(dir));
    return dirs;
}

QStringList missingOptions(const QString& helpText) {
    QStringList missing;
    for (const QString& option : requiredOptions()) {
        // Whole option only: "--unshare-user-try" does not count as "--unshare-user".
        const QRegularExpression pattern(
            QStringLiteral("(?<![\\w-])%1(?![\\w-])").arg(QRegularExpression::escape(option)));
        if (!pattern.match(helpText).hasMatch())
            missing << option;
    }
    return missing;
}

} // namespace

QString BwrapPreflight::installHint() {
    return QStringLiteral(
        "Install bubblewrap with your package manager: apt-get install bubblewrap (Debian, "
        "Ubuntu), dnf install bubblewrap (Fedora, RHEL, openEuler), pacman -S bubblewrap "
        "(Arch), apk add bubblewrap (Alpine); or point the agent at a bwrap binary with its "
        "bwrap path setting.");
}

QString BwrapPreflight::resolve(const QString& name, QString* error) {
    QString ignored;
    QString* notFound = error ? error : &ignored;
    notFound->clear();
    if (name.trimmed().isEmpty()) {
        *notFound = QStringLiteral("bubblewrap was not found: no path is configured.");
        return {};
    }
    if (name.contains(QLatin1Char('/'))) {
        const QString absolute = QFileInfo(name).absoluteFilePath();
        if (!QFileInfo::exists(absolute)) {
            *notFound =
                QStringLiteral("bubblewrap was not found: \"%1\" does not exist.").arg(absolute);
            return {};
        }
        if (!isExecutableFile(absolute)) {
            *notFound =
                QStringLiteral("bubblewrap at \"%1\" is not an executable file.").arg(absolute);
            return {};
        }
        return absolute;
    }
    const QStringList dirs = searchPath();
    for (const QString& dir : dirs) {
        const QString candidate = QFileInfo(QDir(dir), name).absoluteFilePath();
        if (isExecutableFile(candidate))
            return candidate;
    }
    *notFound = QStringLiteral("bubblewrap was not found: no executable \"%1\" on PATH (%2).")
                    .arg(name, dirs.join(QLatin1Char(':')));
    return {};
}

QString BwrapPreflight::check(const QString& bwrap, QString* resolvedPath) {
    if (resolvedPath)
        resolvedPath->clear();
    if (bwrap.trimmed().isEmpty())
        return QStringLiteral("No bubblewrap path is configured. ") + installHint();

    QString notFound;
    const QString path = resolve(bwrap, &notFound);
    if (path.isEmpty())
        return notFound + QLatin1Char(' ') +
               QStringLiteral("Runbox runs every execution in a bubblewrap sandbox and does "
                              "not start without it. ") +
               installHint();

    const BwrapInvocation::Result help =
        BwrapInvocation::run(path, {QStringLiteral("--help")}, kHelpTimeoutMs, true);
    if (!help.succeeded())
        return QStringLiteral("Could not execute bubblewrap at \"%1\": %2. ")
                   .arg(path, help.failureDetail()) +
               installHint();

    const QString helpText = QString::fromUtf8(help.standardOutput + '\n' + help.standardError);
    const QStringList missing = missingOptions(helpText);
    if (!missing.isEmpty())
        return QStringLiteral("bubblewrap at \"%1\" lacks required sandbox options: %2. "
                              "It is too old or a restricted build; Runbox needs all of %3. "
                              "Upgrade bubblewrap (0.8 or newer also blocks nested user "
                              "namespaces). ")
                   .arg(path, missing.join(QStringLiteral(", ")),
                        requiredOptions().join(QLatin1Char(' '))) +
               installHint();

    if (resolvedPath)
        *resolvedPath = path;
    return {};
}

} // namespace runbox::sandbox
