#include "agent/config/ConfigValues.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QSettings>

#include <algorithm>
#include <limits>
#include <memory>
#include <unistd.h>

namespace runbox::config {

namespace {

QString defaultStateDir(const QProcessEnvironment& env, bool* fromSystemd) {
    const QString systemd = env.value(QStringLiteral("STATE_DIRECTORY"));
    *fromSystemd = !systemd.isEmpty();
    if (*fromSystemd)
        return systemd.split(':').first();
    // root's home is 0700, and a root agent's sandbox uids must reach their workspaces under the
    // state dir by path (docs/contracts.md "No sandbox is host root"): root keeps its state in
    // /var/lib/runbox, as a system service would.
    if (::geteuid() == 0)
        return QStringLiteral("/var/lib/runbox");
    return QDir::homePath() + QStringLiteral("/.local/state/runbox");
}

QString rangeText(const OptionSpec& spec) {
    if (spec.max == std::numeric_limits<qint64>::max())
        return QStringLiteral("a whole number of at least %1").arg(spec.min);
    return QStringLiteral("a whole number from %1 to %2").arg(spec.min).arg(spec.max);
}

/// The default config file: $CONFIGURATION_DIRECTORY's first entry (systemd.exec(5)
/// "ConfigurationDirectory="), else the state directory.
QString defaultConfigFile(const QProcessEnvironment& env, const QString& stateDir,
                          bool* fromSystemd) {
    const QString systemd = env.value(QStringLiteral("CONFIGURATION_DIRECTORY"));
    *fromSystemd = !systemd.isEmpty();
    const QString dir = *fromSystemd ? systemd.split(':').first() : stateDir;
    return dir + QLatin1Char('/') + QLatin1String(kConfigFileName);
}

/// The first line of an INI text that QSettings cannot read: neither blank, a ';' comment, a
/// [section] nor key=value. 0 when none is found.
int firstMalformedLine(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    int number = 0;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        ++number;
        if (line.isEmpty() || line.startsWith(';') || line.contains('=') ||
            (line.startsWith('[') && line.endsWith(']')))
            continue;
        return number;
    }
    return 0;
}

/// Opens the config file at @p path. A missing file is no file (nullptr, no error) unless
/// @p required; a file that cannot be read, that QSettings finds malformed, or that holds a key
/// no row of the table has, is an error naming the file (and the line or key).
std::unique_ptr<QSettings> openConfigFile(const QString& path, bool required, QString* error) {
    const QFileInfo info(path);
    if (!info.exists() && !info.isSymLink()) {
        if (required)
            *error = QStringLiteral("config file %1 does not exist").arg(path);
        return nullptr;
    }
    QFile probe(path);
    if (info.isDir() || !probe.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read config file %1: %2")
                     .arg(path,
                          info.isDir() ? QStringLiteral("it is a directory") : probe.errorString());
        return nullptr;
    }
    probe.close();
    auto file = std::make_unique<QSettings>(path, QSettings::IniFormat);
    if (file->status() == QSettings::AccessError) {
        *error = QStringLiteral("cannot read config file %1").arg(path);
        return nullptr;
    }
    // Our own line check too: QSettings caches a file's contents by path, size and mtime.
    if (const int line = firstMalformedLine(path);
        line > 0 || file->status() == QSettings::FormatError) {
        *error = QStringLiteral("config file %1 is malformed%2: every line must be key=value, "
                                "a ';' comment or blank")
                     .arg(path, line > 0 ? QStringLiteral(" at line %1").arg(line) : QString());
        return nullptr;
    }
    QSet<QString> known;
    for (const OptionSpec& spec : configTable())
        if (spec.fileKey)
            known.insert(QLatin1String(spec.fileKey));
    for (const QString& key : file->allKeys())
        if (!known.contains(key)) {
            *error = QStringLiteral("config file %1: \"%2\" is not a setting (keys at the top "
                                    "level, named as in docs/configuration.md)")
                         .arg(path, key.left(200));
            return nullptr;
        }
    return file;
}

bool fail(QString* error, const QString& where, const QString& expected, const QString& text) {
    *error = QStringLiteral("%1 must be %2, got \"%3\"").arg(where, expected, text.left(200));
    return false;
}

} // namespace

