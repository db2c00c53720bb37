#pragma once

#include "agent/config/ConfigTable.h"

#include <QHostAddress>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <array>
#include <optional>

namespace runbox::config {

/// Where an option's effective value came from.
enum class OptionSource { Default, ConfigFile, Environment, CommandLine };

/// The effective value of every row of configTable(), parsed and validated once.
/// Precedence, highest first: the command line, the environment, the config file (Key::ConfigFile:
/// --config, else `$CONFIGURATION_DIRECTORY/agent.conf`, else `<state-dir>/agent.conf`), the
/// default. A variable or file key set to "" counts as unset (except kEmptyIsError rows).
class ConfigValues {
public:
    /// One option's value and origin.
    struct Value {
        OptionSource source = OptionSource::Default;
        QString origin;       ///< "RUNBOX_X", "--x", or the config file's path; "" for the default
        QString raw;          ///< the text the value was parsed from
        qint64 number = 0;    ///< Integer
        bool boolean = false; ///< Boolean
        QString text;         ///< String, Path, Choice (lower-case), HostPort
        QStringList list;     ///< PathList
    };

    /// Resolves every option from @p args (argv without the program name), @p env and the
    /// config file (Key::ConfigFile). Action flags (--help, --help-markdown, --print-config) are
    /// accepted and left to the caller. Returns false on an unknown option, a flag without value
    /// or a bad value, with @p error a one-line message naming the flag, variable or file key
    /// and the accepted range; and on a config file that a flag or variable names but that does
    /// not exist, that cannot be read, that QSettings finds malformed or that holds a key no row
    /// has, with @p error naming the file (and the line or key).
    bool resolve(const QStringList& args, const QProcessEnvironment& env, QString* error);

    const Value& value(Key key) const { return m_values[std::size_t(key)]; }
    qint64 number(Key key) const { return value(key).number; }
    bool boolean(Key key) const { return value(key).boolean; }
    const QString& text(Key key) const { return value(key).text; }
    const QStringList& list(Key key) const { return value(key).list; }
    /// Whether @p key was given (flag, variable or file) rather than defaulted.
    bool isSet(Key key) const { return value(key).source != OptionSource::Default; }
    /// "default", "env RUNBOX_X", "flag --x", "file /…/agent.conf".
    QString describeSource(Key key) const;
    /// The value as shown by --print-config (lists colon-joined; "" as "(not set; default: …)").
    QString displayValue(Key key) const;

    /// The quota rows that were given (quota field name → value): the store seeds its missing
    /// keys from them on first start (store::QuotaStore::initialize()).
    QMap<QString, qint64> quotaSeeds() const;

    /// The path of the config file that was (or would have been, when missing) read.
    const QString& configFilePath() const { return m_configFile; }

    /// Parses one option's text per its row (no precedence): for tests and for resolve().
    /// @p where names the source in the error ("RUNBOX_X", "--x", "key in file").
    static bool parseText(const OptionSpec& spec, const QString& text, const QString& where,
                          Value* out, QString* error);

private:
    std::array<Value, std::size_t(Key::Count)> m_values{};
    QString m_configFile;
};

/// Parses HOST:PORT (IPv6 in brackets, port 0..65535). False when malformed.
bool parseHostPort(const QString& text, QHostAddress* address, quint16* port);
/// Parses a chip selection (npuChips): "all" (@p chips left nullopt), "none" (an empty list),
/// or chip logic ids and inclusive ranges joined by commas ("0,2-3", each id 0..1023, spaces
/// allowed), into ascending distinct ids. False with @p error naming the bad part otherwise.
bool parseChipList(const QString& text, std::optional<QList<int>>* chips, QString* error);
/// The action flags that take no value: --help, --help-markdown, --help-conf, --print-config,
/// --rotate-metrics-token, --print-fingerprint.
bool isActionFlag(const QString& arg);

} // namespace runbox::config
