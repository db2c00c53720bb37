#pragma once

#include "console/connection/AgentProfile.h"

#include <QObject>
#include <QProcess>
#include <QTimer>
#include <QUrl>

class QTcpSocket;

namespace runbox::console {

/// The operator's own ssh as a local port forward to an agent (docs/contracts.md "Unix socket"):
/// `ssh -N -o BatchMode=yes -o ExitOnForwardFailure=yes -L 127.0.0.1:LOCALPORT:REMOTE
/// [-l USER] [-p PORT] -- HOST`, with LOCALPORT a free loopback port picked at each start. It is
/// ready once the local port accepts a connection; ssh's stderr is kept to say why it failed
/// (no password prompt ever: BatchMode). stop() and the destructor terminate ssh and kill it
/// after a grace.
class SshTunnel final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SshTunnel)
public:
    enum class State {
        Stopped,  ///< not started, or stop()ped
        Starting, ///< ssh runs, the local port does not accept yet
        Ready,    ///< the local port accepts: url() is usable
        Failed    ///< ssh exited or never got ready; error() says why
    };
    Q_ENUM(State)

    /// A tunnel for @p profile's SSH fields, running @p sshProgram (a name on PATH or a path).
    SshTunnel(const AgentProfile& profile, const QString& sshProgram, QObject* parent = nullptr);
    ~SshTunnel() override;

    State state() const { return m_state; }
    /// http://127.0.0.1:LOCALPORT while Ready, else empty.
    QUrl url() const;
    /// The local port of the current or last start (0 before the first).
    quint16 localPort() const { return m_localPort; }
    /// Why the tunnel failed: ssh's last stderr lines, or what the console saw; empty if none.
    QString error() const { return m_error; }
    /// Whether the last failure is one a retry cannot mend: ssh could not be run, or said that
    /// authentication failed, the host key is unknown or changed, or its configuration is bad
    /// (isPermanentFailure()). A lost network or a stopped sshd is not.
    bool failedForGood() const { return m_state == State::Failed && m_failedForGood; }
    /// Whether ssh's words @p text say a failure a retry cannot mend (see failedForGood()):
    /// OpenSSH's messages for refused authentication, host key verification and configuration
    /// errors (ssh(1), ssh_config(5)).
    static bool isPermanentFailure(const QString& text);
    /// ssh's last stderr line since it got ready (e.g. "channel 2: open failed: …" when the
    /// remote end refuses a connection), empty when none.
    QString lastMessage() const;
    /// ssh's process id while it runs, else 0 (tests).
    qint64 processId() const { return m_process ? m_process->processId() : 0; }
    /// The arguments given to ssh for @p localPort (documented above; tests).
    QStringList arguments(quint16 localPort) const;
    /// How long ssh may take to open the local port (ms, default 20 s).
    void setReadyTimeoutMs(int ms) { m_readyTimeoutMs = ms; }

    /// Starts ssh (stopping a running one first).
    void start();
    /// Terminates ssh, kills it after @p graceMs; state Stopped. Blocks at most the grace.
    void stop(int graceMs = 3000);

Q_SIGNALS:
    void stateChanged(runbox::console::SshTunnel::State state);

private:
    void setState(State state);
    /// Ends a start that failed; @p forGood: a retry cannot mend it (failedForGood()).
    void fail(const QString& why, bool forGood = false);
    /// Terminates ssh, kills it after @p graceMs, forgets it; the state is left to the caller.
    void endProcess(int graceMs);
    void probePort();
    /// The last few (at most @p maxLines) non-empty lines of @p bytes of ssh's stderr.
    static QString stderrTail(const QByteArray& bytes, int maxLines = 2);

    AgentProfile m_profile;
    QString m_program;
    QProcess* m_process = nullptr;
    QTcpSocket* m_probe = nullptr;
    QTimer m_probeTimer;
    QTimer m_deadline;
    QByteArray m_stderr;
    int m_stderrAtReady = -1; ///< m_stderr's size when it got ready; -1 before
    QString m_error;
    bool m_failedForGood = false;
    State m_state = State::Stopped;
    quint16 m_localPort = 0;
    int m_readyTimeoutMs = 20000;
};

} // namespace runbox::console
