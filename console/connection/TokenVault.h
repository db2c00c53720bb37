#pragma once

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QString>

#include <functional>

namespace runbox::console {

/// Keeps each agent profile's token: in the OS keychain (QtKeychain) when a keychain service
/// is reachable, otherwise in memory for this session only, and says so (keychainProblem(),
/// keychainUnavailable()). A token is never written to a plain file.
class TokenVault final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TokenVault)
public:
    enum class Backend {
        Keychain,    ///< try the OS keychain, fall back to the session when it is unreachable
        SessionOnly, ///< never touch the keychain (tests, "do not remember" profiles)
    };

    /// @p service is the keychain service name the tokens are stored under.
    explicit TokenVault(const QString& service = QStringLiteral("runbox-console"),
                        Backend backend = Backend::Keychain, QObject* parent = nullptr);

    /// Result of store(): persistent is false when the token is kept for this session only.
    struct StoreResult {
        bool persistent = false;
        QString message; ///< translated; why it is session-only
    };
    /// Remembers @p token for @p profileId. @p done is called later from the event loop.
    void store(const QString& profileId, const QByteArray& token,
               std::function<void(const StoreResult&)> done);

    /// Result of load(): found false when no token is known for the profile.
    struct LoadResult {
        bool found = false;
        QByteArray token;
        QString message; ///< translated; set when the keychain could not be asked
    };
    /// Looks the token up: this session's memory first, then the keychain.
    void load(const QString& profileId, std::function<void(const LoadResult&)> done);

    /// Forgets the token in memory and in the keychain (fire and forget).
    void forget(const QString& profileId);

    /// False once a keychain job found no usable keychain service.
    bool keychainAvailable() const { return m_keychainProblem.isEmpty(); }
    /// Why tokens are kept for this session only (translated), empty while the keychain works.
    QString keychainProblem() const { return m_keychainProblem; }

Q_SIGNALS:
    /// The keychain could not be reached: tokens are kept for this session only.
    void keychainUnavailable(const QString& explanation);

private:
    void noteUnavailable(const QString& keychainMessage);

    QString m_service;
    Backend m_backend;
    QHash<QString, QByteArray> m_sessionTokens;
    QString m_keychainProblem;
};

} // namespace runbox::console
