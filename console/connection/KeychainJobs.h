#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

namespace runbox::console {

/// The outcome of one keychain job.
struct KeychainResult {
    enum class Status {
        Ok,          ///< done (for reads: token holds the secret)
        NotFound,    ///< no secret stored under that key
        Unavailable, ///< no keychain service could be reached or it refused: message says why
    };
    Status status = Status::Unavailable;
    QByteArray token; ///< the secret read (read jobs only)
    QString message;  ///< the keychain's own error text when not Ok
};

/// Base of the small async keychain jobs: connect finished(), then start() once; finished()
/// comes exactly once, from the event loop; the job deletes itself after finished().
/// Wraps QtKeychain; the "insecure fallback" (a plain-text QSettings copy) is never enabled.
class KeychainJob : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(KeychainJob)
public:
    /// @p service groups the console's secrets (e.g. "runbox-console"), @p key names one.
    KeychainJob(const QString& service, const QString& key, QObject* parent = nullptr);
    ~KeychainJob() override;
    virtual void start() = 0;

Q_SIGNALS:
    void finished(const runbox::console::KeychainResult& result);

protected:
    void finish(const KeychainResult& result);
    QString m_service;
    QString m_key;
};

/// Reads the secret stored under a key.
class KeychainReadJob final : public KeychainJob {
    Q_OBJECT
public:
    using KeychainJob::KeychainJob;
    void start() override;
};

/// Stores @p secret under a key, replacing what was there.
class KeychainWriteJob final : public KeychainJob {
    Q_OBJECT
public:
    KeychainWriteJob(const QString& service, const QString& key, const QByteArray& secret,
                     QObject* parent = nullptr);
    void start() override;

private:
    QByteArray m_secret;
};

/// Deletes the secret under a key (NotFound counts as done).
class KeychainDeleteJob final : public KeychainJob {
    Q_OBJECT
public:
    using KeychainJob::KeychainJob;
    void start() override;
};

} // namespace runbox::console