bool parseChipList(const QString& text, std::optional<QList<int>>* chips, QString* error) {
    constexpr int kMaxLogicId = 1023; // the npuDevices bound (docs/npu.md)
    const QString t = text.trimmed().toLower();
    if (t == QLatin1String("all")) {
        chips->reset();
        return true;
    }
    QSet<int> ids;
    if (t != QLatin1String("none")) {
        for (const QString& raw : t.split(QLatin1Char(','))) {
            const QString part = raw.trimmed();
            const qsizetype dash = part.indexOf(QLatin1Char('-'));
            bool okFirst = false;
            bool okLast = false;
            const int first = (dash < 0 ? part : part.left(dash)).trimmed().toInt(&okFirst);
            const int last = dash < 0 ? first : part.mid(dash + 1).trimmed().toInt(&okLast);
            if (dash < 0)
                okLast = okFirst;
            if (!okFirst || !okLast || first < 0 || last > kMaxLogicId || first > last) {
                *error = QStringLiteral("\"%1\" in \"%2\" is no chip logic id (0-%3) or range "
                                        "of them; give all, none or ids like 0,2-3")
                             .arg(part, text)
                             .arg(kMaxLogicId);
                return false;
            }
            for (int id = first; id <= last; ++id)
                ids.insert(id);
        }
    }
    QList<int> sorted(ids.begin(), ids.end());
    std::sort(sorted.begin(), sorted.end());
    *chips = sorted;
    return true;
}

bool parseHostPort(const QString& value, QHostAddress* addr, quint16* port) {
    const qsizetype colon = value.lastIndexOf(':');
    if (colon <= 0)
        return false;
    QString host = value.left(colon);
    if (host.startsWith('[') && host.endsWith(']'))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint p = value.mid(colon + 1).toUInt(&ok);
    if (!ok || p > 65535 || !addr->setAddress(host))
        return false;
    *port = quint16(p);
    return true;
}

bool isActionFlag(const QString& arg) {
    return arg == QLatin1String("--help") || arg == QLatin1String("--help-markdown") ||
           arg == QLatin1String("--help-conf") || arg == QLatin1String("--print-config") ||
           arg == QLatin1String("--rotate-metrics-token") ||
           arg == QLatin1String("--print-fingerprint");
}

