#include "agent/npu/NpuSmiReader.h"

#include "agent/npu/ChipProbe.h"
#include "agent/npu/NpuSmiParser.h"
#include "agent/sandbox/SandboxUser.h"

#include <QDeadlineTimer>
#include <QProcess>

#include <unistd.h>

namespace runbox::npu {

namespace {
constexpr qint64 kMaxOutputBytes = 4 * 1024 * 1024;
}

NpuSmiReader::NpuSmiReader(QString npuSmiPath, int timeoutMs)
    : m_path(std::move(npuSmiPath)), m_timeoutMs(timeoutMs) {}

bool NpuSmiReader::run(const QStringList& args, QString* output, QString* error) const {
    const QString command = QStringLiteral("npu-smi %1").arg(args.join(QLatin1Char(' ')));
    QProcess process;
    process.setStandardInputFile(QProcess::nullDevice());
    // The host tool runs as the agent, never with the capabilities of a light-tier agent.
    process.setChildProcessModifier([] {
        if (sandbox::clearInheritedCapabilities() != 0)
            ::_exit(127);
    });
    process.start(m_path, args);
    if (!process.waitForStarted(m_timeoutMs)) {
        *error =
            QStringLiteral("%1: cannot start %2: %3").arg(command, m_path, process.errorString());
        return false;
    }
    QByteArray out;
    QByteArray err;
    const QDeadlineTimer deadline(m_timeoutMs);
    while (process.state() != QProcess::NotRunning && !deadline.hasExpired()) {
        process.waitForFinished(static_cast<int>(std::min<qint64>(deadline.remainingTime(), 100)));
        out += process.readAllStandardOutput();
        err += process.readAllStandardError();
        if (out.size() > kMaxOutputBytes)
            break;
    }
    if (process.state() != QProcess::NotRunning) {
        process.kill();
        process.waitForFinished(2000);
        *error =
            out.size() > kMaxOutputBytes
                ? QStringLiteral("%1 printed more than %2 bytes").arg(command).arg(kMaxOutputBytes)
                : QStringLiteral("%1 did not finish within %2 ms").arg(command).arg(m_timeoutMs);
        return false;
    }
    out += process.readAllStandardOutput();
    err += process.readAllStandardError();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        QString line = ChipProbe::meaningfulLine(err + '\n' + out);
        *error = QStringLiteral("%1 exited with status %2%3")
                     .arg(command)
                     .arg(process.exitCode())
                     .arg(line.isEmpty() ? QString() : QStringLiteral(": ") + line);
        return false;
    }
    *output = QString::fromUtf8(out);
    return true;
}

QList<NpuChip> NpuSmiReader::read(QString* error, QString* warning) const {
    QString mappingText;
    if (!run({QStringLiteral("info"), QStringLiteral("-m")}, &mappingText, error))
        return {};
    const QList<NpuSmiMappingRow> mapping = NpuSmiParser::parseMapping(mappingText);
    if (mapping.isEmpty()) {
        *error = QStringLiteral("npu-smi info -m listed no chip");
        return {};
    }
    QString infoText;
    QString infoError;
    QList<NpuSmiReading> readings;
    if (run({QStringLiteral("info")}, &infoText, &infoError))
        readings = NpuSmiParser::parseInfo(infoText);
    else
        *warning = QStringLiteral("no readings: %1").arg(infoError);
    return NpuSmiParser::join(mapping, readings);
}

} // namespace runbox::npu
