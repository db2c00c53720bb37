#include "agent/npu/ChipProbe.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QProcess>

#include <QRegularExpression>
#include <memory>
#include <unistd.h>

#include <memory>
#include <vector>

namespace runbox::npu {

namespace {

constexpr int kMaxReasonChars = 300;
constexpr qint64 kMaxProbeOutputBytes = 256 * 1024;

bool isNoise(const QString& line) {
    static const QRegularExpression levelTag(
        QStringLiteral("\\[(INFO|DEBUG|EVENT|TRACE|WARN|WARNING|NOTICE)\\]"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression logLevel(
        QStringLiteral("ConsoleLogLevel|log ?level|^dcmi\\S*\\s*(debug|dbg)\\b|^\\[?dcmi\\]?\\s*"
                       "debug"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression border(QStringLiteral("^[+|=\\-\\s]*$"));
    return levelTag.match(line).hasMatch() || logLevel.match(line).hasMatch() ||
           border.match(line).hasMatch() || line.startsWith(QLatin1Char('|'));
}

QString failureReason(int logicId, const QString& detail) {
    return QStringLiteral("NPU %1 cannot be opened inside the sandbox: %2")
        .arg(logicId)
        .arg(detail);
}

struct Running {
    int logicId = -1;
    std::unique_ptr<QProcess> process;
    ChipProbeResult result;
    bool done = false;
};

} // namespace

QStringList ChipProbeOptions::defaultBaseArgs() {
    return {QStringLiteral("--die-with-parent"),
            QStringLiteral("--new-session"),
            QStringLiteral("--unshare-all"),
            QStringLiteral("--unshare-user"),
            QStringLiteral("--cap-drop"),
            QStringLiteral("ALL"),
            QStringLiteral("--ro-bind"),
            QStringLiteral("/usr"),
            QStringLiteral("/usr"),
            QStringLiteral("--symlink"),
            QStringLiteral("usr/bin"),
            QStringLiteral("/bin"),
            QStringLiteral("--symlink"),
            QStringLiteral("usr/lib"),
            QStringLiteral("/lib"),
            QStringLiteral("--symlink"),
            QStringLiteral("usr/lib64"),
            QStringLiteral("/lib64"),
            QStringLiteral("--proc"),
            QStringLiteral("/proc"),
            QStringLiteral("--dev"),
            QStringLiteral("/dev")};
}

ChipProbe::ChipProbe(NpuConfig config, ChipProbeOptions options)
    : m_config(std::move(config)), m_options(std::move(options)), m_passthrough(m_config) {}

QStringList ChipProbe::arguments(int logicId, QString* error) const {
    const QString npuSmi = m_config.resolvedNpuSmiPath();
    if (npuSmi.isEmpty()) {
        *error = QStringLiteral("npu-smi was not found (set the npu-smi path)");
        return {};
    }
    Error buildError;
    const NpuLaunchPlan plan = m_passthrough.build({logicId}, &buildError);
    if (plan.isEmpty()) {
        *error = buildError.message;
        return {};
    }
    QStringList args = m_options.baseArgs;
    args << plan.bwrapArgs << QStringLiteral("--tmpfs") << QStringLiteral("/tmp");
    const QString clean = QDir::cleanPath(npuSmi);
    if (!clean.startsWith(QLatin1String("/usr/")))
        args << QStringLiteral("--ro-bind") << clean << clean;
    args << m_options.extraArgs << QStringLiteral("--clearenv")
         << plan.setenvArgs(m_options.baseEnv) << QStringLiteral("--") << clean
         << QStringLiteral("info");
    return args;
}

ChipProbeResult ChipProbe::probe(int logicId) const {
    return probeMany({logicId}).value(0);
}

QList<ChipProbeResult> ChipProbe::probeMany(const QList<int>& logicIds) const {
    std::vector<Running> runs(logicIds.size());
    for (int i = 0; i < logicIds.size(); ++i) {
        Running& run = runs[i];
        run.logicId = logicIds[i];
        run.result.logicId = logicIds[i];
        QString error;
        const QStringList args = arguments(run.logicId, &error);
        if (args.isEmpty()) {
            run.result.reason = failureReason(run.logicId, error);
            run.done = true;
            continue;
        }
        run.process = std::make_unique<QProcess>();
        run.process->setProcessChannelMode(QProcess::MergedChannels);
        run.process->setStandardInputFile(QProcess::nullDevice());
        if (m_options.user) {
            sandbox::SandboxUser user = *m_options.user;
            Error ignored;
            user.groups << m_passthrough.build({run.logicId}, &ignored).deviceGroups;
            auto prepared = std::make_shared<sandbox::SandboxUser::Prepared>();
            if (!user.prepare(prepared.get())) {
                run.result.reason = failureReason(run.logicId, QStringLiteral("no sandbox user"));
                run.done = true;
                run.process.reset();
                continue;
            }
            run.process->setChildProcessModifier([prepared] {
                if (sandbox::SandboxUser::dropInChild(*prepared) != 0)
                    ::_exit(127);
            });
        }
        run.process->start(m_options.bwrapPath, args);
    }
    const QDeadlineTimer deadline(m_options.timeoutMs);
    for (Running& run : runs) {
        if (run.done)
            continue;
        QProcess& process = *run.process;
        QByteArray output;
        bool finished = process.waitForStarted(static_cast<int>(deadline.remainingTime()));
        while (finished && process.state() != QProcess::NotRunning) {
            const qint64 left = deadline.remainingTime();
            if (left <= 0) {
                finished = false;
                break;
            }
            process.waitForFinished(static_cast<int>(std::min<qint64>(left, 100)));
            if (output.size() < kMaxProbeOutputBytes)
                output += process.readAll();
            else
                process.readAll();
        }
        output += process.readAll();
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(2000);
        }
        run.result.at = QDateTime::currentDateTimeUtc();
        if (process.error() == QProcess::FailedToStart) {
            run.result.reason =
                failureReason(run.logicId, QStringLiteral("cannot start bubblewrap (%1): %2")
                                               .arg(m_options.bwrapPath, process.errorString()));
        } else if (!finished) {
            run.result.reason = failureReason(
                run.logicId,
                QStringLiteral("npu-smi did not finish within %1 ms").arg(m_options.timeoutMs));
        } else if (process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0) {
            run.result.usable = true;
        } else {
            QString detail = meaningfulLine(output);
            if (detail.isEmpty())
                detail = process.exitStatus() == QProcess::CrashExit
                             ? QStringLiteral("the probe was killed by a signal")
                             : QStringLiteral("npu-smi exited with status %1 and printed nothing")
                                   .arg(process.exitCode());
            run.result.reason = failureReason(run.logicId, detail);
        }
    }
    QList<ChipProbeResult> results;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (Running& run : runs) {
        if (!run.result.at.isValid())
            run.result.at = now;
        results.append(run.result);
    }
    return results;
}

QString ChipProbe::meaningfulLine(const QByteArray& output) {
    static const QRegularExpression ansi(QStringLiteral("\\x1b\\[[0-9;]*[A-Za-z]"));
    QStringList candidates;
    for (QString line : QString::fromUtf8(output).split(QLatin1Char('\n'))) {
        line.remove(ansi);
        line = line.trimmed();
        if (!line.isEmpty() && !isNoise(line))
            candidates << line;
    }
    static const QRegularExpression code(QStringLiteral("ret is|error code|errno"),
                                         QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression failed(
        QStringLiteral("fail|error|cannot|can't|denied|not |unable|verify"),
        QRegularExpression::CaseInsensitiveOption);
    QString chosen;
    for (const QRegularExpression* pattern : {&code, &failed}) {
        for (auto it = candidates.crbegin(); it != candidates.crend() && chosen.isEmpty(); ++it)
            if (pattern->match(*it).hasMatch())
                chosen = *it;
        if (!chosen.isEmpty())
            break;
    }
    if (chosen.isEmpty() && !candidates.isEmpty())
        chosen = candidates.last();
    return chosen.left(kMaxReasonChars);
}

} // namespace runbox::npu