bool ConfigValues::parseText(const OptionSpec& spec, const QString& text, const QString& where,
                             Value* out, QString* error) {
    out->raw = text;
    const QString trimmed = text.trimmed();
    switch (spec.type) {
    case OptionType::Integer: {
        bool digits = !trimmed.isEmpty() && trimmed.size() <= 19;
        for (const QChar c : trimmed)
            digits = digits && c >= QLatin1Char('0') && c <= QLatin1Char('9');
        bool ok = false;
        const qint64 v = digits ? trimmed.toLongLong(&ok) : 0;
        if (!ok || v < spec.min || v > spec.max)
            return fail(error, where, rangeText(spec), text);
        out->number = v;
        return true;
    }
    case OptionType::Boolean: {
        const QString lower = trimmed.toLower();
        static const QStringList yes{"1", "true", "yes", "on"};
        static const QStringList no{"0", "false", "no", "off"};
        if (!yes.contains(lower) && !no.contains(lower))
            return fail(error, where, QStringLiteral("1, true, yes, on, 0, false, no or off"),
                        text);
        out->boolean = yes.contains(lower);
        return true;
    }
    case OptionType::Choice: {
        const QString lower = trimmed.toLower();
        if (!spec.choices.contains(lower))
            return fail(error, where,
                        QStringLiteral("one of %1").arg(spec.choices.join(QStringLiteral(", "))),
                        text);
        out->text = lower;
        return true;
    }
    case OptionType::HostPort: {
        if (spec.key == Key::Listen && trimmed.startsWith(QLatin1String("unix:"))) {
            // --listen unix:PATH, the original runner's form of --listen-unix PATH.
            if (!QDir::isAbsolutePath(trimmed.mid(5)))
                return fail(error, where, QStringLiteral("HOST:PORT or unix:ABSOLUTE-PATH"), text);
            out->text = QStringLiteral("unix:") + QDir::cleanPath(trimmed.mid(5));
            return true;
        }
        QHostAddress address;
        quint16 port = 0;
        if (!parseHostPort(trimmed, &address, &port))
            return fail(error, where, QStringLiteral("HOST:PORT"), text);
        out->text = trimmed;
        return true;
    }
    case OptionType::String:
        out->text = text;
        return true;
    case OptionType::Path:
        out->text =
            (spec.flags & kMakeAbsolute) && !text.isEmpty() ? QDir(text).absolutePath() : text;
        return true;
    case OptionType::PathList:
        out->list.clear();
        for (const QString& path : text.split(QLatin1Char(':'), Qt::SkipEmptyParts)) {
            if (spec.flags & kAbsoluteEntries) {
                if (!QDir::isAbsolutePath(path))
                    return fail(error, where,
                                QStringLiteral("a colon-separated list of absolute paths"), text);
                out->list.append(QDir::cleanPath(path));
            } else {
                out->list.append(path);
            }
        }
        return true;
    }
    return false;
}

bool ConfigValues::resolve(const QStringList& args, const QProcessEnvironment& env,
                           QString* error) {
    const QList<OptionSpec>& table = configTable();
    QMap<int, QString> fromFlags; // Key → last value given on the command line
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        if (isActionFlag(a))
            continue;
        const OptionSpec* spec = nullptr;
        for (const OptionSpec& s : table)
            if (s.flag && a == QLatin1String(s.flag))
                spec = &s;
        if (!spec) {
            *error = QStringLiteral("unknown option %1 (see --help)").arg(a);
            return false;
        }
        if (spec->type == OptionType::Boolean) { // a switch: the flag alone means true
            static const QStringList kWords{"1", "true", "yes", "on", "0", "false", "no", "off"};
            const bool valued = i + 1 < args.size() && kWords.contains(args[i + 1].toLower());
            fromFlags.insert(int(spec->key), valued ? args[++i] : QStringLiteral("true"));
            continue;
        }
        if (i + 1 >= args.size()) {
            *error = QStringLiteral("option %1 needs a value").arg(a);
            return false;
        }
        fromFlags.insert(int(spec->key), args[++i]);
    }

    // The state directory, then the config file (its default lives in it), then the rest: the
    // table's first two rows (ConfigTable.h).
    std::unique_ptr<QSettings> file;
    for (const OptionSpec& spec : table) {
        Value v;
        QString text;
        QString where;
        if (fromFlags.contains(int(spec.key))) {
            v.source = OptionSource::CommandLine;
            v.origin = where = QLatin1String(spec.flag);
            text = fromFlags.value(int(spec.key));
        } else if (spec.envVar && env.contains(QLatin1String(spec.envVar)) &&
                   (!env.value(QLatin1String(spec.envVar)).isEmpty() ||
                    (spec.flags & kEmptyIsError))) {
            v.source = OptionSource::Environment;
            v.origin = where = QLatin1String(spec.envVar);
            text = env.value(QLatin1String(spec.envVar));
        } else if (spec.fileKey && file &&
                   !file->value(QLatin1String(spec.fileKey)).toString().isEmpty()) {
            v.source = OptionSource::ConfigFile;
            v.origin = m_configFile;
            where = QStringLiteral("%1 in %2").arg(QLatin1String(spec.fileKey), m_configFile);
            text = file->value(QLatin1String(spec.fileKey)).toString();
        } else if (spec.key == Key::StateDir) {
            bool systemd = false;
            text = defaultStateDir(env, &systemd);
            if (systemd)
                v.origin = QStringLiteral("$STATE_DIRECTORY");
            where = QStringLiteral("the default state directory");
        } else if (spec.key == Key::ConfigFile) {
            bool systemd = false;
            text = defaultConfigFile(env, m_values[std::size_t(Key::StateDir)].text, &systemd);
            if (systemd)
                v.origin = QStringLiteral("$CONFIGURATION_DIRECTORY");
            where = QStringLiteral("the default config file");
        } else if (spec.key == Key::UidRangeRegistry &&
                   !env.value(QStringLiteral("RUNTIME_DIRECTORY")).isEmpty()) {
            // systemd's RuntimeDirectory= (systemd.exec(5)): /run/runbox for the unit.
            text = env.value(QStringLiteral("RUNTIME_DIRECTORY")).split(':').first() +
                   QStringLiteral("/uid-ranges");
            v.origin = QStringLiteral("$RUNTIME_DIRECTORY");
            where = QStringLiteral("the default uid range registry");
        } else {
            text = QLatin1String(spec.defaultValue);
            where = QStringLiteral("the default of %1").arg(QLatin1String(spec.name));
        }
        if (v.source == OptionSource::Default && text.isEmpty())
            v.raw = text; // no default: the consumer finds one (defaultNote)
        else if (!parseText(spec, text, where, &v, error))
            return false;
        if ((spec.key == Key::StateDir || spec.key == Key::ConfigFile) && v.text.isEmpty()) {
            *error = QStringLiteral("%1 is empty").arg(where);
            return false;
        }
        if (spec.key == Key::ConfigFile) {
            m_configFile = v.text;
            // A file named by flag or variable must exist; a default one may be missing.
            QString fileError;
            file = openConfigFile(m_configFile, v.source != OptionSource::Default, &fileError);
            if (!fileError.isEmpty()) {
                *error = fileError;
                return false;
            }
        }
        m_values[std::size_t(spec.key)] = v;
    }
    if (number(Key::StrongUidFirst) + number(Key::StrongUidCount) > 2147483647LL) {
        *error = QStringLiteral("RUNBOX_STRONG_UID_FIRST + RUNBOX_STRONG_UID_COUNT must not pass "
                                "2147483647 (uids stay positive 32-bit integers)");
        return false;
    }
    return true;
}

QString ConfigValues::describeSource(Key key) const {
    const Value& v = value(key);
    switch (v.source) {
    case OptionSource::Default:
        return v.origin.isEmpty() ? QStringLiteral("default")
                                  : QStringLiteral("default (%1)").arg(v.origin);
    case OptionSource::ConfigFile:
        return QStringLiteral("file %1").arg(v.origin);
    case OptionSource::Environment:
        return QStringLiteral("env %1").arg(v.origin);
    case OptionSource::CommandLine:
        return QStringLiteral("flag %1").arg(v.origin);
    }
    return {};
}

QString ConfigValues::displayValue(Key key) const {
    const OptionSpec& spec = optionSpec(key);
    const Value& v = value(key);
    QString shown;
    switch (spec.type) {
    case OptionType::Integer:
        return QString::number(v.number);
    case OptionType::Boolean:
        return v.boolean ? QStringLiteral("true") : QStringLiteral("false");
    case OptionType::PathList:
        shown = v.list.join(QLatin1Char(':'));
        break;
    default:
        shown = v.text;
    }
    if (shown.isEmpty())
        return spec.defaultNote
                   ? QStringLiteral("(not set; default: %1)").arg(QLatin1String(spec.defaultNote))
                   : QStringLiteral("(not set)");
    return shown;
}

QMap<QString, qint64> ConfigValues::quotaSeeds() const {
    QMap<QString, qint64> seeds;
    for (const OptionSpec& spec : configTable())
        if ((spec.flags & kSeedOnly) && isSet(spec.key))
            seeds.insert(QLatin1String(spec.name), number(spec.key));
    return seeds;
}

} // namespace runbox::config
